import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import { validate, required, schema, str, int, boolean, oneOf } from '../../../actors/supervisor/validate.ts';
import type { TObject } from '@sinclair/typebox';
import { SupervisorError, notFound } from '../../../actors/supervisor/errors.ts';
import { Services, isServiceName, type ServiceData } from '../../../actors/supervisor/services/services.ts';
import type { AppsView, InstalledApp } from '../../../actors/supervisor/apps/types.ts';

/**
 * Services apps publish for each other (supervisor-wire §4.11): token-bypass paths, so any app
 * reaches them; an app may read or publish a service its config lists (`mqtt:want`,
 * `mqtt:provide`...), only a provider may withdraw it.
 */

/** Each service's body (the original's per-service schemas), with the defaults it fills in. */
const SCHEMAS: Record<string, { shape: TObject; defaults: Record<string, unknown> }> = {
  mqtt: {
    shape: schema({
      host: required(str),
      port: required(int(1, 65535)),
      username: str,
      password: str,
      ssl: boolean,
      protocol: oneOf(['3.1', '3.1.1'] as const),
    }),
    defaults: { ssl: false, protocol: '3.1.1' },
  },
  mysql: {
    shape: schema({ host: required(str), port: required(int(1, 65535)), username: str, password: str }),
    defaults: {},
  },
};

/** The calling app (its slug from its token), if the caller is one. */
export function callingApp(call: SupervisorCall, apps: AppsView): InstalledApp | undefined {
  const slug = call.caller?.kind === 'app' ? call.caller.slug : undefined;
  return slug ? apps.get(slug) : undefined;
}

/** Stored data as a tree shows it: the provider under `addon` on v1, `app` on v2. */
export function withAppKey(tree: 'v1' | 'v2', data: ServiceData): Record<string, unknown> {
  const { app, ...fields } = data;
  return { ...fields, [tree === 'v1' ? 'addon' : 'app']: app };
}

/** What the services' routes use. */
export interface ServiceRouteDeps {
  services: Services;
  /** the installed apps: who calls, and what their configs declare */
  apps: AppsView;
  context(): Context;
}

/** Registers the services' routes. */
export function registerServiceRoutes(api: SupervisorApi, deps: ServiceRouteDeps): void {
  const { services } = deps;
  const known = (name: string) => {
    if (!isServiceName(name)) throw notFound('Service does not exist');
    return name;
  };
  const access = (call: SupervisorCall, name: string, provide = false) => {
    const app = callingApp(call, deps.apps);
    if (provide && !Services.mayUse(app, name, true)) throw new SupervisorError(`No access to write ${name} service!`, { status: 403 });
    if (!Services.mayUse(app, name)) throw new SupervisorError(`No access to ${name} service!`, { status: 403 });
    return app!;
  };

  api.get('/services', () => ({ services: services.list() }));

  api.get('/services/:service', (call) => {
    const name = known(call.params.service);
    access(call, name);
    return withAppKey(call.tree, services.read(name));
  });

  api.post('/services/:service', async (call) => {
    const name = known(call.params.service);
    const spec = SCHEMAS[name];
    const body = validate(call.body(), spec.shape);
    const app = access(call, name);
    await services.provide(name, app.slug, { ...spec.defaults, ...body }, deps.context());
  });

  api.delete('/services/:service', async (call) => {
    const name = known(call.params.service);
    const app = access(call, name, true);
    await services.remove(name, app.slug, deps.context());
  });
}
