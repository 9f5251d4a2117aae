import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import { validate, maybe, schema, str } from '../../../actors/supervisor/validate.ts';
import { pyRepr } from '../../../machines/python/repr.ts';
import { SupervisorError, notFound } from '../../../actors/supervisor/errors.ts';
import { parseMount } from '../../../actors/supervisor/mounts/body.ts';
import type { Mounts } from '../../../actors/supervisor/mounts/mounts.ts';

const OPTIONS = schema({ default_backup_mount: maybe(str) });

/** What the mounts' routes use. */
export interface MountRouteDeps {
  mounts: Mounts;
  context(): Context;
}

/** Network mounts (supervisor-wire §4.6), manager role. */
export function registerMountRoutes(api: SupervisorApi, deps: MountRouteDeps): void {
  const { mounts } = deps;
  /** The mount the path names; 404 as the API layer words it. */
  const named = (call: SupervisorCall): string => {
    const name = call.params.mount;
    if (!mounts.has(name)) throw notFound(`No mount exists with name ${name}`);
    return name;
  };

  api.get('/mounts', async () => ({ default_backup_mount: mounts.defaultBackupMount(), mounts: await mounts.list() }));

  api.post('/mounts/options', async (call) => {
    const body = validate(call.body(), OPTIONS);
    if ('default_backup_mount' in body) await mounts.setDefaultBackupMount(body.default_backup_mount ?? null, deps.context());
  });

  api.post('/mounts', async (call) => {
    const { config, credentials } = parseMount(call.body());
    await mounts.create(config, credentials, deps.context());
  });

  api.route('PUT', '/mounts/:mount', async (call) => {
    const name = named(call);
    const body = call.body();
    if ('name' in body && body.name !== name) throw new SupervisorError(`not a valid value @ data['name']. Got ${pyRepr(body.name)}`);
    const { config, credentials } = parseMount({ ...body, name });
    await mounts.update(config, credentials, deps.context());
  });

  api.delete('/mounts/:mount', async (call) => {
    await mounts.remove(named(call), deps.context());
  });

  api.post('/mounts/:mount/reload', async (call) => {
    await mounts.reload(named(call), deps.context());
  });
}
