import type { SupervisorApi } from '../api.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { SUPERVISOR_VERSION } from '../../../actors/version.ts';
import { archOf, hostname, machineId, machineOf, operatingSystem } from '../../../actors/supervisor/machine.ts';
import { supervisorSettings } from '../../../actors/supervisor/supervisor-settings.ts';
import { isNewer } from '../../../actors/version-order.ts';
import type { AppManager } from '../../../actors/supervisor/apps/manager.ts';
import type { AppStoreView } from '../../../actors/supervisor/apps/store.ts';
import { appUpdates } from '../../../actors/supervisor/apps/info.ts';
import type { Settings } from '../../../actors/supervisor/settings.ts';
import type { Engine } from '../../../actors/supervisor/docker/engine.ts';
import type { Resolution } from '../../../actors/supervisor/resolution/types.ts';
import type { UpdaterView } from '../../../actors/supervisor/updater/types.ts';
import type { CoreRuntimeView } from '../../../actors/supervisor/core/types.ts';
import type { HostSystem } from '../../../actors/supervisor/host/system.ts';
import type { Mounts } from '../../../actors/supervisor/mounts/mounts.ts';
import { currentFeatures } from './host.ts';

/**
 * The API's root (supervisor-wire §4.1): the system overview, the pending updates and reading
 * the channel document again.
 */

/** What tells whether the supervisor has an update: its channel (settings) and the channel document. */
export interface SupervisorUpdateDeps {
  settings: Settings;
  updater: UpdaterView;
}

/** Whether the supervisor itself has an update (never on the dev channel, as in the original). */
export function supervisorUpdate(deps: SupervisorUpdateDeps): boolean {
  const s = supervisorSettings(deps.settings).get();
  return s.channel !== 'dev' && isNewer(deps.updater.latest('supervisor'), SUPERVISOR_VERSION);
}

/** Reads the channel document again; its failure is the caller's 400. */
export async function reloadUpdater(updater: UpdaterView, force = false): Promise<void> {
  try {
    await updater.reload({ force });
  } catch (err) {
    throw new SupervisorError((err as Error).message);
  }
}

/** What the API's root reads: the whole system's overview and its pending updates. */
export interface RootRouteDeps extends SupervisorUpdateDeps {
  engine: Engine;
  /** the core's installed version (null before its first install) */
  core: CoreRuntimeView;
  /** the host's services and the mounts tell the features */
  host: HostSystem;
  mounts: Mounts;
  resolution: Resolution;
  /** reloaded with the channel document (v1's refresh_updates) */
  store: AppStoreView;
  apps: AppManager;
  /** `setup`, `running`, `freeze`, `stopping`... */
  state(): string;
}

/** Registers the API's root routes. */
export function registerRootRoutes(api: SupervisorApi, deps: RootRouteDeps): void {
  api.get('/info', async () => {
    const s = supervisorSettings(deps.settings).get();
    const arch = archOf();
    const docker = await deps.engine.info().then((i) => i.version, () => null);
    return {
      supervisor: SUPERVISOR_VERSION,
      core: deps.core.version(),
      core_os: null,
      docker,
      hostname: hostname() || null,
      operating_system: await operatingSystem(),
      features: await currentFeatures(deps.host, deps.mounts),
      machine: machineOf(arch),
      machine_id: await machineId(),
      arch,
      state: deps.state(),
      supported_arch: [arch],
      supported: deps.resolution.unsupported().length === 0,
      channel: s.channel,
      logging: s.logging,
      timezone: s.timezone,
    };
  });

  api.post('/reload_updates', async () => {
    await reloadUpdater(deps.updater);
  });

  // the original reloads the app store here too
  api.post('/refresh_updates', async () => {
    await reloadUpdater(deps.updater);
    await deps.store.reload();
  }, { trees: ['v1'] });

  const available = () => {
    const items: Record<string, unknown>[] = [];
    const latestCore = deps.updater.latest('core') ?? null;
    if (isNewer(latestCore, deps.core.version())) items.push({ update_type: 'core', panel_path: '/update-available/core', version_latest: latestCore });
    if (supervisorUpdate(deps)) items.push({ update_type: 'supervisor', panel_path: '/update-available/supervisor', version_latest: deps.updater.latest('supervisor') });
    // no `os` entry: Hearth runs on a plain host, not on an OS it updates
    items.push(...appUpdates(deps.apps));
    return { available_updates: items };
  };
  api.get('/available_updates', available, { trees: ['v1'] });
  api.get('/supervisor/available_updates', available, { trees: ['v1'] });
}
