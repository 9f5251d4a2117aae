import type { StaticDecode, TSchema } from '@sinclair/typebox';
import { convert } from './cv.ts';
import { Refusal } from './schema.ts';

/**
 * One dict of the core's configuration being read key by key, each value through its schema
 * (`cv.string`, `cv.boolean`...); a refusal is named with its place by the reader's `error`
 * (the helper domains and the platforms word their places differently).
 */
export abstract class KeyReader<E extends Error> {
  constructor(readonly raw: Record<string, unknown>) {}

  /** An error naming where the dict is and, when given, the key. */
  abstract error(key: string | undefined, message: string): E;

  has(key: string): boolean {
    return Object.hasOwn(this.raw, key) && this.raw[key] !== undefined;
  }

  /** The key's value through its schema, or `fallback` when the key is absent. */
  optional<T extends TSchema>(key: string, schema: T): StaticDecode<T> | undefined;
  optional<T extends TSchema>(key: string, schema: T, fallback: StaticDecode<T>): StaticDecode<T>;
  optional<T extends TSchema, F>(key: string, schema: T, fallback: F): StaticDecode<T> | F;
  optional<T extends TSchema, F>(key: string, schema: T, fallback?: F): StaticDecode<T> | F | undefined {
    if (!this.has(key)) return fallback;
    try {
      return convert(schema, this.raw[key]);
    } catch (err) {
      if (err instanceof Refusal) throw this.error(key, err.message);
      throw err;
    }
  }

  required<T extends TSchema>(key: string, schema: T): StaticDecode<T> {
    if (!this.has(key)) throw this.error(key, 'required key not provided');
    return this.optional(key, schema) as StaticDecode<T>;
  }
}
