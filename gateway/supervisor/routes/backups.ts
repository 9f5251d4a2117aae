import { stat } from 'node:fs/promises';
import type { Writable } from 'node:stream';
import type { SupervisorApi, SupervisorCall } from '../api.ts';
import { raw } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { Resolution } from '../../../actors/supervisor/resolution/types.ts';
import type { Mounts } from '../../../actors/supervisor/mounts/mounts.ts';
import { Type } from '@sinclair/typebox';
import { validate, validateField, str, int, maybe, nameMatching, boolean, dict, oneOf, refine, schema, uniqueList, Refusal } from '../../../actors/supervisor/validate.ts';
import { pyRepr } from '../../../machines/python/repr.ts';
import { SupervisorError, notFound } from '../../../actors/supervisor/errors.ts';
import { CLOUD, locationName, wireLocation, type Backup, type BackupManager } from '../../../actors/supervisor/backups/manager.ts';
import { createBackup, type BackupRequest, type BackupSources } from '../../../actors/supervisor/backups/create.ts';
import { BACKUP_FOLDERS, type BackupFolder } from '../../../actors/supervisor/backups/archive/backup-json.ts';
import { importUpload } from '../../../actors/supervisor/backups/import.ts';
import type { HttpRequest } from '../../request.ts';
import { readMultipart } from '../../multipart.ts';
import { BodyError } from '../../request-body.ts';
import { attachment } from '../../content-disposition.ts';
import { bothSpellings } from '../../../actors/supervisor/spellings.ts';

/**
 * Backups (supervisor-wire §5.9), role `backup`: list and info, options, reload, freeze/thaw,
 * new full/partial, upload, delete, download. `addons` on v1 is `apps` on v2. Restore routes
 * live in backup-restore.ts.
 */

/** An upload is written to its file as it arrives (never whole in memory); this only bounds the disk it takes. */
const UPLOAD_MAX_BODY = 1024 ** 4;
/** The tar is the first part; a few small fields may follow it (a browser's FormData adds none). */
const UPLOAD_FORM = { fieldSize: 64 * 1024, fields: 16, files: 1 };

/** The original's pattern (no path separators); the name also goes back out in a download's header */
const FILENAME = /^[^\\/]+\.tar$/;
const fileName = nameMatching(FILENAME);
const invalid = (reason: string, key: string, value: unknown) => new SupervisorError(`${reason} @ data['${key}']. Got ${pyRepr(value)}`);

/** `location`: one value or a list of them. */
const locations = refine(Type.Union([maybe(str), Type.Array(maybe(str))]), (v) => (Array.isArray(v) ? v : [v]));

/** Names of the request's locations; `.cloud_backup` only from the core (403 otherwise). */
function locationNames(call: SupervisorCall, values: (string | null)[], key = 'location'): string[] {
  const names = values.map((v) => locationName(v));
  if (new Set(names).size !== names.length) throw invalid('contains duplicate items', key, values);
  if (names.includes(CLOUD) && call.caller?.kind !== 'core') throw new SupervisorError('403: Forbidden', { status: 403, plain: true });
  return names;
}

/** Locations shown: local first; the core's folder only when it holds the sole copy. */
function shownLocations(manager: BackupManager, backup: Backup): string[] {
  const all = manager.locationsOf(backup);
  return all.length > 1 ? all.filter((l) => l !== CLOUD) : all;
}

const mb = (bytes: number) => Math.round((bytes / 1048576) * 100) / 100;

function attributes(backup: Backup): Record<string, { protected: boolean; size_bytes: number }> {
  const out: Record<string, { protected: boolean; size_bytes: number }> = {};
  for (const [name, copy] of backup.copies) out[name] = { protected: copy.protected, size_bytes: copy.size };
  return out;
}

function entry(manager: BackupManager, backup: Backup, tree: 'v1' | 'v2') {
  const shown = shownLocations(manager, backup);
  const primary = backup.copies.get(shown[0])!;
  const m = backup.meta;
  const apps = m.addons.map((a) => a.slug);
  return {
    slug: m.slug,
    name: m.name,
    date: m.date,
    type: m.type,
    size: mb(primary.size),
    size_bytes: primary.size,
    location: wireLocation(shown[0]),
    locations: shown.map(wireLocation),
    protected: primary.protected,
    location_attributes: attributes(backup),
    compressed: m.compressed,
    content: { ...bothSpellings('homeassistant', m.homeassistant !== null), [tree === 'v1' ? 'addons' : 'apps']: apps, folders: m.folders },
  };
}

