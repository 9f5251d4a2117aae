import { networkInterfaces } from 'node:os';
import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { Logs } from '../../../actors/logging/logs.ts';
import type { Engine } from '../../../actors/supervisor/docker/engine.ts';
import type { Resolution } from '../../../actors/supervisor/resolution/types.ts';
import type { CoreRuntimeView } from '../../../actors/supervisor/core/types.ts';
import type { AppStoreView } from '../../../actors/supervisor/apps/store.ts';
import type { GitRepositories } from '../../../actors/supervisor/apps/git-repositories.ts';
import type { Plugins } from '../../../actors/supervisor/plugins/plugins.ts';
import { validate, validateField, boolean, str, int, list, oneOf, dict, schema } from '../../../actors/supervisor/validate.ts';
import { pyRepr } from '../../../machines/python/repr.ts';
import { SupervisorError, supervisorUnknownError } from '../../../actors/supervisor/errors.ts';
import { SUPERVISOR_VERSION } from '../../../actors/version.ts';
import { LEVELS } from '../../../actors/logging/levels.ts';
import { archOf } from '../../../actors/supervisor/machine.ts';
import { ProcessStats } from '../../../actors/supervisor/process-stats.ts';
import { FEATURE_FLAGS, supervisorSettings, type SupervisorSettings } from '../../../actors/supervisor/supervisor-settings.ts';
import { CHANNELS } from '../../../actors/supervisor/updater/updater.ts';
import { reloadUpdater, supervisorUpdate, type SupervisorUpdateDeps } from './root.ts';
import type { AppManager } from '../../../actors/supervisor/apps/manager.ts';
import { supervisorInfoApps } from '../../../actors/supervisor/apps/info.ts';

/**
 * The supervisor's own routes (supervisor-wire §4.2): its details, statistics, options, reload,
 * soft restart, repair and update. Hearth's supervisor is a host process (`hearth supervisor`),
 * not a container: its statistics are the process's, and it cannot replace itself.
 */

const LOGGING = ['debug', 'info', 'warning', 'error', 'critical'] as const;

const OPTIONS_V2_FIELDS = {
  channel: oneOf(CHANNELS),
  timezone: str,
  logging: oneOf(LOGGING),
  debug: boolean,
  debug_block: boolean,
  diagnostics: boolean,
  auto_update: boolean,
  detect_blocking_io: oneOf(['off', 'on', 'on-at-startup'] as const),
  country: str,
  feature_flags: dict,
};
const OPTIONS_V2 = schema(OPTIONS_V2_FIELDS);
const OPTIONS_V1 = schema({
  ...OPTIONS_V2_FIELDS,
  addons_repositories: list(str),
  wait_boot: int(1, 60),
});
const UPDATE = schema({ version: str });

const INVALID_TIMEZONE = 'Invalid time zone passed in. Valid options can be found here: http://en.wikipedia.org/wiki/List_of_tz_database_time_zones';

function validTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.trim() !== '';
  } catch {
    return false;
  }
}

/** The flags of a `feature_flags` body: known names, boolean values, as the original checks them. */
function checkFlags(flags: Record<string, unknown>): Record<string, boolean> {
  const out: Record<string, boolean> = {};
  for (const [name, value] of Object.entries(flags)) {
    if (!(FEATURE_FLAGS as readonly string[]).includes(name)) throw new SupervisorError(`extra keys not allowed @ data['feature_flags'][${pyRepr(name)}]. Got ${pyRepr(value)}`);
    out[name] = validateField(name, value, boolean);
  }
  return out;
}

/** The address the supervisor is reached at from this host's network (the original's fixed `172.30.32.2`). */
function ipAddress(): string {
  for (const addrs of Object.values(networkInterfaces())) for (const a of addrs ?? []) if (a.family === 'IPv4' && !a.internal) return a.address;
  return '127.0.0.1';
}

/** What the supervisor's own routes use. */
export interface SupervisorOwnRouteDeps extends SupervisorUpdateDeps {
  logs: Logs;
  engine: Engine;
  resolution: Resolution;
  /** its image checked on repair */
  core: CoreRuntimeView;
  /** their images made again on repair */
  plugins: Plugins;
  /** v1's `addons` and `addons_repositories` */
  apps: AppManager;
  store: AppStoreView;
  /** v1's `addons_repositories` option */
  gitRepositories: GitRepositories;
  context(): Context;
  /** asks the supervisor to restart its API (soft restart) */
  restart(): void;
}

