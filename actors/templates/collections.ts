import { TemplateError, typeError } from './errors.ts';
import { argument, fn, type FilterFn, type RenderEnv, type TestFn } from './render-env.ts';
import { DistinctValues } from './distinct.ts';
import { joinText, mapText } from './text.ts';
import { Callable, MAX_RANGE, Namespace, PyObject, PyRange, Undefined, dictEntries, dictSize, isDict, isTuple, pyType, repr, str, tuple, type Ctx } from './values.ts';

/**
 * Jinja's globals (range, dict, namespace) and the original's collection helpers: zip, set,
 * tuple, flatten, combine, the set operations, shuffle, typeof, apply, as_function, and the
 * string helpers (base64, slugify, ord).
 */

/** Python's set: unique items in insertion order. */
export class PySet extends PyObject {
  readonly pyType = 'set';
  readonly items: unknown[];
  private readonly seen = new DistinctValues();
  constructor(items: unknown[]) {
    super();
    this.items = items.filter((x) => this.seen.add(x));
  }
  has(x: unknown): boolean {
    return this.seen.has(x);
  }
  override iterate(): unknown[] {
    return this.items;
  }
  override length(): number {
    return this.items.length;
  }
  override truthy(): boolean {
    return this.items.length > 0;
  }
  override equals(other: unknown): boolean {
    return other instanceof PySet && other.items.length === this.items.length && this.items.every((x) => other.has(x));
  }
  repr(): string {
    return this.items.length ? `{${repr(this.items).slice(1, -1)}}` : 'set()';
  }
}

function iterableArg(r: RenderEnv, name: string, v: unknown): unknown[] {
  if (typeof v === 'string' || !(Array.isArray(v) || isDict(v) || v instanceof PyObject)) throw typeError(`${name} expected a list, got ${pyType(v)}`);
  return r.iterate(v);
}

function setOperation(name: string, keep: (inA: boolean, inB: boolean) => boolean) {
  return (r: RenderEnv, a: unknown, b: unknown) => {
    const xs = iterableArg(r, name, a);
    const ys = iterableArg(r, name, b);
    r.ensureRoom(xs.length + ys.length);
    const inA = new PySet(xs);
    const inB = new PySet(ys);
    const all = new PySet(xs.concat(ys)).items;
    return all.filter((x) => keep(inA.has(x), inB.has(x)));
  };
}

const SET_OPS = {
  intersect: setOperation('intersect', (a, b) => a && b),
  union: setOperation('union', (a, b) => a || b),
  difference: setOperation('difference', (a, b) => a && !b),
  symmetric_difference: setOperation('symmetric_difference', (a, b) => a !== b),
};

function flatten(r: RenderEnv, v: unknown, levels: number | null, depth = 0, out: unknown[] = []): unknown[] {
  if (typeof v === 'string' || !(Array.isArray(v) || v instanceof PyObject || isDict(v))) throw typeError(`flatten expected a list, got ${pyType(v)}`);
  if (depth > 100) throw new TemplateError('RecursionError', 'maximum recursion depth exceeded');
  for (const item of r.iterate(v)) {
    r.charge(1);
    const nested = typeof item !== 'string' && (Array.isArray(item) || item instanceof PySet);
    if (nested && (levels === null || levels >= 1)) flatten(r, item, levels === null ? null : levels - 1, depth + 1, out);
    else {
      r.checkSize(out.length + 1);
      out.push(item);
    }
  }
  return out;
}

function combine(r: RenderEnv, args: unknown[], recursive: boolean): Map<unknown, unknown> {
  if (!args.length) throw typeError('combine expected at least 1 argument, got 0');
  const out = new Map<unknown, unknown>();
  for (const d of args) {
    if (!isDict(d)) throw typeError(`combine expected a dict, got ${pyType(d)}`);
    for (const [k, v] of dictEntries(d)) {
      r.charge(1);
      r.checkSize(out.size + 1);
      const current = out.get(k);
      out.set(k, recursive && isDict(current) && isDict(v) ? combine(r, [current, v], true) : v);
    }
  }
  return out;
}