function detail(manager: BackupManager, backup: Backup, tree: 'v1' | 'v2') {
  const shown = shownLocations(manager, backup);
  const primary = backup.copies.get(shown[0])!;
  const m = backup.meta;
  return {
    slug: m.slug,
    type: m.type,
    name: m.name,
    date: m.date,
    size: mb(primary.size),
    size_bytes: primary.size,
    compressed: m.compressed,
    protected: primary.protected,
    location_attributes: attributes(backup),
    supervisor_version: m.supervisor_version,
    ...bothSpellings('homeassistant', m.homeassistant?.version ?? null),
    location: wireLocation(shown[0]),
    locations: shown.map(wireLocation),
    [tree === 'v1' ? 'addons' : 'apps']: m.addons.map((a) => ({ slug: a.slug, name: a.name, version: a.version, size: a.size })),
    repositories: m.repositories,
    folders: m.folders,
    ...bothSpellings('homeassistant_exclude_database', m.homeassistant?.exclude_database ?? null),
    extra: m.extra,
  };
}

/** The backup a path names; 404 `Backup does not exist` as the original. */
function named(manager: BackupManager, slug: string): Backup {
  const backup = manager.get(slug);
  if (!backup) throw notFound('Backup does not exist');
  return backup;
}

const OPTIONS = schema({ days_until_stale: int(1) });
const FREEZE = schema({ timeout: int(1) });
const DELETE = schema({ location: locations });

/** A new backup's body: full, or partial with its apps under the tree's key and the folders the tree knows. */
function creation(tree: 'v1' | 'v2', type: 'full' | 'partial') {
  const appsKey = tree === 'v1' ? 'addons' : 'apps';
  const folderValues: readonly string[] = tree === 'v1' ? [...BACKUP_FOLDERS, 'homeassistant'] : BACKUP_FOLDERS;
  // the folders are strings and unique before they are known ones, as Hearth has always checked them
  const folders = refine(uniqueList(str), (items) => {
    if (items.some((f) => !folderValues.includes(f))) throw new Refusal(oneOf(folderValues).refusal);
    return items;
  });
  return schema({
    name: str,
    filename: fileName,
    password: maybe(str),
    compressed: maybe(boolean),
    location: locations,
    homeassistant_exclude_database: boolean,
    core_exclude_database: boolean,
    background: boolean,
    extra: dict,
    ...(type === 'partial' ? { [appsKey]: Type.Union([uniqueList(str), Type.Literal('ALL')]), folders, homeassistant: boolean, core: boolean } : {}),
  });
}
const CREATION = { v1: { full: creation('v1', 'full'), partial: creation('v1', 'partial') }, v2: { full: creation('v2', 'full'), partial: creation('v2', 'partial') } };

/** What the backup routes use. */
export interface BackupRouteDeps {
  backups: BackupManager;
  /** what a new backup reads */
  sources: BackupSources;
  /** the default backup mount, where a new backup goes unless told */
  mounts: Mounts;
  /** its `backups` check runs again when the staleness changes */
  resolution: Resolution;
  context(): Context;
}

