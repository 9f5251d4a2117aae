// Python's timedelta as templates use it: whole microseconds, printed as Python prints it
// (`1 day, 2:00:00`), with its arithmetic and comparisons.
import { TemplateError, typeError } from './errors.ts';
import { argument } from './render-env.ts';
import { Callable, MISSING, PyObject, float, isNumber, numberOf, pyRound, pyType } from './values.ts';
import { pad, US } from './wall-time.ts';

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
    for (const keyword of kwargs.keys()) if (!names.includes(keyword)) throw typeError(`'${keyword}' is an invalid keyword argument for __new__()`);
    if (args.length > names.length) throw typeError(`__new__() takes at most 7 arguments (${args.length} given)`);
    let total = 0;
    names.forEach((name, index) => {
      const given = argument(args, kwargs, index, name);
      if (given === undefined) return;
      if (!isNumber(given)) throw typeError(`unsupported type for timedelta ${name} component: ${pyType(given)}`);
      total += numberOf(given) * scale[index];
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
      const factor = numberOf(other);
      if (op === '*') return new TimeDelta(pyRound(this.micros * factor));
      if ((op === '/' || op === '//') && !reflected) {
        if (factor === 0) throw new TemplateError('ZeroDivisionError', 'division by zero');
        return new TimeDelta(op === '/' ? pyRound(this.micros / factor) : Math.floor(this.micros / factor));
      }
    }
    return MISSING;
  }
  negate(): TimeDelta {
    return new TimeDelta(-this.micros);
  }

  override str(): string {
    const days = this.days;
    const seconds = this.seconds;
    const micros = this.microseconds;
    const hms = `${Math.floor(seconds / 3600)}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}${micros ? `.${pad(micros, 6)}` : ''}`;
    return days ? `${days} day${Math.abs(days) === 1 ? '' : 's'}, ${hms}` : hms;
  }
  repr(): string {
    const parts: string[] = [];
    if (this.days) parts.push(`days=${this.days}`);
    if (this.seconds) parts.push(`seconds=${this.seconds}`);
    if (this.microseconds) parts.push(`microseconds=${this.microseconds}`);
    return `datetime.timedelta(${parts.join(', ')})`;
  }
}

