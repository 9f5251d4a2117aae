import { numberRepr } from './float.ts';

/**
 * Python's repr(): the original's messages quote values the way Python prints them
 * (`expected str. Got {'name': 5}`, `Got "it's"`, `Got None`).
 */

const NAMED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', "'": "\\'", '"': '\\"' };

// what str.isprintable() refuses (Unicode's Other and Separator categories but the space), and
// the backslash and the chosen quote
const SINGLE = /[\\'\p{C}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu;
const DOUBLE = /[\\"\p{C}\p{Zl}\p{Zp}]|(?! )\p{Zs}/gu;

function escape(ch: string): string {
  const named = NAMED[ch];
  if (named) return named;
  const code = ch.codePointAt(0)!;
  if (code < 0x100) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code < 0x10000) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

/** Python's repr() of a str, in one pass of the engine's replace: a value can be a megabyte long. */
export function strRepr(s: string): string {
  // Python quotes with ' unless the text holds a ' and no "
  const double = s.includes("'") && !s.includes('"');
  return double ? `"${s.replace(DOUBLE, escape)}"` : `'${s.replace(SINGLE, escape)}'`;
}

function isDict(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * Python's repr() of a JSON value as json.loads gives it to the original: None, True, False, an
 * int (a number without a fraction), a float, a str, a list, a dict.
 */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'number') return numberRepr(v);
  if (typeof v === 'string') return strRepr(v);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(', ')}]`;
  if (isDict(v)) return `{${Object.entries(v).map(([k, x]) => `${strRepr(k)}: ${pyRepr(x)}`).join(', ')}}`;
  return String(v);
}

/** Python's str(): a str as it is, anything else as its repr. */
export function pyStr(v: unknown): string {
  return typeof v === 'string' ? v : pyRepr(v);
}
