import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isIP } from 'node:net';
import { parse, type ScalarTag } from 'yaml';
import { GroupConfigError, checkGroups, type Group } from '../auth/groups.ts';
import type { ProviderConfig } from '../auth/providers.ts';
import { validateExport, type ExportConfig } from '../export/config.ts';
import * as cv from '../voluptuous/cv.ts';

/** Commit mode of the recorder (see store/). */
export type RecorderCommit = 'durable' | 'fast';

/** configuration.yaml as Hearth reads it. Sections of domains stay raw for their owners. */
export interface Configuration {
  core: Record<string, unknown>;
  /** true when the file had a `core:` section (the original's config_source `yaml`) */
  coreFromYaml: boolean;
  http: {
    cors_allowed_origins: string[];
    server_port?: number;
    /** the original's defaults: bans on, never banned (-1) */
    ip_ban_enabled: boolean;
    login_attempts_threshold: number;
    /** X-Forwarded-For honoured only with this and from one of `trusted_proxies` (`address/prefix`) */
    use_x_forwarded_for: boolean;
    trusted_proxies: string[];
  };
  recorder: { purge_keep_days: number; commit: RecorderCommit; export: ExportConfig };
  sections: Record<string, unknown>;
}

/** A configuration error that names the file and the problem. */
export class ConfigurationError extends Error {}

/**
 * Reads `<dir>/configuration.yaml` (absent: defaults), resolving `!secret name` from
 * `<dir>/secrets.yaml`.
 */
export async function loadConfiguration(dir: string): Promise<Configuration> {
  const file = join(dir, 'configuration.yaml');
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err: any) {
    if (err.code === 'ENOENT') return normalise({}, file);
    throw new ConfigurationError(`cannot read ${file}: ${err.message}`);
  }
  let secrets: Record<string, unknown> | undefined;
  const loadSecrets = async () => {
    const secretsFile = join(dir, 'secrets.yaml');
    let doc: unknown;
    try {
      doc = parse(await readFile(secretsFile, 'utf8')) ?? {};
    } catch (err: any) {
      if (err.code === 'ENOENT') doc = {};
      else throw new ConfigurationError(`cannot read ${secretsFile}: ${err.message}`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
      throw new ConfigurationError(`${secretsFile}: the top level must be a mapping of secret names to values`);
    }
    secrets = doc as Record<string, unknown>;
  };
  if (text.includes('!secret')) await loadSecrets();
  // the YAML parser would wrap an error thrown here in its own words: the first missing name
  // is noted instead, and reported on its own once parsing is done
  let missing: string | undefined;
  const secretTag: ScalarTag = {
    tag: '!secret',
    resolve(name: string) {
      // own keys only: `in` would find toString, constructor, __proto__... on every object
      if (secrets && Object.hasOwn(secrets, name)) return secrets[name] as any;
      missing ??= name;
      return null;
    },
  };
  const noSecret = () => new ConfigurationError(`${file}: secret '${missing}' is not defined in secrets.yaml`);
  let doc: unknown;
  try {
    doc = parse(text, { customTags: [secretTag] });
  } catch (err: any) {
    if (missing !== undefined) throw noSecret();
    throw new ConfigurationError(`${file}: invalid YAML: ${err.message}`);
  }
  if (missing !== undefined) throw noSecret();
  return normalise(doc ?? {}, file);
}

function normalise(doc: unknown, file: string): Configuration {
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) {
    throw new ConfigurationError(`${file}: the top level must be a mapping of sections`);
  }
  const sections = { ...(doc as Record<string, unknown>) };
  // users of the original name this section after its brand; both spellings are read
  const coreName = sections.core !== undefined && sections.core !== null ? 'core' : 'homeassistant';
  const coreRaw = sections[coreName];
  delete sections.core;
  delete sections.homeassistant;
  const httpRaw = (sections.http ?? {}) as Record<string, unknown>;
  delete sections.http;
  const recRaw = (sections.recorder ?? {}) as Record<string, unknown>;
  delete sections.recorder;

  const keep = recRaw.purge_keep_days ?? 10;
  if (!Number.isInteger(keep) || (keep as number) < 1) {
    throw new ConfigurationError(`${file}: recorder: purge_keep_days must be an integer of at least 1, got ${JSON.stringify(keep)}`);
  }
  const commit = recRaw.commit ?? 'durable';
  if (commit !== 'durable' && commit !== 'fast') {
    throw new ConfigurationError(`${file}: recorder: commit must be 'durable' or 'fast', got ${JSON.stringify(commit)}`);
  }
  let exportConfig: ExportConfig;
  try {
    exportConfig = validateExport(recRaw.export, `${file}: recorder: export`);
  } catch (err) {
    throw new ConfigurationError((err as Error).message);
  }
  const origins = httpRaw.cors_allowed_origins ?? ['https://cast.home-assistant.io'];
  if (!Array.isArray(origins) && typeof origins !== 'string') {
    throw new ConfigurationError(`${file}: http: cors_allowed_origins must be a list of origins`);
  }
  if (coreRaw !== undefined && coreRaw !== null && (typeof coreRaw !== 'object' || Array.isArray(coreRaw))) {
    throw new ConfigurationError(`${file}: ${coreName}: must be a mapping`);
  }
  return {
    // checked here, where the file is known, so neither a start nor a reload goes ahead with it
    core: validateCore((coreRaw ?? {}) as Record<string, unknown>, `${file}: ${coreName}`),
    coreFromYaml: coreRaw !== undefined,
    http: {
      cors_allowed_origins: Array.isArray(origins) ? origins.map(String) : [String(origins)],
      server_port: typeof httpRaw.server_port === 'number' ? httpRaw.server_port : undefined,
      ...validateHttpSecurity(httpRaw, `${file}: http`),
    },
    recorder: { purge_keep_days: keep as number, commit, export: exportConfig },
    sections,
  };
}

