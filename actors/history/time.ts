/**
 * The times a history request names, read as the original's `dt_util.parse_datetime` reads them
 * (ciso8601 first, then its looser regular expression), and made epoch ms as `as_utc` makes
 * them: a time without an offset is a wall-clock time of the configured time zone.
 */

/** A parsed date and time; `offsetMinutes` undefined when the text named no offset. */
export interface ParsedDatetime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
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

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The wall-clock fields as if they were UTC, in epoch ms (years below 100 included). */
function wallMs(p: ParsedDatetime): number {
  const date = new Date(0);
  date.setUTCFullYear(p.year, p.month - 1, p.day);
  date.setUTCHours(p.hour, p.minute, p.second, 0);
  return date.getTime() + p.micros / 1000;
}

/** Epoch ms (with microseconds) of a parsed time; one without an offset is read in `timeZone`. */
export function toEpochMs(p: ParsedDatetime, timeZone: string): number {
  const wall = wallMs(p);
  if (p.offsetMinutes !== undefined) return wall - p.offsetMinutes * 60_000;
  // the zone's offset at the guessed instant, checked once more where a change of offset lies between
  const first = wall - zoneOffsetMs(wall, timeZone);
  const offset = zoneOffsetMs(first, timeZone);
  return wall - offset;
}

const formats = new Map<string, Intl.DateTimeFormat>();

/** How far `timeZone`'s wall clock is ahead of UTC at the instant `ms`. */
function zoneOffsetMs(ms: number, timeZone: string): number {
  let format = formats.get(timeZone);
  if (!format) {
    format = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      era: 'short',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formats.set(timeZone, format);
  }
  const at = Math.floor(ms / 1000) * 1000;
  const part: Record<string, string> = {};
  for (const { type, value } of format.formatToParts(at)) part[type] = value;
  const year = part.era === 'BC' ? 1 - Number(part.year) : Number(part.year);
  const wall = new Date(0);
  wall.setUTCFullYear(year, Number(part.month) - 1, Number(part.day));
  wall.setUTCHours(Number(part.hour), Number(part.minute), Number(part.second), 0);
  return wall.getTime() - at;
}

/** `text` as epoch ms, or undefined when the original's parser refuses it. */
export function parseTime(text: string, timeZone: string): number | undefined {
  const parsed = parseDatetime(text);
  return parsed === undefined ? undefined : toEpochMs(parsed, timeZone);
}
