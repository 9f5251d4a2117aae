import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import { validate, str, maybe, boolean, list, oneOf, type Field } from '../../../actors/supervisor/schema.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { BACKUP_FOLDERS } from '../../../actors/supervisor/backups/archive/backup-json.ts';
import { CLOUD } from '../../../actors/supervisor/backups/manager.ts';
import type { BackupRestorer, RestoreRequest } from '../../../actors/supervisor/backups/restore/restore.ts';

/**
 * Restores (supervisor-wire §5.7, §5.9), role backup: `/backups/{slug}/restore/full` and
 * `/restore/partial` on both trees, the partial body naming apps `addons` on v1 and `apps` on v2.
 * The handler only reads the body; the restorer checks the rest before it touches anything.
 */

const unique = <T>(field: Field<T[]>): Field<T[]> => ({
  check: (v) => {
    const items = field.check(v);
    if (new Set(items.map((item) => JSON.stringify(item))).size !== items.length) throw new SupervisorError('contains duplicate items');
    return items;
  },
});

const FULL = { password: maybe(str), background: boolean, location: maybe(str) };
const FOLDERS = unique(list(oneOf([...BACKUP_FOLDERS, 'homeassistant'] as const)));

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
    const body = validate(call.body(), { ...FULL, homeassistant: boolean, core: boolean, folders: FOLDERS, [appsKey]: unique(list(str)) });
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
