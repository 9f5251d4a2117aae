// Reading the log: a seq range (all records, or one stream's through its index), an entity's
// history through the entity-and-time index, the records of streams under a prefix, records by
// seq. Every reader rebuilds what a record inherits from its stream's previous record (an
// entity's old_state), from what the read already met or by a lookup in the per-stream index.
import type { KeyIterator } from 'level';
import { decodeRecord, type Unresolved } from './codec.ts';
import { StoreError } from './errors.ts';
import { historyRange, isIndexableId, limitOf, seqBounds, seqKey, seqOfKey, streamPrefixRange, streamRange, splitStreamKey } from './keys.ts';
import { READ_BUFFER, READ_CHUNK, type KeySpaces, type Sublevel } from './log-db.ts';
import type { EventRecord, HistoryOptions, Inherit, ReadOptions } from './types.ts';

// Streams whose last record a forward read remembers, to fill in what the next record of the
// stream inherits from it; past this many, the read looks the rest up in the per-stream index.
const REMEMBERED_STREAMS = 50_000;

/** Where one read stands: what it still has to fill in, and the records it met. */
interface Reading {
  /** records decoded with a field to inherit (undefined: leave such fields null) */
  unresolved: Unresolved[] | undefined;
  /** each stream's last record met, when the read goes in seq order */
  seen: Map<string, unknown> | undefined;
  /** the record met last (0: none yet): in history it is usually the one the next inherits from */
  beforeSeq: number;
  beforeData: unknown;
}

const newReading = (rebuild: boolean, seen: Map<string, unknown> | undefined): Reading => ({
  unresolved: rebuild ? [] : undefined,
  seen: rebuild ? seen : undefined,
  beforeSeq: 0,
  beforeData: undefined,
});

/** Sets the field `record` inherits from the data of its stream's previous record (null when there is none). */
function fill(record: EventRecord, inherit: Inherit, previous: unknown): void {
  const value = previous !== null && typeof previous === 'object' ? (previous as Record<string, unknown>)[inherit.from] : undefined;
  record.data[inherit.field] = value ?? null;
}

/** Notes `record` as its stream's last one met by a read in seq order. */
function remember(seen: Map<string, unknown> | undefined, record: EventRecord): void {
  if (!seen) return;
  // a read over very many streams stops remembering and looks the rest up
  if (seen.size >= REMEMBERED_STREAMS && !seen.has(record.stream)) seen.clear();
  seen.set(record.stream, record.data);
}

/**
 * Yields the chunks `fetch` returns until an empty one, asking for the next chunk before
 * handing out the current one, so LevelDB reads while the caller decodes.
 */
async function* prefetched<T>(fetch: () => Promise<T[]>, close: () => Promise<void>): AsyncGenerator<T[]> {
  let next = fetch();
  // a read ahead that fails while the caller is busy is reported when awaited, not as unhandled
  next.catch(() => undefined);
  try {
    for (;;) {
      const chunk = await next;
      if (chunk.length === 0) return;
      next = fetch();
      next.catch(() => undefined);
      yield chunk;
    }
  } finally {
    // the iterator cannot close under a read in progress
    await next.catch(() => undefined);
    await close();
  }
}

/** The log's reads over its key spaces; `assertOpen` refuses a read of a closed log. */
export class LogReader {
  readonly #records: Sublevel;
  readonly #byStream: Sublevel;
  readonly #byEntityTime: Sublevel;
  readonly #assertOpen: (operation: string) => void;

  constructor(spaces: KeySpaces, assertOpen: (operation: string) => void) {
    this.#records = spaces.records;
    this.#byStream = spaces.byStream;
    this.#byEntityTime = spaces.byEntityTime;
    this.#assertOpen = assertOpen;
  }

