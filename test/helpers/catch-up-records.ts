// The records the replica catch-up tests publish: state_changed records of 40 sensors, each with
// its old and new state, as the primary's exporter sends them.
import type { EventRecord } from '../../store/types.ts';

const ENTITIES = 40;

/** Record `seq`; `oldState` replaces the sensor's previous new state as its old state. */
export function recordAt(seq: number, oldState?: unknown): EventRecord {
  const entityId = `sensor.catch_up_${seq % ENTITIES}`;
  const context = { id: `ctx-${seq}`, parent_id: null, user_id: null };
  const state = (n: number) => ({ entity_id: entityId, state: String(n), attributes: { unit_of_measurement: 'W' }, last_changed: 1_700_000_000_000 + n, last_reported: 1_700_000_000_000 + n, last_updated: 1_700_000_000_000 + n, context });
  return { seq, time: 1_700_000_000_000 + seq, stream: `entity/${entityId}`, type: 'state_changed', data: { entity_id: entityId, old_state: oldState !== undefined ? oldState : seq > ENTITIES ? state(seq - ENTITIES) : null, new_state: state(seq) }, context, origin: 'LOCAL' };
}
