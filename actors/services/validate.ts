import type { TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { pyRepr } from '../../machines/python/repr.ts';

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
 * defaults, unless `convert: false`) and returns the value, or a message in the wording clients know from the original:
 * `required key not provided @ data['value']`, `extra keys not allowed @ data['foo']`.
 */
export function validate<T = any>(
  schema: TSchema,
  input: unknown,
  options: { convert?: boolean } = {},
): { ok: true; value: T } | { ok: false; message: string } {
  const c = checker(schema);
  if (c.Check(input)) return { ok: true, value: input as T };
  const value = options.convert === false ? input : Value.Default(schema, Value.Convert(schema, structuredClone(input)));
  if (c.Check(value)) return { ok: true, value: value as T };
  const first = c.Errors(value).First();
  if (!first) return { ok: false, message: 'invalid data' };
  const got = first.type === ValueErrorType.ObjectRequiredProperty || first.value === undefined ? 'None' : pyRepr(first.value);
  // the WebSocket API words it as humanize_error does: the reason, then what was given
  return { ok: false, message: `${schemaErrorText(first)}. Got ${got}` };
}

function pathText(path: string): string {
  const parts = path.split('/').filter(Boolean);
  return parts.length ? `data${parts.map((p) => (/^\d+$/.test(p) ? `[${p}]` : `['${p}']`)).join('')}` : 'data';
}

/**
 * The first schema error in the words of the original's validator (voluptuous):
 * `required key not provided @ data['x']`, `extra keys not allowed @ data['x']`,
 * `expected str for dictionary value @ data['x']`; a schema's `refusal` option, when it has one.
 */
export function schemaErrorText(e: { type: ValueErrorType; path: string; message: string; value: unknown; schema?: TSchema } | undefined): string {
  if (!e) return 'invalid value';
  if (e.path === '') return 'expected a dictionary';
  const where = `@ ${pathText(e.path)}`;
  if (e.type === ValueErrorType.ObjectRequiredProperty || e.value === undefined) return `required key not provided ${where}`;
  // a schema may carry the original's own words for a value it refuses (`value must be one of [...]`)
  if (typeof e.schema?.refusal === 'string') return `${e.schema.refusal} for dictionary value ${where}`;
  if (e.type === ValueErrorType.ObjectAdditionalProperties) return `extra keys not allowed ${where}`;
  if (e.type === ValueErrorType.String) return `expected str for dictionary value ${where}`;
  return `${e.message.toLowerCase()} for dictionary value ${where}`;
}

