import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { Settings } from '../../../actors/supervisor/settings.ts';
import type { Engine } from '../../../actors/supervisor/docker/engine.ts';
import { boolean, dict, maybe, oneOf, refine, schema, str, validate } from '../../../actors/supervisor/validate.ts';
import { pyRepr } from '../../../machines/python/repr.ts';
import { SupervisorError, keyedError } from '../../../actors/supervisor/errors.ts';
import type { AppManager } from '../../../actors/supervisor/apps/manager.ts';
import type { AppStore } from '../../../actors/supervisor/apps/store.ts';
import { installedInfo, listEntry, storeOnlyInfo } from '../../../actors/supervisor/apps/info.ts';
import { optionsValidateAnswer } from '../../../actors/supervisor/apps/options-schema.ts';
import { ContainerLogSource } from '../../../actors/supervisor/logs/container.ts';
import { SECURITY_DEFAULTS } from './security.ts';
import { registerLogRoutes } from './logs.ts';

/**
 * The installed apps' routes (supervisor-wire §4.15, §3.3, §3.4): v1 under `/addons/{app}`, v2
 * under `/apps/{app}`, the slug `self` standing for the calling app; install and update under
 * the store's paths (v1 also `/addons/{app}/install|update`).
 */

const PORT_KEY = /^\d+(?:\/tcp|\/udp)?$/;

/** `{"8099/tcp": 8080, "53/udp": null}`: container ports to host ports (null: not published). */
const portMap = refine(dict, (map) => {
  for (const [k, port] of Object.entries(map)) {
    if (!PORT_KEY.test(k)) throw new SupervisorError(`extra keys not allowed @ data['network']['${k}']. Got ${pyRepr(port)}`);
    if (port !== null && !(Number.isInteger(port) && (port as number) >= 1 && (port as number) <= 65535)) {
      throw new SupervisorError(`value must be at most 65535 @ data['network']['${k}']. Got ${pyRepr(port)}`);
    }
  }
  return map as Record<string, number | null>;
});

const OPTIONS = schema({
  boot: oneOf(['auto', 'manual'] as const),
  network: maybe(portMap),
  auto_update: boolean,
  audio_output: maybe(str),
  audio_input: maybe(str),
  ingress_panel: boolean,
  watchdog: boolean,
  options: maybe(dict),
});
const SYS_OPTIONS = schema({ system_managed: boolean, system_managed_config_entry: maybe(str) });
const SECURITY = schema({ protected: boolean });
const UNINSTALL = schema({ remove_config: boolean });
const REBUILD = schema({ force: boolean });
const INSTALL = schema({ background: boolean });
const UPDATE = schema({ backup: boolean, background: boolean });

/** What the installed apps' routes use. */
export interface AppRouteDeps {
  apps: AppManager;
  /** what the store knows of an app (v1's info of one not installed) */
  store: AppStore;
  /** the security section (`pwned`, `force_security`) for options/validate */
  settings: Settings;
  /** the apps' containers, whose logs are read */
  engine: Engine;
  context(): Context;
}