function shuffle(r: RenderEnv, args: unknown[], kwargs: Map<string, unknown>): unknown[] {
  if (!args.length) throw typeError('shuffle expected at least 1 argument, got 0');
  let items: unknown[];
  let seed = kwargs.get('seed');
  const first = args[0];
  if (typeof first === 'string' || Array.isArray(first) || first instanceof PyObject || isDict(first)) {
    items = r.iterate(first);
    r.ensureRoom(items.length);
    items = [...items];
    if (args.length > 1 && seed === undefined) seed = args[1];
  } else if (args.length === 1) throw typeError(`'${pyType(first)}' object is not iterable`);
  else items = [...args];
  let state = seed === undefined || seed === null ? Math.random() * 2 ** 32 : [...str(seed)].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);
  const random = () => {
    state = (state * 1664525 + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j], items[i]];
  }
  return items;
}

/** The original's typeof(): the Python class name. */
function typeName(v: unknown): string {
  if (v instanceof Undefined) return 'Undefined';
  if (v instanceof PyObject) return v.pyType === 'function' ? 'function' : v.pyType;
  return pyType(v);
}

/** The sandbox's range: at most 100,000 items. */
function range(args: unknown[]): PyRange {
  for (const a of args) if (typeof a !== 'number' || !Number.isInteger(a)) throw typeError(`'${pyType(a)}' object cannot be interpreted as an integer`);
  const [start, stop, step] = args.length === 1 ? [0, args[0] as number, 1] : [args[0] as number, args[1] as number, (args[2] as number | undefined) ?? 1];
  if (args.length === 0 || args.length > 3) throw typeError(`range expected at most 3 arguments, got ${args.length}`);
  if (step === 0) throw new TemplateError('ValueError', 'range() arg 3 must not be zero');
  const r = new PyRange(start, stop, step);
  if (r.size > MAX_RANGE) throw new TemplateError('OverflowError', `Range too big. The sandbox blocks ranges larger than MAX_RANGE (${MAX_RANGE}).`);
  return r;
}

/** The original's slugify; the separator is text, never a pattern or a replacement pattern (`$&`). */
function slugify(r: RenderEnv, text: string, separator = '_'): string {
  const words = mapText(r, text, (t) => t.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase()).match(/[a-z0-9]+/g) ?? [];
  return joinText(r, words, separator) || 'unknown';
}

/** as_function: a macro that passes its result to `returns(value)` becomes a function giving that value. */
function asFunction(macro: unknown): Callable {
  if (!(macro instanceof Callable)) throw typeError(`'${pyType(macro)}' object is not callable`);
  return new Callable(macro.name, (ctx: Ctx, args, kwargs) => {
    let result: unknown = null;
    const returns = new Callable('returns', (_c, a) => {
      result = a[0];
      return a[0];
    });
    macro.call(ctx, args, new Map([...kwargs, ['returns', returns]]));
    return result;
  });
}

