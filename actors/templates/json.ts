import { TemplateError, noDefault, typeError } from './errors.ts';
import type { FilterFn, RenderEnv } from './render-env.ts';
import { TextBuilder } from './budget.ts';
import { Float, Undefined, dictEntries, dictSize, float, floatRepr, intStr, isDict, pyType, repr } from './values.ts';

/**
 * JSON in and out of templates (to_json, from_json, Jinja's tojson), and the original's parse of
 * a render result (literal_eval: `5` is a number, `[1, 2]` a list, `on` stays text) into the
 * JSON a WebSocket client receives.
 */

export interface JsonOptions {
  sortKeys?: boolean;
  /** spaces per level, or undefined for one line */
  indent?: number;
  /** `, ` and `: ` between items (Python's json.dumps) rather than orjson's compact form */
  spaced?: boolean;
  ensureAscii?: boolean;
  /** Jinja's tojson: <, >, & and ' escaped so the text is safe inside HTML */
  htmlSafe?: boolean;
}

function jsonString(s: string, options: JsonOptions): string {
  let text = JSON.stringify(s);
  if (options.ensureAscii) text = text.replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  // only strings can hold these: the structure around them never does
  if (options.htmlSafe) text = text.replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026').replace(/'/g, '\\u0027');
  return text;
}

function keyText(k: unknown): string {
  if (typeof k === 'string') return k;
  if (k === null) return 'null';
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (typeof k === 'number' || k instanceof Float) return repr(k);
  throw typeError('Dict key must a type serializable with OPT_NON_STR_KEYS');
}

/** A template value as JSON text, refused once it passes the value limit; TypeError for what JSON cannot hold (a datetime, a state). */
export function toJsonText(r: RenderEnv, value: unknown, options: JsonOptions = {}): string {
  const item = options.spaced && options.indent === undefined ? ', ' : ',';
  const colon = options.spaced || options.indent !== undefined ? ': ' : ':';
  const out = new TextBuilder();
  const pad = (depth: number) => {
    if (options.indent === undefined) return;
    r.checkSize(out.length + 1 + options.indent * depth);
    out.add(`\n${' '.repeat(Math.max(0, options.indent * depth))}`);
  };
  const walk = (v: unknown, depth: number): void => {
    if (depth > 512) throw new TemplateError('RecursionError', 'maximum recursion depth exceeded while encoding a JSON object');
    if (v === null || v === undefined) return out.add('null');
    if (typeof v === 'boolean') return out.add(v ? 'true' : 'false');
    if (typeof v === 'number') return out.add(Number.isFinite(v) ? intStr(v) : 'null');
    if (v instanceof Float) return out.add(Number.isFinite(v.value) ? floatRepr(v.value) : 'null');
    if (typeof v === 'string') {
      r.chargeText(v.length);
      return out.add(jsonString(v, options));
    }
    if (Array.isArray(v)) {
      if (!v.length) return out.add('[]');
      out.add('[');
      v.forEach((x, i) => {
        if (i) out.add(item);
        pad(depth + 1);
        walk(x, depth + 1);
      });
      pad(depth);
      return out.add(']');
    }
    if (isDict(v)) {
      r.ensureRoom(dictSize(v));
      let entries = dictEntries(v).map(([k, x]) => [keyText(k), x] as const);
      if (!entries.length) return out.add('{}');
      if (options.sortKeys) {
        r.charge(entries.length * Math.ceil(Math.log2(entries.length + 1)));
        entries = entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      }
      out.add('{');
      entries.forEach(([k, x], i) => {
        if (i) out.add(item);
        pad(depth + 1);
        out.add(jsonString(k, options));
        out.add(colon);
        walk(x, depth + 1);
      });
      pad(depth);
      return out.add('}');
    }
    const kind = v instanceof Undefined ? 'Undefined' : pyType(v);
    throw typeError(`Object of type ${kind === 'TemplateState' ? 'TemplateState' : kind} is not JSON serializable`);
  };
  walk(value, 0);
  return out.text();
}

/**
 * JSON text to template values, keeping what JSON.parse loses: `1.0` stays a float.
 * Throws SyntaxError (the caller's JSONDecodeError) when the text is not JSON.
 */
