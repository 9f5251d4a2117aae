/**
 * `backup.json` (supervisor-wire §5.2/§5.3): the metadata member of a backup. The writer emits
 * version 2; the reader accepts what the original accepts (v1 and v2, `snapshot.json` from old
 * releases) with its defaults and legacy conversions, and names the field it rejects.
 */
import { createHash } from 'node:crypto';
import { volBoolean } from '../../../../machines/python/boolean.ts';
import { isoformatMicros } from '../../../../machines/python/isoformat.ts';
import { isSlug, SLUG_PATTERN } from '../../paths.ts';

export const BACKUP_JSON = 'backup.json';
export const LEGACY_BACKUP_JSON = 'snapshot.json';
export const BACKUP_FOLDERS = ['share', 'addons/local', 'ssl', 'media'] as const;
export type BackupFolder = (typeof BACKUP_FOLDERS)[number];
const BUILTIN_REPOSITORIES = new Set(['core', 'local']);
// what the original assumes for backups written before it recorded its own version
const LEGACY_SUPERVISOR_VERSION = '2022.08.3';

export interface BackupCoreMeta {
  version: string;
  exclude_database: boolean;
  size: number;
}

export interface BackupAppMeta {
  slug: string;
  name: string;
  version: string;
  size: number;
}

export interface BackupMeta {
  slug: string;
  version: 1 | 2;
  name: string;
  date: string;
  type: 'full' | 'partial';
  supervisor_version: string;
  extra: Record<string, unknown>;
  compressed: boolean;
  protected: boolean;
  homeassistant: BackupCoreMeta | null;
  folders: BackupFolder[];
  /** the key is `addons` on disk in every version */
  addons: BackupAppMeta[];
  repositories: string[];
  /** keys the original does not know are kept, as it keeps them */
  [unknown: string]: unknown;
}

export class BackupMetaError extends Error {
  readonly code = 'HEARTH_BACKUP_META_INVALID';
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`backup.json: ${field} ${problem}`);
    this.name = 'BackupMetaError';
  }
}

/** A backup's date as the original writes it: the UTC `isoformat()` of its microsecond clock value. */
export function backupDate(epochMicros: bigint): string {
  if (epochMicros < 0n) throw new RangeError('a backup date is after 1970');
  return isoformatMicros(epochMicros);
}

/** The clock value a backup date is made from, with the microseconds JavaScript's Date lacks. */
export function nowMicros(): bigint {
  return BigInt(Math.round((performance.timeOrigin + performance.now()) * 1000));
}

/** The original's slug: sha1 of `"<date> - <name>"` lower-cased, first 8 hex digits. */
export function backupSlug(name: string, date: string): string {
  return createHash('sha1').update(`${date} - ${name}`.toLowerCase(), 'utf8').digest('hex').slice(0, 8);
}

/** What backupSlug makes: an uploaded backup whose slug is anything else is refused (it names files). */
export const BACKUP_SLUG = /^[0-9a-f]{8}$/;

/** The bytes of a v2 `backup.json` (compact, as orjson writes it). */
export function encodeBackupJson(meta: BackupMeta): Buffer {
  const checked = validateBackupMeta({ ...meta, version: 2 });
  return Buffer.from(JSON.stringify(checked), 'utf8');
}

/** Parses and validates `backup.json` / `snapshot.json` bytes. */
export function parseBackupJson(raw: Buffer | string): BackupMeta {
  let data: unknown;
  try {
    data = JSON.parse(raw.toString());
  } catch (error) {
    throw new BackupMetaError('(document)', `is not valid JSON: ${(error as Error).message}`);
  }
  return validateBackupMeta(data);
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const describe = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : JSON.stringify(value));

function requiredString(data: Json, key: string, field = key): string {
  if (!(key in data)) throw new BackupMetaError(field, 'is required');
  if (typeof data[key] !== 'string') throw new BackupMetaError(field, `must be a string, not ${describe(data[key])}`);
  return data[key] as string;
}

/** A slug names folders and files on restore: the original's pattern, never `.` or `..`. */
function slug(data: Json, key: string, field = key): string {
  const value = requiredString(data, key, field);
  if (!isSlug(value)) throw new BackupMetaError(field, `must match ${SLUG_PATTERN.source} (letters, digits, - _ .), not ${describe(value)}`);
  return value;
}

/** voluptuous' Boolean: booleans, the usual words, and numbers by truthiness. */
function boolean(value: unknown, field: string): boolean {
  // a list or a dict would pass by its truth; a backup never holds one here
  const b = typeof value === 'object' && value !== null ? undefined : volBoolean(value);
  if (b === undefined) throw new BackupMetaError(field, `must be a boolean, not ${describe(value)}`);
  return b;
}

/** A version as the original keeps it (AwesomeVersion of a string or number). */
function version(value: unknown, field: string): string {
  if (typeof value === 'string' && value.trim() !== '') return value;
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  throw new BackupMetaError(field, `must be a version string, not ${describe(value)}`);
}

function float(value: unknown, field: string): number {
  const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (typeof number === 'number' && Number.isFinite(number)) return number;
  if (typeof number === 'boolean') return Number(number);
  throw new BackupMetaError(field, `must be a number, not ${describe(value)}`);
}

function list(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw new BackupMetaError(field, `must be a list, not ${describe(value)}`);
  return value;
}

