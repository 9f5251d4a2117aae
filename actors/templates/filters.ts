import { TemplateError, typeError } from './errors.ts';
import type { FilterFn, RenderEnv, TestFn } from './render-env.ts';
import { binaryOp } from './operators.ts';
import { percentFormat } from './operators.ts';
import { toJsonText } from './json.ts';
import { DistinctValues } from './distinct.ts';
import { joinText, mapText, padText, padding, replaceText, widthArg } from './text.ts';
import {
  Callable,
  Float,
  MISSING,
  PyObject,
  PyRange,
  Undefined,
  dictEntries,
  dictSize,
  float,
  isDict,
  isFloatish,
  isNumber,
  numberOf,
  pyCompare,
  pyEq,
  pyType,
  str,
  tuple,
} from './values.ts';

/** Jinja's built-in filters and tests, with Python's semantics (the original adds its own on top). */

function kw(args: unknown[], kwargs: Map<string, unknown>, i: number, name: string, fallback?: unknown): unknown {
  if (kwargs.has(name)) return kwargs.get(name);
  return i < args.length ? args[i] : fallback;
}

/** Python's len(); Undefined has length 0 (strict: an error). */
export function pyLen(r: RenderEnv, x: unknown): number {
  if (typeof x === 'string' || Array.isArray(x)) return x.length;
  if (isDict(x)) return dictSize(x);
  if (x instanceof Undefined) {
    if (r.strict) throw new TemplateError('UndefinedError', x.message);
    return 0;
  }
  if (x instanceof PyObject) {
    const n = x.length(r);
    if (n !== undefined) return n;
  }
  throw typeError(`object of type '${pyType(x)}' has no len()`);
}

/** Jinja's attribute getter: `a.b.0` read with getitem at each step. */
export function attrGetter(r: RenderEnv, attribute: unknown, lower = false, fallback?: unknown): (item: unknown) => unknown {
  const parts = typeof attribute === 'string' ? attribute.split('.').map((p) => (/^\d+$/.test(p) ? Number(p) : p)) : [attribute];
  return (item) => {
    let v = item;
    for (const p of parts) {
      v = r.getitem(v, p);
      if (v instanceof Undefined && fallback !== undefined) return fallback;
    }
    return lower && typeof v === 'string' ? v.toLowerCase() : v;
  };
}

function sortKey(r: RenderEnv, caseSensitive: boolean, attribute: unknown): (x: unknown) => unknown {
  if (attribute === undefined || attribute === null) return (x) => (!caseSensitive && typeof x === 'string' ? x.toLowerCase() : x);
  return attrGetter(r, attribute, !caseSensitive);
}

/** A stable sort by a key, with Python's ordering (TypeError between strings and numbers). */
export function sortBy(r: RenderEnv, items: unknown[], key: (x: unknown) => unknown, reverse = false): unknown[] {
  r.charge(items.length * Math.max(1, Math.ceil(Math.log2(items.length + 1))));
  const keyed = items.map((x) => ({ x, k: key(x) }));
  keyed.sort((a, b) => pyCompare(a.k, b.k, '<'));
  if (reverse) keyed.reverse();
  return keyed.map((e) => e.x);
}

/** Items of a sequence selected by a test (select/reject/selectattr/rejectattr). */
function selectBy(r: RenderEnv, value: unknown, args: unknown[], byAttribute: boolean, keep: boolean): unknown[] {
  const items = r.iterate(value);
  r.charge(items.length);
  const get = byAttribute ? attrGetter(r, args[0]) : (x: unknown) => x;
  const rest = byAttribute ? args.slice(1) : args;
  const check = rest.length
    ? (x: unknown) => r.test(String(rest[0]), x, rest.slice(1))
    : (x: unknown) => r.truth(x);
  return items.filter((x) => check(get(x)) === keep);
}

