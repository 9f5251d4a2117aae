import { statfs } from 'node:fs/promises';
import { Level, type ChainedBatch, type KeyIterator } from 'level';
import { decodeRecord, encodeRecord, withSeq, type Unresolved } from './codec.ts';
import { StoreError, messageOf } from './errors.ts';
import { GroupCommit } from './group-commit.ts';
import { exportLog, type ExportManifest, type ExportOptions } from './log-export.ts';
import {
  historyEntity,
  historyKey,
  historyRange,
  isIndexableId,
  limitOf,
  seqBounds,
  seqKey,
  seqOfKey,
  streamKey,
  streamRange,
  streamPrefixRange,
  splitStreamKey,
} from './keys.ts';
import type {
  EventLog,
  EventLogOptions,
  EventRecord,
  HistoryOptions,
  Inherit,
  NewEvent,
  ReadOptions,
  Snapshot,
} from './types.ts';

type Db = Level<string, string>;
type Sublevel = ReturnType<typeof sublevel>;
type Batch = ChainedBatch<Db, string, string>;

/** One append() call on its way to the disk. */
interface Pending {
  records: EventRecord[];
  /** its LevelDB puts as key, value, key, value..., keys already carrying their sublevel prefix */
  puts: string[];
}

// Entries fetched per iterator step: large enough to amortise the native round trip, small
// enough that a reader stopping early has not decoded much.
const READ_CHUNK = 1000;
// LevelDB's default of 16 KiB per step would return ~50 records at a time; a full replay
// spends less time crossing into native code with larger steps.
const READ_BUFFER = { highWaterMarkBytes: 256 * 1024 };
// Streams whose last record a forward read remembers, to fill in what the next record of the
// stream inherits from it; past this many, the read looks the rest up in the per-stream index.
const REMEMBERED_STREAMS = 50_000;
// Records examined, and at most deleted, per purge batch, so a purge never builds one huge batch.
const PURGE_CHUNK = 1000;
const LAST_SEQ = 'last_seq';
// After a failed write the log is reopened only once the disk has this much room: reopening
// writes LevelDB's memtable (up to 4 MiB) to a table file, and a reopen that fails leaves the
// log closed for reads as well.
const MIN_FREE_BYTES = 8 * 1024 * 1024;
// A reopen that failed for another reason than space (EIO...) is not retried sooner than this.
const RETRY_MS = 1000;

/** A group write that failed: its keys, in case LevelDB recovers it on reopen after all. */
interface FailedWrite {
  /** a record key of the write; the batch is atomic, so if it is absent the whole write is */
  probe: string;
  keys: string[];
}

