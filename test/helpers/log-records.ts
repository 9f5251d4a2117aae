// Reading a log's records back in a test: one copy of the loops tests wrote each for itself.
import type { EventRecord, ReadOptions } from '../../store/types.ts';

/** What a test reads records from: a log, a replica's log, a supervisor's log. */
export interface Readable {
  read(options?: ReadOptions): AsyncIterable<EventRecord>;
}

/** Everything an async iterable yields, in order. */
export async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

/** The records of `log` (within `options`) that `keep` keeps, in order. */
export async function recordsWhere(log: Readable, keep: (r: EventRecord) => boolean = () => true, options?: ReadOptions): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const r of log.read(options)) if (keep(r)) out.push(r);
  return out;
}

/** The records of `log` on streams starting with `prefix` (every record with ''), in order. */
export function recordsOn(log: Readable, prefix = '', options?: ReadOptions): Promise<EventRecord[]> {
  return recordsWhere(log, (r) => r.stream.startsWith(prefix), options);
}

/** Every record of `log`, in order. */
export function allRecords(log: Readable): Promise<EventRecord[]> {
  return recordsWhere(log);
}
