import type { TSchema } from '@sinclair/typebox';
import { ValueErrorType, type ValueError, type ValueErrorIterator } from '@sinclair/typebox/errors';

/**
 * TypeBox's errors in the words of the original's validation library (voluptuous): one
 * problem per failure, its reason as voluptuous words it (`expected str`, `value must be at
 * least 1`, `extra keys not allowed`), where it is, and the value found there.
 */

/** Where in the checked data: dict keys and list indices, as voluptuous' `path`. */
export type Path = (string | number)[];

/** One failure of a checked value. */
export interface Problem {
  reason: string;
  path: Path;
  /** the value at `path` (undefined where a required key is missing) */
  value: unknown;
  /** the value's own failure, not an extra or missing key: voluptuous adds "for dictionary value" to these inside a dict */
  own: boolean;
}

/** The schema annotation holding the original's words for a value of the wrong kind. */
export interface Worded {
  /** `expected int`, `expected IPv4Address`: said when the value is not of the schema's kind (worded from the value where the original quotes it) */
  refusal?: string | ((value: unknown) => string);
  /** said when a string fails the schema's `format` (a custom check) */
  formatRefusal?: string;
  /** the pattern as the message shows it, where the check is a format (a RegExp with flags) */
  matchSource?: string;
}

// the value is not of the schema's kind at all (as against out of range, too long, unmatched...)
const KIND_ERRORS = new Set([
  ValueErrorType.Array,
  ValueErrorType.Boolean,
  ValueErrorType.Integer,
  ValueErrorType.Literal,
  ValueErrorType.Kind,
  ValueErrorType.Never,
  ValueErrorType.Not,
  ValueErrorType.Null,
  ValueErrorType.Number,
  ValueErrorType.Object,
  ValueErrorType.String,
  ValueErrorType.Union,
]);

const worded = (schema: TSchema) => schema as TSchema & Worded;

/** The reason voluptuous gives for one error (a union's are chosen by `problemsOf`). */
function reasonOf(e: ValueError): string {
  const s = worded(e.schema);
  switch (e.type) {
    case ValueErrorType.ObjectAdditionalProperties:
      return 'extra keys not allowed';
    case ValueErrorType.ObjectRequiredProperty:
      return 'required key not provided';
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.NumberMinimum:
      return `value must be at least ${s.minimum}`;
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.NumberMaximum:
      return `value must be at most ${s.maximum}`;
    case ValueErrorType.StringPattern:
      return `does not match regular expression ${s.pattern}`;
    case ValueErrorType.StringFormat:
      return s.formatRefusal ?? `does not match regular expression ${s.matchSource}`;
    case ValueErrorType.ArrayMinItems:
      return `length of value must be at least ${s.minItems}`;
    case ValueErrorType.ArrayMaxItems:
      return `length of value must be at most ${s.maxItems}`;
    case ValueErrorType.ArrayUniqueItems:
      return 'contains duplicate items';
    default:
      // voluptuous' own words for a validator that has none of its own
      return typeof s.refusal === 'function' ? s.refusal(e.value) : (s.refusal ?? 'not a valid value');
  }
}

/** A JSON pointer of TypeBox's as voluptuous' path, list indices told from dict keys by the data. */
function pathOf(pointer: string, root: unknown): Path {
  const path: Path = [];
  let at = root;
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    const index = Array.isArray(at) ? Number(key) : undefined;
    path.push(index ?? key);
    at = at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined;
  }
  return path;
}

const fits = (e: ValueError | undefined, at: string) => e !== undefined && !(e.path === at && KIND_ERRORS.has(e.type));

/**
 * The problems behind one TypeBox error of a check of `root`. A union that has the original's
 * words (a coercion: `expected int`) says them; one without (`maybe(x)`: x or None) speaks as the
 * first alternative the value's kind fits (a number out of range says so), else as its first.
 */
export function* problemsOf(e: ValueError, root: unknown): Generator<Problem> {
  if (e.type === ValueErrorType.Union && worded(e.schema).refusal === undefined && e.errors.length) {
    const firsts = e.errors.map((variant: ValueErrorIterator) => variant.First());
    let chosen = firsts.findIndex((first) => fits(first, e.path));
    if (chosen < 0) chosen = 0;
    const first = firsts[chosen];
    if (first) {
      yield* problemsOf(first, root);
      // the rest of that alternative's errors (First took the first one off its iterator)
      for (const rest of e.errors[chosen]) yield* problemsOf(rest, root);
      return;
    }
  }
  const own = e.type !== ValueErrorType.ObjectAdditionalProperties && e.type !== ValueErrorType.ObjectRequiredProperty;
  yield { reason: reasonOf(e), path: pathOf(e.path, root), value: e.value, own };
}

/** Every problem of a check's errors; a path with a missing required key reports that alone. */
export function problemsOfAll(errors: Iterable<ValueError>, root: unknown): Problem[] {
  const out: Problem[] = [];
  const missing = new Set<string>();
  for (const e of errors) {
    // TypeBox also checks the missing key's schema against undefined: that is not a second problem
    if (missing.has(e.path)) continue;
    if (e.type === ValueErrorType.ObjectRequiredProperty) missing.add(e.path);
    out.push(...problemsOf(e, root));
  }
  return out;
}
