/** One record as every text form of it shows it. */
export interface TextRecord {
  /** epoch milliseconds */
  time: number;
  /** `WARNING` */
  level: string;
  name: string;
  message: string;
  /** a stack, or '' */
  exception: string;
}

const two = (n: number) => String(n).padStart(2, '0');

/** Local time as the original's log shows it: `2024-05-01 18:04:05.123`. */
export function localTime(ms: number): string {
  const d = new Date(ms);
  return `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())} ${two(d.getHours())}:${two(d.getMinutes())}:${two(d.getSeconds())}.${String(d.getMilliseconds()).padStart(3, '0')}`;
}

/** The message, and the stack under it when there is one. */
export function messageText(r: Pick<TextRecord, 'message' | 'exception'>): string {
  return r.exception ? `${r.message}\n${r.exception}` : r.message;
}

/**
 * A record in the original's log format (home-assistant.log and its console):
 * `2024-05-01 18:04:05.123 WARNING (MainThread) [hearth.http.ban] Banned IP 10.0.0.9 ...`.
 * Hearth runs one thread; the name is kept so tools that read the original's log read this one.
 */
export function logLine(r: TextRecord): string {
  return `${localTime(r.time)} ${r.level} (MainThread) [${r.name}] ${messageText(r)}`;
}

/** An error and the errors it was caused by, stacks included. */
export function describeError(err: unknown, depth = 0): string {
  if (err instanceof Error) {
    const cause = err.cause === undefined || depth > 4 ? '' : `\ncaused by: ${describeError(err.cause, depth + 1)}`;
    return `${err.stack ?? `${err.name}: ${err.message}`}${cause}`;
  }
  try {
    return `thrown value: ${JSON.stringify(err)}`;
  } catch {
    return `thrown value of type ${typeof err}`;
  }
}
