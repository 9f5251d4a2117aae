import { zoneOffsetMs } from '../wall-clock.ts';
import { TemplateError, typeError, valueError } from './errors.ts';
import { budget } from './budget.ts';
import { expandText } from './text.ts';
import { Callable, MISSING, PyObject, float, isNumber, numberOf, pyRound, pyType, strRepr, type Ctx } from './values.ts';

/**
 * Python's datetime, timedelta and date as templates use them: printed as Python prints them
 * (`2025-01-02 03:04:05.123456+00:00`, `1 day, 2:00:00`), with the arithmetic and comparisons
 * automations rely on (now() - timedelta(hours=1), aware vs naive, .timestamp()).
 *
 * A datetime keeps its wall-clock fields (whole seconds since 1970 as if they were UTC, plus
 * microseconds) and its zone; an IANA zone's offset is looked up per wall time, as zoneinfo does
 * (fold 0: an ambiguous or skipped wall time takes the offset in force before the change).
 */

const US = 1_000_000;

/** A time zone: a fixed offset (UTC, or one parsed from an ISO string) or an IANA name. */
export type Zone = { kind: 'fixed'; offset: number; name: string } | { kind: 'iana'; name: string };

export const UTC: Zone = { kind: 'fixed', offset: 0, name: 'UTC' };

/** The zone of a configured name; UTC when the name is not a zone this runtime knows. */
export function zoneNamed(name: string | undefined): Zone {
  if (!name || name === 'UTC' || name === 'Etc/UTC') return UTC;
  try {
    zoneOffsetMs(0, name);
    return { kind: 'iana', name };
  } catch {
    return UTC;
  }
}

/** Seconds east of UTC in force at an instant. */
function offsetAt(zone: Zone, utcSec: number): number {
  if (zone.kind === 'fixed') return zone.offset;
  return zoneOffsetMs(utcSec * 1000, zone.name) / 1000;
}

/** The offset of a wall time in a zone (zoneinfo's fold 0). */
function offsetOfWall(zone: Zone, wallSec: number): number {
  if (zone.kind === 'fixed') return zone.offset;
  const before = offsetAt(zone, wallSec - 86400);
  const after = offsetAt(zone, wallSec + 86400);
  for (const o of [before, after]) if (offsetAt(zone, wallSec - o) === o) return o;
  return before;
}

function offsetText(offset: number, colon = true): string {
  const sign = offset < 0 ? '-' : '+';
  const a = Math.abs(offset);
  const h = String(Math.floor(a / 3600)).padStart(2, '0');
  const m = String(Math.floor((a % 3600) / 60)).padStart(2, '0');
  const s = a % 60;
  const sep = colon ? ':' : '';
  return `${sign}${h}${sep}${m}${s ? `${sep}${String(s).padStart(2, '0')}` : ''}`;
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0');

/** Wall-clock fields of whole seconds since 1970 read as UTC. */
function fields(wallSec: number) {
  const d = new Date(wallSec * 1000);
  return {
    year: d.getUTCFullYear(),
    month: d.getUTCMonth() + 1,
    day: d.getUTCDate(),
    hour: d.getUTCHours(),
    minute: d.getUTCMinutes(),
    second: d.getUTCSeconds(),
    weekday: (d.getUTCDay() + 6) % 7,
  };
}

function daysInMonth(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}

/** Builds a wall time from fields, with Python's range checks. */
export function wallOf(year: number, month: number, day: number, hour = 0, minute = 0, second = 0): number {
  const ints = [year, month, day, hour, minute, second];
  if (ints.some((n) => !Number.isInteger(n))) throw typeError('integer argument expected, got float');
  if (year < 1 || year > 9999) throw valueError(`year ${year} is out of range`);
  if (month < 1 || month > 12) throw valueError('month must be in 1..12');
  if (day < 1 || day > daysInMonth(year, month)) throw valueError('day is out of range for month');
  if (hour < 0 || hour > 23) throw valueError('hour must be in 0..23');
  if (minute < 0 || minute > 59) throw valueError('minute must be in 0..59');
  if (second < 0 || second > 59) throw valueError('second must be in 0..59');
  const d = new Date(Date.UTC(2000, month - 1, day, hour, minute, second));
  d.setUTCFullYear(year);
  return d.getTime() / 1000;
}

const MIN_WALL = wallOf(1, 1, 1);
const MAX_WALL = wallOf(9999, 12, 31, 23, 59, 59);

const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];

