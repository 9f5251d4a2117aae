import type { Context } from '../store/types.ts';
import type { Clock } from '../actors/clock.ts';
import type { Logs } from '../actors/logging/logs.ts';
import type { Settings } from '../actors/supervisor/settings.ts';
import type { Engine } from '../actors/supervisor/docker/engine.ts';
import type { Jobs } from '../actors/supervisor/jobs/types.ts';
import type { Resolution } from '../actors/supervisor/resolution/types.ts';
import type { UpdaterView } from '../actors/supervisor/updater/types.ts';
import type { CoreRuntime } from '../actors/supervisor/core/runtime.ts';
import type { CoreApi } from '../actors/supervisor/core/api.ts';
import type { IngressSessions } from '../actors/supervisor/ingress/sessions.ts';
import type { Services } from '../actors/supervisor/services/services.ts';
import type { Discovery } from '../actors/supervisor/discovery/discovery.ts';
import type { Mounts } from '../actors/supervisor/mounts/mounts.ts';
import type { AuthHelper } from '../actors/supervisor/auth/auth-helper.ts';
import type { Network } from '../actors/supervisor/network/network.ts';
import type { OperatingSystem } from '../actors/supervisor/os/os.ts';
import type { HostSystem } from '../actors/supervisor/host/system.ts';
import type { GitRepositories } from '../actors/supervisor/apps/git-repositories.ts';
import type { AppStore } from '../actors/supervisor/apps/store.ts';
import type { Plugins } from '../actors/supervisor/plugins/plugins.ts';
import type { AppManager } from '../actors/supervisor/apps/manager.ts';
import type { AppsView } from '../actors/supervisor/apps/types.ts';
import type { BackupManager } from '../actors/supervisor/backups/manager.ts';
import type { BackupSources } from '../actors/supervisor/backups/create.ts';
import type { BackupRestorer } from '../actors/supervisor/backups/restore/restore.ts';
import type { SupervisorApi } from '../gateway/supervisor/api.ts';
import { registerCoreRoutes } from '../gateway/supervisor/routes/core.ts';
import { registerCoreAndSupervisorLogs } from '../gateway/supervisor/routes/logs.ts';
import { registerJobRoutes } from '../gateway/supervisor/routes/jobs.ts';
import { registerResolutionRoutes } from '../gateway/supervisor/routes/resolution.ts';
import { registerRootRoutes } from '../gateway/supervisor/routes/root.ts';
import { registerSupervisorOwnRoutes } from '../gateway/supervisor/routes/supervisor.ts';
import { registerDockerRoutes } from '../gateway/supervisor/routes/docker.ts';
import { registerSecurityRoutes } from '../gateway/supervisor/routes/security.ts';
import { registerServiceRoutes } from '../gateway/supervisor/routes/services.ts';
import { registerDiscoveryRoutes } from '../gateway/supervisor/routes/discovery.ts';
import { registerAuthRoutes } from '../gateway/supervisor/routes/auth.ts';
import { registerIngressRoutes } from '../gateway/supervisor/routes/ingress.ts';
import { registerMountRoutes } from '../gateway/supervisor/routes/mounts.ts';
import { registerBackupRoutes } from '../gateway/supervisor/routes/backups.ts';
import { registerNetworkRoutes } from '../gateway/supervisor/routes/network.ts';
import { registerOsRoutes } from '../gateway/supervisor/routes/os.ts';
import { registerHostRoutes } from '../gateway/supervisor/routes/host.ts';
import { registerHardwareRoutes } from '../gateway/supervisor/routes/hardware.ts';
import { registerBackupRestoreRoutes } from '../gateway/supervisor/routes/backup-restore.ts';
import { registerStoreRoutes } from '../gateway/supervisor/routes/store.ts';
import { registerPluginRoutes } from '../gateway/supervisor/routes/plugins.ts';
import { registerAppRoutes } from '../gateway/supervisor/routes/apps.ts';

/**
 * What startSupervisor built, by name: every area is there once the supervisor starts (a
 * supervisor without one does not exist), so every route module is registered. Tests read the
 * parts, and may stand in `apps` and `authHelper` after start: the areas and routes that only
 * read those read them from here at each call.
 */
