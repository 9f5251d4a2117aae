import { KeyReader } from '../../voluptuous/reader.ts';
import type { HelperItem } from '../types.ts';

/**
 * Validation of the helper domains' configuration.yaml sections: each value through the
 * original's validator as a TypeBox schema (actors/voluptuous/cv.ts: cv.string, cv.boolean,
 * cv.icon, vol.Coerce), a problem named with the domain, the item and the key.
 */

/** A configuration.yaml section or item that the original would refuse. */
export class HelperConfigError extends Error {
  readonly code = 'HEARTH_INVALID_CONFIG';
}

// cv.slug: the key must be its own slugify() (lower-case ascii words joined by single underscores)
const SLUG = /^[a-z0-9]+(?:_[a-z0-9]+)*$/;

/** The original's util.slugify, for the names cv.slug checks. */
export function slugify(text: string): string {
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

/** Reads one item: checks its keys against the schema's and wraps every problem with its place. */
export class ItemReader extends KeyReader<HelperConfigError> {
  constructor(
    readonly domain: string,
    readonly objectId: string,
    raw: Record<string, unknown>,
    allowedKeys: readonly string[],
  ) {
    super(raw);
    for (const key of Object.keys(raw)) {
      if (!allowedKeys.includes(key)) throw this.error(key, 'extra keys not allowed');
    }
  }

  /** An error naming the domain, the item and (when given) the key. */
  error(key: string | undefined, message: string): HelperConfigError {
    const where = key === undefined ? '' : `, key '${key}'`;
    return new HelperConfigError(`Invalid config for '${this.domain}' item '${this.objectId}'${where}: ${message}`);
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
