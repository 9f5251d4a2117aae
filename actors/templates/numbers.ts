import { cvBoolean } from '../../machines/python/boolean.ts';
import { TemplateError, noDefault, typeError, undefinedError } from './errors.ts';
import { budget } from './budget.ts';
import { argument, fn, type FilterFn, type RenderEnv, type TestFn } from './render-env.ts';
import { JINJA_FILTERS, sortBy } from './filters.ts';
import { Float, PyObject, Undefined, float, isNumber, numberOf, parseIntText, pyRound, pyType, str, toFloat, tuple } from './values.ts';

/**
 * The original's number functions: float, int and bool that refuse (with its message) rather
 * than guess when no default is given, round with its methods, min/max/average/median, iif,
 * and the math extension.
 */

const NO_DEFAULT = Symbol('no default');

/** The default of a forgiving conversion: `default=` or the positional argument after the value. */
function defaultOf(args: unknown[], kwargs: Map<string, unknown>, index = 0): unknown {
  if (kwargs.has('default')) return kwargs.get('default');
  return index < args.length ? args[index] : NO_DEFAULT;
}

/** Python's float() for a forgiving conversion: Undefined raises its own error. */
function floatOf(v: unknown): number {
  if (v instanceof Undefined) throw undefinedError(v.message);
  return toFloat(v);
}

/** A conversion that raised ValueError or TypeError: the default, or the original's error. */
function orDefault<T>(r: RenderEnv, name: string, value: unknown, fallback: unknown, work: () => T): T | unknown {
  try {
    return work();
  } catch (err) {
    if (!(err instanceof TemplateError) || (err.pyClass !== 'ValueError' && err.pyClass !== 'TypeError')) throw err;
    if (fallback === NO_DEFAULT) throw noDefault(name, shown(value), r.template);
    return fallback;
  }
}

/** How the original's message shows a value (Python's str, which an f-string uses). */
function shown(v: unknown): string {
  return v instanceof Undefined ? '' : str(v);
}

/** Jinja's do_int: int(value, base), else int(float(value)); undefined when neither works. */
export function jinjaInt(v: unknown, base: number): number | undefined {
  if (v instanceof Undefined) throw undefinedError(v.message);
  if (typeof v === 'number') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (v instanceof Float) {
    if (!Number.isFinite(v.value)) {
      if (Number.isNaN(v.value)) return undefined;
      throw new TemplateError('OverflowError', 'cannot convert float infinity to integer');
    }
    return Math.trunc(v.value);
  }
  if (typeof v === 'string') {
    const n = parseIntText(v, base);
    if (n !== undefined) return n;
    try {
      const f = toFloat(v);
      if (Number.isNaN(f)) return undefined;
      if (!Number.isFinite(f)) throw new TemplateError('OverflowError', 'cannot convert float infinity to integer');
      return Math.trunc(f);
    } catch (err) {
      if (err instanceof TemplateError && err.pyClass === 'ValueError') return undefined;
      throw err;
    }
  }
  return undefined;
}

function forgivingInt(r: RenderEnv, v: unknown, args: unknown[], kwargs: Map<string, unknown>): unknown {
  const fallback = defaultOf(args, kwargs);
  const base = numberOf(argument(args, kwargs, 1, 'base', 10));
  const n = jinjaInt(v, base);
  if (n !== undefined) return n;
  if (fallback === NO_DEFAULT) throw noDefault('int', shown(v), r.template);
  return fallback;
}

function forgivingFloat(r: RenderEnv, v: unknown, args: unknown[], kwargs: Map<string, unknown>): unknown {
  return orDefault(r, 'float', v, defaultOf(args, kwargs), () => float(floatOf(v)));
}

