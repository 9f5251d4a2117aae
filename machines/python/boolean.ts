/**
 * The original's lenient booleans. Two readers exist there and both are kept apart here:
 * voluptuous' `Boolean()` (the supervisor's schemas) and Home Assistant's `cv.boolean` (the
 * core's configuration and templates).
 */

const TRUE_WORDS = new Set(['1', 'true', 'yes', 'on', 'enable']);
const FALSE_WORDS = new Set(['0', 'false', 'no', 'off', 'disable']);

/** One of the words both readers know, in any case (`Yes`, `OFF`); undefined for any other text. */
export function booleanWord(text: string): boolean | undefined {
  const word = text.toLowerCase();
  if (TRUE_WORDS.has(word)) return true;
  if (FALSE_WORDS.has(word)) return false;
  return undefined;
}

/** Python's truthiness of a JSON value: empty lists and dicts, 0, '' and None are false. */
export function pyTruthy(v: unknown): boolean {
  if (Array.isArray(v)) return v.length > 0;
  if (typeof v === 'object' && v !== null) return Object.keys(v).length > 0;
  return Boolean(v);
}

/** voluptuous' `Boolean()`: a str must be one of the words (not trimmed); anything else is its truthiness. */
export function volBoolean(v: unknown): boolean | undefined {
  return typeof v === 'string' ? booleanWord(v) : pyTruthy(v);
}

/** Home Assistant's `cv.boolean`: a bool, a number (non-zero is true) or a word (trimmed); undefined otherwise. */
export function cvBoolean(v: unknown): boolean | undefined {
  if (typeof v === 'boolean') return v;
  if (typeof v === 'number') return v !== 0;
  if (typeof v === 'string') return booleanWord(v.trim());
  return undefined;
}