function formatVersion(value: unknown): 1 | 2 {
  if (value === undefined) return 1;
  const number = typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value) ? Number(value) : typeof value === 'number' ? Math.trunc(value) : NaN;
  if (number === 1 || number === 2) return number;
  throw new BackupMetaError('version', `must be 1 or 2, not ${describe(value)}`);
}

function core(value: unknown): BackupCoreMeta | null {
  // v1 wrote empty objects and objects with a null version for "Core not included"
  if (value === undefined || value === null) return null;
  if (!isObject(value)) {
    if (!value) return null;
    throw new BackupMetaError('homeassistant', `must be an object or null, not ${describe(value)}`);
  }
  if (Object.keys(value).length === 0 || value.version === undefined || value.version === null) return null;
  return {
    version: version(value.version, 'homeassistant.version'),
    exclude_database: value.exclude_database === undefined ? false : boolean(value.exclude_database, 'homeassistant.exclude_database'),
    size: value.size === undefined ? 0 : float(value.size, 'homeassistant.size'),
  };
}

function folders(value: unknown): BackupFolder[] {
  if (value === undefined) return [];
  // a v1 backup listed Core's config as the folder `homeassistant`
  const names = list(value, 'folders').filter((name) => name !== 'homeassistant');
  names.forEach((name, index) => {
    if (typeof name !== 'string' || !(BACKUP_FOLDERS as readonly string[]).includes(name)) {
      throw new BackupMetaError(`folders[${index}]`, `must be one of ${BACKUP_FOLDERS.join(', ')}, not ${describe(name)}`);
    }
  });
  if (new Set(names).size !== names.length) throw new BackupMetaError('folders', 'contains a folder twice');
  return names as BackupFolder[];
}

function apps(value: unknown): BackupAppMeta[] {
  if (value === undefined) return [];
  const out = list(value, 'addons').map((app, index) => {
    const field = `addons[${index}]`;
    if (!isObject(app)) throw new BackupMetaError(field, `must be an object, not ${describe(app)}`);
    if (!('version' in app)) throw new BackupMetaError(`${field}.version`, 'is required');
    return {
      slug: slug(app, 'slug', `${field}.slug`),
      name: requiredString(app, 'name', `${field}.name`),
      version: version(app.version, `${field}.version`),
      size: app.size === undefined ? 0 : float(app.size, `${field}.size`),
    };
  });
  if (new Set(out.map((app) => app.slug)).size !== out.length) throw new BackupMetaError('addons', 'lists an app twice (slugs must be unique)');
  return out;
}

function repositories(value: unknown): string[] {
  if (value === undefined) return [];
  const out = list(value, 'repositories').map((repository, index) => {
    const field = `repositories[${index}]`;
    if (typeof repository !== 'string') throw new BackupMetaError(field, `must be a string, not ${describe(repository)}`);
    if (BUILTIN_REPOSITORIES.has(repository)) return repository;
    // Hearth's store also reads repositories from local folders (`--repositories DIR`): their source is the absolute path
    if (repository.startsWith('/') && !repository.includes('\0')) return repository;
    const match = /^([^#]+)(?:#[\w\-./]+)?$/.exec(repository);
    let url: URL | undefined;
    try {
      url = match ? new URL(match[1]) : undefined;
    } catch {
      url = undefined;
    }
    // a file: URL (a git repository on this machine, added to Hearth's store) has no host
    if (!url || (!url.host && url.protocol !== 'file:')) throw new BackupMetaError(field, `is not a repository URL, an absolute folder or a built-in repository: ${JSON.stringify(repository)}`);
    return repository;
  });
  if (new Set(out).size !== out.length) throw new BackupMetaError('repositories', 'contains a repository twice');
  return out;
}

/** Validates parsed metadata the way the original's backup schema does (defaults, legacy forms). */
export function validateBackupMeta(data: unknown): BackupMeta {
  if (!isObject(data)) throw new BackupMetaError('(document)', `must be a JSON object, not ${describe(data)}`);
  const { crypto, ...rest } = data;
  // `crypto` was written before 2026-03 and is dropped now; anything but its one value is still wrong
  if (crypto !== undefined && crypto !== null && crypto !== 'aes128') throw new BackupMetaError('crypto', `must be "aes128" or null, not ${describe(crypto)}`);
  const type = requiredString(data, 'type');
  if (type !== 'full' && type !== 'partial') throw new BackupMetaError('type', `must be "full" or "partial", not ${describe(type)}`);
  if (data.extra !== undefined && !isObject(data.extra)) throw new BackupMetaError('extra', `must be an object, not ${describe(data.extra)}`);
  return {
    ...rest,
    slug: slug(data, 'slug'),
    version: formatVersion(data.version),
    name: requiredString(data, 'name'),
    date: requiredString(data, 'date'),
    type,
    supervisor_version: data.supervisor_version === undefined ? LEGACY_SUPERVISOR_VERSION : version(data.supervisor_version, 'supervisor_version'),
    extra: (data.extra as Json | undefined) ?? {},
    compressed: data.compressed === undefined ? true : boolean(data.compressed, 'compressed'),
    // legacy backups stored the cipher name here; any non-boolean means protected
    protected: data.protected === undefined ? false : typeof data.protected === 'boolean' ? data.protected : true,
    homeassistant: core(data.homeassistant),
    folders: folders(data.folders),
    addons: apps(data.addons),
    repositories: repositories(data.repositories),
  };
}
