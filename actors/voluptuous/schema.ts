import { CloneType, FormatRegistry, Type, type StaticDecode, type TLiteral, type TObject, type TOptional, type TSchema, type TString, type TUnion } from '@sinclair/typebox';
import { booleanWord, volBoolean } from '../../machines/python/boolean.ts';
import { pyRepr } from '../../machines/python/repr.ts';
import type { Worded } from './problems.ts';

/**
 * The original's validators (voluptuous, as its supervisor uses them) as TypeBox schemas: each
 * carries the words voluptuous says when it fails (`refusal`), and a coercion is a transform
 * its decode applies (`"yes"` → true, `"1.5"` → 1.5) once the check has passed.
 */

/** A problem a transform's decode finds (a check TypeBox cannot express); thrown with voluptuous' reason. */
export class Refusal extends Error {}

// ---- formats: checks of a string TypeBox has no keyword for ----

const BOOLEAN_WORD = 'voluptuous.boolean_word';
const FLOAT_TEXT = 'voluptuous.float_text';
const NO_CONTROL = 'voluptuous.no_control';
FormatRegistry.Set(BOOLEAN_WORD, (v) => booleanWord(v) !== undefined);
// what Number() reads as a finite number, as Hearth's float fields have always taken it
FormatRegistry.Set(FLOAT_TEXT, (v) => v.trim() !== '' && Number.isFinite(Number(v)));
// a C0 control character or DEL: names end up in paths and in headers
FormatRegistry.Set(NO_CONTROL, (v) => !/[\x00-\x1f\x7f]/.test(v));

/** A RegExp with flags as a format (TypeBox's `pattern` keyword is a source without flags). */
function matchFormat(re: RegExp): string {
  const name = `voluptuous.match/${re.flags}/${re.source}`;
  if (!FormatRegistry.Has(name)) {
    const test = new RegExp(re.source, re.flags.replace(/[gy]/g, ''));
    FormatRegistry.Set(name, (v) => test.test(v));
  }
  return name;
}

const words = (refusal: string): Worded => ({ refusal });

// ---- scalars ----

/** A str (`str`). */
export const str = Type.String(words('expected str'));

/** A JSON boolean only (`bool`). */
export const bool = Type.Boolean(words('expected bool'));

/**
 * voluptuous' `Boolean()` for a flat body: true/false, 1/0 and the words (`"yes"`, `"off"`...);
 * other numbers, null, lists and dicts are refused where voluptuous would take their truth.
 */
export const boolean = Type.Transform(Type.Union([Type.Boolean(), Type.Literal(0), Type.Literal(1), Type.String({ format: BOOLEAN_WORD })], words('expected boolean')))
  .Decode((v) => volBoolean(v)!)
  .Encode((b) => b);

/** voluptuous' `Boolean()` exactly: a str must be one of the words, anything else counts by its truth. */
export const lenientBoolean = Type.Transform(Type.Union([Type.Not(Type.String()), Type.String({ format: BOOLEAN_WORD })], words('expected boolean')))
  .Decode((v) => volBoolean(v)!)
  .Encode((b) => b);

/** An int (`int`, with `vol.Range(min, max)` when bounds are given). */
export function int(min?: number, max?: number) {
  return Type.Integer({ ...words('expected int'), ...(min !== undefined ? { minimum: min } : {}), ...(max !== undefined ? { maximum: max } : {}) });
}

/** `vol.All(int, vol.Range(min, max))` on Python's int, which a bool is too (both bools within the range). */
export function intRange(min: number, max: number) {
  return Type.Transform(Type.Union([int(min, max), Type.Boolean()]))
    .Decode((v) => Number(v))
    .Encode((n) => n);
}

/** `vol.Coerce(float)`: a number, or a str that reads as one. */
export const float = Type.Transform(Type.Union([Type.Number(), Type.String({ format: FLOAT_TEXT })], words('expected float')))
  .Decode((v) => Number(v))
  .Encode((n) => n);

/** `vol.Coerce(int)`: a number (truncated), a bool, or a str of digits. */
export const coerceInt = Type.Transform(Type.Union([Type.Number(), Type.Boolean(), Type.String({ pattern: '^\\s*[-+]?\\d+\\s*$' })], words('expected int')))
  .Decode((v) => (typeof v === 'string' ? Number.parseInt(v, 10) : typeof v === 'boolean' ? Number(v) : Math.trunc(v)))
  .Encode((n) => n);

/** `vol.In(values)`: one of the strings. */
export function oneOf<const T extends string>(values: readonly T[]) {
  return literals(values, `value must be one of [${values.map((v) => pyRepr(v)).join(', ')}]`);
}