export const COLLECTION_GLOBALS: Record<string, unknown> = {
  range: fn('range', (_r, a) => range(a)),
  dict: fn('dict', (r, a, k) => {
    const m = new Map<unknown, unknown>();
    if (a.length) {
      const src = a[0];
      if (isDict(src)) {
        r.ensureRoom(dictSize(src));
        for (const [key, v] of dictEntries(src)) m.set(key, v);
      } else for (const pair of r.iterate(src)) {
        r.charge(1);
        const kv = r.iterate(pair);
        if (kv.length !== 2) throw new TemplateError('ValueError', `dictionary update sequence element has length ${kv.length}; 2 is required`);
        m.set(kv[0], kv[1]);
      }
    }
    for (const [key, v] of k) m.set(key, v);
    return m;
  }),
  namespace: fn('namespace', (r, a, k) => {
    const values = new Map<string, unknown>();
    if (a.length && isDict(a[0])) {
      r.ensureRoom(dictSize(a[0]));
      for (const [key, v] of dictEntries(a[0])) values.set(String(key), v);
    }
    for (const [key, v] of k) values.set(key, v);
    return new Namespace(values);
  }),
  zip: fn('zip', (r, a) => {
    const lists = a.map((x) => r.iterate(x));
    const n = lists.reduce((shortest, l) => Math.min(shortest, l.length), lists.length ? Infinity : 0);
    // n tuples of one item from each list
    r.ensureRoom(n, 'containers');
    r.charge(n * lists.length);
    return Array.from({ length: n }, (_, i) => tuple(lists.map((l) => l[i])));
  }),
  set: fn('set', (r, a) => new PySet(a.length ? r.iterate(a[0]) : [])),
  tuple: fn('tuple', (r, a) => {
    const items = a.length ? r.iterate(a[0]) : [];
    r.ensureRoom(items.length);
    return tuple([...items]);
  }),
  typeof: fn('typeof', (_r, a) => typeName(a[0])),
  flatten: fn('flatten', (r, a, k) => flatten(r, a[0], (argument(a, k, 1, 'levels', null) as number | null) ?? null)),
  combine: fn('combine', (r, a, k) => combine(r, a, k.get('recursive') === true)),
  shuffle: fn('shuffle', shuffle),
  as_function: fn('as_function', (_r, a) => asFunction(a[0])),
  ...Object.fromEntries(Object.entries(SET_OPS).map(([name, op]) => [name, fn(name, (r, a) => op(r, a[0], a[1]))])),
};

export const COLLECTION_FILTERS: Record<string, FilterFn> = {
  contains: (r, v, a) => r.contains(v, a[0]),
  flatten: (r, v, a, k) => flatten(r, v, (argument(a, k, 0, 'levels', null) as number | null) ?? null),
  combine: (r, v, a, k) => combine(r, [v, ...a], k.get('recursive') === true),
  shuffle: (r, v, a, k) => shuffle(r, [v, ...a], k),
  typeof: (_r, v) => typeName(v),
  apply: (r, v, a, k) => r.call(a[0], [v, ...a.slice(1)], k),
  as_function: (_r, v) => asFunction(v),
  is_defined: (_r, v) => {
    if (v instanceof Undefined) throw new TemplateError('UndefinedError', v.message);
    return v;
  },
  random: (r, v) => {
    if (!(typeof v === 'string' || Array.isArray(v) || isDict(v) || v instanceof PyObject) || (v instanceof PyObject && v.length(r) === undefined)) {
      throw typeError(`object of type '${v instanceof PyObject ? `${v.typeRepr.replace(/ object$/, '')}` : pyType(v)}' has no len()`);
    }
    const items = r.iterate(v);
    if (!items.length) throw new TemplateError('IndexError', 'Cannot choose from an empty sequence');
    return items[Math.floor(Math.random() * items.length)];
  },
  ord: (_r, v) => {
    if (typeof v !== 'string' || v.length > 2 || [...v].length !== 1) throw typeError(`ord() expected a character, but string of length ${typeof v === 'string' ? v.length : 0} found`);
    return v.codePointAt(0);
  },
  base64_encode: (r, v) => mapText(r, r.print(v), (s) => Buffer.from(s, 'utf8').toString('base64')),
  base64_decode: (r, v, a) => mapText(r, r.print(v), (s) => (a[0] === null ? Buffer.from(s, 'base64').toString('latin1') : Buffer.from(s, 'base64').toString('utf8'))),
  slugify: (r, v, a) => slugify(r, r.print(v), a[0] === undefined ? '_' : str(a[0])),
  ...Object.fromEntries(Object.entries(SET_OPS).map(([name, op]) => [name, ((r, v, a) => op(r, v, a[0])) as FilterFn])),
};

export const COLLECTION_TESTS: Record<string, TestFn> = {
  list: (_r, v) => Array.isArray(v) && !isTuple(v),
  tuple: (_r, v) => isTuple(v),
  set: (_r, v) => v instanceof PySet,
  string_like: (_r, v) => typeof v === 'string',
  contains: (r, v, a) => r.contains(v, a[0]),
  apply: (r, v, a, k) => r.truth(r.call(a[0], [v, ...a.slice(1)], k)),
};

