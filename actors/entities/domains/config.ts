import { cvBoolean } from '../../../machines/python/boolean.ts';
import { parseFloatText, parseIntText } from '../../../machines/python/float.ts';
import { pyStr } from '../../../machines/python/repr.ts';
import type { HelperItem } from '../types.ts';

/**
 * Validation of the helper domains' configuration.yaml sections, with the original's coercions
 * (cv.string, cv.boolean, cv.icon, vol.Coerce) and, where it has one, its wording of the problem.
 */

/** A configuration.yaml section or item that the original would refuse. */
export class HelperConfigError extends Error {
  readonly code = 'HEARTH_INVALID_CONFIG';
}

/** A value of one key that cannot be used; the item parser adds the domain, item and key. */
export class InvalidValue extends Error {}

// cv.slug: the key must be its own slugify() (lower-case ascii words joined by single underscores)
const SLUG = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

function slugify(text: string): string {
  return text
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** cv.string: scalars become their str(); null, lists and dicts are refused. */
export function toStr(value: unknown): string {
  if (value === null || value === undefined) throw new InvalidValue('string value is None');
  // a number YAML read loses a trailing `.0` (`1.0` is 1), which we cannot see
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return pyStr(value);
  throw new InvalidValue('value should be a string');
}

/** cv.icon: any string holding a `prefix:name`. */
export function toIcon(value: unknown): string {
  const text = toStr(value);
  if (!text.includes(':')) throw new InvalidValue('Icons should be specified in the form "prefix:name"');
  return text;
}

/** cv.boolean: booleans, numbers (non-zero is true) and the words on/off, yes/no, true/false, enable/disable. */
export function toBool(value: unknown): boolean {
  const b = cvBoolean(value);
  if (b !== undefined) return b;
  throw new InvalidValue(`invalid boolean value ${typeof value === 'string' ? value : (JSON.stringify(value) ?? typeof value)}`);
}

/** vol.Coerce(float). */
export function toFloat(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const n = parseFloatText(value);
    // float('nan') succeeds in Python, but a NaN limit makes no sense; refuse it with the same words
    if (n !== undefined && !Number.isNaN(n)) return n;
  }
  throw new InvalidValue('expected float');
}

/** vol.Coerce(int): floats are truncated as Python's int() does. */
export function toInt(value: unknown): number {
  if (typeof value === 'number' && Number.isFinite(value)) return Math.trunc(value);
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (typeof value === 'string') {
    const n = parseIntText(value);
    if (n !== undefined) return n;
  }
  throw new InvalidValue('expected int');
}

/** cv.positive_int. */
export function toPositiveInt(value: unknown): number {
  const n = toInt(value);
  if (n < 0) throw new InvalidValue('value must be at least 0');
  return n;
}

/** vol.In. */
export function oneOf<T extends string>(value: unknown, allowed: readonly T[]): T {
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T;
  throw new InvalidValue(`value must be one of [${allowed.map((a) => `'${a}'`).join(', ')}]`);
}

/** cv.ensure_list + vol.Length(min=1) + [cv.string]. */
export function toStringList(value: unknown): string[] {
  const list = value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];
  if (list.length < 1) throw new InvalidValue('length of value must be at least 1');
  return list.map((entry) => toStr(entry));
}

/** Reads one item: checks its keys against the schema's and wraps every problem with its place. */
export class ItemReader {
  constructor(
    readonly domain: string,
    readonly objectId: string,
    readonly raw: Record<string, unknown>,
    allowedKeys: readonly string[],
  ) {
    for (const key of Object.keys(raw)) {
      if (!allowedKeys.includes(key)) throw this.error(key, 'extra keys not allowed');
    }
  }

  /** An error naming the domain, the item and (when given) the key. */
  error(key: string | undefined, message: string): HelperConfigError {
    const where = key === undefined ? '' : `, key '${key}'`;
    return new HelperConfigError(`Invalid config for '${this.domain}' item '${this.objectId}'${where}: ${message}`);
  }

  has(key: string): boolean {
    return this.raw[key] !== undefined;
  }

  /** The key's value through `convert`, or `fallback` when the key is absent. */
  optional<T>(key: string, convert: (value: unknown) => T): T | undefined;
  optional<T>(key: string, convert: (value: unknown) => T, fallback: T): T;
  optional<T>(key: string, convert: (value: unknown) => T, fallback?: T): T | undefined {
    if (!(key in this.raw)) return fallback;
    try {
      return convert(this.raw[key]);
    } catch (err) {
      if (err instanceof InvalidValue) throw this.error(key, err.message);
      throw err;
    }
  }

  required<T>(key: string, convert: (value: unknown) => T): T {
    if (!(key in this.raw)) throw this.error(key, 'required key not provided');
    return this.optional(key, convert) as T;
  }
}

/**
 * Parses a helper domain's section: a mapping of slug object ids to item configs, where an
 * empty item (`porch:`) means all defaults. An absent or empty section has no items.
 */
export function parseSection<C>(
  domain: string,
  section: unknown,
  parseItem: (raw: Record<string, unknown>, objectId: string) => C,
): HelperItem<C>[] {
  // The original refuses `input_boolean:` with nothing under it; an empty section is harmless, so we
  // read it as no items.
  if (section === null || section === undefined) return [];
  if (!isPlainObject(section)) throw new HelperConfigError(`Invalid config for '${domain}': expected a dictionary`);
  const items: HelperItem<C>[] = [];
  for (const [objectId, value] of Object.entries(section)) {
    if (!SLUG.test(objectId)) {
      throw new HelperConfigError(
        `Invalid config for '${domain}' item '${objectId}': invalid slug ${objectId} (try ${slugify(objectId) || 'a_name'})`,
      );
    }
    if (value !== null && value !== undefined && !isPlainObject(value)) {
      throw new HelperConfigError(`Invalid config for '${domain}' item '${objectId}': expected a dictionary`);
    }
    items.push({ objectId, config: parseItem((value ?? {}) as Record<string, unknown>, objectId) });
  }
  return items;
}

/** The attributes every helper adds after its own: unit (when it has one), icon, friendly name. */
export function commonAttributes(config: { name?: string; icon?: string; unit_of_measurement?: string }): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (config.unit_of_measurement !== undefined) attributes.unit_of_measurement = config.unit_of_measurement;
  if (config.icon !== undefined) attributes.icon = config.icon;
  if (config.name !== undefined) attributes.friendly_name = config.name;
  return attributes;
}

/** The service target every helper service has: entities of its own domain. */
export function targetOf(domain: string) {
  return { entity: [{ domain: [domain] }] };
}