export function parseJsonKeepingFloats(text: string): unknown {
  let i = 0;
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i])) i++;
  };
  const fail = (what: string): never => {
    throw new SyntaxError(`${what}: line 1 column ${i + 1} (char ${i})`);
  };
  const value = (depth: number): unknown => {
    if (depth > 512) fail('Too deeply nested');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const m = new Map<unknown, unknown>();
      ws();
      if (text[i] === '}') return (i++, m);
      for (;;) {
        ws();
        if (text[i] !== '"') fail('Expecting property name enclosed in double quotes');
        const k = string();
        ws();
        if (text[i++] !== ':') fail("Expecting ':' delimiter");
        m.set(k, value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] === '}') return m;
        fail("Expecting ',' delimiter");
      }
    }
    if (c === '[') {
      i++;
      const a: unknown[] = [];
      ws();
      if (text[i] === ']') return (i++, a);
      for (;;) {
        a.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i++] === ']') return a;
        fail("Expecting ',' delimiter");
      }
    }
    if (c === '"') return string();
    const m = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?/.exec(text.slice(i, i + 400));
    if (m) {
      i += m[0].length;
      return m[2] || m[3] ? float(Number(m[0])) : Number(m[0]);
    }
    for (const [word, v] of [['true', true], ['false', false], ['null', null]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    return fail('Expecting value');
  };
  const string = (): string => {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(i));
    if (!m) fail('Invalid string');
    i += m![0].length;
    return JSON.parse(m![0]);
  };
  const v = value(0);
  ws();
  if (i !== text.length) fail('Extra data');
  return v;
}

export const JSON_FILTERS: Record<string, FilterFn> = {
  to_json: (r, v, a, k) => {
    const arg = (i: number, name: string) => (k.has(name) ? k.get(name) : a[i]);
    const ensureAscii = arg(0, 'ensure_ascii') === true;
    const pretty = arg(1, 'pretty_print') === true;
    const sortKeys = arg(2, 'sort_keys') === true;
    // with ensure_ascii the original falls back to Python's json module and its spacing
    return toJsonText(r, v, { ensureAscii, sortKeys, indent: pretty ? 2 : undefined, spaced: ensureAscii });
  },
  from_json: (r, v, a, k) => {
    const fallback = k.has('default') ? k.get('default') : a.length ? a[0] : undefined;
    if (typeof v !== 'string') {
      if (v instanceof Undefined) throw new TemplateError('UndefinedError', v.message);
      throw typeError('Input must be bytes, bytearray, memoryview, or str');
    }
    try {
      r.charge(v.length / 64);
      return parseJsonKeepingFloats(v);
    } catch (err) {
      if (!(err instanceof SyntaxError)) throw err;
      if (fallback !== undefined) return fallback;
      throw noDefault('from_json', v, r.template);
    }
  },
};

// ---- the parse of a render result ----

/** A Python literal as read from a result; ints keep their digits so big ones survive. */
type Literal = { int: string } | { float: number } | string | boolean | null | Literal[] | { dict: [Literal, Literal][] };

class NotLiteral extends Error {}

/** The original's `_IS_NUMERIC`: a plain int or float, no leading zero, no exponent. */
const IS_NUMERIC = /^[+-]?(?!0\d)\d*(?:\.\d*)?$/;

