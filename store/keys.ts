import { StoreError } from './errors.ts';
import type { EventRecord, HistoryOptions, NewEvent, ReadOptions } from './types.ts';

// LevelDB orders keys by bytes, so numbers are written as fixed-width lower-case hex: byte
// order is then numeric order. 16 digits hold any safe integer (seqs, and times in µs).
const WIDTH = 16;

/**
 * Separates a stream or entity id from the number(s) after it. It sorts before every other
 * character, so `id + SEP` .. `id + NEXT` covers exactly one id and never a longer one
 * sharing its prefix; ids therefore must not contain it.
 */
const SEP = '\x00';
const NEXT = '\x01';

/** The largest sequence number a key can hold. */
export const MAX_SEQ = Number.MAX_SAFE_INTEGER;

/** The record key of a sequence number (sorts as the number). */
export function seqKey(seq: number): string {
  return seq.toString(16).padStart(WIDTH, '0');
}

/** The sequence number of a record key, or of an index key (its last 16 characters). */
export function seqOfKey(key: string): number {
  return parseInt(key.length === WIDTH ? key : key.slice(-WIDTH), 16);
}

/** The per-stream index key: (stream, seq). */
export function streamKey(stream: string, seq: number): string {
  return stream + SEP + seqKey(seq);
}

/** The entity-and-time index key: (entity_id, time in µs, seq). */
export function historyKey(entityId: string, time: number, seq: number): string {
  return entityId + SEP + seqKey(micros(time)) + seqKey(seq);
}

/** The entity a record is indexed under for history, if it is a state change of one. */
export function historyEntity(record: NewEvent | EventRecord): string | undefined {
  if (record.type !== 'state_changed') return undefined;
  const id: unknown = record.data?.entity_id;
  return isIndexableId(id) ? id : undefined;
}

/** True when `id` can be part of an index key. */
export function isIndexableId(id: unknown): id is string {
  return typeof id === 'string' && id !== '' && !id.includes(SEP);
}

// Times are epoch ms with µs precision; whole µs keep the key an integer. Times before the
// epoch are not expected in a home's log and would break the unsigned encoding.
function micros(ms: number): number {
  return Math.min(Math.max(Math.round(ms * 1000), 0), MAX_SEQ);
}

/** Inclusive, whole-number seq bounds of a read, or undefined when the range is empty. */
export function seqBounds(options: ReadOptions): { first: number; last: number } | undefined {
  let first = 0;
  let last = MAX_SEQ;
  const { gt, gte, lt, lte } = options;
  if (gt !== undefined) first = Math.max(first, Math.floor(bound('gt', gt)) + 1);
  if (gte !== undefined) first = Math.max(first, Math.ceil(bound('gte', gte)));
  if (lt !== undefined) last = Math.min(last, Math.ceil(bound('lt', lt)) - 1);
  if (lte !== undefined) last = Math.min(last, Math.floor(bound('lte', lte)));
  return first <= last ? { first, last } : undefined;
}

/** Key range of the per-stream index for one stream between inclusive seq bounds. */
export function streamRange(stream: string, first: number, last: number): { gte: string; lte: string } {
  return { gte: streamKey(stream, first), lte: streamKey(stream, last) };
}

/** Key range of the per-stream index for every stream whose name starts with `prefix`. */
export function streamPrefixRange(prefix: string): { gte: string; lt?: string } {
  if (prefix === '') return { gte: '' };
  // the first string after every string that starts with the prefix
  const last = prefix.charCodeAt(prefix.length - 1);
  return { gte: prefix, lt: prefix.slice(0, -1) + String.fromCharCode(last + 1) };
}

/** The stream and seq of a per-stream index key. */
export function splitStreamKey(key: string): { stream: string; seq: number } {
  return { stream: key.slice(0, -(WIDTH + 1)), seq: seqOfKey(key) };
}

/** Key range of the entity-and-time index for one entity, `from`/`to` inclusive. */
export function historyRange(options: HistoryOptions): { gte: string; lt: string } | undefined {
  const { entityId, from, to } = options;
  const start = from === undefined ? 0 : micros(bound('from', from));
  const gte = entityId + SEP + seqKey(start);
  if (to === undefined) return { gte, lt: entityId + NEXT };
  const end = micros(bound('to', to));
  if (end < start) return undefined;
  return { gte, lt: end === MAX_SEQ ? entityId + NEXT : entityId + SEP + seqKey(end + 1) };
}

/** Level's convention: a missing or negative limit means no limit. */
export function limitOf(limit: number | undefined): number {
  return limit === undefined || limit < 0 ? Infinity : Math.floor(limit);
}

function bound(name: string, value: number): number {
  if (typeof value !== 'number' || Number.isNaN(value)) {
    throw new StoreError('HEARTH_INVALID_OPTIONS', `${name} must be a number, got ${String(value)}`);
  }
  return value;
}