/** Registers the backup routes (restores: backup-restore.ts). */
export function registerBackupRoutes(api: SupervisorApi, deps: BackupRouteDeps): void {
  const manager = deps.backups;

  api.get('/backups', (call) => ({ backups: listed(manager, call.tree) }));
  api.get('/backups/info', (call) => ({ backups: listed(manager, call.tree), days_until_stale: manager.options().days_until_stale }));

  api.post('/backups/options', async (call) => {
    const body = validate(call.body(), OPTIONS);
    if (body.days_until_stale !== undefined) await manager.setOptions({ days_until_stale: body.days_until_stale }, deps.context());
    // the staleness changed: the check says so now, not at the next healthcheck
    if (deps.resolution.checks().some((c) => c.slug === 'backups')) await deps.resolution.runCheck('backups').catch(() => {});
  });

  api.post('/backups/reload', async () => {
    await manager.rescan();
  });

  api.post('/backups/freeze', async (call) => {
    const body = validate(call.body(), FREEZE);
    await manager.freeze(body.timeout ?? 600, deps.context());
  });
  api.post('/backups/thaw', async () => {
    await manager.thaw();
  });

  const create = (type: 'full' | 'partial') => async (call: SupervisorCall) => {
    const appsKey = call.tree === 'v1' ? 'addons' : 'apps';
    const body = validate(call.body(), CREATION[call.tree][type]) as Record<string, any>;
    let folders: string[] = type === 'full' ? [...BACKUP_FOLDERS] : (body.folders ?? []);
    let core = type === 'full' ? true : body.homeassistant === true || body.core === true;
    if (folders.includes('homeassistant')) {
      core = true;
      folders = folders.filter((f) => f !== 'homeassistant');
    }
    const request: BackupRequest = {
      type,
      name: body.name ?? '',
      filename: body.filename,
      password: body.password ?? null,
      // an explicit null is an uncompressed backup, as the original makes it
      compressed: 'compressed' in body ? body.compressed === true : true,
      locations: locationNames(call, body.location ?? [deps.mounts.defaultBackupMount()]),
      core,
      excludeDatabase: body.homeassistant_exclude_database ?? body.core_exclude_database,
      apps: type === 'full' ? 'ALL' : (body[appsKey] ?? []),
      folders: folders as BackupFolder[],
      extra: body.extra ?? {},
      background: body.background === true,
      context: deps.context(),
    };
    return createBackup(manager, deps.sources, request);
  };
  api.post('/backups/new/full', create('full'));
  api.post('/backups/new/partial', create('partial'));

  api.post(
    '/backups/new/upload',
    async (call) => {
      const locations = locationNames(call, call.query.getAll('location'));
      const filename = call.query.get('filename');
      if (filename !== null) validateField('filename', filename, fileName);
      const request = { locations, fileName: filename, context: deps.context() };
      return { slug: await importUpload(manager, request, (open) => readUpload(call.req, open)) };
    },
    { maxBody: UPLOAD_MAX_BODY, streamBody: true },
  );

  api.get('/backups/:slug/info', (call) => {
    const m = manager;
    return detail(m, named(m, call.params.slug), call.tree);
  });

  api.delete('/backups/:slug', async (call) => {
    const m = manager;
    const backup = named(m, call.params.slug);
    const body = validate(call.body(), DELETE);
    const which = body.location ? locationNames(call, body.location) : undefined;
    if (!which && backup.copies.has(CLOUD) && call.caller?.kind !== 'core') {
      // removing every copy includes the core's folder, which only the core may touch
      throw new SupervisorError('403: Forbidden', { status: 403, plain: true });
    }
    await m.remove(backup, which);
  });

  api.get('/backups/:slug/download', async (call) => {
    const m = manager;
    const backup = named(m, call.params.slug);
    const given = call.query.get('location');
    const location = given === null ? undefined : locationNames(call, [given])[0];
    const copy = m.copy(backup, location);
    if (!copy) throw new SupervisorError(`Backup ${backup.slug} is not in location ${location}`);
    if (copy.location === CLOUD) locationNames(call, [CLOUD]);
    let size: number;
    try {
      size = (await stat(copy.path)).size;
    } catch {
      void m.rescan().catch(() => {});
      return raw({ status: 404, body: '' });
    }
    const file = copy.path.slice(copy.path.lastIndexOf('/') + 1);
    const name = file === `${backup.slug}.tar` ? `${backup.meta.name.replace(/[^A-Za-z0-9]+/g, '_')}.tar` : file;
    return raw({ status: 200, headers: { 'content-type': 'application/tar', 'content-disposition': attachment(name) }, file: copy.path, size });
  });
}

/** Backups a list shows: those with a copy outside the core's own folder. */
function listed(manager: BackupManager, tree: 'v1' | 'v2') {
  return manager
    .list()
    .filter((b) => [...b.copies.keys()].some((l) => l !== CLOUD))
    .map((b) => entry(manager, b, tree));
}

/** The upload's first part, written as it arrives to what `open` gives; a body that is not such a form is the client's error. */
async function readUpload(req: HttpRequest, open: () => Writable): Promise<void> {
  const form = await readMultipart(req.bodyStream ?? req.body, {
    contentType: req.headers['content-type'],
    limits: UPLOAD_FORM,
    fileFirst: true,
    file: open,
  }).catch((err) => {
    throw err instanceof BodyError ? new SupervisorError(`Improperly formatted upload: ${err.message}`, { status: err.status }) : err;
  });
  if (form.files === 0) throw new SupervisorError('Improperly formatted upload: no file part');
}