/** The original's boolean(): on/off, yes/no, true/false, 1/0, enable/disable, or a number. */
export function toBoolean(v: unknown): boolean {
  if (typeof v === 'string') budget().chargeText(v.length);
  const b = cvBoolean(isNumber(v) ? numberOf(v) : v);
  if (b !== undefined) return b;
  throw new TemplateError('ValueError', `invalid boolean value ${str(v)}`);
}

function forgivingBool(r: RenderEnv, v: unknown, args: unknown[], kwargs: Map<string, unknown>): unknown {
  return orDefault(r, 'bool', v, defaultOf(args, kwargs), () => toBoolean(v));
}

/** The original's round: methods common (half to even), ceil, floor and half. */
function forgivingRound(r: RenderEnv, v: unknown, args: unknown[], kwargs: Map<string, unknown>): unknown {
  const precision = numberOf(argument(args, kwargs, 0, 'precision', 0));
  const method = argument(args, kwargs, 1, 'method', 'common');
  const fallback = kwargs.has('default') ? kwargs.get('default') : args.length > 2 ? args[2] : NO_DEFAULT;
  return orDefault(r, 'round', v, fallback, () => {
    const x = floatOf(v);
    const m = 10 ** precision;
    let out: number;
    if (method === 'ceil') out = Math.ceil(x * m) / m;
    else if (method === 'floor') out = Math.floor(x * m) / m;
    else if (method === 'half') out = pyRound(x * 2) / 2;
    else out = pyRound(x, precision);
    if (precision === 0) {
      if (!Number.isFinite(out)) throw new TemplateError('OverflowError', 'cannot convert float infinity to integer');
      return Math.trunc(out);
    }
    return float(out);
  });
}

function arith(name: 'multiply' | 'add'): FilterFn {
  return (r, v, args, kwargs) =>
    orDefault(r, name, v, defaultOf(args, kwargs, 1), () => {
      const amount = args[0];
      if (!isNumber(amount)) throw typeError(`unsupported operand type(s) for ${name === 'add' ? '+' : '*'}: 'float' and '${pyType(amount)}'`);
      const x = floatOf(v);
      return float(name === 'add' ? x + numberOf(amount) : x * numberOf(amount));
    });
}

/** True when float(value) works and is finite. */
export function isNumberValue(v: unknown): boolean {
  try {
    return Number.isFinite(toFloat(v));
  } catch {
    return false;
  }
}

/** The list a statistics function works on: one iterable, or the arguments; the default after an iterable. */
function statsInput(r: RenderEnv, name: string, args: unknown[], kwargs: Map<string, unknown>): { items: unknown[]; fallback: unknown } {
  if (!args.length) throw typeError(`${name} expected at least 1 argument, got 0`);
  let fallback = kwargs.has('default') ? kwargs.get('default') : NO_DEFAULT;
  const first = args[0];
  const iterable = typeof first === 'string' || Array.isArray(first) || (first instanceof PyObject && first.iterate(r) !== undefined) || first instanceof Map;
  if (iterable) {
    if (args.length > 1 && fallback === NO_DEFAULT) fallback = args[1];
    return { items: r.iterate(first), fallback };
  }
  if (args.length === 1) throw typeError(`'${pyType(first)}' object is not iterable`);
  return { items: args, fallback };
}

function statistic(name: string, compute: (items: unknown[]) => unknown) {
  return (r: RenderEnv, args: unknown[], kwargs: Map<string, unknown>) => {
    const { items, fallback } = statsInput(r, name, args, kwargs);
    r.charge(items.length);
    try {
      for (const x of items) if (!isNumber(x)) throw typeError(`can't convert type '${pyType(x)}' to numerator/denominator`);
      if (!items.length) throw new TemplateError('StatisticsError', `${name} requires at least one data point`);
      return compute(items);
    } catch (err) {
      if (!(err instanceof TemplateError) || (err.pyClass !== 'TypeError' && err.pyClass !== 'StatisticsError')) throw err;
      if (fallback === NO_DEFAULT) throw noDefault(name, str(tuple(args)), r.template);
      return fallback;
    }
  };
}