export interface SupervisorParts {
  dataDir: string;
  /** the core's data directory (`<data>/core`) and its container's name */
  coreDataDir: string;
  coreContainer: string;
  clock: Clock;
  logs: Logs;
  /** the supervisor's own log file */
  logFile: string;
  settings: Settings;
  engine: Engine;
  jobs: Jobs;
  resolution: Resolution;
  updater: UpdaterView;
  core: CoreRuntime;
  /** the supervisor's client of the core's API (REST and WebSocket, with the core's refresh token) */
  coreApi: CoreApi;
  ingress: IngressSessions;
  services: Services;
  discovery: Discovery;
  mounts: Mounts;
  authHelper: AuthHelper;
  network: Network;
  os: OperatingSystem;
  host: HostSystem;
  gitRepositories: GitRepositories;
  store: AppStore;
  plugins: Plugins;
  /** the app actors, for what acts on apps */
  appManager: AppManager;
  /** the installed apps as what only reads them sees them: the app manager, or a test's stand-in */
  apps: AppsView;
  backups: BackupManager;
  backupSources: BackupSources;
  backupRestore: BackupRestorer;
  /** `setup`, `running`, `freeze`, `stopping`... */
  state(): string;
  /** a fresh context for a change a caller asked for */
  context(): Context;
  /** asks the supervisor to restart its API (soft restart) */
  restart(): void;
}

/**
 * Every route of the supervisor's API, each module given the parts it uses. The order is the
 * routes' order on the router, which finds a path that matches several patterns (a preflight,
 * a 405) by the first one added: it stays as it is.
 */
export function registerSupervisorRoutes(api: SupervisorApi, parts: SupervisorParts): void {
  const { context } = parts;
  api.get('/supervisor/ping', () => ({}));
  registerCoreRoutes(api, { core: parts.core, context });
  registerCoreAndSupervisorLogs(api, { engine: parts.engine, coreContainer: parts.coreContainer, logFile: parts.logFile });
  registerJobRoutes(api, { jobs: parts.jobs, resolution: parts.resolution, settings: parts.settings, context });
  registerResolutionRoutes(api, { resolution: parts.resolution, context });
  registerRootRoutes(api, {
    settings: parts.settings, updater: parts.updater, engine: parts.engine, core: parts.core, host: parts.host, mounts: parts.mounts,
    resolution: parts.resolution, store: parts.store, apps: parts.appManager, state: parts.state,
  });
  registerSupervisorOwnRoutes(api, {
    settings: parts.settings, updater: parts.updater, logs: parts.logs, engine: parts.engine, resolution: parts.resolution, core: parts.core,
    plugins: parts.plugins, apps: parts.appManager, store: parts.store, gitRepositories: parts.gitRepositories, context, restart: parts.restart,
  });
  registerDockerRoutes(api, { engine: parts.engine, settings: parts.settings, resolution: parts.resolution, logs: parts.logs, context });
  registerSecurityRoutes(api, { settings: parts.settings, context });
  // the apps a test stands in are read at each call (getters), as is its auth helper
  registerServiceRoutes(api, { services: parts.services, get apps() { return parts.apps; }, context });
  registerDiscoveryRoutes(api, { discovery: parts.discovery, get apps() { return parts.apps; }, context });
  registerAuthRoutes(api, { get helper() { return parts.authHelper; }, get apps() { return parts.apps; } });
  registerIngressRoutes(api, { sessions: parts.ingress, get apps() { return parts.apps; }, context });
  registerMountRoutes(api, { mounts: parts.mounts, context });
  registerBackupRoutes(api, { backups: parts.backups, sources: parts.backupSources, mounts: parts.mounts, resolution: parts.resolution, context });
  registerNetworkRoutes(api, { network: parts.network });
  registerOsRoutes(api, { os: parts.os, logs: parts.logs });
  registerHostRoutes(api, {
    host: parts.host, mounts: parts.mounts, apps: parts.appManager, core: parts.core,
    dataDir: parts.dataDir, coreDataDir: parts.coreDataDir, clock: parts.clock, logs: parts.logs, context,
  });
  registerHardwareRoutes(api, { host: parts.host });
  registerBackupRestoreRoutes(api, { restorer: parts.backupRestore, context });
  registerStoreRoutes(api, { store: parts.store, git: parts.gitRepositories, context });
  registerPluginRoutes(api, { plugins: parts.plugins, engine: parts.engine, context });
  registerAppRoutes(api, { apps: parts.appManager, store: parts.store, settings: parts.settings, engine: parts.engine, context });
}
