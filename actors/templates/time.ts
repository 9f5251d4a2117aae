import { TemplateError, noDefault, typeError } from './errors.ts';
import { argument, fn, type FilterFn, type RenderEnv, type TestFn } from './render-env.ts';
import { DateTime, PyDate } from './datetime.ts';
import { parseDatetime, parseDuration, timeString } from './time-text.ts';
import { TimeDelta } from './timedelta.ts';
import { wallOf } from './wall-time.ts';
import { UTC, type Zone } from './zones.ts';
import { Undefined, float, isNumber, numberOf, pyRound, pyType, str, toFloat } from './values.ts';

/**
 * The original's time functions: now and utcnow (which make a subscribed template re-render
 * every minute), as_timestamp, as_datetime, as_local, relative_time, timedelta, today_at,
 * strptime and the timestamp filters.
 */

const NO_DEFAULT = Symbol('no default');

function defaultOf(args: unknown[], kwargs: Map<string, unknown>, index = 0): unknown {
  if (kwargs.has('default')) return kwargs.get('default');
  return index < args.length ? args[index] : NO_DEFAULT;
}

function nowIn(r: RenderEnv, zone: Zone): DateTime {
  r.info.hasTime = true;
  return DateTime.fromEpochMicros(Math.round(r.world.now() * 1000), zone);
}

/** datetime.fromtimestamp(ts, UTC), microseconds rounded half to even as Python does. */
export function utcFromTimestamp(ts: number): DateTime {
  if (!Number.isFinite(ts)) throw new TemplateError('ValueError', 'cannot convert float NaN to integer');
  const whole = Math.floor(ts);
  const micros = pyRound((ts - whole) * 1e6);
  try {
    return DateTime.fromEpochMicros(whole * 1e6 + micros, UTC);
  } catch {
    throw new TemplateError('ValueError', `year is out of range`);
  }
}

/** The original's as_local: a naive datetime is taken as local time. */
function asLocal(r: RenderEnv, v: unknown): DateTime {
  if (!(v instanceof DateTime)) throw new TemplateError('AttributeError', `'${pyType(v)}' object has no attribute 'tzinfo'`);
  if (!v.zone) return new DateTime(v.wall, v.micro, r.localZone);
  if (v.zone.name === r.localZone.name) return v;
  return v.inZone(r.localZone, r.localZone);
}

function asTimestamp(r: RenderEnv, v: unknown, fallback: unknown): unknown {
  let dt: DateTime | undefined;
  try {
    dt = v instanceof DateTime ? v : parseDatetime(str(v));
  } catch (err) {
    if (!(err instanceof TemplateError) || err.pyClass !== 'ValueError') throw err;
  }
  if (dt) return float(dt.timestamp(r.localZone));
  if (fallback === NO_DEFAULT) throw noDefault('as_timestamp', str(v), r.template);
  return fallback;
}

function asDatetime(r: RenderEnv, v: unknown, fallback: unknown): unknown {
  if (v instanceof DateTime) return v;
  if (v instanceof PyDate) return new DateTime(v.wall, 0, null);
  try {
    return utcFromTimestamp(toFloat(v));
  } catch (err) {
    if (!(err instanceof TemplateError) || (err.pyClass !== 'ValueError' && err.pyClass !== 'TypeError')) throw err;
  }
  try {
    if (typeof v !== 'string') throw typeError(`expected str, got ${pyType(v)}`);
    const dt = parseDatetime(v);
    if (dt) return dt;
  } catch (err) {
    if (!(err instanceof TemplateError) || (err.pyClass !== 'ValueError' && err.pyClass !== 'TypeError')) throw err;
  }
  if (fallback !== NO_DEFAULT) return fallback;
  // a string that is no date is None, as before 2024.2
  if (typeof v === 'string') return null;
  throw noDefault('as_datetime', str(v), r.template);
}

/** relative_time, time_since and time_until: the age of a datetime in words; anything else unchanged. */
function age(r: RenderEnv, v: unknown, precision: number, future: boolean): unknown {
  r.info.hasTime = true;
  if (!(v instanceof DateTime)) return v;
  const when = v.zone ? v : new DateTime(v.wall, v.micro, r.localZone);
  const now = Math.round(r.world.now() * 1000);
  const delta = future ? when.epochMicros(r.localZone) - now : now - when.epochMicros(r.localZone);
  if (delta < 0) return v;
  return timeString(pyRound(delta / 1e6), precision);
}

