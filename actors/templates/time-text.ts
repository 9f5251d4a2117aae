// Times and durations read from text and written as words, as the original's dt_util does:
// parse_datetime, parse_duration, and the wording of an age (`2 hours`).
import { budget } from './budget.ts';
import { DateTime } from './datetime.ts';
import { TimeDelta } from './timedelta.ts';
import { pyRound } from './values.ts';
import { US, wallOf } from './wall-time.ts';
import { offsetText, UTC, type Zone } from './zones.ts';

/**
 * The original's parse_datetime: ISO 8601 forms (with `T` or a space, basic or extended, an
 * offset or `Z`), a plain date giving midnight; undefined when the text is not one. Throws
 * ValueError when it is well formed but not a valid date.
 */
export function parseDatetime(text: string): DateTime | undefined {
  budget().chargeText(text.length);
  const match =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text) ??
    /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (!match) return undefined;
  const [, year, month, day, hour, minute, second, frac, tz] = match;
  if (tz && hour === undefined) return undefined;
  const wall = wallOf(Number(year), Number(month), Number(day), Number(hour ?? 0), Number(minute ?? 0), Number(second ?? 0));
  const micro = frac ? Number(frac.slice(0, 6).padEnd(6, '0')) : 0;
  let zone: Zone | null = null;
  if (tz === 'Z') zone = UTC;
  else if (tz) {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    const offset = sign * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4) || 0) * 60);
    zone = offset === 0 ? UTC : { kind: 'fixed', offset, name: `UTC${offsetText(offset)}` };
  }
  return new DateTime(wall, micro, zone);
}

/**
 * The original's parse_duration: `[D day[s], ][H:]M:S[.f]`, ISO 8601 `P1DT2H3M4.5S`, and
 * PostgreSQL's `D days HH:MM:SS`. Undefined when the text is none of them.
 */
export function parseDuration(text: string): TimeDelta | undefined {
  budget().chargeText(text.length);
  let match = /^(?:(-?\d+) (?:days?, )?)?(-?)(?:(\d+):(?=\d+:\d+))?(?:(\d+):)?(\d+)(?:[.,](\d{1,6})\d{0,6})?$/.exec(text);
  if (match) {
    const [, days, sign, hours, minutes, seconds, frac] = match;
    const rest = (Number(hours ?? 0) * 3600 + Number(minutes ?? 0) * 60 + Number(seconds)) * US + Number((frac ?? '').padEnd(6, '0') || 0);
    return new TimeDelta(Number(days ?? 0) * 86_400 * US + (sign === '-' ? -rest : rest));
  }
  match = /^([-+]?)P(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/.exec(text);
  if (match && text !== 'P' && !text.endsWith('T')) {
    const amount = (given: string | undefined) => Number((given ?? '0').replace(',', '.'));
    const total = amount(match[2]) * 86_400 + amount(match[3]) * 3600 + amount(match[4]) * 60 + amount(match[5]);
    return new TimeDelta(pyRound((match[1] === '-' ? -total : total) * US));
  }
  match = /^(?:(-?\d+) (?:days? ?))?(?:([-+])?(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?$/.exec(text);
  if (match && text !== '') {
    const [, days, sign, hours, minutes, seconds, frac] = match;
    const rest = hours === undefined ? 0 : (Number(hours) * 3600 + Number(minutes) * 60 + Number(seconds)) * US + Number((frac ?? '').padEnd(6, '0') || 0);
    return new TimeDelta(Number(days ?? 0) * 86_400 * US + (sign === '-' ? -rest : rest));
  }
  return undefined;
}

/** The original's wording of an age or a time remaining: `2 hours`, `1 day 3 hours` at precision 2. */
export function timeString(seconds: number, precision = 1): string {
  const formatn = (count: number, unit: string) => (count === 1 ? `1 ${unit} ` : `${count} ${unit}s `);
  if (seconds === 0) return '0 seconds';
  const units = ['year', 'month', 'day', 'hour', 'minute', 'second'];
  const factors = [365 * 86_400, 30 * 86_400, 86_400, 3600, 60, 1];
  let out = '';
  let level = 0;
  let rest = seconds;
  for (let unit = 0; unit < factors.length; unit++) {
    if (rest < factors[unit]) continue;
    level++;
    if (level === precision) return (out + formatn(pyRound(rest / factors[unit]), units[unit])).trimEnd();
    const whole = Math.floor(rest / factors[unit]);
    out += formatn(whole, units[unit]);
    rest -= whole * factors[unit];
  }
  return out.trimEnd();
}