function median(r: RenderEnv, items: unknown[]): unknown {
  const sorted = sortBy(r, items, (x) => x);
  const n = sorted.length;
  if (n % 2) return sorted[(n - 1) / 2];
  const a = sorted[n / 2 - 1];
  const b = sorted[n / 2];
  return float((numberOf(a) + numberOf(b)) / 2);
}

function mode(items: unknown[]): unknown {
  const counts = new Map<number, { item: unknown; n: number }>();
  let best: { item: unknown; n: number } | undefined;
  for (const x of items) {
    const k = numberOf(x);
    const e = counts.get(k) ?? { item: x, n: 0 };
    e.n++;
    counts.set(k, e);
    if (!best || e.n > best.n) best = e;
  }
  return best!.item;
}

/** min() and max() as functions: one iterable, or several arguments. */
function minMaxGlobal(name: 'min' | 'max') {
  return fn(name, (r, args, kwargs) => {
    if (!args.length) throw typeError(`${name} expected at least 1 argument, got 0`);
    let subject: unknown = args.length === 1 ? args[0] : tuple(args);
    if (args.length === 1 && !(typeof subject === 'string' || Array.isArray(subject) || subject instanceof Map || (subject instanceof PyObject && subject.iterate(r) !== undefined))) {
      throw typeError(`'${pyType(subject)}' object is not iterable`);
    }
    subject = r.iterate(subject);
    return JINJA_FILTERS[name](r, subject, [], kwargs);
  });
}

function mathFn(name: string, f: (x: number) => number) {
  return (r: RenderEnv, v: unknown, args: unknown[], kwargs: Map<string, unknown>) =>
    orDefault(r, name, v, defaultOf(args, kwargs), () => {
      const y = f(floatOf(v));
      if (Number.isNaN(y)) throw new TemplateError('ValueError', 'math domain error');
      return float(y);
    });
}

const MATH: Record<string, (x: number) => number> = {
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sqrt: Math.sqrt,
};

function log(r: RenderEnv, v: unknown, args: unknown[], kwargs: Map<string, unknown>): unknown {
  const base = argument(args, kwargs, 0, 'base', float(Math.E));
  const fallback = defaultOf(args, kwargs, 1);
  const b = orDefault(r, 'log', base, fallback, () => floatOf(base));
  if (typeof b !== 'number') return b;
  return orDefault(r, 'log', v, fallback, () => {
    const x = floatOf(v);
    if (x <= 0 || b <= 0 || b === 1) throw new TemplateError(b === 1 ? 'ZeroDivisionError' : 'ValueError', b === 1 ? 'float division by zero' : 'math domain error');
    return float(Math.log(x) / Math.log(b));
  });
}

function atan2(r: RenderEnv, args: unknown[], kwargs: Map<string, unknown>): unknown {
  let pair = args;
  let fallback = kwargs.has('default') ? kwargs.get('default') : NO_DEFAULT;
  if (args.length >= 1 && args.length <= 2 && Array.isArray(args[0])) {
    if (args.length === 2 && fallback === NO_DEFAULT) fallback = args[1];
    pair = args[0];
  } else if (args.length === 3 && fallback === NO_DEFAULT) fallback = args[2];
  return orDefault(r, 'atan2', tuple(pair), fallback, () => float(Math.atan2(floatOf(pair[0]), floatOf(pair[1]))));
}

function clamp(v: unknown, lo: unknown, hi: unknown): unknown {
  try {
    return float(Math.max(toFloat(lo), Math.min(toFloat(hi), toFloat(v))));
  } catch {
    throw new TemplateError('ValueError', `function requires numeric arguments, got value=${str(v)}, min_value=${str(lo)}, max_value=${str(hi)}`);
  }
}