/** today_at: today's local midnight, or the time given (`HH:MM[:SS]`) today. */
function todayAt(r: RenderEnv, text: unknown): DateTime {
  const today = nowIn(r, r.localZone);
  const midnight = today.wall - (((today.wall % 86_400) + 86_400) % 86_400);
  const t = text === undefined ? '' : str(text);
  if (!t) return new DateTime(midnight, 0, r.localZone);
  const parts = t.split(':');
  const nums = parts.map((p) => (/^\s*[+-]?\d+\s*$/.test(p) ? Number(p) : NaN));
  const [h, m, s = 0] = nums;
  if (parts.length < 2 || parts.length > 3 || nums.some(Number.isNaN) || h < 0 || h > 23 || m < 0 || m > 59 || s < 0 || s > 59) {
    throw new TemplateError('ValueError', `could not convert ${pyType(text)} to datetime: '${t}'`);
  }
  return new DateTime(midnight + h * 3600 + m * 60 + s, 0, r.localZone);
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const MONTH_NAMES = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const DAY_NAMES = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'];

/** Python's datetime.strptime for the directives templates use. */
export function strptime(text: string, format: string): DateTime {
  const fields: Record<string, number> = {};
  let zone: Zone | null = null;
  let pattern = '^';
  const groups: string[] = [];
  const alt = (list: string[]) => `(${list.join('|')})`;
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (/\s/.test(c)) {
      // as Python's _strptime: a run of whitespace matches any run of it
      while (/\s/.test(format[i + 1] ?? '')) i++;
      pattern += '\\s+';
      continue;
    }
    if (c !== '%') {
      pattern += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      continue;
    }
    const d = format[++i];
    const add = (re: string, name: string) => {
      pattern += re;
      groups.push(name);
    };
    switch (d) {
      case 'Y': add('(\\d{4})', 'Y'); break;
      case 'y': add('(\\d{1,2})', 'y'); break;
      case 'm': add('(\\d{1,2})', 'm'); break;
      case 'd': add('(\\d{1,2})', 'd'); break;
      case 'H': add('(\\d{1,2})', 'H'); break;
      case 'I': add('(\\d{1,2})', 'I'); break;
      case 'M': add('(\\d{1,2})', 'M'); break;
      case 'S': add('(\\d{1,2})', 'S'); break;
      case 'f': add('(\\d{1,6})', 'f'); break;
      case 'j': add('(\\d{1,3})', 'j'); break;
      case 'p': add('(am|pm)', 'p'); break;
      case 'b': case 'h': add(alt(MONTHS), 'b'); break;
      case 'B': add(alt(MONTH_NAMES), 'B'); break;
      case 'a': add(alt(DAYS), 'a'); break;
      case 'A': add(alt(DAY_NAMES), 'A'); break;
      case 'z': add('(Z|[+-]\\d{2}:?\\d{2}(?::?\\d{2})?)', 'z'); break;
      case 'Z': add('(UTC|GMT|[A-Z]{3,5})', 'Z'); break;
      case '%': pattern += '%'; break;
      default:
        throw new TemplateError('ValueError', `'${d}' is a bad directive in format '%${d}'`);
    }
  }
  const m = new RegExp(`${pattern}$`, 'i').exec(text);
  if (!m) throw new TemplateError('ValueError', `time data ${JSON.stringify(text).replace(/"/g, "'")} does not match format '${format}'`);
  groups.forEach((g, i) => {
    const v = m[i + 1];
    if (g === 'b') fields.m = MONTHS.indexOf(v.toLowerCase()) + 1;
    else if (g === 'B') fields.m = MONTH_NAMES.indexOf(v.toLowerCase()) + 1;
    else if (g === 'p') fields.p = v.toLowerCase() === 'pm' ? 1 : 0;
    else if (g === 'f') fields.f = Number(v.padEnd(6, '0'));
    else if (g === 'z') {
      if (v === 'Z') zone = UTC;
      else {
        const digits = v.slice(1).replace(/:/g, '');
        const offset = (v[0] === '-' ? -1 : 1) * (Number(digits.slice(0, 2)) * 3600 + Number(digits.slice(2, 4)) * 60 + Number(digits.slice(4, 6) || 0));
        zone = offset === 0 ? UTC : { kind: 'fixed', offset, name: `UTC${v}` };
      }
    } else if (g === 'Z') {
      if (/^(UTC|GMT)$/i.test(v)) zone = zone ?? null;
    } else if (g !== 'a' && g !== 'A') fields[g] = Number(v);
  });
  let year = fields.Y ?? (fields.y !== undefined ? (fields.y < 69 ? 2000 + fields.y : 1900 + fields.y) : 1900);
  let hour = fields.H ?? 0;
  if (fields.I !== undefined) hour = (fields.I % 12) + (fields.p ? 12 : 0);
  let month = fields.m ?? 1;
  let day = fields.d ?? 1;
  if (fields.j !== undefined && fields.m === undefined) {
    const d = new Date(Date.UTC(2000, 0, fields.j));
    d.setUTCFullYear(year);
    month = d.getUTCMonth() + 1;
    day = d.getUTCDate();
  }
  year = Math.trunc(year);
  const wall = wallOf(year, month, day, hour, fields.M ?? 0, fields.S ?? 0);
  return new DateTime(wall, fields.f ?? 0, zone);
}

