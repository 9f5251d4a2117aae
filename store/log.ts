// The event log over LevelDB: appends grouped into one batch per commit (group-commit.ts),
// each record's index entries in the same batch, listeners told of each committed batch in seq
// order. Reads are log-reads.ts, the writes and their repair after a failure log-writes.ts,
// retention log-purge.ts, the key spaces log-db.ts.
import { Level } from 'level';
import { encodeRecord, withSeq } from './codec.ts';
import { StoreError, messageOf } from './errors.ts';
import { GroupCommit } from './group-commit.ts';
import { exportLog, type ExportManifest, type ExportOptions } from './log-export.ts';
import { historyEntity, historyKey, seqKey, seqOfKey, streamKey } from './keys.ts';
import { closedError, keySpaces, LAST_SEQ, type Db, type KeySpaces } from './log-db.ts';
import { purgeRecords } from './log-purge.ts';
import { LogReader } from './log-reads.ts';
import { LogWriter, type FailedWrite } from './log-writes.ts';
import type { EventLog, EventLogOptions, EventRecord, HistoryOptions, NewEvent, ReadOptions, Snapshot } from './types.ts';

/** One append() call on its way to the disk. */
interface Pending {
  records: EventRecord[];
  /** its LevelDB puts as key, value, key, value..., keys already carrying their sublevel prefix */
  puts: string[];
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
  const logLine = options.log ?? ((line: string) => console.error(line));
  const log = new LevelEventLog(db, options.path, commit === 'durable', logLine);
  await log.recover();
  return log;
}

class LevelEventLog implements EventLog {
  readonly #db: Db;
  readonly #spaces: KeySpaces;
  /** the key prefixes of the records and of the two indexes, for the puts of each append */
  readonly #recordPrefix: string;
  readonly #streamPrefix: string;
  readonly #historyPrefix: string;
  readonly #metaPrefix: string;
  readonly #writer: LogWriter;
  readonly #reader: LogReader;
  readonly #commits: GroupCommit<Pending>;
  readonly #listeners = new Set<(records: EventRecord[]) => void>();
  readonly #tasks = new Set<Promise<unknown>>();
  #assigned = 0;
  #committed = 0;
  #purging: Promise<unknown> = Promise.resolve();
  #closing: Promise<void> | undefined;

  constructor(db: Db, path: string, sync: boolean, logLine: (line: string) => void) {
    this.#db = db;
    this.#spaces = keySpaces(db);
    this.#recordPrefix = this.#spaces.records.prefix;
    this.#streamPrefix = this.#spaces.byStream.prefix;
    this.#historyPrefix = this.#spaces.byEntityTime.prefix;
    this.#metaPrefix = this.#spaces.meta.prefix;
    this.#writer = new LogWriter(db, this.#spaces, path, sync, logLine);
    this.#reader = new LogReader(this.#spaces, (operation) => this.#assertOpen(operation));
    this.#commits = new GroupCommit<Pending>(
      (group) => this.#write(group),
      (group) => this.#publish(group),
    );
  }

  /** Finds the last seq ever assigned, so the next append continues after it. */
  async recover(): Promise<void> {
    const [lastKey] = await this.#spaces.records.keys({ reverse: true, limit: 1 }).all();
    const stored = await this.#spaces.meta.get(LAST_SEQ);
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
      for (const record of records) {
        if (!Number.isSafeInteger(record?.seq) || record.seq <= last) {
          throw new StoreError('HEARTH_INVALID_EVENT', `mirror() needs increasing seqs above ${last}, got ${String(record?.seq)}`);
        }
        last = record.seq;
      }
      values = records.map(encodeRecord);
    } catch (err) {
      return Promise.reject(err);
    }
    const before = this.#assigned;
    this.#assigned = last;
    const copies = records.map((record) => withSeq(record.seq, record));
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
    return this.#reader.read(options);
  }

  history(options: HistoryOptions): AsyncIterable<EventRecord> {
    return this.#reader.history(options);
  }

  async saveSnapshot(name: string, snapshot: Snapshot): Promise<void> {
    this.#assertOpen('saveSnapshot');
    if (typeof name !== 'string' || name === '') {
      throw new StoreError('HEARTH_INVALID_OPTIONS', 'a snapshot needs a non-empty name');
    }
    const value = JSON.stringify(snapshot);
    await this.#track(this.#writer.write((batch) => batch.put(name, value, { sublevel: this.#spaces.snapshots })));
  }

  async loadSnapshot<T = unknown>(name: string): Promise<Snapshot<T> | undefined> {
    this.#assertOpen('loadSnapshot');
    const value = await this.#spaces.snapshots.get(name);
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
    return this.#reader.readStreams(prefix, options.after ?? 0, options.latest ?? false);
  }

  get(seqs: number[]): Promise<(EventRecord | undefined)[]> {
    return this.#reader.get(seqs);
  }

  streamSeqs(prefix: string): AsyncGenerator<{ stream: string; seq: number }> {
    return this.#reader.streamSeqs(prefix);
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
      await this.#writer.eraseFailed();
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
    for (let at = 0; at < records.length; at++) {
      const { seq, stream, time } = records[at];
      puts.push(this.#recordPrefix + seqKey(seq), values[at]);
      // the index entries go in the same batch, so an index never points at a missing record
      puts.push(this.#streamPrefix + streamKey(stream, seq), '');
      const entity = historyEntity(records[at]);
      if (entity !== undefined) puts.push(this.#historyPrefix + historyKey(entity, time, seq), '');
    }
    return puts;
  }

  async #write(group: Pending[]): Promise<void> {
    const last = group[group.length - 1].records;
    // the keys are gathered only if the write fails: this is the path of every append
    const failed = (): FailedWrite => ({ probe: group[0].puts[0], keys: group.flatMap(({ puts }) => puts.filter((_, at) => at % 2 === 0)) });
    try {
      await this.#writer.write((batch) => {
        // a chained batch costs less than half as much per operation as an array batch, and
        // it is still one atomic LevelDB write
        for (const { puts } of group) {
          for (let at = 0; at < puts.length; at += 2) batch.put(puts[at], puts[at + 1]);
        }
        batch.put(this.#metaPrefix + LAST_SEQ, String(last[last.length - 1].seq));
      }, failed);
    } catch (err) {
      this.#writer.countRefused(group.reduce((count, pending) => count + pending.records.length, 0));
      throw err;
    }
  }

  #publish(group: Pending[]): void {
    const records = group.length === 1 ? group[0].records.slice() : group.flatMap((pending) => pending.records);
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

  #purge(before: number, maxSeq: number, keep?: (record: EventRecord) => boolean): Promise<number> {
    const last = Math.min(Math.floor(maxSeq), this.#committed);
    if (last < 1) return Promise.resolve(0);
    return purgeRecords(this.#spaces, this.#writer, { last, before, keep, closing: () => this.#closing !== undefined });
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
