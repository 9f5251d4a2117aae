import type { Bus } from './bus.ts';
import type { EventRecord } from '../store/types.ts';
import type { EntityState } from '../actors/entities/types.ts';
import { toJson } from '../actors/entities/state.ts';
import { History, recordedState, type EntityHistory, type HistoryQuery } from '../actors/history/history.ts';
import { compressedRows, forwardsLive, liveCompressedState } from '../actors/history/rows.ts';

/** The original waits this long after a change so that a burst goes out as one message. */
export const COALESCE_MS = 350;
/** Changes a stream holds unsent; past it the stream ends (the original's MAX_PENDING_HISTORY_STATES). */
export const MAX_PENDING = 1024;
// setTimeout takes at most a signed 32-bit delay; a later end is reached in steps
const MAX_DELAY = 2 ** 31 - 1;

export interface HistoryStreamOptions {
  history: History;
  bus: Bus;
  /** `end` is where the stream stops (undefined: when unsubscribed) */
  query: HistoryQuery;
  now(): number;
  canRead(entityId: string): boolean;
  /** sends one event of the subscription (its JSON) */
  send(eventJson: string): void;
  /** who the stream is for, in log lines */
  who: string;
  logLine(line: string): void;
  coalesceMs?: number;
}

/** The message of a stream's history part: the rows, and the span they cover in epoch seconds. */
function historyEvent(answers: EntityHistory[], q: HistoryQuery, start: number, fallbackEnd: number): string {
  const states: Record<string, unknown> = {};
  let lastTime = 0;
  for (const a of answers) {
    states[a.entityId] = compressedRows(a.entityId, a.points, q);
    lastTime = Math.max(lastTime, a.points[a.points.length - 1].lastUpdated);
  }
  // the span ends at the last row sent, or where the question ended when there was none
  return `{"states":${toJson(states)},"start_time":${start / 1000},"end_time":${(lastTime || fallbackEnd) / 1000}}`;
}

/**
 * history/stream (the original's `ws_stream`): the states recorded since the query's start, then
 * each change of the asked entities as it is committed, until the end or `stop()`. Changes are
 * taken from the bus before the history is read, and a change the history already held (its
 * seq is not above the last one read for its entity) is not sent again, so none is lost or
 * doubled between the two parts.
 */
export function openHistoryStream(options: HistoryStreamOptions): { stop(): void; /** settles (never rejects) once the history part is out */ started: Promise<void> } {
  const q = options.query;
  const now = options.now();
  let stopped = false;

  if (q.end !== undefined && q.end <= now) {
    // all in the past: the history part alone
    const started = options.history.query(q).then(
      (answers) => {
        if (!stopped) options.send(historyEvent(answers, q, q.start, q.end!));
      },
      (err) => options.logLine(`history/stream of ${options.who} failed reading the history: ${(err as Error)?.stack ?? err}`),
    );
    return { stop: () => void (stopped = true), started };
  }

  const wanted = new Set(q.entityIds);
  const significantOnly = q.significantOnly || q.minimal;
  let lastSeqs: Map<string, number> | undefined;
  let buffered: { seq: number; entityId: string; state: EntityState }[] = [];
  let timer: NodeJS.Timeout | undefined;
  let endTimer: NodeJS.Timeout | undefined;

  const flush = () => {
    timer = undefined;
    const batch = buffered;
    buffered = [];
    const states: Record<string, Record<string, unknown>[]> = {};
    for (const { entityId, state } of batch) (states[entityId] ??= []).push(liveCompressedState(state, q.noAttributes));
    if (batch.length > 0) options.send(`{"states":${toJson(states)}}`);
  };

  const take = (r: EventRecord) => {
    if (stopped) return;
    const entityId = r.data?.entity_id;
    if (typeof entityId !== 'string' || !wanted.has(entityId) || !options.canRead(entityId)) return;
    const next = recordedState(r);
    const old = recordedState(r, 'old_state');
    if (next === undefined || old === undefined || !forwardsLive(entityId, old, next, significantOnly)) return;
    if (lastSeqs && r.seq <= (lastSeqs.get(entityId) ?? 0)) return;
    buffered.push({ seq: r.seq, entityId, state: next! });
    if (buffered.length > MAX_PENDING) {
      options.logLine(`history/stream of ${options.who} ended: more than ${MAX_PENDING} changes were waiting to be sent`);
      return stop();
    }
    // until the history part is out, changes wait; then the first of a burst opens a window
    if (lastSeqs && !timer) timer = setTimeout(flush, options.coalesceMs ?? COALESCE_MS);
  };

  const subscription = options.bus.listen('state_changed', `history/stream of ${options.who}`, take);

  const stop = () => {
    if (stopped) return;
    stopped = true;
    subscription.unsubscribe();
    clearTimeout(timer);
    clearTimeout(endTimer);
    buffered = [];
  };

  if (q.end !== undefined) {
    const end = q.end;
    const arm = () => {
      const wait = end - options.now();
      endTimer = wait > MAX_DELAY ? setTimeout(arm, MAX_DELAY) : setTimeout(stop, Math.max(0, wait));
    };
    arm();
  }

  const started = options.history.read({ ...q, end: undefined }).then((read) => {
    if (stopped) return;
    options.send(historyEvent(read.filter((a) => a.points.length > 0), q, q.start, now));
    lastSeqs = new Map(read.map((a) => [a.entityId, a.lastSeq]));
    buffered = buffered.filter((c) => c.seq > (lastSeqs!.get(c.entityId) ?? 0));
    if (buffered.length > 0) timer = setTimeout(flush, options.coalesceMs ?? COALESCE_MS);
  });
  return {
    stop,
    started: started.catch((err) => {
      options.logLine(`history/stream of ${options.who} failed reading the history: ${(err as Error)?.stack ?? err}`);
      stop();
    }),
  };
}
