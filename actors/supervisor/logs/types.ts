/**
 * Where the supervisor's log endpoints read from. The original reads the host journal; Hearth
 * reads the container engine's logs (the core) and its own log file (the supervisor), behind one
 * interface with the journal's notions kept: an entry has a cursor, a realtime timestamp, a host,
 * an identifier and maybe a pid; a `Range` selects entries by cursor, skip and count.
 */

/** One log entry as the endpoints format it. */
export interface LogEntry {
  /** opaque to clients, never contains `:` (it goes back in a `Range: entries=<cursor>:...` header) */
  cursor: string;
  /** epoch microseconds */
  realtime: number;
  hostname: string;
  identifier: string;
  pid?: number;
  message: string;
}

/**
 * The journal's `Range: entries=<cursor>:<skip>:<count>`. Without a cursor, a negative skip counts
 * back from the last entry (`:-99:100` = the last 100) and a non-negative one from the first
 * (`:0:N`); with a cursor, the skip counts from the entry the cursor names (0 = that entry).
 */
export interface LogRange {
  /** '' when none */
  cursor: string;
  skip: number;
  /** Infinity when unbounded */
  count: number;
}

/** Where a follow starts: after the entry a cursor names, or from a time on. */
export interface FollowFrom {
  after?: string;
  /** epoch microseconds */
  since?: number;
}

export interface LogSource {
  /** the entries the range selects among those at or after `since` (epoch µs) */
  read(range: LogRange, since?: number): Promise<LogEntry[]>;
  /**
   * Each new entry as it comes, until the returned stop is called or the source ends (`onEnd`:
   * the container stopped). Rejects, like `read`, when the source cannot be read at all.
   */
  follow(from: FollowFrom, onEntry: (entry: LogEntry) => void, onEnd: () => void): Promise<() => void>;
  /** when the source last started (the container's start), epoch µs: `/logs/latest` reads from here */
  lastStart(): Promise<number>;
}

/** `Range` as the original completes it: unbounded counts are this journal's u64 maximum. */
export const UNBOUNDED = Infinity;

/**
 * The slice of `entries` (in log order) a range selects; `cursorIndex` is where the range's cursor
 * stands in `entries` (the first entry at or after it), used only when the range has a cursor.
 */
export function selectRange(entries: LogEntry[], range: LogRange, cursorIndex = 0): LogEntry[] {
  const base = range.cursor ? cursorIndex : range.skip < 0 ? entries.length - 1 : 0;
  const start = Math.min(Math.max(base + range.skip, 0), entries.length);
  const end = range.count === Infinity ? entries.length : Math.min(start + range.count, entries.length);
  return entries.slice(start, end);
}