function parseLiteral(text: string): Literal {
  let i = 0;
  const ws = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const fail = (): never => {
    throw new NotLiteral();
  };
  const stringLit = (): string => {
    let out = '';
    while (text[i] === "'" || text[i] === '"') {
      const q = text.startsWith(text[i].repeat(3), i) ? text[i].repeat(3) : text[i];
      i += q.length;
      for (;;) {
        if (i >= text.length) fail();
        if (text.startsWith(q, i)) {
          i += q.length;
          break;
        }
        const c = text[i++];
        if (c === '\n' && q.length === 1) fail();
        if (c !== '\\') {
          out += c;
          continue;
        }
        const e = text[i++];
        const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '\\': '\\', "'": "'", '"': '"', a: '\x07', b: '\b', f: '\f', v: '\v', '\n': '' };
        if (e in simple) out += simple[e];
        else if (e === 'x' || e === 'u' || e === 'U') {
          const len = e === 'x' ? 2 : e === 'u' ? 4 : 8;
          const hex = text.slice(i, i + len);
          if (!new RegExp(`^[0-9a-fA-F]{${len}}$`).test(hex)) fail();
          out += String.fromCodePoint(parseInt(hex, 16));
          i += len;
        } else if (/[0-7]/.test(e)) {
          const oct = /^[0-7]{1,3}/.exec(text.slice(i - 1))![0];
          out += String.fromCodePoint(parseInt(oct, 8));
          i += oct.length - 1;
        } else out += `\\${e}`;
      }
      ws();
    }
    return out;
  };
  const number = (): Literal => {
    const m = /^(0[xX](_?[0-9a-fA-F])+|0[oO](_?[0-7])+|0[bB](_?[01])+|(\d(_?\d)*)?(\.(\d(_?\d)*)?)?([eE][+-]?\d(_?\d)*)?)/.exec(text.slice(i));
    const t = m?.[0] ?? '';
    if (!/\d/.test(t)) fail();
    i += t.length;
    if (/[jJ]/.test(text[i] ?? '') || /[\w.]/.test(text[i] ?? '')) fail();
    const clean = t.replace(/_/g, '');
    if (/^0[xXoObB]/.test(clean)) return { int: BigInt(clean).toString() };
    if (/[.eE]/.test(clean)) return { float: Number(clean) };
    // Python refuses leading zeros in a non-zero decimal int
    if (/^0\d/.test(clean) && !/^0+$/.test(clean)) fail();
    return { int: BigInt(clean).toString() };
  };
  const value = (depth: number): Literal => {
    if (depth > 100) fail();
    ws();
    const c = text[i];
    if (c === "'" || c === '"') return stringLit();
    if (c === '[' || c === '(' || c === '{') {
      const close = c === '[' ? ']' : c === '(' ? ')' : '}';
      i++;
      const items: Literal[] = [];
      const pairs: [Literal, Literal][] = [];
      let sawComma = false;
      let isDictLit: boolean | undefined;
      for (;;) {
        ws();
        if (text[i] === close) {
          i++;
          break;
        }
        const k = value(depth + 1);
        ws();
        if (c === '{' && (isDictLit ?? text[i] === ':')) {
          isDictLit = true;
          if (text[i++] !== ':') fail();
          pairs.push([k, value(depth + 1)]);
        } else {
          if (c === '{') isDictLit = false;
          items.push(k);
        }
        ws();
        if (text[i] === ',') {
          i++;
          sawComma = true;
          continue;
        }
        if (text[i] !== close) fail();
      }
      if (c === '(' && items.length === 1 && !sawComma) return items[0];
      if (c === '{' && (isDictLit || items.length === 0)) return { dict: pairs };
      return items;
    }
    if (c === '-' || c === '+') {
      i++;
      ws();
      const n = number();
      if (c === '+') return n;
      return 'int' in (n as object) ? { int: (-BigInt((n as { int: string }).int)).toString() } : { float: -(n as { float: number }).float };
    }
    if (c !== undefined && /[\d.]/.test(c)) return number();
    for (const [word, v] of [['True', true], ['False', false], ['None', null]] as const) {
      if (text.startsWith(word, i) && !/\w/.test(text[i + word.length] ?? '')) {
        i += word.length;
        return v;
      }
    }
    return fail();
  };
  const first = value(0);
  ws();
  if (i === text.length) return first;
  // a bare `1, 2` is a tuple
  const items = [first];
  while (text[i] === ',') {
    i++;
    ws();
    if (i === text.length) break;
    items.push(value(0));
    ws();
  }
  if (i !== text.length) fail();
  return items;
}

function literalJson(v: Literal): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'string') return JSON.stringify(v);
  if (Array.isArray(v)) return `[${v.map(literalJson).join(',')}]`;
  if ('int' in v) return v.int;
  if ('float' in v) return Number.isFinite(v.float) ? floatRepr(v.float) : 'null';
  return `{${v.dict.map(([k, x]) => `${JSON.stringify(keyOf(k))}:${literalJson(x)}`).join(',')}}`;
}

function keyOf(k: Literal): string {
  if (typeof k === 'string') return k;
  if (k === null) return 'null';
  if (typeof k === 'boolean') return k ? 'true' : 'false';
  if (Array.isArray(k)) return literalJson(k);
  if ('int' in k) return k.int;
  if ('float' in k) return floatRepr(k.float);
  return literalJson(k);
}

/**
 * The JSON of a render result as the original's WebSocket sends it: numbers, booleans, None,
 * lists, tuples and dicts the text spells out as Python literals become JSON values; anything
 * else (a plain string, `1e3`, `007`) stays the text.
 */
export function resultJson(text: string): string {
  let lit: Literal;
  try {
    lit = parseLiteral(text);
  } catch (err) {
    if (err instanceof NotLiteral || err instanceof SyntaxError || err instanceof RangeError) return JSON.stringify(text);
    throw err;
  }
  if (typeof lit === 'string') return JSON.stringify(text);
  if (lit !== null && typeof lit === 'object' && !Array.isArray(lit) && ('int' in lit || 'float' in lit) && !IS_NUMERIC.test(text)) return JSON.stringify(text);
  return literalJson(lit);
}

