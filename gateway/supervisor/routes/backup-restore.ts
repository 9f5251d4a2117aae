import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { TArray, TSchema } from '@sinclair/typebox';
import { validate, str, maybe, boolean, list, oneOf, refine, schema } from '../../../actors/supervisor/validate.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { BACKUP_FOLDERS } from '../../../actors/supervisor/backups/archive/backup-json.ts';
import { CLOUD } from '../../../actors/supervisor/backups/manager.ts';
import type { BackupRestorer, RestoreRequest } from '../../../actors/supervisor/backups/restore/restore.ts';

/**
 * Restores (supervisor-wire §5.7, §5.9), role backup: `/backups/{slug}/restore/full` and
 * `/restore/partial` on both trees, the partial body naming apps `addons` on v1 and `apps` on v2.
 * The handler only reads the body; the restorer checks the rest before it touches anything.
 */

// a duplicate is answered without a path, as these routes always have
const unique = <T extends TSchema>(items: TArray<T>) =>
  refine(items, (list) => {
    if (new Set(list.map((item) => JSON.stringify(item))).size !== list.length) throw new SupervisorError('contains duplicate items');
    return list;
  });

const FULL_FIELDS = { password: maybe(str), background: boolean, location: maybe(str) };
const FULL = schema(FULL_FIELDS);
const FOLDERS = unique(list(oneOf([...BACKUP_FOLDERS, 'homeassistant'] as const)));
const PARTIAL_FIELDS = { ...FULL_FIELDS, homeassistant: boolean, core: boolean, folders: FOLDERS };
const APPS = unique(list(str));
/** A partial restore's body, its apps under the tree's key. */
const PARTIAL = { v1: schema({ ...PARTIAL_FIELDS, addons: APPS }), v2: schema({ ...PARTIAL_FIELDS, apps: APPS }) };

/** What the restore routes use. */
export interface BackupRestoreRouteDeps {
  restorer: BackupRestorer;
  context(): Context;
}

/** Registers the restore routes. */
export function registerBackupRestoreRoutes(api: SupervisorApi, deps: BackupRestoreRouteDeps): void {
  const locationOf = (call: SupervisorCall, body: { location?: string | null }) => {
    if (body.location === CLOUD && call.caller?.kind !== 'core') throw new SupervisorError('403: Forbidden', { status: 403, plain: true });
    return 'location' in body ? (body.location ?? null) : undefined;
  };

  api.post('/backups/:slug/restore/full', async (call) => {
    const body = validate(call.body(), FULL);
    const request: RestoreRequest = { slug: call.params.slug, location: locationOf(call, body), password: body.password ?? null, background: body.background ?? false };
    return deps.restorer.restore(request, deps.context());
  });

  api.post('/backups/:slug/restore/partial', async (call) => {
    const appsKey = call.tree === 'v2' ? 'apps' : 'addons';
    // `core` is the seed contract's name for the original's `homeassistant`
    const body = validate(call.body(), PARTIAL[call.tree]);
    const apps = (body as Record<string, unknown>)[appsKey] as string[] | undefined;
    const folders = (body.folders ?? []).filter((folder) => folder !== 'homeassistant');
    const homeassistant = body.homeassistant === true || body.core === true || (body.folders ?? []).includes('homeassistant');
    const request: RestoreRequest = {
      slug: call.params.slug,
      location: locationOf(call, body),
      password: body.password ?? null,
      background: body.background ?? false,
      partial: { homeassistant, apps: apps ?? [], folders },
    };
    return deps.restorer.restore(request, deps.context());
  });
}
