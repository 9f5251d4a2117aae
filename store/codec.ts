import { StoreError, messageOf } from './errors.ts';
import { isIndexableId } from './keys.ts';
import type { EventRecord, Inherit, NewEvent } from './types.ts';
import { sourceOf, tokenOf, withSource, withToken, type ContextSource } from './context-token.ts';
import { frozenJson } from './frozen-json.ts';

// A record is stored as a JSON array rather than an object: field names would be most of the
// bytes of a small event. The seq is the key, so it is not repeated in the value.
// [time, stream, type, data, context.id, context.parent_id, context.user_id, origin?, inherit?, token?, source?]
// where inherit is [field, from]: data[field] is stored as null and means data[from] of the
// stream's previous record (origin is then null when the record has none). token is the id of
// the refresh token whose request made the context (store/context-token.ts); the slots before
// it are then null when the record has none. source says where a change nobody asked for came
// from (an MQTT message: `{via, topic}`), likewise after null slots. Records written before
// either simply end earlier.
type Stored = [number, string, string, any, string, string | null, string | null, ('LOCAL' | 'REMOTE' | null)?, ([string, string] | null)?, (string | null)?, (ContextSource | null)?];

/** A decoded record whose `data[inherit.field]` is still to be taken from the stream's previous record. */
export interface Unresolved {
  record: EventRecord;
  inherit: Inherit;
}

/** The stored form of a record, or a StoreError naming what makes the event unstorable. */
export function encodeRecord(event: NewEvent): string {
  const { time, stream, type, data, context, origin } = event;
  if (typeof time !== 'number' || !Number.isFinite(time) || time < 0) {
    throw invalid(`time must be epoch milliseconds, got ${String(time)}`);
  }
  if (!isIndexableId(stream)) throw invalid(`stream must be a non-empty string without NUL, got ${String(stream)}`);
  if (typeof type !== 'string' || type === '') throw invalid(`type must be a non-empty string (stream ${stream})`);
  if (context === null || typeof context !== 'object' || typeof context.id !== 'string') {
    throw invalid(`context.id must be a string (stream ${stream}, type ${type})`);
  }
  const inherit = event.inherit;
  const stored: Stored = [time, stream, type, data, context.id, context.parent_id ?? null, context.user_id ?? null];
  if (inherit !== undefined) {
    if (typeof inherit.field !== 'string' || typeof inherit.from !== 'string' || data === null || typeof data !== 'object') {
      throw invalid(`inherit needs data to be an object and field/from to be strings (stream ${stream}, type ${type})`);
    }
    // the same keys in the same order, the inherited one null: a reference costs 4 bytes
    stored[3] = { ...data, [inherit.field]: null };
    stored.push(origin ?? null, [inherit.field, inherit.from]);
  } else if (origin !== undefined) stored.push(origin);
  const token = tokenOf(context);
  if (token !== undefined) {
    while (stored.length < 9) stored.push(null);
    stored.push(token);
  }
  const source = sourceOf(context);
  if (source !== undefined) {
    while (stored.length < 10) stored.push(null);
    stored.push(source);
  }
  try {
    if (inherit === undefined) return JSON.stringify(stored);
    // as JSON.stringify(stored) writes it, with the member the next record of the stream will
    // reference (an entity's new_state) written through frozenJson, for the exporter to reuse
    const head = JSON.stringify(stored.slice(0, 3));
    const rest = JSON.stringify(stored.slice(4));
    return `${head.slice(0, -1)},${dataText(stored[3], inherit.from)},${rest.slice(1)}`;
  } catch (err) {
    throw invalid(`data of ${type} on ${stream} is not JSON: ${messageOf(err)}`, err);
  }
}

/**
 * The record a stored value holds, with the seq taken from its key. A field it inherits from the
 * stream's previous record reads as null; pass `unresolved` to be told of it and fill it in.
 */
export function decodeRecord(seq: number, value: string, unresolved?: Unresolved[]): EventRecord {
  let s: Stored;
  try {
    s = JSON.parse(value);
  } catch (err) {
    throw new StoreError('HEARTH_LOG_CORRUPT', `record ${seq} is not valid JSON: ${messageOf(err)}`, { cause: err });
  }
  const record: EventRecord = {
    seq,
    time: s[0],
    stream: s[1],
    type: s[2],
    data: s[3],
    context: { id: s[4], parent_id: s[5], user_id: s[6] },
  };
  if (s.length > 7 && s[7] !== null) record.origin = s[7]!;
  if (s.length > 8 && s[8] && unresolved) {
    const [field, from] = s[8];
    unresolved.push({ record, inherit: { field, from } });
  }
  if (s.length > 9 && typeof s[9] === 'string') withToken(record.context, s[9]);
  if (s.length > 10 && s[10] && typeof s[10] === 'object') withSource(record.context, s[10]);
  return record;
}

/** The record of an event once it has its seq, shaped as read() returns it. */
export function withSeq(seq: number, event: NewEvent): EventRecord {
  const { time, stream, type, data, context, origin } = event;
  // the context is rebuilt so a live record has exactly the shape a replayed one has
  const ctx = { id: context.id, parent_id: context.parent_id ?? null, user_id: context.user_id ?? null };
  const record: EventRecord = { seq, time, stream, type, data, context: ctx };
  if (origin !== undefined) record.origin = origin;
  return record;
}

/** JSON.stringify(data) for a plain object, its member `frozen` through frozenJson when an object. */
function dataText(data: Record<string, unknown>, frozen: string): string {
  const parts: string[] = [];
  for (const key of Object.keys(data)) {
    const value = data[key];
    const text = key === frozen && value !== null && typeof value === 'object' ? frozenJson(value) : (JSON.stringify(value) as string | undefined);
    // undefined, functions and symbols are left out, as JSON.stringify leaves them out
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

function invalid(message: string, cause?: unknown): StoreError {
  return new StoreError('HEARTH_INVALID_EVENT', message, cause === undefined ? undefined : { cause });
}
