// Python's datetime and date as templates use them: printed as Python prints them
// (`2025-01-02 03:04:05.123456+00:00`), with the arithmetic and comparisons automations rely on
// (now() - timedelta(hours=1), aware vs naive, .timestamp()).
//
// A datetime keeps its wall-clock fields (whole seconds since 1970 as if they were UTC, plus
// microseconds) and its zone; an IANA zone's offset is looked up per wall time (zones.ts).
import { TemplateError, typeError, valueError } from './errors.ts';
import { argument } from './render-env.ts';
import { strftime } from './strftime.ts';
import { TimeDelta } from './timedelta.ts';
import { Callable, MISSING, PyObject, float, pyType, strRepr, type Ctx } from './values.ts';
import { dayOfYear, MAX_WALL, MIN_WALL, pad, US, wallFields, wallOf } from './wall-time.ts';
import { offsetAt, offsetOfWall, offsetText, UTC, zoneAbbreviation, type Zone } from './zones.ts';

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
  get fields() {
    return wallFields(this.wall);
  }
  override attr(name: string): unknown {
    const fields = this.fields;
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
        return fields[name];
      case 'isoformat':
        return new Callable('isoformat', () => this.str());
      case 'weekday':
        return new Callable('weekday', () => fields.weekday);
      case 'isoweekday':
        return new Callable('isoweekday', () => fields.weekday + 1);
      case 'strftime':
        return new Callable('strftime', (_ctx, args) => this.strftime(String(args[0] ?? '')));
    }
    return MISSING;
  }
  strftime(fmt: string): string {
    const fields = this.fields;
    return strftime(fmt, { ...fields, hour: 0, minute: 0, second: 0, micro: 0, yday: dayOfYear(fields.year, fields.month, fields.day), offset: null, zoneName: '' });
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
    const fields = this.fields;
    return `${pad(fields.year, 4)}-${pad(fields.month)}-${pad(fields.day)}`;
  }
  repr(): string {
    const fields = this.fields;
    return `datetime.date(${fields.year}, ${fields.month}, ${fields.day})`;
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
    const fields = wallFields(this.wall);
    let time = `${pad(fields.hour)}:${pad(fields.minute)}:${pad(fields.second)}`;
    if (timespec === 'auto' ? this.micro !== 0 : timespec === 'microseconds') time += `.${pad(this.micro, 6)}`;
    else if (timespec === 'milliseconds') time += `.${pad(Math.floor(this.micro / 1000), 3)}`;
    else if (timespec === 'hours') time = pad(fields.hour);
    else if (timespec === 'minutes') time = `${pad(fields.hour)}:${pad(fields.minute)}`;
    const offset = this.offset;
    return `${pad(fields.year, 4)}-${pad(fields.month)}-${pad(fields.day)}${sep}${time}${offset === null ? '' : offsetText(offset)}`;
  }

  strftime(fmt: string): string {
    const fields = wallFields(this.wall);
    const offset = this.offset;
    return strftime(fmt, {
      ...fields,
      micro: this.micro,
      yday: dayOfYear(fields.year, fields.month, fields.day),
      offset,
      zoneName: zoneAbbreviation(this.zone, this.wall - (offset ?? 0), offset ?? 0),
    });
  }

  /** datetime.replace(year=..., tzinfo=...) */
  replace(kwargs: Map<string, unknown>, args: unknown[]): DateTime {
    const fields = wallFields(this.wall);
    const names = ['year', 'month', 'day', 'hour', 'minute', 'second', 'microsecond'] as const;
    const current: Record<string, number> = { ...fields, microsecond: this.micro };
    const next: Record<string, number> = {};
    names.forEach((name, index) => {
      const given = argument(args, kwargs, index, name);
      if (given !== undefined && given !== null && typeof given !== 'number') throw typeError(`'${pyType(given)}' object cannot be interpreted as an integer`);
      next[name] = (given as number | undefined) ?? current[name];
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
    const fields = wallFields(this.wall);
    const local = ctx.localZone;
    switch (name) {
      case 'year':
      case 'month':
      case 'day':
      case 'hour':
      case 'minute':
      case 'second':
        return fields[name];
      case 'microsecond':
        return this.micro;
      case 'tzinfo':
        return this.zone ? new TzInfo(this.zone) : null;
      case 'fold':
        return 0;
      case 'timestamp':
        return new Callable('timestamp', () => float(this.timestamp(local)));
      case 'isoformat':
        return new Callable('isoformat', (_ctx, args, kwargs) => this.isoformat(String(argument(args, kwargs, 0, 'sep') ?? 'T'), String(argument(args, kwargs, 1, 'timespec') ?? 'auto')));
      case 'strftime':
        return new Callable('strftime', (_ctx, args) => {
          if (typeof args[0] !== 'string') throw typeError(`strftime() argument 1 must be str, not ${pyType(args[0])}`);
          return this.strftime(args[0]);
        });
      case 'replace':
        return new Callable('replace', (_ctx, args, kwargs) => this.replace(kwargs, args));
      case 'date':
        return new Callable('date', () => new PyDate(this.wall - (((this.wall % 86_400) + 86_400) % 86_400)));
      case 'weekday':
        return new Callable('weekday', () => fields.weekday);
      case 'isoweekday':
        return new Callable('isoweekday', () => fields.weekday + 1);
      case 'utcoffset':
        return new Callable('utcoffset', () => (this.zone ? new TimeDelta(this.offset! * US) : null));
      case 'tzname':
        return new Callable('tzname', () => (this.zone ? zoneAbbreviation(this.zone, this.wall - this.offset!, this.offset!) : null));
      case 'astimezone':
        return new Callable('astimezone', (_ctx, args) => {
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
      const difference = this.epochMicros(UTC) - other.epochMicros(UTC);
      return new TimeDelta(reflected ? -difference : difference);
    }
    return MISSING;
  }

  override str(): string {
    return this.isoformat(' ');
  }
  repr(): string {
    const fields = wallFields(this.wall);
    const parts = [fields.year, fields.month, fields.day, fields.hour, fields.minute];
    if (fields.second || this.micro) parts.push(fields.second);
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