function zoneAbbreviation(zone: Zone | null, utcSec: number, offset: number): string {
  if (!zone) return '';
  if (zone.kind === 'fixed') return zone.name === 'UTC' ? 'UTC' : `UTC${offsetText(offset)}`;
  const parts = new Intl.DateTimeFormat('en-US', { timeZone: zone.name, timeZoneName: 'short' }).formatToParts(new Date(utcSec * 1000));
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? zone.name;
}

/** strftime as glibc does it for the codes templates use (`%-d` drops the padding). */
export function strftime(fmt: string, f: { year: number; month: number; day: number; hour: number; minute: number; second: number; micro: number; weekday: number; yday: number; offset: number | null; zoneName: string }): string {
  return expandText(fmt, /%(-?)([a-zA-Z%])/g, (whole, nopad: string, code: string) => {
    const p = (n: number, w = 2) => (nopad ? String(n) : pad(n, w));
    switch (code) {
      case 'Y':
        return String(f.year);
      case 'y':
        return p(f.year % 100);
      case 'm':
        return p(f.month);
      case 'd':
        return p(f.day);
      case 'e':
        return nopad ? String(f.day) : String(f.day).padStart(2, ' ');
      case 'H':
        return p(f.hour);
      case 'I':
        return p(f.hour % 12 || 12);
      case 'M':
        return p(f.minute);
      case 'S':
        return p(f.second);
      case 'f':
        return pad(f.micro, 6);
      case 'p':
        return f.hour < 12 ? 'AM' : 'PM';
      case 'a':
        return DAY_NAMES[f.weekday].slice(0, 3);
      case 'A':
        return DAY_NAMES[f.weekday];
      case 'w':
        return String((f.weekday + 1) % 7);
      case 'u':
        return String(f.weekday + 1);
      case 'b':
      case 'h':
        return MONTH_NAMES[f.month - 1].slice(0, 3);
      case 'B':
        return MONTH_NAMES[f.month - 1];
      case 'j':
        return p(f.yday, 3);
      case 'z':
        return f.offset === null ? '' : offsetText(f.offset, false);
      case 'Z':
        return f.zoneName;
      case 'c':
        return `${DAY_NAMES[f.weekday].slice(0, 3)} ${MONTH_NAMES[f.month - 1].slice(0, 3)} ${String(f.day).padStart(2, ' ')} ${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)} ${f.year}`;
      case 'x':
        return `${pad(f.month)}/${pad(f.day)}/${pad(f.year % 100)}`;
      case 'X':
      case 'T':
        return `${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;
      case 'D':
        return `${pad(f.month)}/${pad(f.day)}/${pad(f.year % 100)}`;
      case 'F':
        return `${f.year}-${pad(f.month)}-${pad(f.day)}`;
      case 'R':
        return `${pad(f.hour)}:${pad(f.minute)}`;
      case 'U': {
        const sundayFirst = (f.weekday + 1) % 7;
        return p(Math.floor((f.yday - 1 - sundayFirst + 7) / 7));
      }
      case 'W':
        return p(Math.floor((f.yday - 1 - f.weekday + 7) / 7));
      case '%':
        return '%';
      default:
        return whole;
    }
  });
}

function dayOfYear(year: number, month: number, day: number): number {
  return (Date.UTC(year, month - 1, day) - Date.UTC(year, 0, 1)) / 86_400_000 + 1;
}

/** A keyword or positional argument of a Python call. */
function argOf(args: unknown[], kwargs: Map<string, unknown>, index: number, name: string): unknown {
  if (kwargs.has(name)) return kwargs.get(name);
  return index < args.length ? args[index] : undefined;
}

/** Python's timedelta: whole microseconds. */
export class TimeDelta extends PyObject {
  readonly pyType = 'timedelta';
  override get typeRepr() {
    return 'datetime.timedelta object';
  }
  constructor(readonly micros: number) {
    super();
    if (!Number.isFinite(micros) || Math.abs(micros) >= 86_400 * US * 1_000_000_000) throw new TemplateError('OverflowError', 'days must be in -999999999..999999999');
  }

  /** `timedelta(days, seconds, microseconds, milliseconds, minutes, hours, weeks)` */
  static fromArgs(args: unknown[], kwargs: Map<string, unknown>): TimeDelta {
    const names = ['days', 'seconds', 'microseconds', 'milliseconds', 'minutes', 'hours', 'weeks'];
    const scale = [86_400 * US, US, 1, 1000, 60 * US, 3600 * US, 7 * 86_400 * US];
    for (const k of kwargs.keys()) if (!names.includes(k)) throw typeError(`'${k}' is an invalid keyword argument for __new__()`);
    if (args.length > names.length) throw typeError(`__new__() takes at most 7 arguments (${args.length} given)`);
    let total = 0;
    names.forEach((name, i) => {
      const v = argOf(args, kwargs, i, name);
      if (v === undefined) return;
      if (!isNumber(v)) throw typeError(`unsupported type for timedelta ${name} component: ${pyType(v)}`);
      total += numberOf(v) * scale[i];
    });
    return new TimeDelta(pyRound(total));
  }

  get days() {
    return Math.floor(this.micros / (86_400 * US));
  }
  get seconds() {
    return Math.floor((this.micros - this.days * 86_400 * US) / US);
  }
  get microseconds() {
    return this.micros - this.days * 86_400 * US - this.seconds * US;
  }
  totalSeconds(): number {
    return this.micros / US;
  }

  override attr(name: string): unknown {
    switch (name) {
      case 'days':
        return this.days;
      case 'seconds':
        return this.seconds;
      case 'microseconds':
        return this.microseconds;
      case 'total_seconds':
        return new Callable('total_seconds', () => float(this.totalSeconds()));
    }
    return MISSING;
  }
  override truthy(): boolean {
    return this.micros !== 0;
  }
  override equals(other: unknown): boolean {
    return other instanceof TimeDelta && other.micros === this.micros;
  }
  override compare(other: unknown): number | undefined {
    return other instanceof TimeDelta ? Math.sign(this.micros - other.micros) : undefined;
  }
  override binary(op: string, other: unknown, reflected: boolean): unknown {
    if (other instanceof TimeDelta) {
      if (op === '+') return new TimeDelta(this.micros + other.micros);
      if (op === '-') return new TimeDelta(reflected ? other.micros - this.micros : this.micros - other.micros);
      if (op === '/' && !reflected) {
        if (other.micros === 0) throw new TemplateError('ZeroDivisionError', 'division by zero');
        return float(this.micros / other.micros);
      }
      if (op === '//' && !reflected) {
        if (other.micros === 0) throw new TemplateError('ZeroDivisionError', 'integer division or modulo by zero');
        return Math.floor(this.micros / other.micros);
      }
      if (op === '%' && !reflected) return new TimeDelta(this.micros - Math.floor(this.micros / other.micros) * other.micros);
    }
    if (isNumber(other) && typeof other !== 'boolean') {
      const n = numberOf(other);
      if (op === '*') return new TimeDelta(pyRound(this.micros * n));
      if ((op === '/' || op === '//') && !reflected) {
        if (n === 0) throw new TemplateError('ZeroDivisionError', 'division by zero');
        return new TimeDelta(op === '/' ? pyRound(this.micros / n) : Math.floor(this.micros / n));
      }
    }
    return MISSING;
  }
  negate(): TimeDelta {
    return new TimeDelta(-this.micros);
  }

  override str(): string {
    const d = this.days;
    const s = this.seconds;
    const us = this.microseconds;
    const hms = `${Math.floor(s / 3600)}:${pad(Math.floor((s % 3600) / 60))}:${pad(s % 60)}${us ? `.${pad(us, 6)}` : ''}`;
    return d ? `${d} day${Math.abs(d) === 1 ? '' : 's'}, ${hms}` : hms;
  }
  repr(): string {
    const parts: string[] = [];
    if (this.days) parts.push(`days=${this.days}`);
    if (this.seconds) parts.push(`seconds=${this.seconds}`);
    if (this.microseconds) parts.push(`microseconds=${this.microseconds}`);
    return `datetime.timedelta(${parts.join(', ')})`;
  }
}

/** Python's date (what datetime.date() gives). */
export class PyDate extends PyObject {
  readonly pyType = 'date';
  override get typeRepr() {
    return 'datetime.date object';
  }
  /** midnight of the day, as wall seconds */
  constructor(readonly wall: number) {
    super();
  }
  get f() {
    return fields(this.wall);
  }
  override attr(name: string): unknown {
    const f = this.f;
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
        return f[name];
      case 'isoformat':
        return new Callable('isoformat', () => this.str());
      case 'weekday':
        return new Callable('weekday', () => f.weekday);
      case 'isoweekday':
        return new Callable('isoweekday', () => f.weekday + 1);
      case 'strftime':
        return new Callable('strftime', (_c, args) => this.strftime(String(args[0] ?? '')));
    }
    return MISSING;
  }
  strftime(fmt: string): string {
    const f = this.f;
    return strftime(fmt, { ...f, hour: 0, minute: 0, second: 0, micro: 0, yday: dayOfYear(f.year, f.month, f.day), offset: null, zoneName: '' });
  }
  override equals(other: unknown): boolean {
    return other instanceof PyDate && other.wall === this.wall;
  }
  override compare(other: unknown): number | undefined {
    return other instanceof PyDate ? Math.sign(this.wall - other.wall) : undefined;
  }
  override binary(op: string, other: unknown, reflected: boolean): unknown {
    if (other instanceof TimeDelta && (op === '+' || (op === '-' && !reflected))) {
      const days = Math.trunc(other.micros / (86_400 * US));
      return new PyDate(this.wall + (op === '+' ? days : -days) * 86_400);
    }
    if (other instanceof PyDate && op === '-') return new TimeDelta((reflected ? other.wall - this.wall : this.wall - other.wall) * US);
    return MISSING;
  }
  override str(): string {
    const f = this.f;
    return `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}`;
  }
  repr(): string {
    const f = this.f;
    return `datetime.date(${f.year}, ${f.month}, ${f.day})`;
  }
}

/** Python's datetime. */
export class DateTime extends PyObject {
  readonly pyType = 'datetime';
  override get typeRepr() {
    return 'datetime.datetime object';
  }
  /**
   * @param wall whole seconds of the wall clock since 1970 read as UTC
   * @param micro 0..999999
   * @param zone null for a naive datetime
   */
  constructor(
    readonly wall: number,
    readonly micro: number,
    readonly zone: Zone | null,
  ) {
    super();
    if (wall < MIN_WALL || wall > MAX_WALL) throw new TemplateError('OverflowError', 'date value out of range');
  }

  /** The instant `epochMicros` (microseconds since 1970) seen in `zone`. */
  static fromEpochMicros(epochMicros: number, zone: Zone): DateTime {
    const sec = Math.floor(epochMicros / US);
    const micro = epochMicros - sec * US;
    return new DateTime(sec + offsetAt(zone, sec), micro, zone);
  }

  /** An entity time (epoch ms with microseconds) as the original's UTC datetime. */
  static fromEpochMs(ms: number, zone: Zone = UTC): DateTime {
    return DateTime.fromEpochMicros(Math.round(ms * 1000), zone);
  }

  get offset(): number | null {
    return this.zone ? offsetOfWall(this.zone, this.wall) : null;
  }

  /** Microseconds since 1970 of the instant; a naive datetime is read in `localZone`. */
  epochMicros(localZone: Zone): number {
    const offset = this.zone ? this.offset! : offsetOfWall(localZone, this.wall);
    return (this.wall - offset) * US + this.micro;
  }

  timestamp(localZone: Zone): number {
    return this.epochMicros(localZone) / US;
  }

  /** The same instant in another zone (astimezone). */
  inZone(zone: Zone, localZone: Zone): DateTime {
    return DateTime.fromEpochMicros(this.epochMicros(localZone), zone);
  }

  /** Wall time shifted by a number of microseconds, the zone kept (Python's aware arithmetic). */
  plus(micros: number): DateTime {
    const total = this.micro + micros;
    const sec = Math.floor(total / US);
    return new DateTime(this.wall + sec, total - sec * US, this.zone);
  }

  isoformat(sep = 'T', timespec = 'auto'): string {
    const f = fields(this.wall);
    let time = `${pad(f.hour)}:${pad(f.minute)}:${pad(f.second)}`;
    if (timespec === 'auto' ? this.micro !== 0 : timespec === 'microseconds') time += `.${pad(this.micro, 6)}`;
    else if (timespec === 'milliseconds') time += `.${pad(Math.floor(this.micro / 1000), 3)}`;
    else if (timespec === 'hours') time = pad(f.hour);
    else if (timespec === 'minutes') time = `${pad(f.hour)}:${pad(f.minute)}`;
    const offset = this.offset;
    return `${pad(f.year, 4)}-${pad(f.month)}-${pad(f.day)}${sep}${time}${offset === null ? '' : offsetText(offset)}`;
  }

  strftime(fmt: string): string {
    const f = fields(this.wall);
    const offset = this.offset;
    return strftime(fmt, {
      ...f,
      micro: this.micro,
      yday: dayOfYear(f.year, f.month, f.day),
      offset,
      zoneName: zoneAbbreviation(this.zone, this.wall - (offset ?? 0), offset ?? 0),
    });
  }

  /** datetime.replace(year=..., tzinfo=...) */
  replace(kwargs: Map<string, unknown>, args: unknown[]): DateTime {
    const f = fields(this.wall);
    const names = ['year', 'month', 'day', 'hour', 'minute', 'second', 'microsecond'] as const;
    const current: Record<string, number> = { ...f, microsecond: this.micro };
    const next: Record<string, number> = {};
    names.forEach((name, i) => {
      const v = argOf(args, kwargs, i, name);
      if (v !== undefined && v !== null && typeof v !== 'number') throw typeError(`'${pyType(v)}' object cannot be interpreted as an integer`);
      next[name] = (v as number | undefined) ?? current[name];
    });
    if (next.microsecond < 0 || next.microsecond >= US) throw valueError('microsecond must be in 0..999999');
    let zone = this.zone;
    if (kwargs.has('tzinfo')) {
      const tz = kwargs.get('tzinfo');
      if (tz !== null && !(tz instanceof TzInfo)) throw typeError(`tzinfo argument must be None or of a tzinfo subclass, not type '${pyType(tz)}'`);
      zone = tz === null ? null : tz.zone;
    }
    return new DateTime(wallOf(next.year, next.month, next.day, next.hour, next.minute, next.second), next.microsecond, zone);
  }

  override attr(name: string, ctx: Ctx): unknown {
    const f = fields(this.wall);
    const local = ctx.localZone;
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        return f[name];
      case 'microsecond':
        return this.micro;
      case 'tzinfo':
        return this.zone ? new TzInfo(this.zone) : null;
      case 'fold':
        return 0;
      case 'timestamp':
        return new Callable('timestamp', () => float(this.timestamp(local)));
      case 'isoformat':
        return new Callable('isoformat', (_c, args, kw) => this.isoformat(String(argOf(args, kw, 0, 'sep') ?? 'T'), String(argOf(args, kw, 1, 'timespec') ?? 'auto')));
      case 'strftime':
        return new Callable('strftime', (_c, args) => {
          if (typeof args[0] !== 'string') throw typeError(`strftime() argument 1 must be str, not ${pyType(args[0])}`);
          return this.strftime(args[0]);
        });
      case 'replace':
        return new Callable('replace', (_c, args, kw) => this.replace(kw, args));
      case 'date':
        return new Callable('date', () => new PyDate(this.wall - (((this.wall % 86_400) + 86_400) % 86_400)));
      case 'weekday':
        return new Callable('weekday', () => f.weekday);
      case 'isoweekday':
        return new Callable('isoweekday', () => f.weekday + 1);
      case 'utcoffset':
        return new Callable('utcoffset', () => (this.zone ? new TimeDelta(this.offset! * US) : null));
      case 'tzname':
        return new Callable('tzname', () => (this.zone ? zoneAbbreviation(this.zone, this.wall - this.offset!, this.offset!) : null));
      case 'astimezone':
        return new Callable('astimezone', (_c, args) => {
          const tz = args[0];
          const zone = tz === undefined || tz === null ? local : tz instanceof TzInfo ? tz.zone : null;
          if (!zone) throw typeError(`astimezone() argument 1 must be datetime.tzinfo, not ${pyType(tz)}`);
          return this.inZone(zone, local);
        });
    }
    return MISSING;
  }

  override equals(other: unknown): boolean {
    if (!(other instanceof DateTime)) return false;
    if (!this.zone !== !other.zone) return false;
    return this.epochMicros(UTC) === other.epochMicros(UTC);
  }
  override compare(other: unknown): number | undefined {
    if (!(other instanceof DateTime)) return undefined;
    if (!this.zone !== !other.zone) throw typeError("can't compare offset-naive and offset-aware datetimes");
    return Math.sign(this.epochMicros(UTC) - other.epochMicros(UTC));
  }
  override binary(op: string, other: unknown, reflected: boolean): unknown {
    if (other instanceof TimeDelta) {
      if (op === '+') return this.plus(other.micros);
      if (op === '-' && !reflected) return this.plus(-other.micros);
    }
    if (other instanceof DateTime && op === '-') {
      if (!this.zone !== !other.zone) throw typeError("can't subtract offset-naive and offset-aware datetimes");
      const d = this.epochMicros(UTC) - other.epochMicros(UTC);
      return new TimeDelta(reflected ? -d : d);
    }
    return MISSING;
  }

  override str(): string {
    return this.isoformat(' ');
  }
  repr(): string {
    const f = fields(this.wall);
    const parts = [f.year, f.month, f.day, f.hour, f.minute];
    if (f.second || this.micro) parts.push(f.second);
    if (this.micro) parts.push(this.micro);
    const tz = this.zone ? `, tzinfo=${new TzInfo(this.zone).repr()}` : '';
    return `datetime.datetime(${parts.join(', ')}${tz})`;
  }
}

/** A datetime's tzinfo (prints as its name). */
export class TzInfo extends PyObject {
  readonly pyType = 'tzinfo';
  constructor(readonly zone: Zone) {
    super();
  }
  override equals(other: unknown): boolean {
    return other instanceof TzInfo && other.zone.name === this.zone.name;
  }
  override str(): string {
    return this.zone.kind === 'fixed' && this.zone.name !== 'UTC' ? `UTC${offsetText(this.zone.offset)}` : this.zone.name;
  }
  repr(): string {
    return this.zone.kind === 'iana' ? `zoneinfo.ZoneInfo(key=${strRepr(this.zone.name)})` : this.zone.name === 'UTC' ? 'datetime.timezone.utc' : `datetime.timezone(${new TimeDelta(this.zone.offset * US).repr()})`;
  }
}

/**
 * The original's parse_datetime: ISO 8601 forms (with `T` or a space, basic or extended, an
 * offset or `Z`), a plain date giving midnight; undefined when the text is not one. Throws
 * ValueError when it is well formed but not a valid date.
 */
export function parseDatetime(text: string): DateTime | undefined {
  budget().chargeText(text.length);
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text) ??
    /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(?:(\d{2})(?:[.,](\d{1,9}))?)?)?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, tz] = m;
  if (tz && h === undefined) return undefined;
  const wall = wallOf(Number(y), Number(mo), Number(d), Number(h ?? 0), Number(mi ?? 0), Number(s ?? 0));
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
  let m = /^(?:(-?\d+) (?:days?, )?)?(-?)(?:(\d+):(?=\d+:\d+))?(?:(\d+):)?(\d+)(?:[.,](\d{1,6})\d{0,6})?$/.exec(text);
  if (m) {
    const [, days, sign, h, mi, s, frac] = m;
    const rest = (Number(h ?? 0) * 3600 + Number(mi ?? 0) * 60 + Number(s)) * US + Number((frac ?? '').padEnd(6, '0') || 0);
    return new TimeDelta(Number(days ?? 0) * 86_400 * US + (sign === '-' ? -rest : rest));
  }
  m = /^([-+]?)P(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/.exec(text);
  if (m && text !== 'P' && !text.endsWith('T')) {
    const n = (v: string | undefined) => Number((v ?? '0').replace(',', '.'));
    const total = n(m[2]) * 86_400 + n(m[3]) * 3600 + n(m[4]) * 60 + n(m[5]);
    return new TimeDelta(pyRound((m[1] === '-' ? -total : total) * US));
  }
  m = /^(?:(-?\d+) (?:days? ?))?(?:([-+])?(\d+):(\d\d):(\d\d)(?:\.(\d{1,6}))?)?$/.exec(text);
  if (m && text !== '') {
    const [, days, sign, h, mi, s, frac] = m;
    const rest = h === undefined ? 0 : (Number(h) * 3600 + Number(mi) * 60 + Number(s)) * US + Number((frac ?? '').padEnd(6, '0') || 0);
    return new TimeDelta(Number(days ?? 0) * 86_400 * US + (sign === '-' ? -rest : rest));
  }
  return undefined;
}

/** The original's wording of an age or a time remaining: `2 hours`, `1 day 3 hours` at precision 2. */
export function timeString(seconds: number, precision = 1): string {
  const formatn = (n: number, unit: string) => (n === 1 ? `1 ${unit} ` : `${n} ${unit}s `);
  if (seconds === 0) return '0 seconds';
  const units = ['year', 'month', 'day', 'hour', 'minute', 'second'];
  const factors = [365 * 86_400, 30 * 86_400, 86_400, 3600, 60, 1];
  let out = '';
  let level = 0;
  let rest = seconds;
  for (let i = 0; i < factors.length; i++) {
    if (rest < factors[i]) continue;
    level++;
    if (level === precision) return (out + formatn(pyRound(rest / factors[i]), units[i])).trimEnd();
    const whole = Math.floor(rest / factors[i]);
    out += formatn(whole, units[i]);
    rest -= whole * factors[i];
  }
  return out.trimEnd();
}

