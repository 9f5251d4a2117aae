import { TemplateError, typeError } from './errors.ts';
import type { Zone } from './zones.ts';
import { floatRepr, intStr, parseFloatText } from '../../machines/python/float.ts';
import { strRepr } from '../../machines/python/repr.ts';
import { TextBuilder, budget } from './budget.ts';

/**
 * Python's values as a template sees them, on plain JavaScript values where they agree:
 * None is null, bool is boolean, str is string, int is an integral number, list is an Array,
 * dict is a Map (made by a template) or a plain object (attributes, variables). What JavaScript
 * cannot tell apart gets a small class: a float (`5.0` prints as `5.0`), a tuple (an Array
 * marked as one), Jinja's Undefined, and the objects below.
 */

/** A Python float: boxed, so `5.0` stays a float and prints as one. */
export class Float {
  constructor(readonly value: number) {}
}

const TUPLE = Symbol('tuple');

/** Marks an array as a Python tuple (prints with parentheses, never equals a list). */
export function tuple<T>(items: T[]): T[] {
  (items as any)[TUPLE] = true;
  return items;
}

export const isTuple = (x: unknown): x is unknown[] => Array.isArray(x) && (x as any)[TUPLE] === true;

/** Jinja's Undefined: what a missing name, attribute or item evaluates to, with the message it raises. */
export class Undefined {
  constructor(readonly message: string) {}
}

/** What the render a value is used in offers to it: collecting listeners, logging, the clock. */
export interface Ctx {
  /** the entity was read: a change to it re-renders */
  collectEntity(entityId: string): void;
  /** counts work done outside the evaluator (sorting, joining); throws past the budget */
  charge(units: number): void;
  /** a warning or error the original logs through its logging Undefined */
  report(level: 'WARNING' | 'ERROR', message: string): void;
  readonly strict: boolean;
  /** the configured time zone: naive datetimes are read in it */
  readonly localZone: Zone;
}

/** Attribute lookup found nothing. */
export const MISSING: unique symbol = Symbol('missing');

/**
 * A Python object a template can hold (a datetime, a state, a namespace...). Each kind says how it
 * prints, compares and which attributes it has; the defaults are those of a plain object.
 */
export abstract class PyObject {
  /** Python's class name, for error messages (`'datetime.datetime' ...`). */
  abstract readonly pyType: string;
  /** Jinja's object_type_repr: `'None'`, `str object`, `homeassistant...TemplateState object` */
  get typeRepr(): string {
    return `${this.pyType} object`;
  }
  attr(_name: string, _ctx: Ctx): unknown {
    return MISSING;
  }
  /** `obj[key]`; by default the attribute of that name */
  item(key: unknown, ctx: Ctx): unknown {
    return typeof key === 'string' ? this.attr(key, ctx) : MISSING;
  }
  /** its items when iterated, or undefined when it is not iterable */
  iterate(_ctx: Ctx): unknown[] | undefined {
    return undefined;
  }
  length(_ctx: Ctx): number | undefined {
    return undefined;
  }
  truthy(): boolean {
    return true;
  }
  equals(other: unknown): boolean {
    return this === other;
  }
  /** <0, 0, >0, or undefined when the two cannot be ordered */
  compare(_other: unknown): number | undefined {
    return undefined;
  }
  /** `this <op> other` (or `other <op> this` when `reflected`), or MISSING when unsupported */
  binary(_op: string, _other: unknown, _reflected: boolean): unknown {
    return MISSING;
  }
  str(): string {
    return this.repr();
  }
  abstract repr(): string;
}

/** Something a template can call: a global function, a macro, a bound method. */
export class Callable extends PyObject {
  readonly pyType: string = 'function';
  constructor(
    readonly name: string,
    readonly call: (ctx: Ctx, args: unknown[], kwargs: Map<string, unknown>) => unknown,
  ) {
    super();
  }
  repr(): string {
    return `<function ${this.name}>`;
  }
}

