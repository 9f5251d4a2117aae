import type { SlotValidator, Slots } from './types.ts';

/**
 * Slot validators as the original's voluptuous ones: each returns the value it accepts (perhaps
 * converted) or throws.
 */

/** cv.string: a string, or a number written as one. */
export const str: SlotValidator = (v) => {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  throw new Error('expected str');
};

/** intent.non_empty_string: a string with something besides spaces. */
export const nonEmptyString: SlotValidator = (v) => {
  const s = str(v) as string;
  if (s.trim() === '') throw new Error('expected a non-empty string');
  return s;
};

/** vol.All(cv.ensure_list, [cv.string]), optionally limited to `allowed`. */
export const stringList =
  (allowed?: ReadonlySet<string>): SlotValidator =>
  (v) => {
    const list = (Array.isArray(v) ? v : v === null || v === undefined ? [] : [v]).map((x) => str(x) as string);
    if (allowed) for (const x of list) if (!allowed.has(x)) throw new Error(`not a valid value: ${x}`);
    return list;
  };

/** vol.Coerce(float): a number, or a string that reads as one. */
export const float: SlotValidator = (v) => {
  const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : NaN;
  if (!Number.isFinite(n)) throw new Error('expected float');
  return n;
};

/** vol.All(vol.Coerce(int), vol.Range(min, max)). */
export const intRange =
  (min: number, max: number): SlotValidator =>
  (v) => {
    const i = Math.trunc(float(v) as number);
    if (i < min || i > max) throw new Error(`value must be between ${min} and ${max}`);
    return i;
  };

/** A slot's value, or undefined when the slot is absent. */
export function slotValue<T = unknown>(slots: Slots, name: string): T | undefined {
  const slot = slots[name];
  return slot === undefined || slot === null ? undefined : (slot.value as T);
}
