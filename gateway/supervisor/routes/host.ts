import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { SupervisorDeps } from '../deps.ts';
import { boolean, str, validate } from '../schema.ts';
import { SupervisorError, keyedError } from '../../../actors/supervisor/errors.ts';
import { LocalHost, type HostSystem } from '../../../actors/supervisor/host/system.ts';
import { hostInfo } from '../../../actors/supervisor/host/info.ts';
import { hostFeatures } from '../../../actors/supervisor/host/features.ts';
import { HostControl } from '../../../actors/supervisor/host/control.ts';
import { maxDepthOf, mountDiskUsage, systemDiskUsage } from '../../../actors/supervisor/host/disk-usage.ts';
import { offlineMigrationRunning } from '../../../actors/supervisor/core/migration.ts';
import { CoreRuntime } from '../../../actors/supervisor/core/runtime.ts';
import { AppManager } from '../../../actors/supervisor/apps/manager.ts';

/**
 * The host's routes (§4.11, supervisor-wire §4.17): its facts, its services, its disk usage,
 * its hostname and power, and its journal (which a host without systemd-journal-gatewayd does
 * not have: the original's text 400).
 */

const POWER = { force: boolean };
const OPTIONS = { hostname: str };
const NO_GATEWAY = 'No systemd-journal-gatewayd Unix socket available';

/** The host this supervisor runs on (a test hands its own through the deps). */
export function hostOf(deps: SupervisorDeps): HostSystem {
  return (deps.host ??= new LocalHost());
}

export async function currentFeatures(deps: SupervisorDeps): Promise<string[]> {
  const services = await hostOf(deps).services();
  return hostFeatures(services, (await deps.mounts?.supported()) ?? false);
}

function control(deps: SupervisorDeps): HostControl {
  const host = hostOf(deps);
  const say = deps.logs.get('hearth.supervisor.host');
  return new HostControl({
    host,
    services: () => host.services(),
    migrationRunning: async () => {
      const core = deps.core;
      if (!(core instanceof CoreRuntime)) return false;
      return offlineMigrationRunning({ url: await core.coreUrl(), refreshToken: core.section.get().refresh_token, warn: say.warning });
    },
    stopManaged: async () => {
      const ctx = deps.context();
      if (deps.apps instanceof AppManager) {
        for (const app of deps.apps.list()) {
          if (app.state === 'started') await deps.apps.stop(app.slug, ctx).catch((err) => say.warning(`cannot stop ${app.slug}: ${(err as Error).message}`));
        }
      }
      if (deps.core instanceof CoreRuntime) await deps.core.stop(ctx, { force: true }).catch((err) => say.warning(`cannot stop the core: ${(err as Error).message}`));
    },
    say,
  });
}

export function registerHostRoutes(api: SupervisorApi, deps: SupervisorDeps): void {
  api.get('/host/info', async () => {
    const host = hostOf(deps);
    return hostInfo({ host, dataDir: deps.dataDir, now: () => deps.clock.now(), features: await currentFeatures(deps), services: await host.services() });
  });

  api.get('/host/services', async () => ({ services: await control(deps).services() }));

  api.post('/host/options', async (call) => {
    const body = validate(call.body(), OPTIONS);
    if (body.hostname !== undefined) await control(deps).setHostname(body.hostname);
  });

  for (const action of ['reboot', 'shutdown'] as const) {
    api.post(`/host/${action}`, async (call) => {
      const body = validate(call.body(), POWER);
      await control(deps).power(action, body.force ?? false);
    });
  }

  // the facts are read on each request: nothing is cached that a reload would refresh
  api.post('/host/reload', async () => {
    await hostOf(deps).services();
  });

  api.get('/host/disks/:disk/usage', async (call) => diskUsage(call, deps));

  registerHostLogRoutes(api, deps);
}

async function diskUsage(call: SupervisorCall, deps: SupervisorDeps) {
  const disk = call.params.disk;
  // `default` is the system disk even when a mount has that name
  if (disk === 'default') {
    return systemDiskUsage({ dataDir: deps.dataDir, coreDataDir: deps.coreDataDir, maxDepth: maxDepthOf(call.query.get('max_depth')), v1: call.tree === 'v1' });
  }
  const mount = (await deps.mounts?.list())?.find((m) => m.name === disk);
  if (!mount || !deps.mounts) throw keyedError(404, 'mount_not_found_error', 'No mount exists with name {name}', { name: disk });
  const maxDepth = maxDepthOf(call.query.get('max_depth'), 0);
  return mountDiskUsage({ name: disk, path: deps.mounts.mountPoint(disk), active: mount.state === 'active', maxDepth });
}

/** The journal's routes: without systemd-journal-gatewayd, the original's answers for a host without it. */
function registerHostLogRoutes(api: SupervisorApi, deps: SupervisorDeps): void {
  const journal = async () => {
    if (!(await hostOf(deps).services()).journalGatewayd) return NO_GATEWAY;
    // Hearth does not read the host journal yet: said plainly rather than answered empty
    return 'Reading the host journal through systemd-journal-gatewayd is not supported by this supervisor';
  };
  const text = async () => {
    throw new SupervisorError(await journal(), { plain: true });
  };
  for (const base of ['/host/logs', '/host/logs/identifiers/:identifier', '/host/logs/boots/:bootid', '/host/logs/boots/:bootid/identifiers/:identifier']) {
    api.get(base, text);
    api.get(`${base}/follow`, text);
  }
  api.get('/host/logs/boots', async () => {
    throw new SupervisorError(await journal());
  });
  api.get('/host/logs/identifiers', async () => {
    throw new SupervisorError(await journal());
  });
}