/** Jinja's `namespace(...)`: the one object a template may assign attributes to. */
export class Namespace extends PyObject {
  readonly pyType = 'Namespace';
  override get typeRepr() {
    return 'jinja2.utils.Namespace object';
  }
  constructor(readonly values: Map<string, unknown>) {
    super();
  }
  override attr(name: string): unknown {
    return this.values.has(name) ? this.values.get(name) : MISSING;
  }
  repr(): string {
    return `<Namespace ${repr(this.values)}>`;
  }
}

/** The sandbox's range: at most 100,000 items, and never materialised to be iterated. */
export class PyRange extends PyObject {
  readonly pyType = 'range';
  readonly size: number;
  constructor(
    readonly start: number,
    readonly stop: number,
    readonly step: number,
  ) {
    super();
    this.size = Math.max(0, Math.ceil((stop - start) / step));
  }
  at(i: number): number {
    return this.start + i * this.step;
  }
  override iterate(ctx: Ctx): unknown[] {
    ctx.charge(this.size);
    return Array.from({ length: this.size }, (_, i) => this.at(i));
  }
  override length(): number {
    return this.size;
  }
  override truthy(): boolean {
    return this.size > 0;
  }
  override equals(other: unknown): boolean {
    return other instanceof PyRange && other.size === this.size && (this.size === 0 || (other.start === this.start && (this.size === 1 || other.step === this.step)));
  }
  repr(): string {
    return this.step === 1 ? `range(${this.start}, ${this.stop})` : `range(${this.start}, ${this.stop}, ${this.step})`;
  }
}

/** Jinja's sandbox limit on range(). */
export const MAX_RANGE = 100_000;

// ---- kinds ----

export type Dict = Map<unknown, unknown> | Record<string, unknown>;