/** A union of the strings (typed as one of them: TypeBox types a union of an array that is no tuple as never). */
function literals<T extends string>(values: readonly T[], refusal: string) {
  return Type.Union(
    values.map((v) => Type.Literal(v)),
    words(refusal),
  ) as unknown as TUnion<[TLiteral<T>]> & { refusal: string };
}

/** `vol.Coerce(Enum)`: one of the enumeration's values, refused as `expected <Name> or one of 'a', 'b'`. */
export function coerceEnum<const T extends string>(name: string, values: readonly T[]) {
  return literals(values, `expected ${name} or one of ${values.map((v) => pyRepr(v)).join(', ')}`);
}

/**
 * `vol.Match(re)`: a str the pattern matches. A value that is no str is refused with `notText`:
 * `expected str` in Hearth's flat bodies, Python's own `expected string or buffer` elsewhere.
 */
export function matching(re: RegExp, notText = 'expected str'): TString {
  if (!re.flags) return Type.String({ ...words(notText), pattern: re.source });
  return Type.String({ ...words(notText), format: matchFormat(re), matchSource: re.source } satisfies Worded & { format: string });
}

/**
 * A str a test of ours accepts (a check TypeBox has no keyword for: an IP address), refused with
 * `reason` (`expected IPv4Address`), and with `notText` when it is no str at all (the same
 * unless given). `name` names the format.
 */
export function checkedText(name: string, test: (v: string) => boolean, reason: string, notText = reason): TString {
  const format = `voluptuous.${name}`;
  if (FormatRegistry.Has(format)) throw new TypeError(`a check named ${name} exists already`);
  FormatRegistry.Set(format, test);
  return Type.String({ ...words(notText), format, formatRefusal: reason });
}

/** A name `re` matches and without control characters: names end up in paths and in headers. */
export function nameMatching(re: RegExp): TString {
  if (re.flags) throw new TypeError('nameMatching takes a pattern without flags');
  return Type.String({ ...words('expected str'), pattern: re.source, format: NO_CONTROL, formatRefusal: 'contains control characters' });
}

/** The original's version field: a str or a number taken as a version, or null. */
export const versionTag = Type.Transform(Type.Union([Type.Null(), Type.String(), Type.Number()], words('not a valid value')))
  .Decode((v) => (v === null ? null : String(v)))
  .Encode((v) => v);

/** Anything (a field checked later by its handler). */
export const anything = Type.Unknown();

// ---- containers ----

/** None or the value (`vol.Maybe`): a value of neither kind is refused as the value's schema refuses it. */
export function maybe<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

/** A list of items as Hearth's flat bodies word it (`expected list`). */
export function list<T extends TSchema>(item: T) {
  return Type.Array(item, words('expected list'));
}

/** A list of items, each once (`vol.Unique()`): refused as `contains duplicate items` after its items. */
export function uniqueList<T extends TSchema>(item: T) {
  return Type.Array(item, { ...words('expected list'), uniqueItems: true });
}

/** voluptuous' `[item]`: a list, refused as `expected a list`. */
export function listOf<T extends TSchema>(item: T) {
  return Type.Array(item, words('expected a list'));
}

/** Any dict (`dict`). */
export const dict = Type.Record(Type.String(), Type.Unknown(), words('expected dict'));

const REQUIRED = new WeakSet<TSchema>();

/** A key that must be present (`vol.Required`); keys are optional otherwise. */
export function required<T extends TSchema>(schema: T): T & { readonly [requiredKey]: true } {
  const copy = CloneType(schema);
  REQUIRED.add(copy);
  return copy as T & { readonly [requiredKey]: true };
}
declare const requiredKey: unique symbol;

type Shape = Record<string, TSchema>;
type Keys<S extends Shape> = { [K in keyof S]: S[K] extends { readonly [requiredKey]: true } ? S[K] : TOptional<S[K]> };

/**
 * A dict of these keys (`vol.Schema({...})`): optional unless `required`, any other key refused
 * as `extra keys not allowed` unless `allowExtra` (then left out of what the handler gets).
 */
export function schema<S extends Shape>(shape: S, options: { allowExtra?: boolean } = {}): TObject<Keys<S>> {
  const properties: Record<string, TSchema> = {};
  for (const [key, value] of Object.entries(shape)) properties[key] = REQUIRED.has(value) ? value : Type.Optional(value);
  return Type.Object(properties, { ...words('expected a dictionary'), additionalProperties: options.allowExtra === true }) as TObject<Keys<S>>;
}

/** A schema with a further check or conversion TypeBox cannot express, run after it passed: throw a Refusal to refuse. */
export function refine<T extends TSchema, U>(schema: T, decode: (value: StaticDecode<T>) => U) {
  return Type.Transform(schema)
    .Decode(decode)
    .Encode((v) => v as never);
}
