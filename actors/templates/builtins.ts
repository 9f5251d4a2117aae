import { TemplateError, typeError } from './errors.ts';
import type { RenderEnv } from './render-env.ts';
import { formatSpec } from './operators.ts';
import { expandText, joinText, mapText, padText, replaceText, zfillText } from './text.ts';
import { Callable, Float, MISSING, dictEntries, dictGet, dictKeys, dictSize, isDict, isNumber, numberOf, pyEq, pyType, repr, str, tuple, type Dict } from './values.ts';

/**
 * The methods of Python's str, list, tuple and dict a template may call. The original's
 * sandbox is immutable: methods that change a list or dict (append, update, pop) are absent.
 */

type Method = (r: RenderEnv, self: any, args: unknown[], kwargs: Map<string, unknown>) => unknown;

const WHITESPACE = ' \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f\x85\u00a0\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000';

function stripChars(s: string, chars: unknown, left: boolean, right: boolean): string {
  if (chars !== undefined && chars !== null && typeof chars !== 'string') throw typeError(`strip arg must be None or str`);
  const set = typeof chars === 'string' ? chars : WHITESPACE;
  let a = 0;
  let b = s.length;
  if (left) while (a < b && set.includes(s[a])) a++;
  if (right) while (b > a && set.includes(s[b - 1])) b--;
  return s.slice(a, b);
}

function needString(v: unknown, what: string): string {
  if (typeof v !== 'string') throw typeError(`${what} must be str, not ${pyType(v)}`);
  return v;
}

function split(s: string, sep: unknown, maxsplit: number, fromRight: boolean): string[] {
  if (sep === undefined || sep === null) {
    const words = s.split(/[\s\x1c-\x1f]+/).filter(Boolean);
    if (maxsplit < 0 || words.length <= maxsplit + 1) return words;
    // past maxsplit the rest keeps its inner whitespace
    const re = /\S+/g;
    const found: { text: string; index: number }[] = [];
    for (let m = re.exec(s); m; m = re.exec(s)) found.push({ text: m[0], index: m.index });
    if (fromRight) {
      const keep = found.slice(found.length - maxsplit);
      const head = s.slice(0, keep[0].index).trimEnd();
      return [head.trimStart(), ...keep.map((f) => f.text)];
    }
    const head = found.slice(0, maxsplit).map((f) => f.text);
    return [...head, s.slice(found[maxsplit].index).trimEnd()];
  }
  const sepText = needString(sep, 'separator');
  if (sepText === '') throw new TemplateError('ValueError', 'empty separator');
  const parts = s.split(sepText);
  if (maxsplit < 0 || parts.length <= maxsplit + 1) return parts;
  return fromRight ? [parts.slice(0, parts.length - maxsplit).join(sepText), ...parts.slice(parts.length - maxsplit)] : [...parts.slice(0, maxsplit), parts.slice(maxsplit).join(sepText)];
}

function arg(args: unknown[], kwargs: Map<string, unknown>, i: number, name: string, fallback?: unknown): unknown {
  if (kwargs.has(name)) return kwargs.get(name);
  return i < args.length ? args[i] : fallback;
}

/** Python's str.title(): a letter after a non-letter is upper case, the others lower. */
export function pyTitle(s: string): string {
  let out = '';
  let prevCased = false;
  for (const ch of s) {
    const cased = ch.toLowerCase() !== ch.toUpperCase();
    out += cased ? (prevCased ? ch.toLowerCase() : ch.toUpperCase()) : ch;
    prevCased = cased;
  }
  return out;
}

/** Python's str.format(). */
function strFormat(r: RenderEnv, template: string, args: unknown[], kwargs: Map<string, unknown>): string {
  let auto = 0;
  return expandText(template, /\{\{|\}\}|\{([^{}!:]*)(?:!([rsa]))?(?::([^{}]*))?\}/g, (whole, field: string | undefined, conv: string | undefined, spec: string | undefined) => {
    if (whole === '{{') return '{';
    if (whole === '}}') return '}';
    const [head, ...path] = (field ?? '').split('.');
    let v: unknown;
    if (head === '') v = args[auto++];
    else if (/^\d+$/.test(head)) v = args[Number(head)];
    else v = kwargs.has(head) ? kwargs.get(head) : MISSING;
    if (v === undefined || v === MISSING) throw new TemplateError(head === '' || /^\d+$/.test(head) ? 'IndexError' : 'KeyError', head === '' || /^\d+$/.test(head) ? 'Replacement index out of range for positional args tuple' : `'${head}'`);
    for (const p of path) v = r.getattr(v, p);
    if (conv === 'r' || conv === 'a') v = repr(v);
    else if (conv === 's') v = str(v);
    return formatSpec(v, spec ?? '');
  });
}

