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

/** What the explorer keeps of one entity stream: the seqs of its records, and the state its last one left. */
export interface EntityTrack {
  /** ascending */
  seqs: number[];
  /** the state the last record left (null: removed) */
  state: StoredState | null;
}

/** The last of the ascending `seqs` at or below `seq`, or 0. */
function lastAtOrBelow(seqs: number[], seq: number): number {
  let lo = 0;
  let hi = seqs.length - 1;
  let found = 0;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (seqs[mid] <= seq) {
      found = seqs[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

/**
 * The states after record `seq`: an entity whose last record is at or before `seq` is as that
 * record left it (kept in `tracks`, no read); for any other, its last record at or before `seq`
 * is found among its seqs, and all of those records are fetched in one batch lookup.
 */
export async function statesAt(log: Pick<EventLog, 'get'>, tracks: ReadonlyMap<string, EntityTrack>, seq: number): Promise<StoredState[]> {
  const out: StoredState[] = [];
  const wanted: number[] = [];
  for (const track of tracks.values()) {
    const last = track.seqs[track.seqs.length - 1];
    if (last === undefined) continue;
    if (last <= seq) {
      if (track.state) out.push(track.state);
      continue;
    }
    const then = lastAtOrBelow(track.seqs, seq);
    if (then > 0) wanted.push(then);
  }
  // in seq order: neighbouring keys of one LevelDB lookup share its blocks
  wanted.sort((a, b) => a - b);
  for (const r of await log.get(wanted)) {
    // a record purged since is history the log no longer has: its entity is left out
    const state = r ? stateLeftBy(r) : undefined;
    if (state) out.push(state);
  }
  return byEntityId(out);
}