/** Opens (creating if missing) the event log at `options.path` and finds its last seq. */
export async function openEventLog(options: EventLogOptions): Promise<EventLog> {
  const commit = options.commit ?? 'durable';
  if (commit !== 'durable' && commit !== 'fast') {
    throw new StoreError('HEARTH_INVALID_OPTIONS', `commit must be 'durable' or 'fast', got ${String(commit)}`);
  }
  const db: Db = new Level<string, string>(options.path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  try {
    await db.open();
  } catch (err) {
    // LevelDB's own message is generic; the cause (often a lock held by another process) is one level down
    const cause = err instanceof Error && err.cause !== undefined ? err.cause : err;
    throw new StoreError(
      'HEARTH_LOG_OPEN_FAILED',
      `cannot open the event log at ${options.path}: ${messageOf(cause)}`,
      { cause: err },
    );
  }
  const say = options.log ?? ((line: string) => console.error(line));
  const log = new LevelEventLog(db, options.path, commit === 'durable', say);
  await log.recover();
  return log;
}

class LevelEventLog implements EventLog {
  readonly #db: Db;
  readonly #path: string;
  readonly #sync: boolean;
  readonly #say: (line: string) => void;
  readonly #records: Sublevel;
  readonly #byStream: Sublevel;
  readonly #byEntityTime: Sublevel;
  readonly #snapshots: Sublevel;
  readonly #meta: Sublevel;
  readonly #commits: GroupCommit<Pending>;
  readonly #listeners = new Set<(records: EventRecord[]) => void>();
  readonly #tasks = new Set<Promise<unknown>>();
  #assigned = 0;
  #committed = 0;
  #purging: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;
  /** LevelDB writes one at a time, so none lands behind a failed one before the repair */
  #writeLock: Promise<void> = Promise.resolve();
  /** why the last write failed; set until a reopen has given LevelDB a fresh write-ahead log */
  #broken: Error | undefined;
  #failed: FailedWrite[] = [];
  #retryAt = 0;
  /** the current run of failures, for the line logged when writing works again */
  #outage: { since: number; refused: number } | undefined;

  constructor(db: Db, path: string, sync: boolean, say: (line: string) => void) {
    this.#db = db;
    this.#path = path;
    this.#sync = sync;
    this.#say = say;
    this.#records = sublevel(db, 'rec');
    this.#byStream = sublevel(db, 'idx-stream');
    this.#byEntityTime = sublevel(db, 'idx-entity-time');
    this.#snapshots = sublevel(db, 'snapshot');
    this.#meta = sublevel(db, 'meta');
    this.#commits = new GroupCommit<Pending>(
      (group) => this.#write(group),
      (group) => this.#publish(group),
    );
  }

  /** Finds the last seq ever assigned, so the next append continues after it. */
  async recover(): Promise<void> {
    const [lastKey] = await this.#records.keys({ reverse: true, limit: 1 }).all();
    const stored = await this.#meta.get(LAST_SEQ);
    // the meta entry survives a purge that removed every record, so seqs are never reused
    const last = Math.max(lastKey === undefined ? 0 : seqOfKey(lastKey), stored === undefined ? 0 : Number(stored));
    this.#assigned = last;
    this.#committed = last;
  }

  append(events: NewEvent[]): Promise<EventRecord[]> {
    if (this.#closing) return Promise.reject(closedError('append'));
    if (!Array.isArray(events)) {
      return Promise.reject(new StoreError('HEARTH_INVALID_EVENT', 'append() takes an array of events'));
    }
    if (events.length === 0) return Promise.resolve([]);
    let values: string[];
    try {
      // every event is checked before any seq is handed out, so a bad one leaves no hole
      values = events.map(encodeRecord);
    } catch (err) {
      return Promise.reject(err);
    }
    const records = events.map((event) => withSeq(++this.#assigned, event));
    const pending = { records, puts: this.#puts(records, values) };
    return new Promise((resolve, reject) => this.#commits.submit(pending, (err) => (err ? reject(err) : resolve(records))));
  }

  mirror(records: EventRecord[]): Promise<EventRecord[]> {
    if (this.#closing) return Promise.reject(closedError('mirror'));
    if (!Array.isArray(records)) return Promise.reject(new StoreError('HEARTH_INVALID_EVENT', 'mirror() takes an array of records'));
    if (records.length === 0) return Promise.resolve([]);
    let values: string[];
    let last = this.#assigned;
    try {
      for (const r of records) {
        if (!Number.isSafeInteger(r?.seq) || r.seq <= last) {
          throw new StoreError('HEARTH_INVALID_EVENT', `mirror() needs increasing seqs above ${last}, got ${String(r?.seq)}`);
        }
        last = r.seq;
      }
      values = records.map(encodeRecord);
    } catch (err) {
      return Promise.reject(err);
    }
    const before = this.#assigned;
    this.#assigned = last;
    const copies = records.map((r) => withSeq(r.seq, r));
    const pending = { records: copies, puts: this.#puts(copies, values) };
    return new Promise((resolve, reject) =>
      this.#commits.submit(pending, (err) => {
        if (!err) return resolve(copies);
        // the copy is sent again after a failed write: its seqs are not spent as an append's are
        if (this.#assigned === last) this.#assigned = before;
        reject(err);
      }),
    );
  }

  onCommit(listener: (records: EventRecord[]) => void): () => void {
    this.#listeners.add(listener);
    return () => void this.#listeners.delete(listener);
  }

  lastSeq(): number {
    return this.#committed;
  }

  read(options: ReadOptions = {}): AsyncIterable<EventRecord> {
    return this.#read(options);
  }

  history(options: HistoryOptions): AsyncIterable<EventRecord> {
    return this.#history(options);
  }

  async saveSnapshot(name: string, snapshot: Snapshot): Promise<void> {
    this.#assertOpen('saveSnapshot');
    if (typeof name !== 'string' || name === '') {
      throw new StoreError('HEARTH_INVALID_OPTIONS', 'a snapshot needs a non-empty name');
    }
    const value = JSON.stringify(snapshot);
    await this.#track(this.#writeBatch((batch) => batch.put(name, value, { sublevel: this.#snapshots })));
  }

  async loadSnapshot<T = unknown>(name: string): Promise<Snapshot<T> | undefined> {
    this.#assertOpen('loadSnapshot');
    const value = await this.#snapshots.get(name);
    if (value === undefined) return undefined;
    try {
      return JSON.parse(value) as Snapshot<T>;
    } catch (err) {
      throw new StoreError('HEARTH_LOG_CORRUPT', `snapshot ${name} is not valid JSON: ${messageOf(err)}`, { cause: err });
    }
  }

  exportTo(options: ExportOptions): Promise<ExportManifest> {
    if (this.#closing) return Promise.reject(closedError('exportTo'));
    return this.#track(exportLog(this.#db, options));
  }

  readStreams(prefix: string, options: { after?: number; latest?: boolean } = {}): AsyncIterable<EventRecord> {
    return this.#readStreams(prefix, options.after ?? 0, options.latest ?? false);
  }

  async get(seqs: number[]): Promise<(EventRecord | undefined)[]> {
    this.#assertOpen('get');
    const out: (EventRecord | undefined)[] = new Array(seqs.length);
    for (let i = 0; i < seqs.length; i += READ_CHUNK) {
      const part = seqs.slice(i, i + READ_CHUNK);
      const values = await this.#records.getMany(part.map((seq) => seqKey(Number.isSafeInteger(seq) && seq > 0 ? seq : 0)));
      for (let j = 0; j < part.length; j++) out[i + j] = values[j] === undefined ? undefined : decodeRecord(part[j], values[j]!);
    }
    return out;
  }

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

  purge(before: number, maxSeq: number, keep?: (record: EventRecord) => boolean): Promise<number> {
    if (this.#closing) return Promise.reject(closedError('purge'));
    if (typeof before !== 'number' || Number.isNaN(before) || typeof maxSeq !== 'number' || Number.isNaN(maxSeq)) {
      return Promise.reject(new StoreError('HEARTH_INVALID_OPTIONS', 'purge(before, maxSeq) takes two numbers'));
    }
    // one purge at a time, so two overlapping ones never count the same record twice
    const run = this.#purging.then(() => this.#purge(before, maxSeq, keep));
    this.#purging = run.catch(() => undefined);
    return this.#track(run);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      // appends accepted before close() are written, not dropped
      await this.#commits.drain();
      await Promise.allSettled([...this.#tasks]);
      // a failed write that LevelDB would replay at the next start is erased now if it can be
      if (this.#failed.length > 0) await this.#exclusive(() => this.#repair()).catch(() => undefined);
      await this.#db.close();
    })();
    return this.#closing;
  }

  /**
   * The puts of a record and its index entries. They are derived at append time, from the
   * same values that are stored, so a caller changing its event object afterwards cannot
   * make an index entry that purge would not find again.
   */
  #puts(records: EventRecord[], values: string[]): string[] {
    // keys carry their sublevel's prefix already: abstract-level's per-operation sublevel
    // delegation costs more than the LevelDB write itself
    const puts: string[] = [];
    for (let i = 0; i < records.length; i++) {
      const { seq, stream, time } = records[i];
      puts.push(this.#records.prefix + seqKey(seq), values[i]);
      // the index entries go in the same batch, so an index never points at a missing record
      puts.push(this.#byStream.prefix + streamKey(stream, seq), '');
      const entity = historyEntity(records[i]);
      if (entity !== undefined) puts.push(this.#byEntityTime.prefix + historyKey(entity, time, seq), '');
    }
    return puts;
  }

  async #write(group: Pending[]): Promise<void> {
    const last = group[group.length - 1].records;
    // the keys are gathered only if the write fails: this is the path of every append
    const failed = (): FailedWrite => ({ probe: group[0].puts[0], keys: group.flatMap(({ puts }) => puts.filter((_, i) => i % 2 === 0)) });
    try {
      await this.#writeBatch((batch) => {
        // a chained batch costs less than half as much per operation as an array batch, and
        // it is still one atomic LevelDB write
        for (const { puts } of group) {
          for (let i = 0; i < puts.length; i += 2) batch.put(puts[i], puts[i + 1]);
        }
        batch.put(this.#meta.prefix + LAST_SEQ, String(last[last.length - 1].seq));
      }, failed);
    } catch (err) {
      if (this.#outage) this.#outage.refused += group.reduce((n, p) => n + p.records.length, 0);
      throw err;
    }
  }

  /**
   * Writes one LevelDB batch under the write lock. After a failed write LevelDB's write-ahead
   * log may end in a torn record that would swallow the records written behind it at the next
   * open, so the log is reopened before anything else is written.
   */
  #writeBatch(fill: (batch: Batch) => void, failed?: () => FailedWrite): Promise<void> {
    return this.#exclusive(async () => {
      const repaired = this.#broken !== undefined;
      if (repaired) await this.#repair();
      const batch = this.#db.batch();
      fill(batch);
      try {
        await batch.write({ sync: this.#sync });
      } catch (err) {
        if (failed) this.#failed.push(failed());
        if (repaired) this.#retryAt = Date.now() + RETRY_MS;
        this.#broken = err instanceof Error ? err : new Error(String(err));
        if (!this.#outage) {
          this.#outage = { since: Date.now(), refused: 0 };
          this.#say(`event log: writing to ${this.#path} failed (${messageOf(err)}); appends are refused until a write succeeds`);
        }
        throw new StoreError('HEARTH_LOG_WRITE_FAILED', `event log write failed: ${messageOf(err)}`, { cause: err });
      }
      if (this.#outage) {
        const { since, refused } = this.#outage;
        this.#outage = undefined;
        this.#say(`event log: writing works again after ${Math.round((Date.now() - since) / 1000)} s; ${refused} records were refused meanwhile`);
      }
    });
  }

  /** Reopens LevelDB after a failed write and erases whatever of the failed writes it recovered. */
  async #repair(): Promise<void> {
    const cause = this.#broken!;
    const refuse = (why: string, err: unknown = cause) =>
      new StoreError('HEARTH_LOG_WRITE_FAILED', `event log write failed: ${why} (${messageOf(cause)})`, { cause: err });
    if (Date.now() < this.#retryAt) throw refuse('the log is not writable yet');
    const free = await freeBytes(this.#path);
    if (free !== undefined && free < MIN_FREE_BYTES) throw refuse(`the disk has ${free} bytes free`);
    try {
      // reads in progress, or started before the reopen is done, end with an error
      if (this.#db.status === 'open') await this.#db.close();
      await this.#db.open();
      for (const sub of [this.#records, this.#byStream, this.#byEntityTime, this.#snapshots, this.#meta]) await sub.open();
      if (this.#failed.length > 0) {
        // usually nothing of a failed write survives; a write whose fsync failed may
        const present = await this.#db.getMany(this.#failed.map((f) => f.probe));
        const landed = this.#failed.filter((_, i) => present[i] !== undefined);
        if (landed.length > 0) {
          const batch = this.#db.batch();
          for (const { keys } of landed) for (const key of keys) batch.del(key);
          await batch.write({ sync: this.#sync });
        }
        this.#failed = [];
      }
    } catch (err) {
      this.#retryAt = Date.now() + RETRY_MS;
      throw refuse(`cannot reopen the log after a failed write: ${messageOf(err)}`, err);
    }
    this.#broken = undefined;
  }

  /** Runs `work` once every write started before it has finished. */
  #exclusive<T>(work: () => Promise<T>): Promise<T> {
    const run = this.#writeLock.then(work);
    this.#writeLock = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  #publish(group: Pending[]): void {
    const records = group.length === 1 ? group[0].records.slice() : group.flatMap((p) => p.records);
    this.#committed = records[records.length - 1].seq;
    Object.freeze(records);
    for (const listener of this.#listeners) {
      try {
        listener(records);
      } catch (err) {
        // the batch is durable whatever a listener does, so its appends still resolve; the
        // error is rethrown outside the commit path, where it is not silently lost
        queueMicrotask(() => {
          throw err;
        });
      }
    }
  }

  async *#read(options: ReadOptions): AsyncGenerator<EventRecord> {
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

  /**
   * The records of stored values in the order given, skipping values a purge running alongside
   * removed after an index was read, with what they inherit filled in (see #inherit).
   */
  async #decode(seqs: number[], values: (string | undefined)[], reading: Reading): Promise<EventRecord[]> {
    const { unresolved, seen } = reading;
    const records: EventRecord[] = [];
    const lookups: Promise<void>[] = [];
    for (let i = 0; i < seqs.length; i++) {
      const value = values[i];
      if (value === undefined) continue;
      const record = decodeRecord(seqs[i], value, unresolved);
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

  async *#readStreams(prefix: string, after: number, latest: boolean): AsyncGenerator<EventRecord> {
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
          const k = splitStreamKey(key);
          if (k.seq <= after) continue;
          if (!latest) seqs.push(k.seq);
          else if (k.stream !== stream) {
            if (lastOfStream) seqs.push(lastOfStream);
            stream = k.stream;
            lastOfStream = k.seq;
          } else lastOfStream = k.seq;
        }
      }
    } finally {
      await keys.close();
    }
    if (latest && lastOfStream) seqs.push(lastOfStream);
    seqs.sort((a, b) => a - b);
    // the last record of each stream is read for the whole state it holds: what it inherits stays null
    const reading = newReading(!latest, latest ? undefined : new Map());
    for (let i = 0; i < seqs.length; i += READ_CHUNK) {
      const part = seqs.slice(i, i + READ_CHUNK);
      yield* await this.#decode(part, await this.#records.getMany(part.map(seqKey)), reading);
    }
  }

  async *#history(options: HistoryOptions): AsyncGenerator<EventRecord> {
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

  async #purge(before: number, maxSeq: number, keep?: (record: EventRecord) => boolean): Promise<number> {
    const last = Math.min(Math.floor(maxSeq), this.#committed);
    if (last < 1) return 0;
    let deleted = 0;
    const entries = this.#records.iterator({ lte: seqKey(last) });
    try {
      // times are not guaranteed to grow with seq, so every record up to maxSeq is examined
      while (!this.#closing) {
        const chunk = await entries.nextv(PURGE_CHUNK);
        if (chunk.length === 0) break;
        const old = chunk.map(([key, value]) => decodeRecord(seqOfKey(key), value)).filter((r) => r.time < before && !keep?.(r));
        if (old.length === 0) continue;
        await this.#writeBatch((batch) => {
          for (const record of old) {
            batch.del(seqKey(record.seq), { sublevel: this.#records });
            batch.del(streamKey(record.stream, record.seq), { sublevel: this.#byStream });
            const entity = historyEntity(record);
            if (entity !== undefined) batch.del(historyKey(entity, record.time, record.seq), { sublevel: this.#byEntityTime });
          }
        });
        deleted += old.length;
      }
    } finally {
      await entries.close();
    }
    return deleted;
  }

  #assertOpen(operation: string): void {
    if (this.#closing) throw closedError(operation);
  }

  /** Keeps close() from shutting LevelDB under a write still running. */
  #track<T>(promise: Promise<T>): Promise<T> {
    this.#tasks.add(promise);
    const forget = () => void this.#tasks.delete(promise);
    promise.then(forget, forget);
    return promise;
  }
}

/** Sets the field `record` inherits from the data of its stream's previous record (null when there is none). */
function fill(record: EventRecord, inherit: Inherit, previous: unknown): void {
  const value = previous !== null && typeof previous === 'object' ? (previous as Record<string, unknown>)[inherit.from] : undefined;
  record.data[inherit.field] = value ?? null;
}

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

/** Bytes free for an unprivileged writer on the file system holding `path`, if it can be told. */
async function freeBytes(path: string): Promise<number | undefined> {
  try {
    const fs = await statfs(path);
    return fs.bavail * fs.bsize;
  } catch {
    return undefined;
  }
}

/** One concern's own key space (records, each index, snapshots, meta). */
function sublevel(db: Db, name: string) {
  return db.sublevel<string, string>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
}

function closedError(operation: string): StoreError {
  return new StoreError('HEARTH_LOG_CLOSED', `the event log is closed; ${operation}() is not possible`);
}
