// Lists matched by lookup rather than by trying each value: entity names, areas and floors given
// at match time, and the plain values of YAML lists, keyed by their normalised text. Also the
// numbers of `range` lists (digits, or English words up to a hundred).
import { normalizeText } from './normalize.ts';
import type { DynamicListValue, RangeSpec } from './types.ts';

/** A list ready for lookup: normalised text -> the values said that way. */
export interface PreparedList {
  readonly prepared: true;
  readonly byText: Map<string, { value: DynamicListValue; text: string }[]>;
  /** the most words of any value, so a lookup stops trying longer spans */
  readonly maxWords: number;
  readonly size: number;
}

const cache = new WeakMap<readonly DynamicListValue[], PreparedList>();

/**
 * Prepares list values for matching. Build once per change of the registries and pass the same
 * object to every recognize call (a plain array is prepared on first use and cached by identity).
 */
export function prepareList(values: readonly DynamicListValue[]): PreparedList {
  const byText = new Map<string, { value: DynamicListValue; text: string }[]>();
  let maxWords = 0;
  for (const value of values) {
    const key = normalizeText(value.in);
    if (!key) continue;
    const at = byText.get(key);
    if (at) at.push({ value, text: value.in });
    else byText.set(key, [{ value, text: value.in }]);
    const words = key.split(' ').length;
    if (words > maxWords) maxWords = words;
  }
  return { prepared: true, byText, maxWords, size: values.length };
}

/** A prepared list for a list given either way. */
export function asPrepared(list: PreparedList | readonly DynamicListValue[] | undefined): PreparedList | undefined {
  if (!list) return undefined;
  if ('prepared' in list) return list;
  let p = cache.get(list);
  if (!p) {
    p = prepareList(list);
    cache.set(list, p);
  }
  return p;
}

const UNITS: Record<string, number> = {
  zero: 0, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10,
  eleven: 11, twelve: 12, thirteen: 13, fourteen: 14, fifteen: 15, sixteen: 16, seventeen: 17, eighteen: 18, nineteen: 19,
};
const TENS: Record<string, number> = { twenty: 20, thirty: 30, forty: 40, fifty: 50, sixty: 60, seventy: 70, eighty: 80, ninety: 90 };

/** An English number of up to three words (`twenty five`, `a hundred`, `seven`), or null. */
export function numberFromWords(words: string[]): number | null {
  if (words.length === 1) {
    const w = words[0];
    if (w in UNITS) return UNITS[w];
    if (w in TENS) return TENS[w];
    if (w === 'hundred') return 100;
    return null;
  }
  if (words.length === 2) {
    if (words[0] in TENS && words[1] in UNITS && UNITS[words[1]] > 0 && UNITS[words[1]] < 10) return TENS[words[0]] + UNITS[words[1]];
    if ((words[0] === 'a' || words[0] === 'one') && words[1] === 'hundred') return 100;
    if (words[0] === 'minus' || words[0] === 'negative') {
      const n = numberFromWords(words.slice(1));
      return n === null ? null : -n;
    }
    return null;
  }
  if (words.length === 3 && (words[0] === 'minus' || words[0] === 'negative')) {
    const n = numberFromWords(words.slice(1));
    return n === null ? null : -n;
  }
  return null;
}

const DIGITS = /^-?\d+(\.\d+)?$/;

/** The number of a digits word, or null. */
export function numberFromDigits(word: string): number | null {
  return DIGITS.test(word) ? Number(word) : null;
}

/** A digits word of a range; a temperature's digits may carry the degree sign (`21°`, one word once normalised). */
export function digitsValue(word: string, range: RangeSpec): number | null {
  return numberFromDigits(range.type === 'temperature' && word.endsWith('°') ? word.slice(0, -1) : word);
}

/** Whether `n` is a value of the range (inside it, on a step, or any decimal with fractions). */
export function inRange(n: number, range: RangeSpec): boolean {
  if (!(n >= range.from && n <= range.to)) return false;
  const whole = Math.floor(n);
  const k = (whole - range.from) / range.step;
  if (Math.abs(k - Math.round(k)) > 1e-9) return false;
  const frac = Math.round((n - whole) * 10);
  if (frac === 0) return Math.abs(n - whole) < 1e-9;
  if (Math.abs(n - whole - frac / 10) > 1e-9) return false;
  return range.fractions === 'tenths' || (range.fractions === 'halves' && frac === 5);
}