/** A dict: a Map, or a plain object (attributes, variables, parsed JSON). */
export function isDict(x: unknown): x is Dict {
  if (x instanceof Map) return true;
  if (x === null || typeof x !== 'object' || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

export function dictGet(d: Dict, key: unknown): unknown {
  if (d instanceof Map) return d.has(key) ? d.get(key) : MISSING;
  if (typeof key !== 'string') key = typeof key === 'number' ? String(key) : key;
  return typeof key === 'string' && Object.hasOwn(d, key) ? d[key] : MISSING;
}

export function dictKeys(d: Dict): unknown[] {
  return d instanceof Map ? [...d.keys()] : Object.keys(d);
}

export function dictEntries(d: Dict): [unknown, unknown][] {
  return d instanceof Map ? [...d.entries()] : Object.entries(d);
}

export function dictSize(d: Dict): number {
  return d instanceof Map ? d.size : Object.keys(d).length;
}

/** A float: boxed, or a number JavaScript holds with a fraction (an attribute such as 21.5). */
export const isFloatish = (x: unknown): boolean => x instanceof Float || (typeof x === 'number' && !Number.isInteger(x));
export const isInt = (x: unknown): x is number => typeof x === 'number' && Number.isInteger(x);
/** int, float or bool (bool is an int in Python) */
export const isNumber = (x: unknown): boolean => typeof x === 'number' || x instanceof Float || typeof x === 'boolean';
export const numberOf = (x: unknown): number => (x instanceof Float ? x.value : typeof x === 'boolean' ? (x ? 1 : 0) : (x as number));
export const float = (n: number) => new Float(n);

/** Python's class name of a value, as TypeError messages show it. */
export function pyType(x: unknown): string {
  if (x === null) return 'NoneType';
  if (x === undefined) return 'NoneType';
  switch (typeof x) {
    case 'boolean':
      return 'bool';
    case 'number':
      return Number.isInteger(x) ? 'int' : 'float';
    case 'string':
      return 'str';
  }
  if (x instanceof Float) return 'float';
  if (Array.isArray(x)) return isTuple(x) ? 'tuple' : 'list';
  if (x instanceof Undefined) return 'Undefined';
  if (x instanceof PyObject) return x.pyType;
  if (isDict(x)) return 'dict';
  return 'object';
}

/** Jinja's object_type_repr, used in the messages of Undefined. */
export function typeRepr(x: unknown): string {
  if (x === null || x === undefined) return 'None';
  if (x instanceof PyObject) return x.typeRepr;
  return `${pyType(x)} object`;
}

// ---- printing ----

export { floatRepr, intStr, strRepr };

/** Python's repr(); a nested value is printed piece by piece, refused once it passes the value limit. */
export function repr(x: unknown): string {
  if (!Array.isArray(x) && !(isDict(x) && dictSize(x) > 0)) return scalarRepr(x);
  const out = new TextBuilder();
  writeRepr(x, out);
  return out.text();
}

function writeRepr(x: unknown, out: TextBuilder): void {
  if (Array.isArray(x)) {
    const isTup = isTuple(x);
    out.add(isTup ? '(' : '[');
    for (let i = 0; i < x.length; i++) {
      if (i) out.add(', ');
      writeRepr(x[i], out);
    }
    out.add(isTup ? (x.length === 1 ? ',)' : ')') : ']');
    return;
  }
  if (isDict(x)) {
    out.add('{');
    let first = true;
    for (const [k, v] of dictEntries(x)) {
      out.add(first ? '' : ', ');
      first = false;
      writeRepr(k, out);
      out.add(': ');
      writeRepr(v, out);
    }
    out.add('}');
    return;
  }
  out.add(scalarRepr(x));
}

function scalarRepr(x: unknown): string {
  if (x === null || x === undefined) return 'None';
  if (x === true) return 'True';
  if (x === false) return 'False';
  if (typeof x === 'number') return Number.isInteger(x) ? intStr(x) : floatRepr(x);
  if (typeof x === 'string') return strRepr(x);
  if (x instanceof Float) return floatRepr(x.value);
  if (x instanceof Undefined) return 'Undefined';
  if (x instanceof PyObject) return x.repr();
  if (isDict(x)) return '{}';
  return String(x);
}

/** Python's str(); Undefined prints as '' (its warning is the caller's). */
export function str(x: unknown): string {
  if (typeof x === 'string') return x;
  if (x instanceof Undefined) return '';
  if (x instanceof PyObject) return x.str();
  return repr(x);
}

// ---- semantics ----

/** Python's bool(); Undefined is false (the caller logs or raises for it). */
export function truthy(x: unknown): boolean {
  if (x === null || x === undefined || x === false || x === 0 || x === '') return false;
  if (x === true || typeof x === 'number' || typeof x === 'string') return true;
  if (x instanceof Float) return x.value !== 0;
  if (Array.isArray(x)) return x.length > 0;
  if (x instanceof Undefined) return false;
  if (x instanceof PyObject) return x.truthy();
  if (isDict(x)) return dictSize(x) > 0;
  return true;
}

/** Python's ==. */
export function pyEq(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (isNumber(a) && isNumber(b)) return numberOf(a) === numberOf(b);
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a === 'string' || typeof b === 'string') return false;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (isTuple(a) !== isTuple(b) || a.length !== b.length) return false;
    const work = budget();
    for (let i = 0; i < a.length; i++) {
      work.tick();
      if (!pyEq(a[i], b[i])) return false;
    }
    return true;
  }
  if (a instanceof Undefined || b instanceof Undefined) return a instanceof Undefined && b instanceof Undefined;
  if (a instanceof PyObject) return a.equals(b);
  if (b instanceof PyObject) return b.equals(a);
  if (isDict(a) && isDict(b)) {
    if (dictSize(a) !== dictSize(b)) return false;
    const work = budget();
    work.charge(dictSize(a));
    for (const [k, v] of dictEntries(a)) {
      work.tick();
      const w = dictGet(b, k);
      if (w === MISSING || !pyEq(v, w)) return false;
    }
    return true;
  }
  return false;
}

