/**
 * The whole home at a moment of the log: each entity's state as its last record at or before
 * that moment left it. `hearth replay --state-at` folds the log it streams (StateFold); the log
 * explorer asks the indexes instead (statesAt), which touches only the entities that changed
 * after the moment. Both decide an entity's state the same way (stateLeftBy).
 */
import type { EventLog, EventRecord } from '../../store/types.ts';

export const ENTITY_STREAM = 'entity/';
const STATE_TYPES = new Set(['state_changed', 'state_reported']);

/** An entity state as the log stores it (times in epoch ms). */
export interface StoredState {
  entity_id: string;
  state: string;
  last_changed: number;
  [key: string]: unknown;
}

/**
 * The state a record leaves its entity in: the state, null when the record removed the entity,
 * undefined when the record is no state record of an entity stream (a client may fire a
 * `state_changed` on the bus with anything in it: that sets no entity's state).
 */
export function stateLeftBy(r: EventRecord): StoredState | null | undefined {
  if (!STATE_TYPES.has(r.type) || !r.stream.startsWith(ENTITY_STREAM)) return undefined;
  const next = r.data !== null && typeof r.data === 'object' ? (r.data as { new_state?: unknown }).new_state : undefined;
  return next !== null && typeof next === 'object' ? (next as StoredState) : null;
}

/** Entity states sorted by entity id (the order both replay and the explorer give them in). */
export function byEntityId(states: Iterable<StoredState>): StoredState[] {
  return [...states].sort((a, b) => (a.entity_id < b.entity_id ? -1 : a.entity_id > b.entity_id ? 1 : 0));
}

/**
 * Folds records given in seq order into the states at `at` (epoch ms): in seq order because that
 * is the order the states were decided in, whatever the clocks said; records timed after `at`
 * are passed over.
 */
export class StateFold {
  readonly #states = new Map<string, StoredState>();
  constructor(private readonly at: number) {}

  add(r: EventRecord): void {
    if (r.time > this.at) return;
    const state = stateLeftBy(r);
    if (state === undefined) return;
    const entityId = r.stream.slice(ENTITY_STREAM.length);
    if (state) this.#states.set(entityId, state);
    else this.#states.delete(entityId);
  }

  /** The states, sorted by entity id. */
  states(): StoredState[] {
    return byEntityId(this.#states.values());
  }
}

/** What the explorer knows of an entity stream's last record without reading it again. */
export interface LatestOfStream {
  seq: number;
  /** the state the record left (null: removed) */
  state: StoredState | null;
}

// Entity streams read at once when the moment is in the past: each is one index seek.
const CONCURRENT_LOOKUPS = 64;

/**
 * The states after record `seq`: an entity whose last record is at or before `seq` is as that
 * record left it (`latest`, kept up to date by the caller, needs no read); any other is read
 * back through the per-stream index, one seek for its last record at or before `seq`.
 */
export async function statesAt(log: Pick<EventLog, 'read'>, latest: ReadonlyMap<string, LatestOfStream>, seq: number): Promise<StoredState[]> {
  const out: StoredState[] = [];
  const pending: string[] = [];
  for (const [entityId, last] of latest) {
    if (last.seq <= seq) {
      if (last.state) out.push(last.state);
    } else pending.push(entityId);
  }
  let next = 0;
  const worker = async () => {
    while (next < pending.length) {
      const entityId = pending[next++];
      // rebuild: false, the old state a record only references is not wanted here
      for await (const r of log.read({ stream: ENTITY_STREAM + entityId, lte: seq, reverse: true, limit: 1, rebuild: false })) {
        const state = stateLeftBy(r);
        if (state) out.push(state);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENT_LOOKUPS, pending.length) }, worker));
  return byEntityId(out);
}
