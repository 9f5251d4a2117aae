import type { Context, EventRecord, NewEvent } from './types.ts';

/** One kind of record an area writes: its `type` and the `data` it holds. */
export interface RecordKind {
  type: string;
  data: unknown;
}

/** A committed record of one of the kinds of `K`: a `switch (r.type)` narrows `r.data`. */
export type RecordOf<K extends RecordKind> = K extends RecordKind ? Omit<EventRecord, 'type' | 'data'> & K : never;

/** A record of one of the kinds of `K` before the log numbers it. */
export type NewRecordOf<K extends RecordKind> = K extends RecordKind ? Omit<NewEvent, 'type' | 'data'> & K : never;

/** Every type of `K`, each once: a list the compiler keeps complete and exact. */
export type KindNames<K extends RecordKind> = { readonly [T in K['type']]: true };

/**
 * The records of streams under one prefix, as an area declares them beside its machine:
 * `owns` is the one checked narrowing from any record of the log to the area's union (its
 * stream under the prefix, its type one of the union's); `make` writes one of the union.
 */
export interface TypedRecords<K extends RecordKind> {
  readonly prefix: string;
  /** true for a record of a stream under the prefix whose type is one of the kinds */
  owns(record: EventRecord): record is RecordOf<K>;
  /** the same for a record not yet committed (one of a batch being made) */
  ownsNew(record: NewEvent): record is NewRecordOf<K>;
  /** a record of `stream` (which starts with the prefix) before the log numbers it */
  make<T extends K>(stream: string, kind: T, context: Context, time: number): Omit<NewEvent, 'type' | 'data'> & T;
}

/** Declares the records of the streams under `prefix`: `typedRecords<JobRecord>('job/', { job_created: true, ... })`. */
export function typedRecords<K extends RecordKind>(prefix: string, names: KindNames<K>): TypedRecords<K> {
  const known = new Set<string>(Object.keys(names));
  return {
    prefix,
    owns: (record): record is RecordOf<K> => record.stream.startsWith(prefix) && known.has(record.type),
    ownsNew: (record): record is NewRecordOf<K> => record.stream.startsWith(prefix) && known.has(record.type),
    make: (stream, kind, context, time) => ({ ...kind, time, stream, context }),
  };
}