  /** The records of a seq range, all or of one stream (EventLog.read). */
  async *read(options: ReadOptions): AsyncGenerator<EventRecord> {
    this.#assertOpen('read');
    const bounds = seqBounds(options);
    const limit = limitOf(options.limit);
    if (!bounds || limit === 0) return;
    const reverse = options.reverse ?? false;
    const rebuild = options.rebuild ?? true;
    // in seq order, a stream's previous record is the last one of it this read has met
    const seen = reverse || !rebuild ? undefined : new Map<string, unknown>();
    if (options.stream !== undefined) {
      if (!isIndexableId(options.stream)) return;
      const keys = this.#byStream.keys({ ...streamRange(options.stream, bounds.first, bounds.last), reverse, limit });
      yield* this.#lookup(keys, seen, rebuild);
      return;
    }
    const entries = this.#records.iterator({
      gte: seqKey(bounds.first),
      lte: seqKey(bounds.last),
      reverse,
      limit,
      ...READ_BUFFER,
    });
    const reading = newReading(rebuild, seen);
    for await (const chunk of prefetched(() => entries.nextv(READ_CHUNK), () => entries.close())) {
      yield* await this.#decode(chunk.map(([key]) => seqOfKey(key)), chunk.map(([, value]) => value), reading);
    }
  }

  /** The records of the given seqs, undefined where there is none (EventLog.get). */
  async get(seqs: number[]): Promise<(EventRecord | undefined)[]> {
    this.#assertOpen('get');
    const out: (EventRecord | undefined)[] = new Array(seqs.length);
    for (let from = 0; from < seqs.length; from += READ_CHUNK) {
      const part = seqs.slice(from, from + READ_CHUNK);
      const values = await this.#records.getMany(part.map((seq) => seqKey(Number.isSafeInteger(seq) && seq > 0 ? seq : 0)));
      for (let at = 0; at < part.length; at++) out[from + at] = values[at] === undefined ? undefined : decodeRecord(part[at], values[at]!);
    }
    return out;
  }

  /** Each stream under `prefix` with the seqs of its records, from the index alone (EventLog.streamSeqs). */
  async *streamSeqs(prefix: string): AsyncGenerator<{ stream: string; seq: number }> {
    this.#assertOpen('streamSeqs');
    const keys = this.#byStream.keys({ ...streamPrefixRange(prefix), ...READ_BUFFER });
    try {
      for (;;) {
        const chunk = await keys.nextv(READ_CHUNK * 4);
        if (chunk.length === 0) break;
        for (const key of chunk) yield splitStreamKey(key);
      }
    } finally {
      await keys.close();
    }
  }

  /** The records of the streams under `prefix` after `after`, or each one's last only (EventLog.readStreams). */
  async *readStreams(prefix: string, after: number, latest: boolean): AsyncGenerator<EventRecord> {
    this.#assertOpen('readStreams');
    // keys only: a restore of 1M records over 10k streams never parses the 990k it does not need
    const keys = this.#byStream.keys({ ...streamPrefixRange(prefix), ...READ_BUFFER });
    const seqs: number[] = [];
    let stream = '';
    let lastOfStream = 0;
    try {
      for (;;) {
        const chunk = await keys.nextv(READ_CHUNK * 4);
        if (chunk.length === 0) break;
        for (const key of chunk) {
          const entry = splitStreamKey(key);
          if (entry.seq <= after) continue;
          if (!latest) seqs.push(entry.seq);
          else if (entry.stream !== stream) {
            if (lastOfStream) seqs.push(lastOfStream);
            stream = entry.stream;
            lastOfStream = entry.seq;
          } else lastOfStream = entry.seq;
        }
      }
    } finally {
      await keys.close();
    }
    if (latest && lastOfStream) seqs.push(lastOfStream);
    seqs.sort((left, right) => left - right);
    // the last record of each stream is read for the whole state it holds: what it inherits stays null
    const reading = newReading(!latest, latest ? undefined : new Map());
    for (let from = 0; from < seqs.length; from += READ_CHUNK) {
      const part = seqs.slice(from, from + READ_CHUNK);
      yield* await this.#decode(part, await this.#records.getMany(part.map(seqKey)), reading);
    }
  }

  /** An entity's state_changed records in a time window (EventLog.history). */
  async *history(options: HistoryOptions): AsyncGenerator<EventRecord> {
    this.#assertOpen('history');
    if (!isIndexableId(options.entityId)) {
      throw new StoreError('HEARTH_INVALID_OPTIONS', `history needs an entityId, got ${String(options.entityId)}`);
    }
    const range = historyRange(options);
    const limit = limitOf(options.limit);
    if (!range || limit === 0) return;
    yield* this.#lookup(this.#byEntityTime.keys({ ...range, reverse: options.reverse ?? false, limit }), undefined, options.rebuild ?? true);
  }

  /**
   * The records of stored values in the order given, skipping values a purge running alongside
   * removed after an index was read, with what they inherit filled in (see #inherit).
   */
  async #decode(seqs: number[], values: (string | undefined)[], reading: Reading): Promise<EventRecord[]> {
    const { unresolved, seen } = reading;
    const records: EventRecord[] = [];
    const lookups: Promise<void>[] = [];
    for (let at = 0; at < seqs.length; at++) {
      const value = values[at];
      if (value === undefined) continue;
      const record = decodeRecord(seqs[at], value, unresolved);
      if (unresolved && unresolved.length > 0) this.#inherit(unresolved, seen, lookups, reading);
      remember(seen, record);
      reading.beforeSeq = record.seq;
      reading.beforeData = record.data;
      records.push(record);
    }
    if (lookups.length > 0) await Promise.all(lookups);
    return records;
  }

  /**
   * Fills in the inherited fields of `unresolved` (and empties it): at once from the stream's
   * last record met by this read when `seen` knows the stream, else by a lookup in the log
   * (which uses the record met last when it is the one), pushed to `lookups` for the caller to
   * await together with the rest of its chunk.
   */
  #inherit(unresolved: Unresolved[], seen: Map<string, unknown> | undefined, lookups: Promise<void>[], reading: Reading): void {
    const before = reading.beforeSeq === 0 ? undefined : { seq: reading.beforeSeq, data: reading.beforeData };
    for (const { record, inherit } of unresolved) {
      if (seen?.has(record.stream)) fill(record, inherit, seen.get(record.stream));
      else lookups.push(this.#previousData(record.stream, record.seq, before).then((data) => fill(record, inherit, data)));
    }
    unresolved.length = 0;
  }

  /** The data of the record of `stream` just before `seq`, if there is one. */
  async #previousData(stream: string, seq: number, before?: { seq: number; data: unknown }): Promise<unknown> {
    const previous = await this.#previousSeq(stream, seq);
    if (previous === undefined) return undefined;
    if (previous === before?.seq) return before.data;
    const value = await this.#records.get(seqKey(previous));
    return value === undefined ? undefined : decodeRecord(previous, value).data;
  }

  /** The seq of the record of `stream` just before `seq`, if there is one. */
  async #previousSeq(stream: string, seq: number): Promise<number | undefined> {
    if (seq <= 1) return undefined;
    const [key] = await this.#byStream.keys({ ...streamRange(stream, 0, seq - 1), reverse: true, limit: 1 }).all();
    return key === undefined ? undefined : seqOfKey(key);
  }

  /**
   * Yields the records an index iterator points at, in the index's order; `seen` when that order
   * is one stream's seq order (what each record inherits is then the record before it).
   */
  async *#lookup(keys: KeyIterator<Sublevel, string>, seen?: Map<string, unknown>, rebuild = true): AsyncGenerator<EventRecord> {
    // one batch of index keys and their records per step (none when the index is exhausted)
    const fetch = async (): Promise<{ seqs: number[]; values: (string | undefined)[] }[]> => {
      const chunk = await keys.nextv(READ_CHUNK);
      if (chunk.length === 0) return [];
      const seqs = chunk.map(seqOfKey);
      return [{ seqs, values: await this.#records.getMany(seqs.map(seqKey)) }];
    };
    const reading = newReading(rebuild, seen);
    for await (const [{ seqs, values }] of prefetched(fetch, () => keys.close())) yield* await this.#decode(seqs, values, reading);
  }
}
