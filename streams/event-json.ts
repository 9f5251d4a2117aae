import { isoformat } from '../machines/python/isoformat.ts';
import type { EventRecord } from '../store/types.ts';
import { stateJson, toJson } from '../actors/entities/state.ts';
import type { EntityState } from '../actors/entities/types.ts';

const cache = new WeakMap<EventRecord, string>();

const stateOrNull = (s: EntityState | null | undefined) => (s ? stateJson(s) : 'null');

/**
 * A bus record as the original's event object (`event_type, data, origin, time_fired,
 * context`), serialised once and shared by every subscriber. States inside state_changed
 * reuse each state's ready JSON.
 */
export function eventJson(r: EventRecord): string {
  let json = cache.get(r);
  if (json !== undefined) return json;
  const tail = `,"origin":"${r.origin ?? 'LOCAL'}","time_fired":"${isoformat(r.time)}","context":${toJson(r.context)}}`;
  // only entities' own records hold states; a state_changed a client fired holds what it sent
  const fromEntity = r.stream.startsWith('entity/');
  if (fromEntity && r.type === 'state_changed') {
    json = `{"event_type":"state_changed","data":{"entity_id":${JSON.stringify(r.data.entity_id)},"old_state":${stateOrNull(r.data.old_state)},"new_state":${stateOrNull(r.data.new_state)}}${tail}`;
  } else if (fromEntity && r.type === 'state_reported') {
    json = `{"event_type":"state_reported","data":{"entity_id":${JSON.stringify(r.data.entity_id)},"old_last_reported":"${isoformat(r.data.old_last_reported)}","new_state":${stateOrNull(r.data.new_state)}}${tail}`;
  } else {
    json = `{"event_type":${JSON.stringify(r.type)},"data":${toJson(r.data ?? {})}${tail}`;
  }
  cache.set(r, json);
  return json;
}
