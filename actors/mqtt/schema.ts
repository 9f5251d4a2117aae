import type { StaticDecode, TSchema } from '@sinclair/typebox';
import * as cv from '../voluptuous/cv.ts';
import { Refusal } from '../voluptuous/schema.ts';

/** A value one option cannot hold; the reader adds where it was found. */
export { Refusal as InvalidValue };

/** One of the core's validators (actors/voluptuous/cv.ts) as a check of this reader. */
const checkOf = <T extends TSchema>(schema: T) => (value: unknown): StaticDecode<T> => cv.convert(schema, value);

export const toStr = checkOf(cv.string);
export const toIcon = checkOf(cv.icon);
export const toBool = checkOf(cv.boolean);
export const toFloat = checkOf(cv.coerceFloat);
export const toInt = checkOf(cv.coerceInt);
export const toPositiveInt = checkOf(cv.positiveInt);
export const toStringList = checkOf(cv.nonEmptyStringList);

/** vol.In over strings, as a check of this reader. */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T {
  return cv.convert(cv.oneOf(allowed), value) as T;
}
/**
 * A small reader of option dictionaries with voluptuous's wording, for what MQTT takes from
 * configuration.yaml and from discovery messages: `required key not provided @ data['x']`,
 * `<problem> for dictionary value @ data['x']`, `extra keys not allowed @ data['x']`, nested
 * paths as `data['device']['name']`.
 */

/** A refusal with the place it was found (keys and list indexes from the top). */
export class Invalid extends Error {
  constructor(
    readonly problem: string,
    readonly path: Array<string | number> = [],
  ) {
    super(path.length ? `${problem} @ data${path.map((p) => `[${typeof p === 'number' ? p : `'${p}'`}]`).join('')}` : problem);
  }
}

/** Turns one value into what the option holds, or throws Refusal (or Invalid for nested data). */
export type Check<T = unknown> = (value: unknown) => T;

export interface Field {
  check: Check;
  required?: boolean;
  /** taken when the key is absent (a function for a fresh value) */
  default?: unknown;
}

export type Fields = Record<string, Field>;

/** What to do with keys no field names: refuse them (YAML), or drop them (discovery messages). */
export type Extra = 'forbid' | 'remove';

export const required = (check: Check): Field => ({ check, required: true });
export const optional = (check: Check, fallback?: unknown): Field => ({ check, default: fallback });

function isDict(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Reads a dictionary by its fields; the first problem is thrown with its place. */
export function readDict(value: unknown, fields: Fields, extra: Extra, path: Array<string | number> = []): Record<string, unknown> {
  if (!isDict(value)) throw new Invalid('expected a dictionary', path);
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(fields)) {
    if (!Object.hasOwn(value, key)) {
      if (field.required) throw new Invalid('required key not provided', [...path, key]);
      if (field.default !== undefined) out[key] = typeof field.default === 'function' ? (field.default as () => unknown)() : field.default;
      continue;
    }
    out[key] = checked(field.check, value[key], [...path, key]);
  }
  if (extra === 'forbid') {
    for (const key of Object.keys(value)) if (!Object.hasOwn(fields, key)) throw new Invalid('extra keys not allowed', [...path, key]);
  }
  return out;
}

/** One value through its check, its problem placed at `path`. */
export function checked<T>(check: Check<T>, value: unknown, path: Array<string | number>): T {
  try {
    return check(value);
  } catch (err: unknown) {
    if (err instanceof Invalid) throw new Invalid(err.problem, [...path, ...err.path]);
    if (err instanceof Refusal) throw new Invalid(`${err.message} for dictionary value`, path);
    throw err;
  }
}

/** A nested dictionary (the device block, the origin block). */
export function dict(fields: Fields, extra: Extra = 'forbid'): Check<Record<string, unknown>> {
  return (value) => readDict(value, fields, extra);
}

/** cv.ensure_list then each item through `check`. */
export function listOf<T>(check: Check<T>): Check<T[]> {
  return (value) => {
    const list = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
    return list.map((item, i) => {
      try {
        return check(item);
      } catch (err) {
        if (err instanceof Invalid) throw new Invalid(err.problem, [i, ...err.path]);
        if (err instanceof Refusal) throw new Invalid(err.message, [i]);
        throw err;
      }
    });
  };
}

/** A value or null (vol.Any(x, None)). */
export function orNull<T>(check: Check<T>): Check<T | null> {
  return (value) => (value === null ? null : check(value));
}

/** cv.template: a template's text (a number or boolean is its str()). */
export function toTemplate(value: unknown): string {
  if (value === null || value === undefined) throw new Refusal('template value is None');
  if (typeof value === 'object') throw new Refusal('template value should be a string');
  if (typeof value === 'boolean') return value ? 'True' : 'False';
  return String(value);
}

/** cv.url: an http(s) URL. */
export function toUrl(value: unknown): string {
  if (typeof value !== 'string') throw new Refusal('expected a URL');
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // not a URL: refused below
  }
  throw new Refusal('invalid url');
}