/** Registers the supervisor's own routes. */
export function registerSupervisorOwnRoutes(api: SupervisorApi, deps: SupervisorOwnRouteDeps): void {
  const section = () => supervisorSettings(deps.settings);
  const stats = new ProcessStats();
  // `on` lasts until the process ends; `on-at-startup` is the stored true
  let blockingIo = section().get().detect_blocking_io === true;
  const logger = deps.logs.get('hearth.supervisor');

  api.get('/supervisor/info', (call: SupervisorCall) => {
    const s = section().get();
    const latest = deps.updater.latest('supervisor') ?? null;
    const flags = Object.fromEntries(FEATURE_FLAGS.map((f) => [f, s.feature_flags?.[f] === true]));
    const info: Record<string, unknown> = {
      version: SUPERVISOR_VERSION,
      version_latest: latest,
      update_available: supervisorUpdate(deps),
      channel: s.channel,
      arch: archOf(),
      supported: deps.resolution.unsupported().length === 0,
      healthy: deps.resolution.unhealthy().length === 0,
      ip_address: ipAddress(),
      timezone: s.timezone,
      logging: s.logging,
      debug: s.debug,
      debug_block: s.debug_block,
      diagnostics: s.diagnostics,
      auto_update: s.auto_update,
      detect_blocking_io: blockingIo,
      country: s.country,
      feature_flags: flags,
    };
    if (call.tree === 'v1') {
      info.wait_boot = s.wait_boot;
      info.addons = supervisorInfoApps(deps.apps);
      info.addons_repositories = deps.store.repositories().map((r) => ({ name: r.name, slug: r.slug }));
    }
    return info;
  });

  api.get('/supervisor/stats', async () => {
    try {
      return await stats.sample();
    } catch (err) {
      logger.error(`cannot read the supervisor's statistics: ${(err as Error).message}`);
      throw supervisorUnknownError();
    }
  });

  api.post('/supervisor/options', async (call) => {
    const body = validate(call.body(), call.tree === 'v1' ? OPTIONS_V1 : OPTIONS_V2);
    if (body.timezone !== undefined && !validTimezone(body.timezone)) throw new SupervisorError(INVALID_TIMEZONE);
    const flags = body.feature_flags ? checkFlags(body.feature_flags) : undefined;
    const before = section().get();
    const patch: Partial<SupervisorSettings> = {
      channel: body.channel,
      timezone: body.timezone,
      logging: body.logging,
      debug: body.debug,
      debug_block: body.debug_block,
      diagnostics: body.diagnostics,
      auto_update: body.auto_update,
      country: body.country,
      wait_boot: (body as { wait_boot?: number }).wait_boot,
      feature_flags: flags ? { ...before.feature_flags, ...flags } : undefined,
    };
    const repos = (body as { addons_repositories?: string[] }).addons_repositories;
    if (body.detect_blocking_io !== undefined) {
      blockingIo = body.detect_blocking_io !== 'off';
      patch.detect_blocking_io = body.detect_blocking_io === 'on-at-startup' ? true : body.detect_blocking_io === 'off' ? false : undefined;
    }
    const after = await section().set(patch, deps.context());
    if (body.logging !== undefined) deps.logs.setDefaultLevel(LEVELS[body.logging]);
    if (flags && flags.supervisor_v2_api !== undefined && flags.supervisor_v2_api !== api.v2) logger.info(`the /v2 API is ${flags.supervisor_v2_api ? 'served' : 'no longer served'} after the supervisor restarts`);
    if (after.channel !== before.channel) {
      // a new channel has its own document: read it now (a failure leaves that channel unknown)
      await deps.updater.reload({ force: true }).catch((err: Error) => logger.warning(`channel ${after.channel}: ${err.message}`));
    }
    // last, as the original: the other options are kept even when a repository fails
    if (repos) await deps.gitRepositories.replaceWith(repos, deps.context());
  });

  api.post('/supervisor/reload', async () => {
    await reloadUpdater(deps.updater);
  });

  api.post('/supervisor/restart', () => {
    deps.restart();
  });

  api.post('/supervisor/repair', async () => {
    if (!(await deps.engine.reachable())) throw new SupervisorError(`Can't repair the container setup: no container engine answers at ${deps.engine.socketPath}`);
    const done: string[] = ['container engine reachable'];
    const version = deps.core.version();
    if (version) {
      const image = `${deps.core.image()}:${version}`;
      const present = await deps.engine.docker.getImage(image).inspect().then(() => true, () => false);
      done.push(present ? `core image ${image} present` : `core image ${image} missing: POST /core/rebuild builds it again`);
    } else done.push('core not installed yet');
    for (const plugin of deps.plugins.all()) {
      if (await plugin.repair()) done.push(`plugin ${plugin.name} image made again`);
    }
    logger.info(`repair: ${done.join('; ')}`);
  });

  api.post('/supervisor/update', async (call) => {
    const body = validate(call.body(), UPDATE);
    const s = section().get();
    const target = s.channel === 'dev' && body.version ? body.version : deps.updater.latest('supervisor');
    if (!target || (!body.version && !supervisorUpdate(deps)) || target === SUPERVISOR_VERSION) throw new SupervisorError(`No supervisor update available - ${SUPERVISOR_VERSION}`);
    // the supervisor is the host process `hearth supervisor`, installed with npm: it does not replace itself
    throw new SupervisorError(
      `Supervisor ${target} is available, but Hearth's supervisor runs as a host process and cannot update itself: run \`npm install -g hearth@${target}\`, then restart \`hearth supervisor\``,
    );
  });
}
