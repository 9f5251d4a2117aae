// The event log's LevelDB and its key spaces: records by seq, the per-stream index, the
// entity-and-time index, snapshots and meta, each a sublevel of its own.
import { Level, type ChainedBatch } from 'level';
import { StoreError } from './errors.ts';

/** The LevelDB the log lives in: utf8 keys and values. */
export type Db = Level<string, string>;
/** One concern's key space. */
export type Sublevel = ReturnType<typeof sublevel>;
/** An atomic batch of puts and deletions. */
export type Batch = ChainedBatch<Db, string, string>;

/** The log's key spaces. */
export interface KeySpaces {
  /** seq -> the encoded record */
  records: Sublevel;
  /** (stream, seq) -> '' */
  byStream: Sublevel;
  /** (entity_id, time in µs, seq) -> '' for every state_changed */
  byEntityTime: Sublevel;
  snapshots: Sublevel;
  /** the last seq ever assigned, so seqs survive a purge of every record */
  meta: Sublevel;
}

/** The meta key holding the last seq ever assigned. */
export const LAST_SEQ = 'last_seq';

// Entries fetched per iterator step: large enough to amortise the native round trip, small
// enough that a reader stopping early has not decoded much.
export const READ_CHUNK = 1000;
// LevelDB's default of 16 KiB per step would return ~50 records at a time; a full replay
// spends less time crossing into native code with larger steps.
export const READ_BUFFER = { highWaterMarkBytes: 256 * 1024 };

/** One concern's own key space (records, each index, snapshots, meta). */
function sublevel(db: Db, name: string) {
  return db.sublevel<string, string>(name, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
}

/** The key spaces of the log in `db`. */
export function keySpaces(db: Db): KeySpaces {
  return {
    records: sublevel(db, 'rec'),
    byStream: sublevel(db, 'idx-stream'),
    byEntityTime: sublevel(db, 'idx-entity-time'),
    snapshots: sublevel(db, 'snapshot'),
    meta: sublevel(db, 'meta'),
  };
}

/** The error of an operation asked of a log that is closed or closing. */
export function closedError(operation: string): StoreError {
  return new StoreError('HEARTH_LOG_CLOSED', `the event log is closed; ${operation}() is not possible`);
}
