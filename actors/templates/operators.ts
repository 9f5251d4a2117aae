import { TemplateError, typeError } from './errors.ts';
import type { RenderEnv } from './render-env.ts';
import { budget } from './budget.ts';
import { expandText } from './text.ts';
import { Float, MISSING, PyObject, dictGet, float, floatRepr, intStr, isDict, isFloatish, isNumber, isTuple, numberOf, pyRound, pyType, repr, str, toFloat, tuple } from './values.ts';

/** Python's arithmetic operators on template values. */

const zero = (message: string) => new TemplateError('ZeroDivisionError', message);

function unsupported(op: string, a: unknown, b: unknown): TemplateError {
  if (typeof a === 'string' && op === '+') return typeError(`can only concatenate str (not "${pyType(b)}") to str`);
  if (Array.isArray(a) && op === '+') return typeError(`can only concatenate ${pyType(a)} (not "${pyType(b)}") to ${pyType(a)}`);
  return typeError(`unsupported operand type(s) for ${op}: '${pyType(a)}' and '${pyType(b)}'`);
}

function numeric(op: string, a: unknown, b: unknown): unknown {
  const x = numberOf(a);
  const y = numberOf(b);
  const isFloat = isFloatish(a) || isFloatish(b);
  const result = (n: number) => (isFloat ? float(n) : n);
  switch (op) {
    case '+':
      return result(x + y);
    case '-':
      return result(x - y);
    case '*':
      return result(x * y);
    case '/':
      if (y === 0) throw zero(isFloat ? 'float division by zero' : 'division by zero');
      return float(x / y);
    case '//':
      if (y === 0) throw zero(isFloat ? 'float floor division by zero' : 'integer division or modulo by zero');
      return result(Math.floor(x / y));
    case '%': {
      if (y === 0) throw zero(isFloat ? 'float modulo' : 'integer division or modulo by zero');
      let r = x % y;
      if (r !== 0 && r < 0 !== y < 0) r += y;
      return result(r);
    }
    case '**': {
      if (x === 0 && y < 0) throw zero('0.0 cannot be raised to a negative power');
      const r = x ** y;
      if (!isFloat && y >= 0) {
        if (!Number.isFinite(r)) throw new TemplateError('OverflowError', 'integer too large');
        return r;
      }
      return float(r);
    }
  }
  throw unsupported(op, a, b);
}

/** Python's `a <op> b` for + - * / // % **. */
export function binaryOp(ctx: RenderEnv, op: string, a: unknown, b: unknown): unknown {
  if (a instanceof PyObject) {
    const r = a.binary(op, b, false);
    if (r !== MISSING) return r;
  }
  if (b instanceof PyObject) {
    const r = b.binary(op, a, true);
    if (r !== MISSING) return r;
  }
  if (isNumber(a) && isNumber(b)) return numeric(op, a, b);
  if (op === '+') {
    if (typeof a === 'string' && typeof b === 'string') {
      ctx.ensureRoom(a.length + b.length, 'text');
      return a + b;
    }
    if (Array.isArray(a) && Array.isArray(b) && isTuple(a) === isTuple(b)) {
      ctx.ensureRoom(a.length + b.length);
      const joined = a.concat(b);
      return isTuple(a) ? tuple(joined) : joined;
    }
  }
  if (op === '*') {
    const [seq, times] = typeof b === 'number' || typeof b === 'boolean' ? [a, numberOf(b)] : [b, typeof a === 'number' || typeof a === 'boolean' ? numberOf(a) : NaN];
    if (Number.isInteger(times) && (typeof seq === 'string' || Array.isArray(seq))) return repeat(ctx, seq, times);
  }
  if (op === '%' && typeof a === 'string') return percentFormat(ctx, a, b);
  throw unsupported(op, a, b);
}

/** Python's `seq * times` for a str, list or tuple. */
function repeat(ctx: RenderEnv, seq: string | unknown[], times: number): string | unknown[] {
  // an empty sequence repeated any number of times is empty, and costs nothing
  const n = seq.length === 0 ? 0 : Math.max(0, times);
  if (typeof seq === 'string') {
    ctx.ensureRoom(seq.length * n, 'text');
    return seq.repeat(n);
  }
  ctx.ensureRoom(seq.length * n);
  const out: unknown[] = new Array(seq.length * n);
  for (let i = 0; i < out.length; i++) out[i] = seq[i % seq.length];
  return isTuple(seq) ? tuple(out) : out;
}

/** Python's unary minus. */
export function unaryMinus(v: unknown): unknown {
  if (typeof v === 'number') return -v;
  if (typeof v === 'boolean') return v ? -1 : 0;
  if (v instanceof Float) return float(-v.value);
  if (v instanceof PyObject && 'negate' in v) return (v as unknown as { negate(): unknown }).negate();
  throw typeError(`bad operand type for unary -: '${pyType(v)}'`);
}

/** An int of a format argument, as %d and {:d} take it. */
function intArg(v: unknown, code: string): number {
  if (typeof v === 'number' || typeof v === 'boolean') return numberOf(v);
  if (v instanceof Float) return Math.trunc(v.value);
  throw typeError(`%${code} format: a real number is required, not ${pyType(v)}`);
}

