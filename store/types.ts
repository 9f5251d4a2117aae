import type { ExportManifest, ExportOptions } from './log-export.ts';
/** The context every write carries (ids are ULIDs; user ids are uuid hex). */
export interface Context {
  id: string;
  parent_id: string | null;
  user_id: string | null;
}

/** Where a bus event came from, as the original's event object says it. */
export type Origin = 'LOCAL' | 'REMOTE';

/**
 * One committed record of the log.
 *
 * `time` is epoch milliseconds with microsecond precision (a float).
 * `origin` is set only on records that are bus events (visible to `subscribe_events`,
 * `/api/stream`); internal actor transitions (login-flow steps, token keys...) have none.
 */
export interface EventRecord<D = any> {
  seq: number;
  time: number;
  stream: string;
  type: string;
  data: D;
  context: Context;
  origin?: Origin;
}

/**
 * `data[field]` repeats `data[from]` of the previous record of the same stream (an entity's old
 * state is the new state of its last record): the log stores a reference instead of the value
 * and rebuilds it when the record is read. When that previous record is gone (purged), the
 * field reads as null.
 */
export interface Inherit {
  field: string;
  from: string;
}

/** A record before the store has given it its sequence number. */
export type NewEvent<D = any> = Omit<EventRecord<D>, 'seq'> & { inherit?: Inherit };

/** Options for reading a range of the log. Bounds are inclusive unless named gt/lt. */
export interface ReadOptions {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
  /** only records of this stream (uses the per-stream index) */
  stream?: string;
  reverse?: boolean;
  limit?: number;
  /**
   * false: fields a record only references of its stream's previous one (`inherit`) stay null.
   * A restore reads records for the state they set, and rebuilding an entity's old state
   * costs an index lookup for each stream's first record in the range.
   */
  rebuild?: boolean;
}

/** Options for the entity-and-time index (history). Times are epoch ms. */
export interface HistoryOptions {
  entityId: string;
  from?: number;
  to?: number;
  reverse?: boolean;
  limit?: number;
  /**
   * false: an entity's `old_state` (a reference to the record before) stays null. History
   * wants each record's new state only, and rebuilding the old one costs an index lookup per
   * record in this order.
   */
  rebuild?: boolean;
}

export interface Snapshot<T = unknown> {
  /** the last sequence number the snapshot covers */
  seq: number;
  /** format version of `data`, so an old snapshot is migrated or dropped, never misread */
  version: number;
  time: number;
  data: T;
}

export type CommitMode = 'durable' | 'fast';

export interface EventLogOptions {
  /** directory holding the LevelDB files */
  path: string;
  /** durable: every group commit is one batch written with fsync; fast: page cache only */
  commit?: CommitMode;
  /** where the log says that writing failed and that it works again (default: stderr) */
  log?: (line: string) => void;
}

/** The append-only event log. Only store/ touches LevelDB. */
export interface EventLog {
  /**
   * Appends records; resolves once they are durable (one batch per group commit, shared by
   * every append of the same tick). Records of one call get consecutive sequence numbers.
   * When the batch cannot be written (a full disk) the appends of that batch reject, their
   * seqs are never used, and the next batch is tried afresh: seqs may have gaps.
   */
  append(events: NewEvent[]): Promise<EventRecord[]>;
  /**
   * Appends records that already carry their seqs (a replica's copy of another log, gaps
   * allowed): each seq must be above the one before it and above the last one assigned here.
   * The same group commit and onCommit listeners as append(); resolves once durable.
   */
  mirror(records: EventRecord[]): Promise<EventRecord[]>;
  /** Called for each committed batch, in sequence order, before append() resolves. */
  onCommit(listener: (records: EventRecord[]) => void): () => void;
  /** The last committed sequence number (0 when empty). */
  lastSeq(): number;
  read(options?: ReadOptions): AsyncIterable<EventRecord>;
  /**
   * Records of every stream whose name starts with `prefix`, after seq `after`, in seq order,
   * found through the per-stream index; with `latest`, only the last record of each stream
   * (an area whose last record holds a stream's whole state restores from those alone; what
   * such a record only references of an earlier one, an `inherit` field, reads as null).
   */
  readStreams(prefix: string, options?: { after?: number; latest?: boolean }): AsyncIterable<EventRecord>;
  /**
   * The records of these seqs in the order given, undefined where there is none; what a record
   * only references of its stream's previous one (`inherit`) reads as null. One batch lookup,
   * for a reader that already knows which records it wants.
   */
  get(seqs: number[]): Promise<(EventRecord | undefined)[]>;
  /**
   * The seq of every record of the streams whose name starts with `prefix`, grouped by stream
   * and in seq order within one, from the per-stream index alone: no record is read.
   */
  streamSeqs(prefix: string): AsyncIterable<{ stream: string; seq: number }>;
  /** state_changed records of one entity by time (the entity-and-time index). */
  history(options: HistoryOptions): AsyncIterable<EventRecord>;
  saveSnapshot(name: string, snapshot: Snapshot): Promise<void>;
  /**
   * Writes a copy of the log as it is at this instant (one seq, appends going on meanwhile)
   * for a backup: see store/log-export.ts. Resolves once the file and its manifest are written.
   */
  exportTo(options: ExportOptions): Promise<ExportManifest>;
  loadSnapshot<T = unknown>(name: string): Promise<Snapshot<T> | undefined>;
  /**
   * Deletes records older than `before` (epoch ms) whose seq is at most `maxSeq` (the seq the
   * latest snapshot covers, so the current state is never lost) and that `keep` does not claim
   * (areas whose records are their only history, such as users and tokens). Resolves to the count deleted.
   */
  purge(before: number, maxSeq: number, keep?: (record: EventRecord) => boolean): Promise<number>;
  close(): Promise<void>;
}
