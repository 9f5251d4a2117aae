import { Type } from '@sinclair/typebox';
import { KeyReader } from '../../voluptuous/reader.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, refine } from '../../voluptuous/schema.ts';
import { slugify, uniqueId } from '../slug.ts';
import type { PlatformDomain, PlatformEntry } from './types.ts';

/**
 * Reading the platform form of configuration.yaml: a domain's section is a list of entries,
 * each naming its `platform`. Hearth provides the `virtual` platform.
 */

/** A configuration.yaml section or entry that cannot be set up. */
export class PlatformConfigError extends Error {
  readonly code = 'HEARTH_INVALID_CONFIG';
}

/** The platform every entry here belongs to. */
export const VIRTUAL = 'virtual';

/** The keys every entry may carry, whatever its domain. */
const COMMON_KEYS = ['platform', 'name', 'unique_id', 'icon', 'device_class'];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One entry being read: its keys checked, every problem named with domain, index and key. */
export class EntryReader extends KeyReader<PlatformConfigError> {
  constructor(
    readonly domain: string,
    readonly index: number,
    raw: Record<string, unknown>,
  ) {
    super(raw);
  }

  /** An error naming the domain, the entry (`light[2]`) and, when given, the key. */
  error(key: string | undefined, message: string): PlatformConfigError {
    const where = key === undefined ? '' : `, key '${key}'`;
    return new PlatformConfigError(`Invalid config for '${this.domain}' at ${this.domain}[${this.index}] (platform ${VIRTUAL})${where}: ${message}`);
  }
}

/**
 * Parses a domain's section into its virtual entries. The section is a list of entries (a
 * single mapping counts as a list of one, as the original's `cv.ensure_list` reads it). Entries
 * of a platform in `elsewhere` belong to another part of Hearth and are skipped; any other
 * platform is refused. Entity ids come from the names, `_2`, `_3`... on a collision.
 */
export function parsePlatformSection<O>(domain: PlatformDomain<O>, section: unknown, elsewhere: ReadonlySet<string> = new Set()): PlatformEntry<O>[] {
  if (section === null || section === undefined) return [];
  if (domain.parseSection) return domain.parseSection(section);
  const list = Array.isArray(section) ? section : [section];
  const entries: PlatformEntry<O>[] = [];
  const taken = new Set<string>();
  list.forEach((raw, index) => {
    const where = `${domain.domain}[${index}]`;
    if (!isPlainObject(raw)) throw new PlatformConfigError(`Invalid config for '${domain.domain}' at ${where}: expected a dictionary`);
    if (!Object.hasOwn(raw, 'platform')) throw new PlatformConfigError(`Invalid config for '${domain.domain}' at ${where}, key 'platform': required key not provided`);
    const platform = raw.platform;
    if (typeof platform === 'string' && elsewhere.has(platform)) return;
    if (platform !== VIRTUAL) {
      const shown = typeof platform === 'string' ? `'${platform}'` : JSON.stringify(platform);
      throw new PlatformConfigError(`Invalid config for '${domain.domain}' at ${where}, key 'platform': platform ${shown} is not available (Hearth provides '${VIRTUAL}')`);
    }
    const entry = new EntryReader(domain.domain, index, raw);
    const allowed = [...COMMON_KEYS, ...domain.optionKeys];
    for (const key of Object.keys(raw)) {
      if (!allowed.includes(key) || (key === 'device_class' && !domain.deviceClasses)) throw entry.error(key, 'extra keys not allowed');
    }
    const name = entry.required('name', cv.string);
    const parsed: PlatformEntry<O> = {
      domain: domain.domain,
      index,
      platform: VIRTUAL,
      name,
      entityId: '',
      options: undefined as O,
    };
    if (entry.has('unique_id')) parsed.uniqueId = entry.required('unique_id', cv.string);
    if (entry.has('icon')) parsed.icon = entry.required('icon', cv.icon);
    if (entry.has('device_class')) parsed.deviceClass = entry.required('device_class', cv.oneOf(domain.deviceClasses!));
    parsed.options = domain.parseOptions(entry);
    const objectId = uniqueId(slugify(name), (id) => taken.has(id));
    taken.add(objectId);
    parsed.entityId = `${domain.domain}.${objectId}`;
    entries.push(parsed);
  });
  const ids = new Set<string>();
  for (const e of entries) {
    if (e.uniqueId === undefined) continue;
    if (ids.has(e.uniqueId)) throw new PlatformConfigError(`Invalid config for '${domain.domain}' at ${domain.domain}[${e.index}], key 'unique_id': ${e.uniqueId} is used by another entry`);
    ids.add(e.uniqueId);
  }
  return entries;
}

/** `open` (100), `closed` (0) or a position from 0 to 100: a cover's or a valve's `initial`. */
export const initialPosition = Type.Transform(
  Type.Union([Type.Literal('open'), Type.Literal('closed'), Type.Integer({ minimum: 0, maximum: 100 })], { refusal: 'expected open, closed or a position from 0 to 100' }),
)
  .Decode((v) => (v === 'open' ? 100 : v === 'closed' ? 0 : v))
  .Encode((n) => n);

/**
 * Names of supported features (`[open, close, set_position]`) as a bit mask; `names` maps each
 * name the domain knows to its bit value in the original's `<Domain>EntityFeature`.
 */
export function supportedFeatures(names: Record<string, number>) {
  return refine(cv.stringList, (list) => {
    let mask = 0;
    for (const name of list) {
      // own keys only: `constructor` or `__proto__` is no feature
      const bit = Object.hasOwn(names, name) ? names[name] : undefined;
      if (bit === undefined) throw new Refusal(`unknown feature '${name}' (expected some of ${Object.keys(names).join(', ')})`);
      mask |= bit;
    }
    return mask;
  });
}