// ---------------------------------------------------------------------------------------------
// http: bans and reverse proxies, checked as the original's HTTP_SCHEMA checks them

/**
 * `ip_ban_enabled` (cv.boolean, default true), `login_attempts_threshold` (cv.positive_int or -1,
 * default -1), `use_x_forwarded_for` (cv.boolean) and `trusted_proxies` (list of ip_network, strict:
 * no host bits), the last two inclusive: both or neither.
 */
export function validateHttpSecurity(
  section: Record<string, unknown>,
  where = 'http',
): { ip_ban_enabled: boolean; login_attempts_threshold: number; use_x_forwarded_for: boolean; trusted_proxies: string[] } {
  const refuse = (key: string, reason: string, value: unknown = section[key]): never => {
    throw new ConfigurationError(`${where}: ${key}: ${reason} (got ${shown(value)})`);
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const value = section[key];
    if (value === undefined) return fallback;
    try {
      return cv.convert(cv.boolean, value);
    } catch {
      return refuse(key, 'invalid boolean value');
    }
  };
  const hasUse = section.use_x_forwarded_for !== undefined;
  const hasProxies = section.trusted_proxies !== undefined;
  if (hasUse !== hasProxies) {
    const key = hasUse ? 'trusted_proxies' : 'use_x_forwarded_for';
    throw new ConfigurationError(`${where}: ${key}: some but not all values in the same group of inclusion 'proxy' (use_x_forwarded_for and trusted_proxies go together)`);
  }
  let threshold = -1;
  const raw = section.login_attempts_threshold;
  if (raw !== undefined) {
    // vol.Coerce(int): numbers lose their fraction, strings must read as a whole number
    const n = typeof raw === 'number' && Number.isFinite(raw) ? Math.trunc(raw)
      : typeof raw === 'string' && /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw.trim())
      : NaN;
    if (!Number.isSafeInteger(n) || (n < 0 && n !== -1)) refuse('login_attempts_threshold', 'expected a positive integer, or -1 to never ban');
    threshold = n;
  }
  const proxies = hasProxies ? listOf(section.trusted_proxies) : [];
  return {
    ip_ban_enabled: bool('ip_ban_enabled', true),
    login_attempts_threshold: threshold,
    use_x_forwarded_for: bool('use_x_forwarded_for', false),
    trusted_proxies: proxies.map((p) => ipNetwork(p) ?? refuse('trusted_proxies', `invalid IP network: ${shown(p)}`, section.trusted_proxies)),
  };
}

/** 32 or 128 bits of an address, or undefined when it is none. */
function addressBits(addr: string): { bits: bigint; width: number } | undefined {
  const kind = isIP(addr);
  if (kind === 4) return { bits: addr.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n), width: 32 };
  if (kind !== 6) return undefined;
  // the URL parser writes any IPv6 form out in full groups (embedded IPv4 included)
  const host = new URL(`http://[${addr}]/`).hostname.slice(1, -1);
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = tail === undefined ? h : [...h, ...Array(8 - h.length - t.length).fill('0'), ...t];
  return { bits: groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n), width: 128 };
}

