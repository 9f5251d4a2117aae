import { parseDatetime, type ParsedDatetime } from '../../history/time.ts';
import { wallAsUtcMs } from '../../wall-clock.ts';

/**
 * Times in MQTT payloads (timestamp and date sensors, last_reset), read as the original's
 * dt_util.parse_datetime reads them and written as Python's isoformat() writes them.
 */

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, '0');

function offsetText(minutes: number): string {
  const sign = minutes < 0 ? '-' : '+';
  return `${sign}${pad(Math.trunc(Math.abs(minutes) / 60))}:${pad(Math.abs(minutes) % 60)}`;
}

/** A parsed time, or undefined when the original's parser refuses the text. */
export function readDatetime(text: string): ParsedDatetime | undefined {
  return parseDatetime(text.trim());
}

/** datetime.isoformat() of a parsed time as written (its own offset; microseconds only when set). */
export function isoformat(p: ParsedDatetime): string {
  const date = `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
  const time = `${pad(p.hour)}:${pad(p.minute)}:${pad(p.second)}${p.micros ? `.${pad(p.micros, 6)}` : ''}`;
  return `${date}T${time}${p.offsetMinutes === undefined ? '' : offsetText(p.offsetMinutes)}`;
}

/** The original's timestamp sensor state: the time in UTC, `isoformat(timespec="seconds")`. Needs an offset. */
export function utcSeconds(p: ParsedDatetime): string | undefined {
  if (p.offsetMinutes === undefined) return undefined;
  const ms = wallAsUtcMs(p) - p.offsetMinutes * 60_000;
  return `${new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19)}+00:00`;
}

/** A date's isoformat(). */
export function isoDate(p: ParsedDatetime): string {
  return `${pad(p.year, 4)}-${pad(p.month)}-${pad(p.day)}`;
}
