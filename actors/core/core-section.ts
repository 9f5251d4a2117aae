// The core section (`core:`, or the original's `homeassistant:`) checked as the original checks
// it, in the wording of its validators, and put in the form it is reported in.
import { statSync } from 'node:fs';
import * as cv from '../voluptuous/cv.ts';
import { GroupConfigError, checkGroups } from '../auth/groups.ts';
import { validateAuthProviders, validateMfaModules } from './auth-config.ts';
import { ConfigurationError, listOf, shown } from './config-error.ts';

const TIME_ZONE_HELP = 'Invalid time zone passed in. Valid options can be found here: http://en.wikipedia.org/wiki/List_of_tz_database_time_zones';
const UNIT_SYSTEMS = new Set(['metric', 'us_customary', 'imperial']);
// the original's keys; those Hearth has no use for are accepted and ignored, as a typo is not
const CORE_KEYS = new Set([
  'name', 'latitude', 'longitude', 'elevation', 'radius', 'unit_system', 'temperature_unit', 'time_zone',
  'internal_url', 'external_url', 'allowlist_external_dirs', 'whitelist_external_dirs', 'allowlist_external_urls',
  'packages', 'auth_providers', 'auth_mfa_modules', 'media_dirs', 'legacy_templates', 'currency', 'country',
  'language', 'debug', 'webrtc', 'customize', 'customize_domain', 'customize_glob',
  // Hearth's own: groups with permission policies, which the original keeps in storage only
  'auth_groups',
]);
// region codes Intl names that are no country
const NOT_COUNTRIES = new Set(['EU', 'EZ', 'UN', 'QO', 'ZZ']);
const NOT_CURRENCIES = new Set(['XXX', 'XTS']);

/** The tz database's names, as the original's zoneinfo knows them (no offsets, case as written). */
export function isTimeZone(value: unknown): value is string {
  if (typeof value !== 'string' || value === '' || /^[+-]\d/.test(value)) return false;
  let resolved: string;
  try {
    resolved = new Intl.DateTimeFormat('en', { timeZone: value }).resolvedOptions().timeZone;
  } catch {
    return false;
  }
  // Intl ignores case where the tz database does not: "europe/paris" is no zone to the original
  return resolved === value || resolved.toLowerCase() !== value.toLowerCase();
}

function knownName(type: 'region' | 'currency' | 'language', code: string): boolean {
  try {
    return new Intl.DisplayNames(['en'], { type, fallback: 'none' }).of(code) !== undefined;
  } catch {
    return false; // not even well-formed
  }
}

function isUrl(value: unknown): boolean {
  if (typeof value !== 'string' || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
}

function isDirectory(value: unknown): boolean {
  if (typeof value !== 'string' || value === '') return false;
  try {
    return statSync(value).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The core section with its values checked and put in the form they are reported in; throws a
 * ConfigurationError naming `where` and the key. Checking a result again gives the same result.
 */
export function validateCore(section: Record<string, unknown>, where = 'core'): Record<string, unknown> {
  const refuse = (key: string, reason: string): never => {
    throw new ConfigurationError(`${where}: ${key}: ${reason} (got ${shown(section[key])})`);
  };
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(section)) {
    if (!CORE_KEYS.has(key)) throw new ConfigurationError(`${where}: extra keys not allowed: ${shown(key)}`);
    const value = section[key];
    switch (key) {
      case 'name':
        // the original makes a string of any value; a list or mapping is no place name
        if (value === null) break;
        if (typeof value === 'object') refuse(key, 'expected a string');
        out.name = String(value);
        break;
      case 'latitude':
        if (typeof value !== 'number' || !(value >= -90 && value <= 90)) refuse(key, 'invalid latitude, expected a number from -90 to 90');
        out.latitude = value;
        break;
      case 'longitude':
        if (typeof value !== 'number' || !(value >= -180 && value <= 180)) refuse(key, 'invalid longitude, expected a number from -180 to 180');
        out.longitude = value;
        break;
      case 'elevation':
        // whole meters, as the original keeps it
        if (typeof value !== 'number' || !Number.isFinite(value)) refuse(key, 'expected int');
        out.elevation = Math.trunc(value as number);
        break;
      case 'radius':
        if (typeof value !== 'number' || !Number.isFinite(value)) refuse(key, 'expected int');
        if ((value as number) < 0) refuse(key, 'value must be at least 0');
        out.radius = Math.trunc(value as number);
        break;
      case 'unit_system':
        if (typeof value !== 'string' || !UNIT_SYSTEMS.has(value)) refuse(key, `must be 'metric' or 'us_customary'`);
        out.unit_system = value;
        break;
      case 'time_zone':
        if (!isTimeZone(value)) refuse(key, TIME_ZONE_HELP);
        out.time_zone = value;
        break;
      case 'currency':
        if (typeof value !== 'string' || !/^[A-Z]{3}$/.test(value) || NOT_CURRENCIES.has(value) || !knownName('currency', value)) {
          refuse(key, 'invalid ISO 4217 formatted currency');
        }
        out.currency = value;
        break;
      case 'country':
        if (typeof value !== 'string' || !/^[A-Z]{2}$/.test(value) || NOT_COUNTRIES.has(value) || !knownName('region', value)) {
          refuse(key, 'invalid ISO 3166 formatted country');
        }
        out.country = value;
        break;
      case 'language':
        if (typeof value !== 'string' || !knownName('language', value)) refuse(key, 'invalid RFC 5646 formatted language');
        out.language = value;
        break;
      case 'internal_url':
      case 'external_url':
        if (!isUrl(value)) refuse(key, 'invalid url');
        out[key] = value;
        break;
      case 'allowlist_external_dirs':
      case 'whitelist_external_dirs':
        out[key] = listOf(value).map((dir) => (isDirectory(dir) ? dir : refuse(key, `not a directory: ${shown(dir)}`)));
        break;
      case 'allowlist_external_urls':
        out[key] = listOf(value).map((url) => (isUrl(url) ? url : refuse(key, `invalid url: ${shown(url)}`)));
        break;
      case 'auth_mfa_modules':
        out.auth_mfa_modules = validateMfaModules(value, (reason) => refuse(key, reason));
        break;
      case 'auth_groups':
        try {
          out.auth_groups = checkGroups(value);
        } catch (err) {
          if (!(err instanceof GroupConfigError)) throw err;
          throw new ConfigurationError(`${where}: ${err.message}`);
        }
        break;
      case 'auth_providers':
        out.auth_providers = validateAuthProviders(value, (reason) => refuse(key, reason));
        break;
      case 'debug':
        try {
          out.debug = cv.convert(cv.boolean, value);
        } catch {
          refuse(key, 'invalid boolean value');
        }
        break;
      default:
        out[key] = value; // accepted, not used
    }
  }
  return out;
}