/** A network as the original's ip_network() reads it (strict), written `address/prefix`; undefined when invalid. */
function ipNetwork(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const [addr, prefixText, extra] = value.trim().split('/');
  if (extra !== undefined || addr.includes('%')) return undefined;
  const parsed = addressBits(addr);
  if (!parsed) return undefined;
  let prefix = parsed.width;
  if (prefixText !== undefined) {
    if (/^\d+$/.test(prefixText)) prefix = Number(prefixText);
    else if (parsed.width === 32 && isIP(prefixText) === 4) {
      // a netmask (255.255.0.0) stands for its prefix
      const mask = addressBits(prefixText)!.bits.toString(2).padStart(32, '0');
      if (!/^1*0*$/.test(mask)) return undefined;
      prefix = mask.indexOf('0') === -1 ? 32 : mask.indexOf('0');
    } else return undefined;
    if (prefix > parsed.width) return undefined;
  }
  const hostBits = (1n << BigInt(parsed.width - prefix)) - 1n;
  if ((parsed.bits & hostBits) !== 0n) return undefined; // host bits set: not a network
  return `${parsed.width === 32 ? addr : new URL(`http://[${addr}]/`).hostname.slice(1, -1)}/${prefix}`;
}

// ---------------------------------------------------------------------------------------------
// The core section, checked as the original checks it (wording of its validators)

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

