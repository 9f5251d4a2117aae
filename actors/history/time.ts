/**
 * The times a history request names, read as the original's `dt_util.parse_datetime` reads them
 * (ciso8601 first, then its looser regular expression), and made epoch ms as `as_utc` makes
 * them: a time without an offset is a wall-clock time of the configured time zone.
 */

import { daysIn, wallAsUtcMs, wallToEpochMs, type WallTime } from '../wall-clock.ts';

/** A parsed date and time; `offsetMinutes` undefined when the text named no offset. */
export interface ParsedDatetime extends WallTime {
  micros: number;
  offsetMinutes: number | undefined;
}

// ciso8601: YYYY, YYYY-MM, YYYY-MM-DD or YYYYMMDD, then optionally T (or a space) and hh,
// hh:mm, hh:mm:ss or their basic forms with a fraction after the seconds, then an offset
const STRICT =
  /^(\d{4})(?:-(\d{2})(?:-(\d{2}))?|(\d{2})(\d{2}))?(?:[Tt ](\d{2})(?::?(\d{2})(?::?(\d{2})(?:[.,](\d+))?)?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;
// the original's fallback: one- or two-digit fields, minutes required, at most 6 fraction digits used
const LOOSE =
  /^(\d{4})-(\d{1,2})-(\d{1,2})[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d{1,6})\d{0,6})?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/;

/** The date and time `text` names, or undefined when the original would not read it. */
export function parseDatetime(text: string): ParsedDatetime | undefined {
  const strict = STRICT.exec(text);
  if (strict) {
    const [, y, mo, d, moBasic, dBasic, h, mi, s, frac, zone] = strict;
    const parsed = fields(y, mo ?? moBasic, d ?? dBasic, h, mi, s, frac, zone);
    if (parsed) return parsed;
  }
  const loose = LOOSE.exec(text);
  if (!loose) return undefined;
  const [, y, mo, d, h, mi, s, frac, zone] = loose;
  return fields(y, mo, d, h, mi, s, frac, zone);
}

function fields(
  y: string,
  mo: string | undefined,
  d: string | undefined,
  h: string | undefined,
  mi: string | undefined,
  s: string | undefined,
  frac: string | undefined,
  zone: string | undefined,
): ParsedDatetime | undefined {
  const year = Number(y);
  const month = mo === undefined ? 1 : Number(mo);
  const day = d === undefined ? 1 : Number(d);
  const hour = h === undefined ? 0 : Number(h);
  const minute = mi === undefined ? 0 : Number(mi);
  const second = s === undefined ? 0 : Number(s);
  // a fraction beyond microseconds is cut, as both of the original's readers do
  const micros = frac === undefined ? 0 : Number(frac.slice(0, 6).padEnd(6, '0'));
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let offsetMinutes: number | undefined;
  if (zone !== undefined) {
    if (zone === 'Z' || zone === 'z') offsetMinutes = 0;
    else {
      const digits = zone.slice(1).replace(':', '');
      const hours = Number(digits.slice(0, 2));
      const mins = digits.length > 2 ? Number(digits.slice(2)) : 0;
      offsetMinutes = hours * 60 + mins;
      // Python's timezone takes offsets strictly within a day
      if (offsetMinutes >= 24 * 60) return undefined;
      if (zone[0] === '-') offsetMinutes = -offsetMinutes;
    }
  }
  return { year, month, day, hour, minute, second, micros, offsetMinutes };
}

/** Epoch ms (with microseconds) of a parsed time; one without an offset is read in `timeZone`. */
export function toEpochMs(p: ParsedDatetime, timeZone: string): number {
  const wall = wallAsUtcMs(p) + p.micros / 1000;
  if (p.offsetMinutes !== undefined) return wall - p.offsetMinutes * 60_000;
  return wallToEpochMs(p, timeZone) + p.micros / 1000;
}

/** `text` as epoch ms, or undefined when the original's parser refuses it. */
export function parseTime(text: string, timeZone: string): number | undefined {
  const parsed = parseDatetime(text);
  return parsed === undefined ? undefined : toEpochMs(parsed, timeZone);
}
