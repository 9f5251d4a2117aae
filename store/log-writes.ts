// Writing to the log's LevelDB one batch at a time, and getting over a failed write. After a
// failed write LevelDB's write-ahead log may end in a torn record that would swallow the records
// written behind it at the next open, so the log is reopened before anything else is written,
// and whatever of the failed writes LevelDB recovered is erased: a failed append never appears
// later. The outage is said once when it starts and once when writing works again.
import { statfs } from 'node:fs/promises';
import { StoreError, messageOf } from './errors.ts';
import type { Batch, Db, KeySpaces } from './log-db.ts';

/** A group write that failed: its keys, in case LevelDB recovers it on reopen after all. */
export interface FailedWrite {
  /** a record key of the write; the batch is atomic, so if it is absent the whole write is */
  probe: string;
  keys: string[];
}

// After a failed write the log is reopened only once the disk has this much room: reopening
// writes LevelDB's memtable (up to 4 MiB) to a table file, and a reopen that fails leaves the
// log closed for reads as well.
const MIN_FREE_BYTES = 8 * 1024 * 1024;
// A reopen that failed for another reason than space (EIO...) is not retried sooner than this.
const RETRY_MS = 1000;

/** Bytes free for an unprivileged writer on the file system holding `path`, if it can be told. */
async function freeBytes(path: string): Promise<number | undefined> {
  try {
    const fs = await statfs(path);
    return fs.bavail * fs.bsize;
  } catch {
    return undefined;
  }
}

/** The log's writes: one LevelDB batch at a time, a failed one repaired before the next. */
export class LogWriter {
  readonly #db: Db;
  readonly #spaces: KeySpaces;
  readonly #path: string;
  readonly #sync: boolean;
  readonly #logLine: (line: string) => void;
  /** LevelDB writes one at a time, so none lands behind a failed one before the repair */
  #writeLock: Promise<void> = Promise.resolve();
  /** why the last write failed; set until a reopen has given LevelDB a fresh write-ahead log */
  #broken: Error | undefined;
  #failed: FailedWrite[] = [];
  #retryAt = 0;
  /** the current run of failures, for the line logged when writing works again */
  #outage: { since: number; refused: number } | undefined;

  constructor(db: Db, spaces: KeySpaces, path: string, sync: boolean, logLine: (line: string) => void) {
    this.#db = db;
    this.#spaces = spaces;
    this.#path = path;
    this.#sync = sync;
    this.#logLine = logLine;
  }

  /**
   * Writes one LevelDB batch under the write lock, after repairing a failed write before it;
   * `failed` gives the keys of the batch, asked for only if it fails.
   */
  write(fill: (batch: Batch) => void, failed?: () => FailedWrite): Promise<void> {
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
          this.#logLine(`event log: writing to ${this.#path} failed (${messageOf(err)}); appends are refused until a write succeeds`);
        }
        throw new StoreError('HEARTH_LOG_WRITE_FAILED', `event log write failed: ${messageOf(err)}`, { cause: err });
      }
      if (this.#outage) {
        const { since, refused } = this.#outage;
        this.#outage = undefined;
        this.#logLine(`event log: writing works again after ${Math.round((Date.now() - since) / 1000)} s; ${refused} records were refused meanwhile`);
      }
    });
  }

  /** Counts records refused during the current outage, for the line said when it ends. */
  countRefused(records: number): void {
    if (this.#outage) this.#outage.refused += records;
  }

  /** At close: a failed write that LevelDB would replay at the next start is erased now if it can be. */
  async eraseFailed(): Promise<void> {
    if (this.#failed.length > 0) await this.#exclusive(() => this.#repair()).catch(() => undefined);
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
      for (const space of Object.values(this.#spaces)) await space.open();
      if (this.#failed.length > 0) {
        // usually nothing of a failed write survives; a write whose fsync failed may
        const present = await this.#db.getMany(this.#failed.map((write) => write.probe));
        const landed = this.#failed.filter((_, at) => present[at] !== undefined);
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
}
