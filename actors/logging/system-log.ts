/** A captured warning or error as the original's `system_log/list` serves it. */
export interface SystemLogEntry {
  name: string;
  /** the distinct messages seen, oldest first, at most five */
  message: string[];
  /** `WARNING`, `ERROR`, `CRITICAL` */
  level: string;
  /** file (relative to Hearth's source tree) and line the record was written from */
  source: [string, number];
  /** epoch seconds of the latest occurrence */
  timestamp: number;
  /** the stack of the error logged with it, or '' */
  exception: string;
  count: number;
  /** epoch seconds of the first occurrence */
  first_occurred: number;
}

/** What the capture needs of a record. */
export interface CapturedRecord {
  name: string;
  message: string;
  level: string;
  source: [string, number];
  /** epoch milliseconds */
  time: number;
  exception: string;
}

/** Messages kept per entry (the original's deque maxlen). */
const MESSAGES_KEPT = 5;

/**
 * Longest message or stack kept, in characters: any user may write a line (`system_log.write`),
 * so the capture's memory is bounded by entries × messages × this (about 20 MiB), not by bodies.
 */
export const CAPTURED_TEXT_MAX = 64 * 1024;

const bounded = (text: string) => (text.length > CAPTURED_TEXT_MAX ? `${text.slice(0, CAPTURED_TEXT_MAX - 1)}…` : text);

/**
 * The original's DedupStore: records of the same logger, source and failing frame count as one
 * entry, moved to the newest place on each repeat; past `maxEntries` the oldest entry goes.
 */
export class SystemLog {
  private readonly entries = new Map<string, SystemLogEntry>();

  constructor(private readonly maxEntries: number) {}

  /** Captures a record; returns the entry of this occurrence alone (what `system_log_event` carries). */
  add(captured: CapturedRecord): SystemLogEntry {
    const record = { ...captured, message: bounded(captured.message), exception: bounded(captured.exception) };
    const seconds = record.time / 1000;
    const fresh: SystemLogEntry = {
      name: record.name,
      message: [record.message],
      level: record.level,
      source: record.source,
      timestamp: seconds,
      exception: record.exception,
      count: 1,
      first_occurred: seconds,
    };
    const key = `${record.name}\n${record.source.join(':')}\n${rootCause(record.exception)}`;
    const existing = this.entries.get(key);
    if (existing) {
      existing.count++;
      existing.timestamp = seconds;
      if (!existing.message.includes(record.message)) {
        existing.message.push(record.message);
        if (existing.message.length > MESSAGES_KEPT) existing.message.shift();
      }
      this.entries.delete(key);
      this.entries.set(key, existing);
    } else {
      this.entries.set(key, { ...fresh, message: [...fresh.message] });
    }
    if (this.entries.size > this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    return fresh;
  }

  /** Every entry, newest first. */
  list(): SystemLogEntry[] {
    return [...this.entries.values()].reverse().map((e) => ({ ...e, message: [...e.message], source: [...e.source] as [string, number] }));
  }

  /** `system_log.clear`. */
  clear(): void {
    this.entries.clear();
  }
}

/** The innermost frame of a stack (the original's root_cause), or '' without one. */
function rootCause(exception: string): string {
  return /^\s+at .*$/m.exec(exception)?.[0].trim() ?? '';
}