/** One conversion of Python's format mini-language, shared by `%` and str.format. */
function convert(v: unknown, type: string, precision: number | undefined, alternate: boolean): string {
  switch (type) {
    case 's':
      return precision === undefined ? str(v) : str(v).slice(0, precision);
    case 'r':
      return repr(v);
    case 'd':
    case 'i':
    case 'u':
    case 'n':
      return intStr(intArg(v, type));
    case 'f':
    case 'F':
      return fixed(toFloat(v), precision ?? 6);
    case '%':
      return `${fixed(toFloat(v) * 100, precision ?? 6)}%`;
    case 'e':
    case 'E': {
      const x = toFloat(v);
      const [m, e] = x.toExponential(precision ?? 6).split('e');
      const out = `${m}e${e[0] === '-' ? '-' : '+'}${e.replace(/^[+-]/, '').padStart(2, '0')}`;
      return type === 'E' ? out.toUpperCase() : out;
    }
    case 'g':
    case 'G': {
      const x = toFloat(v);
      const p = precision === 0 ? 1 : (precision ?? 6);
      const exp = x === 0 ? 0 : Math.floor(Math.log10(Math.abs(x)));
      let out = exp < -4 || exp >= p ? convert(float(x), 'e', p - 1, false) : fixed(x, Math.max(0, p - 1 - exp));
      if (!alternate) out = out.replace(/(\.\d*?)0+(e|$)/, '$1$2').replace(/\.(e|$)/, '$1');
      return type === 'G' ? out.toUpperCase() : out;
    }
    case 'x':
    case 'X': {
      const out = intArg(v, type).toString(16);
      return (alternate ? '0x' : '') + (type === 'X' ? out.toUpperCase() : out);
    }
    case 'o':
      return (alternate ? '0o' : '') + intArg(v, type).toString(8);
    case 'b':
      return (alternate ? '0b' : '') + intArg(v, type).toString(2);
    case 'c':
      return typeof v === 'string' ? v : String.fromCodePoint(intArg(v, type));
  }
  throw new TemplateError('ValueError', `unsupported format character '${type}'`);
}

function fixed(x: number, digits: number): string {
  if (!Number.isFinite(x)) return floatRepr(x);
  return Math.abs(x) < 1e21 ? pyRound(x, Math.min(digits, 15)).toFixed(Math.min(digits, 100)) : x.toFixed(0);
}

function padTo(text: string, width: number, align: string, fill: string): string {
  if (text.length >= width) return text;
  budget().ensureRoom(width, 'text');
  const gap = width - text.length;
  if (align === '<') return text + fill.repeat(gap);
  if (align === '^') return fill.repeat(Math.floor(gap / 2)) + text + fill.repeat(Math.ceil(gap / 2));
  if (align === '=') {
    const sign = /^[+\- ]/.test(text) ? text[0] : '';
    return sign + fill.repeat(gap) + text.slice(sign.length);
  }
  return fill.repeat(gap) + text;
}

/** Python's `format(value, spec)` for the spec mini-language. */
export function formatSpec(v: unknown, spec: string): string {
  const m = /^(?:(.)?([<>=^]))?([+\- ])?(#)?(0)?(\d+)?([,_])?(?:\.(\d+))?([bcdeEfFgGnosxX%])?$/s.exec(spec);
  if (!m) throw new TemplateError('ValueError', `Invalid format specifier '${spec}'`);
  const [, fillChar, alignChar, sign, alt, zeroPad, widthText, group, precText, typeChar] = m;
  const numberLike = isNumber(v);
  const type = typeChar ?? (numberLike ? (v instanceof Float ? 'g_' : 'd') : 's');
  const precision = precText === undefined ? undefined : Number(precText);
  let text: string;
  if (type === 'g_') text = precision === undefined ? floatRepr(numberOf(v)) : convert(v, 'g', precision, false);
  else text = convert(v, type, precision, !!alt);
  if (numberLike && group) {
    const [int, frac] = text.split('.');
    text = int.replace(/\B(?=(\d{3})+(?!\d))/g, group) + (frac !== undefined ? `.${frac}` : '');
  }
  if (numberLike && sign && !text.startsWith('-')) text = (sign === ' ' ? ' ' : sign === '+' ? '+' : '') + text;
  const width = widthText ? Number(widthText) : 0;
  const align = alignChar ?? (zeroPad && numberLike ? '=' : numberLike ? '>' : '<');
  const fill = fillChar ?? (zeroPad && !alignChar ? '0' : ' ');
  return padTo(text, width, align, fill);
}

/** Python's `format % args`. */
export function percentFormat(ctx: RenderEnv, format: string, args: unknown): string {
  const positional = isTuple(args) ? args : [args];
  const mapping = isDict(args) ? args : undefined;
  let next = 0;
  const out = expandText(format, /%(?:\(([^)]*)\))?([-+ #0]*)(\*|\d+)?(?:\.(\*|\d+))?([diouxXeEfFgGcrsa%])/g, (_all, key: string | undefined, flags: string, widthText: string | undefined, precText: string | undefined, type: string) => {
    if (type === '%') return '%';
    const take = () => {
      if (next >= positional.length) throw typeError('not enough arguments for format string');
      return positional[next++];
    };
    const width = widthText === '*' ? numberOf(take()) : widthText ? Number(widthText) : 0;
    const precision = precText === '*' ? numberOf(take()) : precText ? Number(precText) : undefined;
    let v: unknown;
    if (key !== undefined) {
      if (!mapping) throw typeError('format requires a mapping');
      v = dictGet(mapping, key);
      if (v === MISSING) throw new TemplateError('KeyError', repr(key));
    } else v = take();
    let text = convert(v, type === 'a' ? 'r' : type, precision, flags.includes('#'));
    const numberLike = !'sra'.includes(type);
    if (numberLike && !text.startsWith('-')) text = (flags.includes('+') ? '+' : flags.includes(' ') ? ' ' : '') + text;
    const align = flags.includes('-') ? '<' : flags.includes('0') && numberLike ? '=' : '>';
    return padTo(text, width, align, align === '=' ? '0' : ' ');
  });
  if (!mapping && next < positional.length) throw typeError('not all arguments converted during string formatting');
  return out;
}