/** A value for an error message, cut short. */
function shown(value: unknown): string {
  let text: string;
  try {
    text = typeof value === 'number' ? String(value) : (JSON.stringify(value) ?? String(value));
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 79)}…` : text;
}

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

function listOf(value: unknown): unknown[] {
  return value === null ? [] : Array.isArray(value) ? value : [value];
}

// the multi-factor module types Hearth has (the original loads homeassistant.auth.mfa_modules.<type>)
const MFA_MODULE_TYPES = new Set(['totp']);
const MFA_MODULE_KEYS = new Set(['type', 'id', 'name']);

/** An entry of `auth_mfa_modules` or `auth_providers`: a dictionary with a string `type` and, if any, string `id` and `name`. */
function typedEntry(entry: unknown, refuse: (reason: string) => never): Record<string, unknown> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return refuse('expected a dictionary');
  const item = entry as Record<string, unknown>;
  if (item.type === undefined) return refuse("required key not provided @ data['type']");
  for (const field of ['type', 'id', 'name']) {
    if (item[field] !== undefined && typeof item[field] !== 'string') return refuse(`expected str for dictionary value @ data['${field}']`);
  }
  return item;
}

/**
 * `auth_mfa_modules` as the original checks it: cv.ensure_list of MULTI_FACTOR_AUTH_MODULE_SCHEMA
 * ({type: str, name?: str, id?: str}), no two with the same id (the type when no id), and, as
 * loading the module does, a known type whose CONFIG_SCHEMA (totp: no extra keys) accepts it.
 */
function validateMfaModules(value: unknown, refuse: (reason: string) => never): Array<{ type: string; id?: string; name?: string }> {
  const seen = new Set<string>();
  return listOf(value).map((entry) => {
    const item = typedEntry(entry, refuse);
    const type = item.type as string;
    if (!MFA_MODULE_TYPES.has(type)) return refuse(`Unable to load mfa module ${type}`);
    const extra = Object.keys(item).find((k) => !MFA_MODULE_KEYS.has(k));
    if (extra !== undefined) return refuse(`Invalid configuration for multi-factor module ${type}: extra keys not allowed @ data['${extra}']`);
    const id = (item.id as string | undefined) ?? type;
    if (seen.has(id)) return refuse(`Duplicate mfa module ${type} found. Please add unique IDs if you want to have the same mfa module twice`);
    seen.add(id);
    const out: { type: string; id?: string; name?: string } = { type };
    if (item.id !== undefined) out.id = item.id as string;
    if (item.name !== undefined) out.name = item.name as string;
    return out;
  });
}

/** The checked `auth_mfa_modules` of a checked core section; undefined when not configured (the default applies). */
export function mfaModulesOfCore(core: Record<string, unknown>): Array<{ type: string; id?: string; name?: string }> | undefined {
  return core.auth_mfa_modules as Array<{ type: string; id?: string; name?: string }> | undefined;
}

/** The checked `auth_groups` of a checked core section: the groups beside the system ones. */
export function authGroupsOfCore(core: Record<string, unknown>): Group[] {
  return (core.auth_groups as Group[] | undefined) ?? [];
}

// the auth providers Hearth has (the original loads homeassistant.auth.providers.<type>)
const PROVIDER_KEYS: Record<string, Set<string>> = {
  core: new Set(['type', 'name']),
  trusted_networks: new Set(['type', 'name', 'id', 'trusted_networks', 'trusted_users', 'allow_bypass_login']),
  command_line: new Set(['type', 'name', 'id', 'command', 'args', 'meta']),
  insecure_example: new Set(['type', 'name', 'id', 'users']),
};

/**
 * `auth_providers` as the original checks it: cv.ensure_list of AUTH_PROVIDER_SCHEMA ({type, name?,
 * id?}), no two with the same type and id, and each provider's own CONFIG_SCHEMA (no extra keys).
 */
function validateAuthProviders(value: unknown, refuse: (reason: string) => never): ProviderConfig[] {
  const seen = new Set<string>();
  return listOf(value).map((entry): ProviderConfig => {
    const item = typedEntry(entry, refuse);
    const type = item.type as string;
    const keys = PROVIDER_KEYS[type];
    if (!keys) return refuse(`Unable to load auth provider ${type}: no such provider (Hearth has ${Object.keys(PROVIDER_KEYS).join(', ')})`);
    const bad = (reason: string): never => refuse(`Invalid configuration for auth provider ${type}: ${reason}`);
    if (type === 'core' && item.id !== undefined) bad('ID is not allowed for the core auth provider.');
    const extra = Object.keys(item).find((k) => !keys.has(k));
    if (extra !== undefined) bad(`extra keys not allowed @ data['${extra}']`);
    const key = `${type}\n${item.id ?? ''}`;
    if (seen.has(key)) refuse(`Duplicate auth provider ${type} found. Please add unique IDs if you want to have the same provider twice`);
    seen.add(key);
    const head = { ...(item.name !== undefined && { name: item.name as string }), ...(item.id !== undefined && { id: item.id as string }) };
    const bool = (field: string): boolean => {
      if (item[field] === undefined) return false;
      try {
        return cv.convert(cv.boolean, item[field]);
      } catch {
        return bad(`expected boolean @ data['${field}']`);
      }
    };
    const strings = (field: string, list: unknown): string[] =>
      listOf(list).map((v) => (typeof v === 'string' ? v : bad(`expected str @ data['${field}']`)));
    switch (type) {
      case 'core':
        return { type: 'core', ...head };
      case 'trusted_networks': {
        if (item.trusted_networks === undefined) bad("required key not provided @ data['trusted_networks']");
        const networks = listOf(item.trusted_networks).map((n) => ipNetwork(n) ?? bad(`invalid IP network ${shown(n)} @ data['trusted_networks']`));
        const usersMap = item.trusted_users ?? {};
        if (typeof usersMap !== 'object' || usersMap === null || Array.isArray(usersMap)) return bad("expected a dictionary @ data['trusted_users']");
        // kept in the configuration's own shape (network → users and {group}), so checking it again agrees
        const trusted_users: Record<string, Array<string | { group: string[] }>> = {};
        for (const [network, list] of Object.entries(usersMap)) {
          const net = ipNetwork(network) ?? bad(`invalid IP network ${shown(network)} @ data['trusted_users']`);
          trusted_users[net] = listOf(list).map((who) => {
            if (typeof who === 'string') return who;
            if (typeof who === 'object' && who !== null && !Array.isArray(who) && Object.keys(who).join() === 'group') {
              return { group: strings('trusted_users', (who as { group: unknown }).group) };
            }
            return bad(`expected a user id or {group: <group id>} @ data['trusted_users'][${shown(network)}]`);
          });
        }
        return { type: 'trusted_networks', ...head, trusted_networks: networks, trusted_users, allow_bypass_login: bool('allow_bypass_login') };
      }
      case 'command_line': {
        if (typeof item.command !== 'string') return bad("required key not provided @ data['command'] (a string)");
        if (!item.command.startsWith('/')) bad(`command must be an absolute path @ data['command'] (got ${shown(item.command)})`);
        return { type: 'command_line', ...head, command: item.command, args: item.args == null ? [] : strings('args', item.args), meta: bool('meta') };
      }
      default: {
        if (!Array.isArray(item.users)) return bad("required key not provided @ data['users'] (a list)");
        const users = item.users.map((u, i) => {
          if (typeof u !== 'object' || u === null || Array.isArray(u)) return bad(`expected a dictionary @ data['users'][${i}]`);
          const user = u as Record<string, unknown>;
          for (const field of Object.keys(user)) if (!['username', 'password', 'name'].includes(field)) bad(`extra keys not allowed @ data['users'][${i}]['${field}']`);
          for (const field of ['username', 'password']) if (typeof user[field] !== 'string') bad(`required key not provided @ data['users'][${i}]['${field}'] (a string)`);
          if (user.name !== undefined && typeof user.name !== 'string') bad(`expected str @ data['users'][${i}]['name']`);
          return { username: user.username as string, password: user.password as string, ...(user.name !== undefined && { name: user.name as string }) };
        });
        return { type: 'insecure_example', ...head, users };
      }
    }
  });
}

/** The checked `auth_providers` of a checked core section; undefined when not configured (`core` alone). */
export function authProvidersOfCore(core: Record<string, unknown>): ProviderConfig[] | undefined {
  return core.auth_providers as ProviderConfig[] | undefined;
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
