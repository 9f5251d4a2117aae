/**
 * State history from the log, as the original's recorder answers it: each entity's states in a
 * window, read through the entity-and-time index (one range per entity, never a scan of the
 * log), with the state at the window's start first.
 */
import type { EventLog, EventRecord } from '../../store/types.ts';
import { fromStateDict } from '../entities/state.ts';
import type { EntityState } from '../entities/types.ts';
import { compressedRows, isSignificant, pointOf, restRowsJson, type Point } from './rows.ts';

/** One history question; times are epoch ms. */
export interface HistoryQuery {
  /** in the order asked (the answer keeps it); repeats are answered once */
  entityIds: string[];
  start: number;
  /** exclusive; undefined: everything recorded after `start` */
  end: number | undefined;
  /** the state at `start` (the last one recorded before it) comes first, timed at `start` */
  includeStart: boolean;
  /** states whose string did not change are left out, except in the significant domains */
  significantOnly: boolean;
  minimal: boolean;
  noAttributes: boolean;
}

/** One entity's answer. */
export interface EntityHistory {
  entityId: string;
  points: Point[];
  /** the highest seq read for the entity (0: none): what a live stream has already sent */
  lastSeq: number;
}

export interface HistoryDeps {
  log: EventLog;
  /** the entity's current state, if it exists */
  current(entityId: string): EntityState | undefined;
}

// The index is inclusive and whole µs; the original's bounds are exclusive.
const MICROSECOND = 0.001;

const STATE_STREAM = 'entity/';

// Entities read at once: a request naming thousands must not open thousands of iterators together.
const CONCURRENT_ENTITIES = 32;

/**
 * The state a `state_changed` record set: null for a removal, undefined when the record holds
 * no state (a client may fire a `state_changed` event with anything in it; one whose new state
 * is a full state dict is recorded by the original too, so it counts).
 */
export function recordedState(record: EventRecord, field: 'new_state' | 'old_state' = 'new_state'): EntityState | null | undefined {
  const next: unknown = record.data?.[field];
  if (record.stream.startsWith(STATE_STREAM)) return (next as EntityState | null) ?? null;
  if (next === null || typeof next !== 'object' || Array.isArray(next)) return undefined;
  const d = next as Record<string, unknown>;
  const attributes = d.attributes ?? {};
  if (typeof d.state !== 'string' || typeof d.last_updated !== 'string' || typeof d.last_changed !== 'string') return undefined;
  if (attributes === null || typeof attributes !== 'object' || Array.isArray(attributes)) return undefined;
  const state = fromStateDict({ ...d, entity_id: record.data.entity_id });
  return Number.isNaN(state.last_updated) || Number.isNaN(state.last_changed) ? undefined : state;
}

export class History {
  constructor(private readonly deps: HistoryDeps) {}

  /** Each asked entity's states, in the order asked; entities with nothing to show are left out. */
  async query(q: HistoryQuery): Promise<EntityHistory[]> {
    return (await this.read(q)).filter((a) => a.points.length > 0);
  }

  /** What `query` answers, with the entities that have nothing to show (and the last seq read of each). */
  async read(q: HistoryQuery): Promise<EntityHistory[]> {
    const ids = [...new Set(q.entityIds)];
    if (!q.includeStart && !this.mayHaveChangesAfter(ids, q.start, q.noAttributes)) return [];
    const out: EntityHistory[] = new Array(ids.length);
    let next = 0;
    const worker = async () => {
      while (next < ids.length) {
        const i = next++;
        out[i] = await this.entity(ids[i], q);
      }
    };
    await Promise.all(Array.from({ length: Math.min(CONCURRENT_ENTITIES, ids.length) }, worker));
    return out;
  }

  /** The REST answer: a list with one list of state dicts per entity. */
  async periodJson(q: HistoryQuery): Promise<string> {
    const answers = await this.query(q);
    return `[${answers.map((a) => restRowsJson(a.entityId, a.points, q)).join(',')}]`;
  }

  /** The WebSocket answer: compressed rows by entity id. */
  async compressed(q: HistoryQuery): Promise<Record<string, Record<string, unknown>[]>> {
    const out: Record<string, Record<string, unknown>[]> = {};
    for (const a of await this.query(q)) out[a.entityId] = compressedRows(a.entityId, a.points, q);
    return out;
  }

  /**
   * False when every entity exists and has not changed since `start` (its state string, when
   * attributes are not asked for): without the start state there is then nothing to show. The
   * original asks its state machine this first, and so answers without reading history.
   */
  private mayHaveChangesAfter(ids: string[], start: number, noAttributes: boolean): boolean {
    for (const id of ids) {
      const state = this.deps.current(id);
      if (!state || (noAttributes ? state.last_changed : state.last_updated) > start) return true;
    }
    return ids.length === 0;
  }

  private async entity(entityId: string, q: HistoryQuery): Promise<EntityHistory> {
    const { log } = this.deps;
    const points: Point[] = [];
    let lastSeq = 0;
    if (q.includeStart) {
      // the last state recorded before the window: one step back in the index
      for await (const r of log.history({ entityId, to: q.start - MICROSECOND, reverse: true, limit: 1, rebuild: false })) {
        const state = recordedState(r);
        if (state !== undefined) points.push({ ...pointOf(state, r.time, r.seq, false), lastUpdated: q.start, lastChanged: undefined });
      }
    }
    const to = q.end === undefined ? undefined : q.end - MICROSECOND;
    if (to !== undefined && to < q.start + MICROSECOND) return { entityId, points, lastSeq };
    for await (const r of log.history({ entityId, from: q.start + MICROSECOND, to, rebuild: false })) {
      if (r.seq > lastSeq) lastSeq = r.seq;
      const state = recordedState(r);
      if (state === undefined || (q.significantOnly && !isSignificant(entityId, state))) continue;
      points.push(pointOf(state, r.time, r.seq, !q.significantOnly));
    }
    return { entityId, points, lastSeq };
  }
}
