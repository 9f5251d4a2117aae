import type { StaticDecode, TObject, TSchema } from '@sinclair/typebox';
import { pyRepr } from '../../machines/python/repr.ts';
import { allProblems, decode, firstProblem } from '../voluptuous/check.ts';
import { humanize } from '../voluptuous/humanize.ts';
import { Refusal } from '../voluptuous/schema.ts';
import { SupervisorError } from './errors.ts';

export * from '../voluptuous/schema.ts';

/**
 * Request bodies checked with the original's schemas (../voluptuous/schema.ts), a failure
 * answered as a 400 in its validation library's words.
 */

type Decoded<T extends TObject> = { [K in keyof StaticDecode<T>]?: StaticDecode<T>[K] };

/**
 * A flat body: each key in the body's order checked and decoded, the first problem answered
 * (`expected bool @ data['watchdog']. Got 'yes please'`), then a missing required key. A
 * problem deep inside a value is named at its key, with the key's whole value.
 */
export function validate<T extends TObject>(body: Record<string, unknown>, shape: T): Decoded<T> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(body)) {
    // own keys only: a body key such as `constructor` or `__proto__` is not a field
    const field: TSchema | undefined = Object.hasOwn(shape.properties, key) ? shape.properties[key] : undefined;
    if (!field) {
      if (shape.additionalProperties === true) continue;
      throw new SupervisorError(`extra keys not allowed @ data['${key}']. Got ${pyRepr(value)}`);
    }
    out[key] = validateField(key, value, field);
  }
  for (const key of shape.required ?? []) {
    if (!(key in body)) throw new SupervisorError(`required key not provided @ data['${key}']. Got None`);
  }
  return out as Decoded<T>;
}

/** One key's value checked and decoded as `validate` checks it, a problem named at `key`. */
export function validateField<T extends TSchema>(key: string, value: unknown, field: T): StaticDecode<T> {
  const problem = firstProblem(field, value);
  if (problem) throw new SupervisorError(`${problem.reason} @ data['${key}']. Got ${pyRepr(value)}`);
  try {
    return decode(field, value);
  } catch (err) {
    if (err instanceof Refusal) throw new SupervisorError(`${err.message} @ data['${key}']. Got ${pyRepr(value)}`);
    throw err;
  }
}

/** A nested body: every problem found, answered as voluptuous' humanize_error, one a line, sorted. */
export function validateNested<T extends TSchema>(body: unknown, schema: T): StaticDecode<T> {
  const problems = allProblems(schema, body);
  if (problems.length) throw new SupervisorError(humanize(problems));
  return decode(schema, body);
}
