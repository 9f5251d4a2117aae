/**
 * History requests checked as the original checks them, in its order, with its messages:
 * `GET /api/history/period[/{timestamp}]` (history/__init__.py HistoryPeriodView) and the
 * WebSocket commands history/history_during_period and history/stream (history/websocket_api.py).
 */
import { validEntityId } from '../entities/state.ts';
import type { HistoryQuery } from './history.ts';
import { parseTime } from './time.ts';

const ONE_DAY = 86_400_000;

/** What the request is checked against. */
export interface RequestContext {
  now: number;
  /** the configured time zone: times without an offset are its wall-clock times */
  timeZone: string;
  /** whether an entity exists now (an existing id is taken even where the syntax check would not) */
  exists(entityId: string): boolean;
  /** whether the user may read the entity: the others are left out of the answer */
  canRead(entityId: string): boolean;
}

/** A checked request: its query, or `undefined` when the answer is empty without asking. */
export type Checked<E> = { ok: true; query: HistoryQuery | undefined } | ({ ok: false } & E);

const known = (ctx: RequestContext) => (id: string) => ctx.exists(id) || validEntityId(id);

/** The REST request; refusals are the original's 400 messages. */
export function periodRequest(timestamp: string | undefined, params: URLSearchParams, ctx: RequestContext): Checked<{ message: string }> {
  let asked: number | undefined;
  if (timestamp) {
    asked = parseTime(timestamp, ctx.timeZone);
    if (asked === undefined) return { ok: false, message: 'Invalid datetime' };
  }
  const filter = params.get('filter_entity_id');
  const ids = filter ? filter.trim().toLowerCase().split(',') : [];
  if (ids.length === 0) return { ok: false, message: 'filter_entity_id is missing' };
  if (!ids.every(known(ctx))) return { ok: false, message: 'Invalid filter_entity_id' };
  const start = asked ?? ctx.now - ONE_DAY;
  if (start > ctx.now) return { ok: true, query: undefined };
  let end = start + ONE_DAY;
  const endText = params.get('end_time');
  if (endText) {
    const parsed = parseTime(endText, ctx.timeZone);
    if (parsed === undefined) return { ok: false, message: 'Invalid end_time' };
    end = parsed;
  }
  const readable = ids.filter((id) => ctx.canRead(id));
  if (readable.length === 0) return { ok: true, query: undefined };
  return {
    ok: true,
    query: {
      entityIds: readable,
      start,
      end,
      includeStart: !params.has('skip_initial_state'),
      significantOnly: params.get('significant_changes_only') !== '0',
      minimal: params.has('minimal_response'),
      noAttributes: params.has('no_attributes'),
    },
  };
}

/** The fields both WebSocket commands take (their schema has checked the types). */
export interface HistoryMessage {
  start_time: string;
  end_time?: string;
  entity_ids: string[];
  include_start_time_state?: boolean;
  significant_changes_only?: boolean;
  minimal_response?: boolean;
  no_attributes?: boolean;
}

type WsRefusal = { code: string; message: string };

const invalidStart: WsRefusal = { code: 'invalid_start_time', message: 'Invalid start_time' };
const invalidEnd: WsRefusal = { code: 'invalid_end_time', message: 'Invalid end_time' };
const invalidIds: WsRefusal = { code: 'invalid_entity_ids', message: 'Invalid entity_ids' };
// the original's recorder raises ValueError for no ids, which its connection answers as
// unknown_error; a clear format error says what is wrong instead
const noIds: WsRefusal = { code: 'invalid_format', message: 'entity_ids must be provided' };

function wsQuery(msg: HistoryMessage, start: number, end: number | undefined, ctx: RequestContext): HistoryQuery {
  return {
    entityIds: msg.entity_ids.filter((id) => ctx.canRead(id)),
    start,
    end,
    includeStart: msg.include_start_time_state ?? true,
    significantOnly: msg.significant_changes_only ?? true,
    minimal: msg.minimal_response ?? false,
    noAttributes: msg.no_attributes ?? false,
  };
}

/** history/history_during_period; an empty answer is `{}`. */
export function duringPeriodRequest(msg: HistoryMessage, ctx: RequestContext): Checked<WsRefusal> {
  const start = parseTime(msg.start_time, ctx.timeZone);
  if (start === undefined) return { ok: false, ...invalidStart };
  let end: number | undefined;
  if (msg.end_time) {
    end = parseTime(msg.end_time, ctx.timeZone);
    if (end === undefined) return { ok: false, ...invalidEnd };
  }
  if (start > ctx.now) return { ok: true, query: undefined };
  if (!msg.entity_ids.every(known(ctx))) return { ok: false, ...invalidIds };
  if (msg.entity_ids.length === 0) return { ok: false, ...noIds };
  const query = wsQuery(msg, start, end, ctx);
  return { ok: true, query: query.entityIds.length > 0 ? query : undefined };
}

/**
 * history/stream: a start in the future, or an end before the start, is refused. The query's
 * `end` is the stream's end (undefined: it runs until unsubscribed).
 */
export function streamRequest(msg: HistoryMessage, ctx: RequestContext): { ok: true; query: HistoryQuery } | ({ ok: false } & WsRefusal) {
  const start = parseTime(msg.start_time, ctx.timeZone);
  if (start === undefined || start > ctx.now) return { ok: false, ...invalidStart };
  let end: number | undefined;
  if (msg.end_time) {
    end = parseTime(msg.end_time, ctx.timeZone);
    if (end === undefined || end < start) return { ok: false, ...invalidEnd };
  }
  if (!msg.entity_ids.every(known(ctx))) return { ok: false, ...invalidIds };
  if (msg.entity_ids.length === 0) return { ok: false, ...noIds };
  return { ok: true, query: wsQuery(msg, start, end, ctx) };
}