function escapeHtml(r: RenderEnv, s: string): string {
  return mapText(r, s, (t) => t.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&#34;').replace(/'/g, '&#39;'));
}

/** The first `pattern` at or after `at`, given the first found from an earlier place (-1: none is left). */
function nextAt(s: string, pattern: string, at: number, found: number): number {
  return found === -1 || found >= at ? found : s.indexOf(pattern, at);
}

/**
 * Jinja's striptags as `<!--.*?-->|<[^>]*>` removes, whitespace collapsed, in one pass: the
 * pattern would search to the end again from every `<` that never closes.
 */
function stripTags(r: RenderEnv, s: string): string {
  r.chargeText(s.length);
  const kept: string[] = [];
  let from = 0;
  let close = 0;
  let commentEnd = 0;
  for (let i = s.indexOf('<'); i >= 0; i = s.indexOf('<', from)) {
    let end = -1;
    if (s.startsWith('<!--', i)) {
      commentEnd = nextAt(s, '-->', i + 4, commentEnd);
      if (commentEnd >= 0) end = commentEnd + 3;
    }
    if (end < 0) {
      close = nextAt(s, '>', i + 1, close);
      // no `>` is left: no tag closes from here on
      if (close < 0) break;
      end = close + 1;
    }
    kept.push(s.slice(from, i));
    from = end;
  }
  kept.push(s.slice(from));
  return kept.join('').replace(/\s+/g, ' ').trim();
}

/** groupby's result: a (grouper, list) tuple that also answers `.grouper` and `.list`. */
class Group extends PyObject {
  readonly pyType = 'tuple';
  constructor(
    readonly grouper: unknown,
    readonly list: unknown[],
  ) {
    super();
  }
  override attr(name: string): unknown {
    if (name === 'grouper') return this.grouper;
    if (name === 'list') return this.list;
    return MISSING;
  }
  override item(key: unknown): unknown {
    return key === 0 ? this.grouper : key === 1 ? this.list : MISSING;
  }
  override iterate(): unknown[] {
    return [this.grouper, this.list];
  }
  override length(): number {
    return 2;
  }
  repr(): string {
    return `(${str(this.grouper)}, ${str(this.list)})`;
  }
}

function firstOf(r: RenderEnv, value: unknown): unknown {
  if (value instanceof PyRange) return value.size ? value.at(0) : new Undefined('No first item, sequence was empty.');
  const items = r.iterate(value);
  return items.length ? items[0] : new Undefined('No first item, sequence was empty.');
}

function minMax(r: RenderEnv, value: unknown, args: unknown[], kwargs: Map<string, unknown>, sign: 1 | -1): unknown {
  const items = r.iterate(value);
  if (!items.length) return new Undefined(`No aggregated item, sequence was empty.`);
  const key = sortKey(r, kw(args, kwargs, 0, 'case_sensitive', false) === true, kw(args, kwargs, 1, 'attribute'));
  r.charge(items.length);
  let best = items[0];
  let bestKey = key(best);
  for (const x of items.slice(1)) {
    const k = key(x);
    if (pyCompare(k, bestKey, '<') * sign < 0) {
      best = x;
      bestKey = k;
    }
  }
  return best;
}

/** Jinja's title(): the first letter of each word upper case, words split at spaces and brackets. */
function jinjaTitle(s: string): string {
  return s
    .split(/([-\s({[<]+)/)
    .filter(Boolean)
    .map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase())
    .join('');
}

function truncate(r: RenderEnv, s: string, length: number, killwords: boolean, end: string, leeway: number): string {
  if (s.length <= length + leeway) return s;
  const cut = s.slice(0, length - end.length);
  r.ensureRoom(cut.length + end.length, 'text');
  if (killwords) return cut + end;
  const space = cut.lastIndexOf(' ');
  return (space >= 0 ? cut.slice(0, space) : cut) + end;
}

export const JINJA_FILTERS: Record<string, FilterFn> = {
  abs: (_r, v) => {
    if (v instanceof Float) return float(Math.abs(v.value));
    if (isNumber(v)) return Math.abs(numberOf(v));
    if (v instanceof PyObject && 'negate' in v && 'micros' in v) return (v as unknown as { micros: number }).micros < 0 ? (v as unknown as { negate(): unknown }).negate() : v;
    throw typeError(`bad operand type for abs(): '${pyType(v)}'`);
  },
  attr: (r, v, a) => r.getattr(v, String(a[0])),
  batch: (r, v, a, k) => {
    const size = numberOf(kw(a, k, 0, 'linecount'));
    if (!(size > 0)) throw new TemplateError('ValueError', 'batch size must be positive');
    const fill = kw(a, k, 1, 'fill_with');
    const items = r.iterate(v);
    const short = items.length % size;
    const padding = fill !== undefined && fill !== null && short ? size - short : 0;
    r.ensureRoom(Math.ceil(items.length / size), 'containers');
    r.ensureRoom(items.length + padding);
    const out: unknown[][] = [];
    for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
    for (let i = 0; i < padding; i++) out.at(-1)!.push(fill);
    return out;
  },
  capitalize: (r, v) => mapText(r, r.print(v), (s) => (s ? s[0].toUpperCase() + s.slice(1).toLowerCase() : s)),
  center: (r, v, a, k) => padText(r, r.print(v), kw(a, k, 0, 'width', 80), ' ', '^'),
  count: (r, v) => pyLen(r, v),
  length: (r, v) => pyLen(r, v),
  default: (r, v, a, k) => {
    const fallback = kw(a, k, 0, 'default_value', '');
    const boolean = kw(a, k, 1, 'boolean', false) === true;
    if (v instanceof Undefined || (boolean && !r.truth(v))) return fallback;
    return v;
  },
  dictsort: (r, v, a, k) => {
    if (!isDict(v)) throw typeError('dictsort expects a dict');
    const caseSensitive = kw(a, k, 0, 'case_sensitive', false) === true;
    const by = kw(a, k, 1, 'by', 'key');
    const pos = by === 'key' ? 0 : by === 'value' ? 1 : -1;
    if (pos < 0) throw new TemplateError('FilterArgumentError', 'You can only sort by either "key" or "value"');
    r.ensureRoom(dictSize(v), 'containers');
    const items = dictEntries(v).map(([key, value]) => tuple([key, value]));
    return sortBy(r, items, (e) => {
      const x = (e as unknown[])[pos];
      return !caseSensitive && typeof x === 'string' ? x.toLowerCase() : x;
    }, kw(a, k, 2, 'reverse', false) === true);
  },
  escape: (r, v) => escapeHtml(r, r.print(v)),
  e: (r, v) => escapeHtml(r, r.print(v)),
  first: (r, v) => firstOf(r, v),
  last: (r, v) => {
    const items = r.iterate(v);
    return items.length ? items.at(-1) : new Undefined('No last item, sequence was empty.');
  },
  format: (r, v, a, k) => {
    if (a.length && k.size) throw new TemplateError('FilterArgumentError', "can't handle positional and keyword arguments at the same time");
    return percentFormat(r, r.print(v), k.size ? k : tuple(a));
  },
  groupby: (r, v, a, k) => {
    const attribute = kw(a, k, 0, 'attribute');
    const get = attrGetter(r, attribute, kw(a, k, 2, 'case_sensitive', false) !== true, kw(a, k, 1, 'default'));
    const sorted = sortBy(r, r.iterate(v), get);
    // as many groups as items at the most
    r.ensureRoom(sorted.length, 'containers');
    const groups: Group[] = [];
    for (const x of sorted) {
      const g = get(x);
      const last = groups.at(-1);
      if (last && pyEq(last.grouper, g)) last.list.push(x);
      else groups.push(new Group(g, [x]));
    }
    return groups;
  },
  indent: (r, v, a, k) => {
    const w = kw(a, k, 0, 'width', 4);
    const first = kw(a, k, 1, 'first', false) === true;
    const blank = kw(a, k, 2, 'blank', false) === true;
    const pad = typeof w === 'string' ? w : padding(r, widthArg(w));
    const text = r.print(v);
    r.ensureRoom(text.length);
    const lines = text.split('\n');
    const indented = (line: string, i: number) => !((i === 0 && !first) || (!blank && line.trim() === ''));
    const padded = lines.reduce((n, line, i) => n + (indented(line, i) ? 1 : 0), 0);
    r.ensureRoom(text.length + padded * pad.length, 'text');
    return lines.map((line, i) => (indented(line, i) ? pad + line : line)).join('\n');
  },
  items: (r, v) => {
    if (v instanceof Undefined) return [];
    if (!isDict(v)) throw typeError(`Can only get item pairs from a mapping.`);
    r.ensureRoom(dictSize(v), 'containers');
    return dictEntries(v).map(([key, value]) => tuple([key, value]));
  },
  join: (r, v, a, k) => {
    const sep = r.print(kw(a, k, 0, 'd', ''));
    const attribute = kw(a, k, 1, 'attribute');
    let items = r.iterate(v);
    if (attribute !== undefined && attribute !== null) items = items.map(attrGetter(r, attribute));
    r.charge(items.length);
    // each item is printed on its own: the text so far is checked before the next is printed
    let total = 0;
    const pieces = items.map((x) => {
      const piece = r.print(x);
      total += piece.length + sep.length;
      r.checkSize(total - sep.length);
      return piece;
    });
    return joinText(r, pieces, sep);
  },
  list: (r, v) => {
    const items = r.iterate(v);
    r.ensureRoom(items.length);
    return [...items];
  },
  lower: (r, v) => mapText(r, r.print(v), (s) => s.toLowerCase()),
  upper: (r, v) => mapText(r, r.print(v), (s) => s.toUpperCase()),
  title: (r, v) => mapText(r, r.print(v), jinjaTitle),
  map: (r, v, a, k) => {
    const items = r.iterate(v);
    r.charge(items.length);
    if (k.has('attribute')) {
      const get = attrGetter(r, k.get('attribute'), false, k.has('default') ? k.get('default') : undefined);
      return items.map(get);
    }
    if (!a.length) throw new TemplateError('FilterArgumentError', 'map requires a filter argument');
    const name = String(a[0]);
    const rest = a.slice(1);
    return items.map((x) => r.filter(name, x, rest, k));
  },
  max: (r, v, a, k) => minMax(r, v, a, k, -1),
  min: (r, v, a, k) => minMax(r, v, a, k, 1),
  reject: (r, v, a) => selectBy(r, v, a, false, false),
  rejectattr: (r, v, a) => selectBy(r, v, a, true, false),
  select: (r, v, a) => selectBy(r, v, a, false, true),
  selectattr: (r, v, a) => selectBy(r, v, a, true, true),
  replace: (r, v, a, k) => {
    const count = kw(a, k, 2, 'count');
    return replaceText(r, r.print(v), r.print(a[0]), r.print(a[1]), count === undefined || count === null ? -1 : numberOf(count));
  },
  reverse: (r, v) => {
    if (typeof v === 'string') return mapText(r, v, (s) => Array.from(s).reverse().join(''));
    const items = r.iterate(v);
    r.ensureRoom(items.length);
    return [...items].reverse();
  },
  safe: (_r, v) => v,
  slice: (r, v, a, k) => {
    const slices = widthArg(kw(a, k, 0, 'slices'));
    const fill = kw(a, k, 1, 'fill_with');
    const items = r.iterate(v);
    const per = Math.floor(items.length / slices);
    const extra = items.length % slices;
    // every slice is a list, empty or not; those past the longer ones get the fill value
    r.ensureRoom(slices, 'containers');
    r.ensureRoom(items.length + (fill !== undefined && fill !== null && extra ? slices - extra : 0));
    const out: unknown[][] = [];
    let offset = 0;
    for (let i = 0; i < slices; i++) {
      const start = offset + i * per;
      if (i < extra) offset++;
      const part = items.slice(start, offset + (i + 1) * per);
      if (fill !== undefined && fill !== null && i >= extra && extra) part.push(fill);
      out.push(part);
    }
    return out;
  },
  sort: (r, v, a, k) => {
    const reverse = kw(a, k, 0, 'reverse', false) === true;
    const key = sortKey(r, kw(a, k, 1, 'case_sensitive', false) === true, kw(a, k, 2, 'attribute'));
    return sortBy(r, [...r.iterate(v)], key, reverse);
  },
  string: (r, v) => r.print(v),
  striptags: (r, v) => stripTags(r, r.print(v)),
  sum: (r, v, a, k) => {
    const attribute = kw(a, k, 0, 'attribute');
    let total = kw(a, k, 1, 'start', 0);
    let items = r.iterate(v);
    if (attribute !== undefined && attribute !== null) items = items.map(attrGetter(r, attribute));
    r.charge(items.length);
    for (const x of items) total = binaryOp(r, '+', total, x);
    return total;
  },
  tojson: (r, v, a, k) => {
    const indent = kw(a, k, 0, 'indent');
    return toJsonText(r, v, { sortKeys: true, indent: indent === undefined || indent === null ? undefined : numberOf(indent), spaced: true, htmlSafe: true });
  },
  trim: (r, v, a) => {
    const s = r.print(v);
    r.chargeText(s.length);
    const chars = a[0];
    if (typeof chars !== 'string') return s.trim();
    let i = 0;
    let j = s.length;
    while (i < j && chars.includes(s[i])) i++;
    while (j > i && chars.includes(s[j - 1])) j--;
    return s.slice(i, j);
  },
  truncate: (r, v, a, k) =>
    truncate(r, r.print(v), numberOf(kw(a, k, 0, 'length', 255)), kw(a, k, 1, 'killwords', false) === true, String(kw(a, k, 2, 'end', '...')), numberOf(kw(a, k, 3, 'leeway', 5) ?? 5)),
  unique: (r, v, a, k) => {
    const key = sortKey(r, kw(a, k, 0, 'case_sensitive', false) === true, kw(a, k, 1, 'attribute'));
    const items = r.iterate(v);
    r.ensureRoom(items.length);
    const seen = new DistinctValues();
    return items.filter((x) => seen.add(key(x)));
  },
  urlencode: (r, v) => {
    if (!isDict(v)) return mapText(r, r.print(v), (s) => encodeURIComponent(s).replace(/%2F/g, '/'));
    const encode = (x: unknown) => mapText(r, r.print(x), encodeURIComponent);
    r.ensureRoom(dictSize(v));
    return joinText(r, dictEntries(v).map(([key, value]) => `${encode(key)}=${encode(value)}`), '&');
  },
  wordcount: (r, v) => {
    const s = r.print(v);
    r.chargeText(s.length);
    let n = 0;
    for (const _ of s.matchAll(/\w+/gu)) n++;
    return n;
  },
  wordwrap: (r, v, a, k) => {
    const width = numberOf(kw(a, k, 0, 'width', 79));
    const text = r.print(v);
    r.ensureRoom(text.length);
    const words = text.split(' ');
    const lines: string[] = [];
    let line = '';
    for (const w of words) {
      if (line && line.length + 1 + w.length > width) {
        lines.push(line);
        line = w;
      } else line = line ? `${line} ${w}` : w;
    }
    lines.push(line);
    return joinText(r, lines, r.print(kw(a, k, 2, 'wrapstring', '\n')));
  },
  filesizeformat: (_r, v, a) => {
    const bytes = numberOf(v instanceof Float ? v : Number(v));
    const binary = a[0] === true;
    const base = binary ? 1024 : 1000;
    const units = binary ? ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB', 'ZiB', 'YiB'] : ['kB', 'MB', 'GB', 'TB', 'PB', 'EB', 'ZB', 'YB'];
    if (bytes === 1) return '1 Byte';
    if (bytes < base) return `${bytes} Bytes`;
    let unit = 0;
    let value = bytes / base;
    while (value >= base && unit < units.length - 1) {
      value /= base;
      unit++;
    }
    return `${value.toFixed(1)} ${units[unit]}`;
  },
  pprint: (_r, v) => str(v),
};

const isInteger = (v: unknown) => typeof v === 'number' && Number.isInteger(v);

export const JINJA_TESTS: Record<string, TestFn> = {
  boolean: (_r, v) => typeof v === 'boolean',
  callable: (_r, v) => v instanceof Callable,
  defined: (_r, v) => !(v instanceof Undefined),
  undefined: (_r, v) => v instanceof Undefined,
  none: (_r, v) => v === null,
  true: (_r, v) => v === true,
  false: (_r, v) => v === false,
  integer: (_r, v) => isInteger(v),
  float: (_r, v) => isFloatish(v),
  number: (_r, v) => isNumber(v),
  string: (_r, v) => typeof v === 'string',
  mapping: (_r, v) => isDict(v),
  iterable: (_r, v) => typeof v === 'string' || Array.isArray(v) || isDict(v) || v instanceof Undefined || (v instanceof PyObject && v.iterate(_r) !== undefined),
  sequence: (_r, v) => typeof v === 'string' || Array.isArray(v) || isDict(v) || v instanceof PyRange,
  escaped: () => false,
  even: (_r, v) => {
    if (!isNumber(v)) throw typeError(`unsupported operand type(s) for %: '${pyType(v)}' and 'int'`);
    return numberOf(v) % 2 === 0;
  },
  odd: (_r, v) => {
    if (!isNumber(v)) throw typeError(`unsupported operand type(s) for %: '${pyType(v)}' and 'int'`);
    return Math.abs(numberOf(v) % 2) === 1;
  },
  divisibleby: (_r, v, a) => numberOf(v) % numberOf(a[0]) === 0,
  eq: (_r, v, a) => pyEq(v, a[0]),
  equalto: (_r, v, a) => pyEq(v, a[0]),
  '==': (_r, v, a) => pyEq(v, a[0]),
  ne: (_r, v, a) => !pyEq(v, a[0]),
  '!=': (_r, v, a) => !pyEq(v, a[0]),
  lt: (_r, v, a) => pyCompare(v, a[0], '<') < 0,
  lessthan: (_r, v, a) => pyCompare(v, a[0], '<') < 0,
  '<': (_r, v, a) => pyCompare(v, a[0], '<') < 0,
  le: (_r, v, a) => pyCompare(v, a[0], '<=') <= 0,
  '<=': (_r, v, a) => pyCompare(v, a[0], '<=') <= 0,
  gt: (_r, v, a) => pyCompare(v, a[0], '>') > 0,
  greaterthan: (_r, v, a) => pyCompare(v, a[0], '>') > 0,
  '>': (_r, v, a) => pyCompare(v, a[0], '>') > 0,
  ge: (_r, v, a) => pyCompare(v, a[0], '>=') >= 0,
  '>=': (_r, v, a) => pyCompare(v, a[0], '>=') >= 0,
  in: (r, v, a) => r.contains(a[0], v),
  sameas: (_r, v, a) => v === a[0] || (v instanceof Float && a[0] instanceof Float && v.value === a[0].value),
  lower: (_r, v) => typeof v === 'string' && v === v.toLowerCase(),
  upper: (_r, v) => typeof v === 'string' && v === v.toUpperCase(),
};