/** Registers the installed apps' routes. */
export function registerAppRoutes(api: SupervisorApi, deps: AppRouteDeps): void {
  const { apps: manager, store } = deps;
  const key = (call: SupervisorCall) => (call.tree === 'v1' ? 'addons' : 'apps');
  /** the path's slug, `self` as the calling app */
  const slugOf = (call: SupervisorCall): string => {
    const slug = call.params.app!;
    if (slug !== 'self') return slug;
    const caller = call.caller;
    if (caller?.kind === 'app' && caller.slug) return caller.slug;
    throw new SupervisorError('Self is not an App');
  };
  const installedOf = (call: SupervisorCall) => manager.installed(slugOf(call));
  const at = (path: string) => ({ v2Path: `/apps/:app${path}` });

  api.get(
    '/addons',
    (call) => ({
      [key(call)]: manager
        .list()
        .map((app) => listEntry(app, manager.storeApp(app.slug), store, call.tree)),
    }),
    { v2Path: '/apps' },
  );

  api.get(
    '/addons/:app/info',
    async (call) => {
      const slug = slugOf(call);
      const app = manager.get(slug);
      if (app) return installedInfo(manager, store, app, { tree: call.tree, caller: call.caller });
      const inStore = store.find(slug);
      // v1 shows what the store knows of an app not installed; v2 sends clients to /store/apps
      if (inStore && call.tree === 'v1') return storeOnlyInfo(store, inStore);
      return manager.installed(slug);
    },
    at('/info'),
  );

  api.post(
    '/addons/:app/uninstall',
    async (call) => {
      const body = validate(call.body(), UNINSTALL);
      const app = installedOf(call);
      await manager.uninstall(app.slug, deps.context(), { removeConfig: body.remove_config });
    },
    at('/uninstall'),
  );

  for (const action of ['start', 'stop', 'restart'] as const) {
    api.post(
      `/addons/:app/${action}`,
      async (call) => {
        const app = installedOf(call);
        await manager[action](app.slug, deps.context());
      },
      at(`/${action}`),
    );
  }

  api.post(
    '/addons/:app/rebuild',
    async (call) => {
      const body = validate(call.body(), REBUILD);
      const app = installedOf(call);
      await manager.rebuild(app.slug, deps.context(), { force: body.force });
    },
    at('/rebuild'),
  );

  api.post(
    '/addons/:app/options',
    async (call) => {
      const body = validate(call.body(), OPTIONS);
      const app = installedOf(call);
      // everything is checked before anything is kept
      if (body.boot !== undefined && app.config.boot === 'manual_only') {
        throw keyedError(400, 'app_boot_config_cannot_change_error', 'App {app} boot option is set to {boot_config} so it cannot be changed', { app: app.slug, boot_config: app.config.boot });
      }
      const patch: Record<string, unknown> = { ...body };
      if (body.options !== undefined) patch.options = body.options === null ? {} : manager.validOptions(app, body.options);
      await manager.setUser(app.slug, patch, deps.context());
    },
    at('/options'),
  );

  api.post(
    '/addons/:app/sys_options',
    async (call) => {
      const body = validate(call.body(), SYS_OPTIONS);
      const app = installedOf(call);
      await manager.setUser(app.slug, body, deps.context(), 'app_sys_options_set');
    },
    at('/sys_options'),
  );

  api.post(
    '/addons/:app/options/validate',
    async (call) => {
      const app = installedOf(call);
      const given = call.body();
      const options = Object.keys(given).length ? given : manager.options(app);
      const security = deps.settings.section('security', SECURITY_DEFAULTS).get();
      return optionsValidateAnswer(manager.schemaOf(app.config), options, { name: app.config.name, slug: app.slug }, { pwned: security.pwned, force: security.force_security });
    },
    at('/options/validate'),
  );

  api.get(
    '/addons/:app/options/config',
    (call) => {
      if (call.params.app !== 'self') throw new SupervisorError('This can be only read by the app itself!', { status: 403 });
      const app = installedOf(call);
      try {
        return manager.validOptions(app);
      } catch (err) {
        if (err instanceof SupervisorError) throw new SupervisorError('Invalid configuration data for the app');
        throw err;
      }
    },
    at('/options/config'),
  );

  api.post(
    '/addons/:app/security',
    async (call) => {
      const body = validate(call.body(), SECURITY);
      const app = installedOf(call);
      await manager.setUser(app.slug, body, deps.context(), 'app_security_set');
    },
    at('/security'),
  );

  api.get('/addons/:app/stats', (call) => manager.stats(installedOf(call).slug), at('/stats'));

  api.post(
    '/addons/:app/stdin',
    async (call) => {
      const app = installedOf(call);
      await manager.writeStdin(app.slug, call.req.body);
    },
    at('/stdin'),
  );

  // the logs of the app's container; failures as text, as every log route's
  registerLogRoutes(
    api,
    '/addons/:app',
    (call) => {
      const app = installedOf(call);
      const name = manager.containerName(app.slug);
      return new ContainerLogSource({
        docker: deps.engine.docker,
        name,
        missing: () => new SupervisorError(`App ${app.slug} is not running`, { status: 400, plain: true }),
      });
    },
    { v2Prefix: '/apps/:app' },
  );

  // install and update: the store's paths; the version segment is accepted and ignored
  const install = async (call: SupervisorCall) => {
    const body = validate(call.body(), INSTALL);
    return (await manager.install(call.params.app!, deps.context(), body.background === true)) ?? {};
  };
  api.post('/store/addons/:app/install', install, { v2Path: '/store/apps/:app/install', v1Aliases: ['/addons/:app/install'] });
  api.post('/store/addons/:app/install/:version', install, { v2Path: '/store/apps/:app/install/:version' });

  const update = async (call: SupervisorCall) => {
    const body = validate(call.body(), UPDATE);
    const slug = slugOf(call);
    if (call.caller?.kind === 'app' && call.caller.slug === slug) throw new SupervisorError(`App ${slug} can't update itself!`, { status: 403 });
    return (await manager.update(slug, deps.context(), { background: body.background, backup: body.backup })) ?? {};
  };
  api.post('/store/addons/:app/update', update, { v2Path: '/store/apps/:app/update', v1Aliases: ['/addons/:app/update'] });
  api.post('/store/addons/:app/update/:version', update, { v2Path: '/store/apps/:app/update/:version' });
}
