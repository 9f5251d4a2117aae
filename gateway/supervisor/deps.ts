import type { GitRepositories } from '../../actors/supervisor/apps/git-repositories.ts';
import type { Clock, Ids } from '../../actors/clock.ts';
import type { Logs } from '../../actors/logging/logs.ts';
import type { Settings } from '../../actors/supervisor/settings.ts';
import type { Tokens } from '../../actors/supervisor/tokens.ts';
import type { Engine } from '../../actors/supervisor/docker/engine.ts';
import type { Context } from '../../store/types.ts';
import type { Jobs } from '../../actors/supervisor/jobs/types.ts';
import type { Resolution } from '../../actors/supervisor/resolution/types.ts';
import type { CoreRuntimeView } from '../../actors/supervisor/core/types.ts';
import type { UpdaterView } from '../../actors/supervisor/updater/types.ts';
import type { AppStoreView } from '../../actors/supervisor/apps/store.ts';
import type { AppsView } from '../../actors/supervisor/apps/types.ts';
import type { Services } from '../../actors/supervisor/services/services.ts';
import type { Discovery } from '../../actors/supervisor/discovery/discovery.ts';
import type { AuthHelper } from '../../actors/supervisor/auth/auth-helper.ts';
import type { CoreApi } from '../../actors/supervisor/core/api.ts';
import type { IngressSessions } from '../../actors/supervisor/ingress/sessions.ts';
import type { Mounts } from '../../actors/supervisor/mounts/mounts.ts';
import type { BackupManager } from '../../actors/supervisor/backups/manager.ts';
import type { BackupSources } from '../../actors/supervisor/backups/create.ts';
import type { Network } from '../../actors/supervisor/network/network.ts';
import type { OperatingSystem } from '../../actors/supervisor/os/os.ts';
import type { HostSystem } from '../../actors/supervisor/host/system.ts';
import type { Plugins } from '../../actors/supervisor/plugins/plugins.ts';
import type { BackupRestorer } from '../../actors/supervisor/backups/restore/restore.ts';

/** What the supervisor's handlers may reach: its actors, never the store. */
export interface SupervisorDeps {
  dataDir: string;
  clock: Clock;
  ids: Ids;
  logs: Logs;
  settings: Settings;
  tokens: Tokens;
  engine: Engine;
  /** `setup`, `running`, `freeze`, `stopping`... */
  state(): string;
  /** a fresh context for a change a caller asked for */
  context(): Context;
  /** the core's container name and data directory (the runtime itself sets `core`) */
  coreContainer: string;
  coreDataDir: string;
  jobs: Jobs;
  resolution: Resolution;
  updater: UpdaterView;
  /** the core runtime, set right after the deps it links back to are made */
  core?: CoreRuntimeView;
  /** the app store's repositories (read side) */
  store?: AppStoreView;
  /** the store's added git repositories */
  gitRepositories?: GitRepositories;
  /** the installed apps (the app actors) */
  apps?: AppsView;
  /** services apps publish for each other (mqtt, mysql) */
  services?: Services;
  /** apps' discovery messages for the core */
  discovery?: Discovery;
  /** /auth: apps check users' credentials against the core */
  authHelper?: AuthHelper;
  /** the supervisor's client of the core's API (REST and WebSocket, with the core's refresh token) */
  coreApi?: CoreApi;
  /** ingress sessions (the core's, checked by the proxy) */
  ingress?: IngressSessions;
  /** the network mounts (CIFS/NFS shares for backups, media and share) */
  mounts?: Mounts;
  /** the backups in every location, one backup or restore at a time, freeze/thaw */
  backups?: BackupManager;
  /** what a new backup reads (apps, core settings, images) */
  backupSources?: BackupSources;
  /** the host's interfaces, the engine's network and the connectivity checks */
  network?: Network;
  /** the operating system area (swap, data disks; the rest refused on a plain host) */
  os?: OperatingSystem;
  /** the machine's own tools and services (host and hardware routes; a test hands a stand-in) */
  host?: HostSystem;
  /** the plugins (dns, audio, cli, observer, multicast) */
  plugins?: Plugins;
  /** restores backups (full and partial) */
  backupRestore?: BackupRestorer;
  /** asks the supervisor to restart its API (soft restart); resolves when asked */
  restart(): void;
}
