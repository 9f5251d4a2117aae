import { FormatRegistry, Kind, Type, TypeRegistry, type StaticDecode, type TSchema } from '@sinclair/typebox';
import { cvBoolean, booleanWord } from '../../machines/python/boolean.ts';
import { parseFloatText, parseIntText } from '../../machines/python/float.ts';
import { pyStr } from '../../machines/python/repr.ts';
import { decode, firstProblem } from './check.ts';
import { Refusal, anything, refine } from './schema.ts';
import type { Worded } from './problems.ts';

export { maybe, oneOf } from './schema.ts';

/**
 * Home Assistant's config_validation (`cv.string`, `cv.boolean`, `cv.icon`...) and the
 * voluptuous coercions its configuration uses, as TypeBox schemas in the core's words
 * (`string value is None`, `invalid boolean value maybe`, `expected float`). What the core reads
 * them from is YAML, so a number may be `.inf` or `.nan`.
 */

// any JS number, NaN and the infinities included (TypeBox's Number refuses those)
TypeRegistry.Set('AnyNumber', (_schema, value) => typeof value === 'number');
const anyNumber = Type.Unsafe<number>({ [Kind]: 'AnyNumber' });

const CV_BOOLEAN_WORD = 'cv.boolean_word';
const PY_FLOAT = 'cv.float_text';
const PY_INT = 'cv.int_text';
FormatRegistry.Set(CV_BOOLEAN_WORD, (v) => booleanWord(v.trim()) !== undefined);
// float('nan') succeeds in Python, but a NaN limit makes no sense: it is refused with the same words
FormatRegistry.Set(PY_FLOAT, (v) => {
  const n = parseFloatText(v);
  return n !== undefined && !Number.isNaN(n);
});
FormatRegistry.Set(PY_INT, (v) => parseIntText(v) !== undefined);

const refusal = (words: Worded['refusal']): Worded => ({ refusal: words });

/** `cv.string`: a scalar as its str() (a number YAML read has lost a trailing `.0`, which we cannot see); None, lists and dicts refused. */
export const string = Type.Transform(
  Type.Union([Type.String(), anyNumber, Type.Boolean()], refusal((v) => (v === null || v === undefined ? 'string value is None' : 'value should be a string'))),
)
  .Decode((v) => pyStr(v))
  .Encode((v) => v);

/** `cv.icon`: any str holding a `prefix:name`. */
export const icon = refine(string, (text) => {
  if (!text.includes(':')) throw new Refusal('Icons should be specified in the form "prefix:name"');
  return text;
});

/** `cv.boolean`: a bool, a number (non-zero is true), or one of the words on/off, yes/no, true/false, enable/disable. */
export const boolean = Type.Transform(
  Type.Union(
    [Type.Boolean(), anyNumber, Type.String({ format: CV_BOOLEAN_WORD })],
    refusal((v) => `invalid boolean value ${typeof v === 'string' ? v : (JSON.stringify(v) ?? typeof v)}`),
  ),
)
  .Decode((v) => cvBoolean(v)!)
  .Encode((b) => b);

/** `vol.Coerce(float)`: a number, a bool, or a str Python's float() reads. */
export const coerceFloat = Type.Transform(Type.Union([anyNumber, Type.Boolean(), Type.String({ format: PY_FLOAT })], refusal('expected float')))
  .Decode((v) => (typeof v === 'string' ? parseFloatText(v)! : Number(v)))
  .Encode((n) => n);

/** `vol.Coerce(int)`: a finite number (truncated as Python's int() does), a bool, or a str Python's int() reads. */
export const coerceInt = Type.Transform(Type.Union([Type.Number(), Type.Boolean(), Type.String({ format: PY_INT })], refusal('expected int')))
  .Decode((v) => (typeof v === 'string' ? parseIntText(v)! : typeof v === 'boolean' ? Number(v) : Math.trunc(v)))
  .Encode((n) => n);

/** `cv.positive_int`. */
export const positiveInt = refine(coerceInt, (n) => {
  if (n < 0) throw new Refusal('value must be at least 0');
  return n;
});

/** `vol.All(cv.ensure_list, [cv.string])`: a list of strings, a single value counting as a list of one, None as none. */
export const stringList = refine(anything, (value) => {
  const list = value === null ? [] : Array.isArray(value) ? value : [value];
  return list.map((v) => convert(string, v));
});

/** `cv.ensure_list` + `vol.Length(min=1)` + `[cv.string]`: at least one string. */
export const nonEmptyStringList = refine(anything, (value) => {
  const list = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (list.length < 1) throw new Refusal('length of value must be at least 1');
  return list.map((v) => convert(string, v));
});

/** A value through a schema of these: checked and decoded, or a Refusal in the original's words. */
export function convert<T extends TSchema>(schema: T, value: unknown): StaticDecode<T> {
  const problem = firstProblem(schema, value);
  if (problem) throw new Refusal(problem.reason);
  return decode(schema, value);
}
