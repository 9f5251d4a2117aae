import type { SupervisorApi } from '../api.ts';
import type { SupervisorDeps } from '../deps.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { SUPERVISOR_VERSION, CORE_VERSION } from '../../../actors/version.ts';
import { archOf, hostname, machineId, machineOf, operatingSystem } from '../../../actors/supervisor/machine.ts';
import { supervisorSettings } from '../../../actors/supervisor/supervisor-settings.ts';
import { isNewer } from '../../../actors/version-order.ts';
import { AppManager } from '../../../actors/supervisor/apps/manager.ts';
import { appUpdates } from '../../../actors/supervisor/apps/info.ts';
import { currentFeatures } from './host.ts';

/**
 * The API's root (supervisor-wire §4.1): the system overview, the pending updates and reading
 * the channel document again.
 */

export const supervisorSection = (deps: SupervisorDeps) => supervisorSettings(deps.settings);

/**
 * The core's installed version: the runtime's when there is one (null before its first
 * install); without a runtime, the Hearth this supervisor ships with (the core image is built
 * from it).
 */
export function installedCore(deps: SupervisorDeps): string | null {
  return deps.core ? deps.core.version() : CORE_VERSION;
}

/** Whether the supervisor itself has an update (never on the dev channel, as in the original). */
export function supervisorUpdate(deps: SupervisorDeps): boolean {
  const s = supervisorSection(deps).get();
  return s.channel !== 'dev' && isNewer(deps.updater.latest('supervisor'), SUPERVISOR_VERSION);
}

/** Reads the channel document again; its failure is the caller's 400. */
export async function reloadUpdater(deps: SupervisorDeps, force = false): Promise<void> {
  try {
    await deps.updater.reload({ force });
  } catch (err) {
    throw new SupervisorError((err as Error).message);
  }
}

export function registerRootRoutes(api: SupervisorApi, deps: SupervisorDeps): void {
  api.get('/info', async () => {
    const s = supervisorSection(deps).get();
    const arch = archOf();
    const docker = await deps.engine.info().then((i) => i.version, () => null);
    return {
      supervisor: SUPERVISOR_VERSION,
      core: installedCore(deps),
      core_os: null,
      docker,
      hostname: hostname() || null,
      operating_system: await operatingSystem(),
      features: await currentFeatures(deps),
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
    await reloadUpdater(deps);
  });

  // the original reloads the app store here too
  api.post('/refresh_updates', async () => {
    await reloadUpdater(deps);
    await deps.store?.reload();
  }, { trees: ['v1'] });

  const available = () => {
    const items: Record<string, unknown>[] = [];
    const latestCore = deps.updater.latest('core') ?? null;
    if (isNewer(latestCore, installedCore(deps))) items.push({ update_type: 'core', panel_path: '/update-available/core', version_latest: latestCore });
    if (supervisorUpdate(deps)) items.push({ update_type: 'supervisor', panel_path: '/update-available/supervisor', version_latest: deps.updater.latest('supervisor') });
    // no `os` entry: Hearth runs on a plain host, not on an OS it updates
    if (deps.apps instanceof AppManager) items.push(...appUpdates(deps.apps));
    return { available_updates: items };
  };
  api.get('/available_updates', available, { trees: ['v1'] });
  api.get('/supervisor/available_updates', available, { trees: ['v1'] });
}
