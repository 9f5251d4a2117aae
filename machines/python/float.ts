/**
 * Python's printing of numbers: the original's messages and states show floats and ints as
 * Python prints them (`1.0`, `1e-05`, `1e+16`), which JavaScript's String() does not.
 */

interface Digits {
  sign: string;
  /** significant digits, no trailing zeros */
  digits: string;
  /** decimal exponent of the first digit */
  exp: number;
}

function digitsOf(n: number, precision?: number): Digits {
  const text = precision === undefined ? Math.abs(n).toExponential() : Math.abs(n).toExponential(precision - 1);
  const [mantissa, exponent] = text.split('e');
  const digits = mantissa.replace('.', '').replace(/0+$/, '') || '0';
  return { sign: n < 0 || Object.is(n, -0) ? '-' : '', digits, exp: Number(exponent) };
}

function layout({ sign, digits, exp }: Digits, scientific: boolean): string {
  if (scientific) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
  return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
}

function nonFinite(n: number): string | undefined {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  return undefined;
}

/** Python's repr() (and str()) of a float: shortest round trip, `50.0`, `0.1`, `1e-05`, `1e+16`. */
export function floatRepr(n: number): string {
  const special = nonFinite(n);
  if (special) return special;
  const parts = digitsOf(n);
  return layout(parts, parts.exp < -4 || parts.exp >= 16);
}

/**
 * Python's `format(n, '.<precision>')`: that many significant digits, fixed notation keeping a
 * `.0` (`f"{2.4 + 1.2:.15}"` is `3.6`), scientific where the `.0` would not fit (an exponent of
 * `precision - 1` up) or below 1e-4.
 */
export function floatFormat(n: number, precision: number): string {
  const special = nonFinite(n);
  if (special) return special;
  const parts = digitsOf(n, precision);
  return layout(parts, parts.exp < -4 || parts.exp >= precision - 1);
}

/** Python's str() of an int: every digit, also past 1e21 where String() switches to an exponent. */
export function intStr(n: number): string {
  if (Number.isFinite(n) && Math.abs(n) >= 1e21 && Number.isInteger(n)) return BigInt(n).toString();
  return String(n);
}

/** A JSON number as Python shows it after json.loads: integral values as ints, the rest as floats. */
export function numberRepr(n: number): string {
  return Number.isInteger(n) ? intStr(n) : floatRepr(n);
}

// Python's float() literals: sign, digits with single underscores between them, fraction, exponent
const FLOAT_TEXT = /^[+-]?(?:\d(?:_?\d)*(?:\.(?:\d(?:_?\d)*)?)?|\.\d(?:_?\d)*)(?:[eE][+-]?\d(?:_?\d)*)?$/;
const FLOAT_WORD = /^([+-]?)(inf|infinity|nan)$/i;
const INT_TEXT = /^[+-]?\d(?:_?\d)*$/;

/** Python's float() of a str (blanks around it allowed, `inf`, `nan`); undefined where float() raises. */
export function parseFloatText(text: string): number | undefined {
  const t = text.trim();
  if (FLOAT_TEXT.test(t)) return Number(t.replace(/_/g, ''));
  const word = FLOAT_WORD.exec(t);
  if (!word) return undefined;
  if (word[2].toLowerCase() === 'nan') return NaN;
  return word[1] === '-' ? -Infinity : Infinity;
}

/** Python's int() of a str in base 10 (blanks around it, underscores between digits); undefined where int() raises. */
export function parseIntText(text: string): number | undefined {
  const t = text.trim();
  return INT_TEXT.test(t) ? Number(t.replace(/_/g, '')) : undefined;
}
