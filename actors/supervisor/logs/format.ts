import type { LogEntry } from './types.ts';

/** ANSI SGR sequences (colors), as `?no_colors` strips them. */
const SGR = /\x1B\[[0-9;]*m/g;

export function stripColors(text: string): string {
  return text.replace(SGR, '');
}

const two = (n: number) => String(n).padStart(2, '0');

/** `YYYY-MM-DD HH:MM:SS.mmm` in UTC from epoch microseconds, as the verbose formatter shows time. */
export function utcTime(us: number): string {
  const d = new Date(Math.floor(us / 1000));
  return `${d.getUTCFullYear()}-${two(d.getUTCMonth() + 1)}-${two(d.getUTCDate())} ${two(d.getUTCHours())}:${two(d.getUTCMinutes())}:${two(d.getUTCSeconds())}.${String(d.getUTCMilliseconds()).padStart(3, '0')}`;
}

/** The plain formatter: the message as it is. */
export function plainLine(e: LogEntry): string {
  return e.message;
}

/** The verbose formatter: `<time> <hostname> <identifier>[<pid>]: <message>` (`[pid]` only when known). */
export function verboseLine(e: LogEntry): string {
  const pid = e.pid === undefined ? '' : `[${e.pid}]`;
  return `${utcTime(e.realtime)} ${e.hostname} ${e.identifier || '_UNKNOWN_'}${pid}: ${e.message}`;
}
