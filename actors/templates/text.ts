import { typeError } from './errors.ts';
import type { RenderEnv } from './render-env.ts';
import { budget } from './budget.ts';
import { pyType } from './values.ts';

/**
 * The string operations that can make text longer than their input, shared by str's methods
 * and Jinja's filters. Each knows the length of its result before it builds it, so a result
 * past the value limit is refused without ever existing.
 */

/** An int argument (a bool is one), as Python's str methods take a width. */
export function widthArg(v: unknown): number {
  if (typeof v === 'boolean') return Number(v);
  if (typeof v !== 'number' || !Number.isInteger(v)) throw typeError(`'${pyType(v)}' object cannot be interpreted as an integer`);
  return v;
}

/** Python's `' ' * width`: none for a width below one. */
export function padding(r: RenderEnv, width: number): string {
  if (width <= 0) return '';
  r.ensureRoom(width, 'text');
  return ' '.repeat(width);
}

/** str.ljust ('<'), rjust ('>') and center ('^'): `s` padded with `fill` to `width`. */
export function padText(r: RenderEnv, s: string, width: unknown, fill: unknown, align: '<' | '>' | '^'): string {
  const w = widthArg(width);
  const f = fill === undefined ? ' ' : fill;
  if (typeof f !== 'string' || [...f].length !== 1) throw typeError('The fill character must be exactly one character long');
  if (s.length >= w) return s;
  r.ensureRoom(w, 'text');
  const gap = w - s.length;
  // CPython's center puts the odd character left only when both the gap and the width are odd
  const left = align === '<' ? 0 : align === '>' ? gap : Math.floor(gap / 2) + (gap & w & 1);
  return f.repeat(left) + s + f.repeat(gap - left);
}

/** str.zfill: zeros after the sign up to `width`. */
export function zfillText(r: RenderEnv, s: string, width: unknown): string {
  const w = widthArg(width);
  if (s.length >= w) return s;
  r.ensureRoom(w, 'text');
  const sign = /^[+-]/.test(s) ? s[0] : '';
  return sign + '0'.repeat(w - s.length) + s.slice(sign.length);
}

/** `pieces` joined by `sep` (str.join, the join filter, and the filters that join lines). */
export function joinText(r: RenderEnv, pieces: string[], sep: string): string {
  let total = sep.length * Math.max(0, pieces.length - 1);
  for (const p of pieces) total += p.length;
  r.ensureRoom(total, 'text');
  return pieces.join(sep);
}

/** Python's str.replace (Jinja's replace filter is the same): at most `count` occurrences when it is not negative. */
export function replaceText(r: RenderEnv, s: string, old: string, next: string, count = -1): string {
  r.ensureRoom(s.length);
  // Python finds the empty string before every character and at the end
  const parts = old === '' ? ['', ...Array.from(s), ''] : s.split(old);
  const replaced = count < 0 ? parts.length - 1 : Math.min(count, parts.length - 1);
  r.ensureRoom(s.length + replaced * (next.length - old.length), 'text');
  if (replaced === parts.length - 1) return parts.join(next);
  return parts.slice(0, replaced + 1).join(next) + old + parts.slice(replaced + 1).join(old);
}

/**
 * A transform whose result is at most a few times as long as its text (case mapping,
 * escaping, encoding): its work is counted on the text, which is within the value limit, and
 * its result is checked before it is kept.
 */
export function mapText(r: RenderEnv, s: string, transform: (s: string) => string): string {
  r.chargeText(s.length);
  const out = transform(s);
  r.chargeText(out.length);
  r.checkSize(out.length);
  return out;
}

/**
 * `text.replace(pattern, piece)` for the formats (`%`, str.format, strftime), whose pieces can
 * each be longer than what they replace: the pieces are counted as they come, so the result is
 * refused as it passes the limit, before it is joined.
 */
export function expandText(text: string, pattern: RegExp, piece: (match: string, ...groups: any[]) => string): string {
  const work = budget();
  work.chargeText(text.length);
  let length = text.length;
  return text.replace(pattern, (...match: [string, ...any[]]) => {
    const p = piece(...match);
    length += p.length - match[0].length;
    work.checkSize(length);
    return p;
  });
}