function bitwise(op: (a: number, b: number) => number) {
  return (a: unknown, b: unknown) => {
    if (!(typeof a === 'number' || typeof a === 'boolean') || !(typeof b === 'number' || typeof b === 'boolean')) throw typeError(`unsupported operand type(s) for bitwise operation: '${pyType(a)}' and '${pyType(b)}'`);
    return Number(op(numberOf(a), numberOf(b)));
  };
}

const BITWISE = { bitwise_and: bitwise((a, b) => a & b), bitwise_or: bitwise((a, b) => a | b), bitwise_xor: bitwise((a, b) => a ^ b) };

export const NUMBER_GLOBALS: Record<string, unknown> = {
  float: fn('float', (r, a, k) => forgivingFloat(r, a[0], a.slice(1), k)),
  int: fn('int', (r, a, k) => forgivingInt(r, a[0], a.slice(1), k)),
  bool: fn('bool', (r, a, k) => forgivingBool(r, a[0], a.slice(1), k)),
  is_number: fn('is_number', (_r, a) => isNumberValue(a[0])),
  iif: fn('iif', (r, a, k) => iif(r, a[0], a.slice(1), k)),
  min: minMaxGlobal('min'),
  max: minMaxGlobal('max'),
  average: fn('average', statistic('average', (items) => float(items.reduce((s: number, x) => s + numberOf(x), 0) / items.length))),
  median: fn('median', (r, a, k) => statistic('median', (items) => median(r, items))(r, a, k)),
  statistical_mode: fn('statistical_mode', statistic('statistical_mode', mode)),
  log: fn('log', (r, a, k) => log(r, a[0], a.slice(1), k)),
  atan2: fn('atan2', atan2),
  clamp: fn('clamp', (_r, a) => clamp(a[0], a[1], a[2])),
  e: float(Math.E),
  pi: float(Math.PI),
  tau: float(2 * Math.PI),
  ...Object.fromEntries(Object.entries(MATH).map(([name, f]) => [name, fn(name, (r, a, k) => mathFn(name, f)(r, a[0], a.slice(1), k))])),
  ...Object.fromEntries(Object.entries(BITWISE).map(([name, f]) => [name, fn(name, (_r, a) => f(a[0], a[1]))])),
};

function iif(r: RenderEnv, v: unknown, args: unknown[], kwargs: Map<string, unknown>): unknown {
  const ifTrue = argument(args, kwargs, 0, 'if_true', true);
  const ifFalse = argument(args, kwargs, 1, 'if_false', false);
  const ifNone = argument(args, kwargs, 2, 'if_none', NO_DEFAULT);
  if (v === null && ifNone !== NO_DEFAULT) return ifNone;
  return r.truth(v) ? ifTrue : ifFalse;
}

export const NUMBER_FILTERS: Record<string, FilterFn> = {
  float: forgivingFloat,
  int: forgivingInt,
  bool: forgivingBool,
  round: forgivingRound,
  multiply: arith('multiply'),
  add: arith('add'),
  is_number: (_r, v) => isNumberValue(v),
  iif,
  log,
  average: (r, v, a, k) => statistic('average', (items) => float(items.reduce((s: number, x) => s + numberOf(x), 0) / items.length))(r, [v, ...a], k),
  median: (r, v, a, k) => statistic('median', (items) => median(r, items))(r, [v, ...a], k),
  statistical_mode: (r, v, a, k) => statistic('statistical_mode', mode)(r, [v, ...a], k),
  atan2: (r, v, a, k) => atan2(r, [v, ...a], k),
  clamp: (_r, v, a) => clamp(v, a[0], a[1]),
  ...Object.fromEntries(Object.entries(MATH).map(([name, f]) => [name, mathFn(name, f)])),
  ...Object.fromEntries(Object.entries(BITWISE).map(([name, f]) => [name, ((_r, v, a) => f(v, a[0])) as FilterFn])),
};

export const NUMBER_TESTS: Record<string, TestFn> = {
  is_number: (_r, v) => isNumberValue(v),
};
