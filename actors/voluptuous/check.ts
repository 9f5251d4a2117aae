import type { StaticDecode, TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { TransformDecodeError } from '@sinclair/typebox/value';
import { problemsOf, problemsOfAll, type Problem } from './problems.ts';

/**
 * Checking values against the voluptuous schemas (./schema.ts): compiled once per schema,
 * answered with the original's problems, decoded (coercions applied) once they pass.
 */

const compiled = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkerOf<T extends TSchema>(schema: T): TypeCheck<T> {
  let c = compiled.get(schema);
  if (!c) {
    c = TypeCompiler.Compile(schema);
    compiled.set(schema, c);
  }
  return c as TypeCheck<T>;
}

/** The first problem of `value`, found lazily (a long list stops at its first bad item); undefined when it passes. */
export function firstProblem(schema: TSchema, value: unknown): Problem | undefined {
  const c = checkerOf(schema);
  if (c.Check(value)) return undefined;
  const first = c.Errors(value).First();
  if (!first) return undefined;
  const problem = problemsOf(first, value).next();
  return problem.done ? undefined : problem.value;
}

/** Every problem of `value` (voluptuous reports them all); empty when it passes. */
export function allProblems(schema: TSchema, value: unknown): Problem[] {
  const c = checkerOf(schema);
  return c.Check(value) ? [] : problemsOfAll(c.Errors(value), value);
}

/**
 * A value that passed, decoded: its coercions applied. What a decode throws (a Refusal, or an
 * answer of the caller's own) is thrown as it is, not wrapped in TypeBox's error.
 */
export function decode<T extends TSchema>(schema: T, value: unknown): StaticDecode<T> {
  try {
    return checkerOf(schema).Decode(value) as StaticDecode<T>;
  } catch (err) {
    if (err instanceof TransformDecodeError) throw err.error;
    throw err;
  }
}
