import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value, ValueErrorType } from '@sinclair/typebox/value';

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The schema compiled once. */
export function checker(schema: TSchema): TypeCheck<TSchema> {
  let c = compiled.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c;
}

/**
 * Validates (after converting what can be converted, e.g. "5" for a number, and filling
 * defaults) and returns the value, or a message in the wording clients know from the original:
 * `required key not provided @ data['value']`, `extra keys not allowed @ data['foo']`.
 */
export function validate<T = any>(schema: TSchema, input: unknown): { ok: true; value: T } | { ok: false; message: string } {
  const c = checker(schema);
  if (c.Check(input)) return { ok: true, value: input as T };
  let value = Value.Default(schema, Value.Convert(schema, structuredClone(input)));
  if (c.Check(value)) return { ok: true, value: value as T };
  const first = c.Errors(value).First();
  if (!first) return { ok: false, message: 'invalid data' };
  return { ok: false, message: describeError(first, value) };
}

function pathText(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.length ? `data${parts.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `['${p}']`)).join('')}` : 'data';
}

function describeError(e: { type: ValueErrorType; path: string; message: string; value: unknown }, _root: unknown): string {
  const where = pathText(e.path);
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return `extra keys not allowed @ ${where}. Got ${pyRepr(e.value)}`;
  if (e.value === undefined) return `required key not provided @ ${where}. Got None`;
  return `${e.message} @ ${where}. Got ${pyRepr(e.value)}`;
}

/** A value as the original's messages show it (Python repr). */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return 'None';
  if (v === true) return 'True';
  if (v === false) return 'False';
  if (typeof v === 'string') return `'${v}'`;
  if (typeof v === 'number') return String(v);
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}