const STR_METHODS: Record<string, Method> = {
  upper: (r, s: string) => mapText(r, s, (t) => t.toUpperCase()),
  lower: (r, s: string) => mapText(r, s, (t) => t.toLowerCase()),
  casefold: (r, s: string) => mapText(r, s, (t) => t.toLowerCase()),
  swapcase: (r, s: string) => mapText(r, s, (t) => Array.from(t, (c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')),
  title: (r, s: string) => mapText(r, s, pyTitle),
  capitalize: (r, s: string) => mapText(r, s, (t) => (t ? t[0].toUpperCase() + t.slice(1).toLowerCase() : t)),
  strip: (r, s, a) => (r.chargeText(s.length), stripChars(s, a[0], true, true)),
  lstrip: (r, s, a) => (r.chargeText(s.length), stripChars(s, a[0], true, false)),
  rstrip: (r, s, a) => (r.chargeText(s.length), stripChars(s, a[0], false, true)),
  split: (r, s, a, k) => (r.ensureRoom(s.length), split(s, arg(a, k, 0, 'sep'), numberOf(arg(a, k, 1, 'maxsplit', -1)), false)),
  rsplit: (r, s, a, k) => (r.ensureRoom(s.length), split(s, arg(a, k, 0, 'sep'), numberOf(arg(a, k, 1, 'maxsplit', -1)), true)),
  splitlines: (r, s: string, a) => {
    r.ensureRoom(s.length);
    const lines = s.split(/(?<=\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])(?!\n(?<=\r\n))/);
    const kept = a[0] ? lines : lines.map((l) => l.replace(/(\r\n|[\n\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029])$/, ''));
    return kept.length && kept.at(-1) === '' ? kept.slice(0, -1) : kept;
  },
  replace: (r, s: string, a) => replaceText(r, s, needString(a[0], 'replace() argument 1'), needString(a[1], 'replace() argument 2'), a[2] === undefined ? -1 : numberOf(a[2])),
  startswith: (r, s: string, a) => (Array.isArray(a[0]) ? (r.charge(a[0].length), a[0].some((p) => s.startsWith(needString(p, 'startswith first arg')))) : s.startsWith(needString(a[0], 'startswith first arg'))),
  endswith: (r, s: string, a) => (Array.isArray(a[0]) ? (r.charge(a[0].length), a[0].some((p) => s.endsWith(needString(p, 'endswith first arg')))) : s.endsWith(needString(a[0], 'endswith first arg'))),
  find: (r, s: string, a) => (r.chargeText(s.length), s.indexOf(needString(a[0], 'must be str'))),
  rfind: (r, s: string, a) => (r.chargeText(s.length), s.lastIndexOf(needString(a[0], 'must be str'))),
  index: (r, s: string, a) => {
    r.chargeText(s.length);
    const i = s.indexOf(needString(a[0], 'must be str'));
    if (i < 0) throw new TemplateError('ValueError', 'substring not found');
    return i;
  },
  count: (r, s: string, a) => {
    const sub = needString(a[0], 'must be str');
    r.ensureRoom(s.length);
    return sub === '' ? s.length + 1 : s.split(sub).length - 1;
  },
  join: (r, s: string, a) => {
    const items = r.iterate(a[0]);
    r.charge(items.length);
    items.forEach((x, i) => {
      if (typeof x !== 'string') throw typeError(`sequence item ${i}: expected str instance, ${pyType(x)} found`);
    });
    return joinText(r, items as string[], s);
  },
  format: (r, s: string, a, k) => strFormat(r, s, a, k),
  zfill: (r, s: string, a) => zfillText(r, s, a[0]),
  center: (r, s: string, a) => padText(r, s, a[0], a[1], '^'),
  ljust: (r, s: string, a) => padText(r, s, a[0], a[1], '<'),
  rjust: (r, s: string, a) => padText(r, s, a[0], a[1], '>'),
  partition: (r, s: string, a) => {
    const sep = needString(a[0], 'partition arg');
    r.chargeText(s.length);
    const i = s.indexOf(sep);
    return i < 0 ? tuple([s, '', '']) : tuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
  },
  rpartition: (r, s: string, a) => {
    const sep = needString(a[0], 'rpartition arg');
    r.chargeText(s.length);
    const i = s.lastIndexOf(sep);
    return i < 0 ? tuple(['', '', s]) : tuple([s.slice(0, i), sep, s.slice(i + sep.length)]);
  },
  removeprefix: (_r, s: string, a) => (s.startsWith(needString(a[0], 'removeprefix arg')) ? s.slice((a[0] as string).length) : s),
  removesuffix: (_r, s: string, a) => (a[0] !== '' && s.endsWith(needString(a[0], 'removesuffix arg')) ? s.slice(0, s.length - (a[0] as string).length) : s),
  isdigit: (r, s: string) => (r.chargeText(s.length), /^\d+$/u.test(s)),
  isdecimal: (r, s: string) => (r.chargeText(s.length), /^\d+$/u.test(s)),
  isnumeric: (r, s: string) => (r.chargeText(s.length), /^\p{N}+$/u.test(s)),
  isalpha: (r, s: string) => (r.chargeText(s.length), /^\p{L}+$/u.test(s)),
  isalnum: (r, s: string) => (r.chargeText(s.length), /^[\p{L}\p{N}]+$/u.test(s)),
  isspace: (r, s: string) => (r.chargeText(s.length), s.length > 0 && stripChars(s, undefined, true, true) === ''),
  islower: (r, s: string) => (r.chargeText(s.length), /\p{Ll}/u.test(s) && s === s.toLowerCase()),
  isupper: (r, s: string) => (r.chargeText(s.length), /\p{Lu}/u.test(s) && s === s.toUpperCase()),
};

const SEQUENCE_METHODS: Record<string, Method> = {
  index: (r, items: unknown[], a) => {
    r.charge(items.length);
    const i = items.findIndex((x) => pyEq(x, a[0]));
    if (i < 0) throw new TemplateError('ValueError', `${str(a[0])} is not in list`);
    return i;
  },
  count: (r, items: unknown[], a) => {
    r.charge(items.length);
    return items.filter((x) => pyEq(x, a[0])).length;
  },
};

const DICT_METHODS: Record<string, Method> = {
  items: (r, d: Dict) => {
    r.ensureRoom(dictSize(d), 'containers');
    return dictEntries(d).map(([k, v]) => tuple([k, v]));
  },
  keys: (r, d: Dict) => (r.ensureRoom(dictSize(d)), dictKeys(d)),
  values: (r, d: Dict) => (r.ensureRoom(dictSize(d)), dictEntries(d).map(([, v]) => v)),
  get: (_r, d: Dict, a) => {
    const v = dictGet(d, a[0]);
    return v === MISSING ? (a[1] ?? null) : v;
  },
  copy: (r, d: Dict) => (r.ensureRoom(dictSize(d)), new Map(dictEntries(d))),
};

const FLOAT_METHODS: Record<string, Method> = {
  is_integer: (_r, f: Float) => Number.isInteger(f.value),
};

/** The attribute `name` of a str, list, tuple, dict or number, or MISSING. */
export function builtinAttr(r: RenderEnv, obj: unknown, name: string): unknown {
  let table: Record<string, Method> | undefined;
  if (typeof obj === 'string') table = STR_METHODS;
  else if (Array.isArray(obj)) table = SEQUENCE_METHODS;
  else if (isDict(obj)) table = DICT_METHODS;
  else if (obj instanceof Float) table = FLOAT_METHODS;
  else if (isNumber(obj)) {
    if (name === 'real') return obj;
    if (name === 'imag') return 0;
  }
  const method = table && Object.hasOwn(table, name) ? table[name] : undefined;
  if (!method) return MISSING;
  return new Callable(name, (_ctx, args, kwargs) => method(r, obj, args, kwargs));
}
