import { volBoolean } from '../../machines/python/boolean.ts';
import { pyRepr } from '../../machines/python/repr.ts';
import { SupervisorError } from './errors.ts';

/**
 * Request bodies checked as the original's schemas check them: unknown keys refused, each
 * value of its kind, and the failure worded as its validation library words it
 * (`expected bool @ data['watchdog']. Got 'yes please'`).
 */

export type Field<T = unknown> = { check(value: unknown): T; describe?: string };
export type Shape = Record<string, Field & { required?: boolean }>;

class Invalid extends Error {}

const fail = (reason: string): never => {
  throw new Invalid(reason);
};

/** A JSON boolean only. */
export const bool: Field<boolean> = { check: (v) => (typeof v === 'boolean' ? v : fail('expected bool')) };

/** The original's lenient boolean: true/false, 1/0, "yes"/"no", "on"/"off", "enable"/"disable". */
export const boolean: Field<boolean> = {
  // other numbers, null, lists and dicts are refused, where voluptuous would take their truth
  check: (v) => (typeof v === 'boolean' || typeof v === 'string' || v === 1 || v === 0 ? volBoolean(v) : undefined) ?? fail('expected boolean'),
};

export const str: Field<string> = { check: (v) => (typeof v === 'string' ? v : fail('expected str')) };

export function int(min?: number, max?: number): Field<number> {
  return {
    check: (v) => {
      if (typeof v !== 'number' || !Number.isInteger(v)) return fail('expected int');
      if (min !== undefined && v < min) return fail(`value must be at least ${min}`);
      if (max !== undefined && v > max) return fail(`value must be at most ${max}`);
      return v;
    },
  };
}

/** The original's `vol.Coerce(float)`: a number, or a string that reads as one. */
export const float: Field<number> = {
  check: (v) => {
    const n = typeof v === 'number' ? v : typeof v === 'string' && v.trim() !== '' ? Number(v) : Number.NaN;
    return Number.isFinite(n) ? n : fail('expected float');
  },
};

export function oneOf<T extends string>(values: readonly T[]): Field<T> {
  return { check: (v) => (typeof v === 'string' && (values as readonly string[]).includes(v) ? (v as T) : fail(`value must be one of [${values.map(pyRepr).join(', ')}]`)) };
}

export function matching(re: RegExp): Field<string> {
  return { check: (v) => (typeof v !== 'string' ? fail('expected str') : re.test(v) ? v : fail(`does not match regular expression ${re.source}`)) };
}

/** A C0 control character or DEL. */
const CONTROL = /[\x00-\x1f\x7f]/;

/** A name `re` matches and without control characters: names end up in paths and in headers. */
export function nameMatching(re: RegExp): Field<string> {
  const pattern = matching(re);
  return { check: (v) => (CONTROL.test(pattern.check(v)) ? fail('contains control characters') : (v as string)) };
}

/** null or the field. */
export function maybe<T>(field: Field<T>): Field<T | null> {
  return { check: (v) => (v === null ? null : field.check(v)) };
}

export function list<T>(field: Field<T>): Field<T[]> {
  return { check: (v) => (Array.isArray(v) ? v.map((x) => field.check(x)) : fail('expected list')) };
}

export const dict: Field<Record<string, unknown>> = {
  check: (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : fail('expected dict')),
};

export function required<T>(field: Field<T>): Field<T> & { required: true } {
  return { ...field, required: true };
}

/**
 * Checks `body` against `shape`: every key known, every value valid, required keys present.
 * Resolves to the checked values (coerced, e.g. "yes" to true); throws a 400 otherwise.
 */
export function validate<S extends Shape>(body: Record<string, unknown>, shape: S, options: { allowExtra?: boolean } = {}): { [K in keyof S]?: ReturnType<S[K]['check']> } {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    // own keys only: a body key such as `constructor` or `__proto__` is not a field
    const field = Object.hasOwn(shape, key) ? shape[key] : undefined;
    if (!field) {
      if (options.allowExtra) continue;
      throw new SupervisorError(`extra keys not allowed @ data['${key}']. Got ${pyRepr(value)}`);
    }
    try {
      out[key] = field.check(value);
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      throw new SupervisorError(`${err.message} @ data['${key}']. Got ${pyRepr(value)}`);
    }
  }
  for (const [key, field] of Object.entries(shape)) {
    if (field.required && !(key in body)) throw new SupervisorError(`required key not provided @ data['${key}']. Got None`);
  }
  return out as { [K in keyof S]?: ReturnType<S[K]['check']> };
}