function timestampFilter(name: string, render: (r: RenderEnv, dt: DateTime, args: unknown[], kwargs: Map<string, unknown>) => string): FilterFn {
  return (r, v, args, kwargs) => {
    const fallback = kwargs.has('default') ? kwargs.get('default') : name === 'timestamp_custom' ? argument(args, kwargs, 2, 'default', NO_DEFAULT) : argument(args, kwargs, 0, 'default', NO_DEFAULT);
    try {
      if (!isNumber(v)) throw typeError(`'${pyType(v)}' object cannot be interpreted as an integer`);
      return render(r, utcFromTimestamp(numberOf(v)), args, kwargs);
    } catch (err) {
      if (!(err instanceof TemplateError) || (err.pyClass !== 'ValueError' && err.pyClass !== 'TypeError')) throw err;
      if (fallback === NO_DEFAULT) throw noDefault(name, str(v), r.template);
      return fallback;
    }
  };
}

function strptimeCall(r: RenderEnv, args: unknown[], kwargs: Map<string, unknown>): unknown {
  const fallback = argument(args, kwargs, 2, 'default', NO_DEFAULT);
  try {
    if (typeof args[0] !== 'string' || typeof args[1] !== 'string') throw typeError('strptime() argument 1 must be str');
    r.chargeText(args[0].length + args[1].length);
    return strptime(args[0], args[1]);
  } catch (err) {
    if (!(err instanceof TemplateError) || (err.pyClass !== 'ValueError' && err.pyClass !== 'TypeError')) throw err;
    if (fallback === NO_DEFAULT) throw noDefault('strptime', str(args[0]), r.template);
    return fallback;
  }
}

function asTimedelta(v: unknown): TimeDelta | null {
  if (v instanceof Undefined) throw new TemplateError('UndefinedError', v.message);
  if (typeof v !== 'string') throw typeError('expected string or bytes-like object');
  return parseDuration(v) ?? null;
}

export const TIME_GLOBALS: Record<string, unknown> = {
  now: fn('now', (r) => nowIn(r, r.localZone)),
  utcnow: fn('utcnow', (r) => nowIn(r, UTC)),
  as_timestamp: fn('as_timestamp', (r, a, k) => asTimestamp(r, a[0], defaultOf(a, k, 1))),
  as_datetime: fn('as_datetime', (r, a, k) => asDatetime(r, a[0], defaultOf(a, k, 1))),
  as_local: fn('as_local', (r, a) => asLocal(r, a[0])),
  as_timedelta: fn('as_timedelta', (_r, a) => asTimedelta(a[0])),
  timedelta: fn('timedelta', (_r, a, k) => TimeDelta.fromArgs(a, k)),
  relative_time: fn('relative_time', (r, a) => age(r, a[0], 1, false)),
  time_since: fn('time_since', (r, a, k) => age(r, a[0], numberOf(argument(a, k, 1, 'precision', 1)), false)),
  time_until: fn('time_until', (r, a, k) => age(r, a[0], numberOf(argument(a, k, 1, 'precision', 1)), true)),
  today_at: fn('today_at', (r, a) => todayAt(r, a[0])),
  strptime: fn('strptime', strptimeCall),
};

export const TIME_FILTERS: Record<string, FilterFn> = {
  as_timestamp: (r, v, a, k) => asTimestamp(r, v, defaultOf(a, k)),
  as_datetime: (r, v, a, k) => asDatetime(r, v, defaultOf(a, k)),
  as_local: (r, v) => asLocal(r, v),
  as_timedelta: (_r, v) => asTimedelta(v),
  relative_time: (r, v) => age(r, v, 1, false),
  time_since: (r, v, a, k) => age(r, v, numberOf(argument(a, k, 0, 'precision', 1)), false),
  time_until: (r, v, a, k) => age(r, v, numberOf(argument(a, k, 0, 'precision', 1)), true),
  today_at: (r, v) => todayAt(r, v),
  timestamp_custom: timestampFilter('timestamp_custom', (r, dt, a, k) => {
    const format = argument(a, k, 0, 'format_', argument(a, k, 0, 'date_format', '%Y-%m-%d %H:%M:%S'));
    const local = argument(a, k, 1, 'local', true);
    return (r.truth(local) ? dt.inZone(r.localZone, r.localZone) : dt).strftime(str(format));
  }),
  timestamp_local: timestampFilter('timestamp_local', (r, dt) => dt.inZone(r.localZone, r.localZone).isoformat()),
  timestamp_utc: timestampFilter('timestamp_utc', (_r, dt) => dt.isoformat()),
};

export const TIME_TESTS: Record<string, TestFn> = {
  datetime: (_r, v) => v instanceof DateTime,
};