/** Python's ordering of two values; TypeError as Python words it when they cannot be ordered. */
export function pyCompare(a: unknown, b: unknown, op: string): number {
  if (isNumber(a) && isNumber(b)) {
    const x = numberOf(a);
    const y = numberOf(b);
    return x < y ? -1 : x > y ? 1 : x === y ? 0 : NaN;
  }
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0;
  if (Array.isArray(a) && Array.isArray(b) && isTuple(a) === isTuple(b)) {
    const work = budget();
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      work.tick();
      if (pyEq(a[i], b[i])) continue;
      return pyCompare(a[i], b[i], op);
    }
    return a.length - b.length;
  }
  if (a instanceof PyObject) {
    const c = a.compare(b);
    if (c !== undefined) return c;
  } else if (b instanceof PyObject) {
    const c = b.compare(a);
    if (c !== undefined) return -c;
  }
  throw typeError(`'${op}' not supported between instances of '${pyType(a)}' and '${pyType(b)}'`);
}

/** Python's float(x): ints, floats, bools and numeric strings; TypeError or ValueError otherwise. */
export function toFloat(x: unknown): number {
  if (isNumber(x)) return numberOf(x);
  if (typeof x === 'string') {
    budget().chargeText(x.length);
    const n = parseFloatText(x);
    if (n !== undefined) return n;
    throw new TemplateError('ValueError', `could not convert string to float: ${strRepr(x)}`);
  }
  if (x instanceof PyObject && 'toFloat' in x) return (x as unknown as { toFloat(): number }).toFloat();
  throw typeError(`float() argument must be a string or a real number, not '${pyType(x)}'`);
}

/** Python's int(x, base) of a string, or undefined when it is not one. */
export function parseIntText(text: string, base: number): number | undefined {
  budget().chargeText(text.length);
  let t = text.trim().toLowerCase().replace(/(?<=[0-9a-z])_(?=[0-9a-z])/g, '');
  let sign = 1;
  if (t.startsWith('-') || t.startsWith('+')) {
    if (t[0] === '-') sign = -1;
    t = t.slice(1);
  }
  const prefixes: Record<string, number> = { '0x': 16, '0o': 8, '0b': 2 };
  const prefix = prefixes[t.slice(0, 2)];
  if (prefix !== undefined && (base === prefix || base === 0)) {
    t = t.slice(2);
    base = prefix;
  } else if (base === 0) {
    if (/^0+$/.test(t)) return 0;
    if (t.startsWith('0')) return undefined;
    base = 10;
  }
  if (t === '' || base < 2 || base > 36) return undefined;
  const valid = '0123456789abcdefghijklmnopqrstuvwxyz'.slice(0, base);
  let n = 0;
  for (const ch of t) {
    const d = valid.indexOf(ch);
    if (d < 0) return undefined;
    n = n * base + d;
  }
  return sign * n;
}

/**
 * Python's round(x, n) on a float: half to even on the exact binary value (round(2.5) == 2,
 * round(2.675, 2) == 2.67).
 */
export function pyRound(x: number, n = 0): number {
  if (!Number.isFinite(x)) return x;
  if (n < 0) {
    const p = 10 ** -n;
    return pyRound(x / p, 0) * p;
  }
  if (n > 15) return x;
  const fixed = x.toFixed(n);
  // a tie exists only when the exact expansion ends in 5 right after the kept digits
  const exact = Math.abs(x).toFixed(Math.min(100, n + 60));
  const rest = exact.slice(exact.indexOf('.') + 1 + n);
  if (!/^50*$/.test(rest)) return Number(fixed);
  const away = Number(fixed);
  const step = 10 ** -n;
  const toward = x >= 0 ? away - step : away + step;
  const lastDigit = (v: number) => Math.round(Math.abs(v) * 10 ** n) % 10;
  return lastDigit(away) % 2 === 0 ? away : Number(toward.toFixed(n));
}
