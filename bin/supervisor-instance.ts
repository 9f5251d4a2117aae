import { BackupRestorer } from '../actors/supervisor/backups/restore/restore.ts';
import { mkdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { openEventLog } from '../store/log.ts';
import type { Context, EventLog } from '../store/types.ts';
import { systemClock, randomIds, type Clock, type Ids } from '../actors/clock.ts';
import type { Area } from '../actors/area.ts';
import { replayArea } from '../actors/restore.ts';
import { Logs } from '../actors/logging/logs.ts';
import { Settings } from '../actors/supervisor/settings.ts';
import { Tokens } from '../actors/supervisor/tokens.ts';
import { Engine, DEFAULT_DOCKER_SOCKET } from '../actors/supervisor/docker/engine.ts';
import { supervisorUpdate } from '../gateway/supervisor/routes/root.ts';
import { SupervisorApi } from '../gateway/supervisor/api.ts';
import { registerSupervisorRoutes, type SupervisorParts } from './supervisor-routes.ts';
import { CoreRuntime } from '../actors/supervisor/core/runtime.ts';
import type { CoreHostProcess } from '../actors/supervisor/core/types.ts';
import { JobTracker } from '../actors/supervisor/jobs/jobs.ts';
import { ResolutionCenter } from '../actors/supervisor/resolution/center.ts';
import { assertNativeUws } from './instance.ts';
import { Updater, DEFAULT_UPDATER_SOURCE } from '../actors/supervisor/updater/updater.ts';
import { machineOf } from '../actors/supervisor/machine.ts';
import { LEVELS } from '../actors/logging/levels.ts';
import { SUPERVISOR_DEFAULTS } from '../actors/supervisor/supervisor-settings.ts';
import { SupervisorListener } from './supervisor-listener.ts';
import { GitRepositories, STORE_SETTINGS_DEFAULTS } from '../actors/supervisor/apps/git-repositories.ts';
import { AppStore } from '../actors/supervisor/apps/store.ts';
import { AppManager } from '../actors/supervisor/apps/manager.ts';
import { Services } from '../actors/supervisor/services/services.ts';
import { Discovery, corePush } from '../actors/supervisor/discovery/discovery.ts';
import { corePanelPush } from '../actors/supervisor/apps/panel-push.ts';
import { AuthHelper } from '../actors/supervisor/auth/auth-helper.ts';
import { CoreApi } from '../actors/supervisor/core/api.ts';
import { IngressSessions, type IngressUser } from '../actors/supervisor/ingress/sessions.ts';
import { planIngress } from '../gateway/supervisor/ingress-proxy.ts';
import { Mounts } from '../actors/supervisor/mounts/mounts.ts';
import { HostMounts, type MountSystem } from '../actors/supervisor/mounts/system.ts';
import { BackupManager, BACKUP_OPTIONS_DEFAULTS } from '../actors/supervisor/backups/manager.ts';
import { coreBackupHooks, supervisorBackupSources } from '../actors/supervisor/backups/sources.ts';
import { FREE_SPACE_MIN_BYTES, freeBytes } from '../actors/supervisor/resolution/checks.ts';
import { registerBackupsCheck } from '../actors/supervisor/backups/staleness.ts';
import { createBackup } from '../actors/supervisor/backups/create.ts';
import { locationName } from '../actors/supervisor/backups/locations.ts';
import { BACKUP_FOLDERS } from '../actors/supervisor/backups/archive/backup-json.ts';
import { Connectivity, DEFAULT_CONNECTIVITY_URL } from '../actors/supervisor/network/connectivity.ts';
import { Network } from '../actors/supervisor/network/network.ts';
import { OperatingSystem } from '../actors/supervisor/os/os.ts';
import type { SwapFiles } from '../actors/supervisor/os/swap.ts';
import { LocalHost, type HostSystem } from '../actors/supervisor/host/system.ts';
import { Plugins } from '../actors/supervisor/plugins/plugins.ts';
import { DEFAULT_PLUGIN_NETWORK, type PluginNetworkOptions } from '../actors/supervisor/plugins/network.ts';
import { CORE_VERSION, SUPERVISOR_VERSION } from '../actors/version.ts';

/** How to build one supervisor. Nothing is read from module-level state. */
export interface SupervisorOptions {
  /** the supervisor's data directory: its log, admin.token, the core's data under `core/` */
  dataDir: string;
  /** 0 picks a free port (default listener: 1703) */
  port: number;
  host?: string;
  /** the container engine's socket (default /var/run/docker.sock) */
  dockerSocket?: string;
  /** the core container's name (default `hearth_core`; tests give each supervisor its own) */
  coreContainer?: string;
  /** the host port the core's container publishes by default (settings `core.port`; default 1702) */
  corePort?: number;
  /** false: do not install or start the core at start whatever `boot` says (tests of other areas) */
  bootCore?: boolean;
  clock?: Clock;
  ids?: Ids;
  /** receives every log line (tests); without it lines go to stdout */
  log?: (line: string) => void;
  /** free space at or below this is a resolution issue (default 2 GiB; tests set their own) */
  freeSpaceMinBytes?: number;
  /** asked to end the process */
  onStop?: () => void;
  /**
   * where the updater reads the channel document: a JSON file or an http(s) URL, `{channel}`
   * standing for the channel's name; kept in the log, so later starts without it keep it
   * (default: the documents shipped in actors/supervisor/updater/channels/; `default` goes back to them)
   */
  updaterUrl?: string;
  /** more app repository directories for the store (besides the built-in one and `<data>/apps/local`) */
  appRepositories?: string[];
  /** the apps' container names are this plus the slug (default `app_`; tests give each supervisor its own) */
  appContainerPrefix?: string;
  /** false: do not start the `boot: auto` apps at start (default true) */
  bootApps?: boolean;
  /** the core's base URL when it does not run as the supervisor's container (tests run it on the host) */
  coreUrl?: string;
  /** the core's user by id, kept with an ingress session made for that user (the core's users list) */
  lookupIngressUser?: (id: string) => Promise<IngressUser | undefined>;
  /** false: no `backups` check (tests that count issues; default true, as the original) */
  backupsCheck?: boolean;
  /** how mounts reach the host's mount table (default: util-linux `mount`/`umount`) */
  mountSystem?: MountSystem;
  /** the URL the connectivity check probes (default the original's `checkonline` address); null turns the check off */
  connectivityUrl?: string | null;
  /** the engine network `/network/info` reports as `docker` (default `bridge`, the one the containers join) */
  dockerNetwork?: string;
  /** where swap is read and swappiness written (default /proc/swaps, /proc/sys/vm/swappiness) */
  swapFiles?: SwapFiles;
  /** the host's tools and services for the host and hardware routes (default: this machine) */
  hostSystem?: HostSystem;
  /** install and start the plugins (dns, audio, cli, observer, multicast) at start (default false; `hearth supervisor` sets it) */
  bootPlugins?: boolean;
  /** the plugins' container names are this plus the plugin's name (default `hassio_`) */
  pluginContainerPrefix?: string;
  /** the plugins' network (default `hassio`, 172.30.32.0/23; tests give each supervisor its own) */
  pluginNetwork?: PluginNetworkOptions;
  /** the observer's status page on the host (default 4357) */
  observerPort?: number;
  /** with `coreUrl`: how a restore stops and starts the host-run core (tests) */
  coreHostProcess?: CoreHostProcess;
}

/** A running supervisor. */
export interface Supervisor {
  port: number;
  dataDir: string;
  log: EventLog;
  logs: Logs;
  tokens: Tokens;
  settings: Settings;
  jobs: JobTracker;
  resolution: ResolutionCenter;
  /** the operator's admin token (also in `<data>/admin.token`) */
  adminToken: string;
  /** every route on both trees */
  api: SupervisorApi;
  updater: Updater;
  /** what it is built of, by name (tests read the parts, and stand in `apps` and `authHelper`) */
  deps: SupervisorParts;
  /** settles when the soft restart asked last (POST /supervisor/restart) has finished */
  restarted?: Promise<void>;
  stop(): Promise<void>;
}

/** The supervisor's settings section of its own (`/supervisor/options`). */
export { SUPERVISOR_DEFAULTS };

/** `carry`: on a soft restart, the handle to fill with the new instance and the listener it keeps. */
export async function startSupervisor(options: SupervisorOptions, carry?: { into: Supervisor; listener: SupervisorListener }): Promise<Supervisor> {
  assertNativeUws();
  const clock = options.clock ?? systemClock();
  const ids = options.ids ?? randomIds();
  const dataDir = resolve(options.dataDir);
  await mkdir(dataDir, { recursive: true });
  const logs = new Logs({ clock, lines: options.log, file: join(dataDir, 'supervisor.log') });
  const logger = logs.get('hearth.supervisor');
  let state = 'initialize';
  const context = (): Context => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: null });

  const log = await openEventLog({ path: join(dataDir, 'log'), log: logs.get('hearth.store').warning });
  state = 'setup';
  const settings = new Settings({ log, clock });
  const tokens = new Tokens({ log, clock, ids });
  const jobs = new JobTracker({ log, clock, ids, settings, context, warn: logs.get('hearth.supervisor.jobs').warning });
  const updaterSettings = settings.section('updater', { source: null as string | null });
  const updater = new Updater({
    log,
    clock,
    logger: logs.get('hearth.supervisor.updater'),
    channel: () => settings.section('supervisor', SUPERVISOR_DEFAULTS).get().channel,
    source: () => updaterSettings.get().source ?? DEFAULT_UPDATER_SOURCE,
    machine: machineOf(),
    jobs: () => jobs,
    context,
  });
  const areas: Area[] = [settings, tokens, jobs, updater];
  for (const area of areas) await replayArea(log, area);
  await jobs.settleInterrupted(context());

  const operator = await tokens.ensureOperator(join(dataDir, 'admin.token'), context());
  const engine = new Engine(options.dockerSocket ?? DEFAULT_DOCKER_SOCKET);
  if (!(await engine.reachable())) logger.warning(`no container engine answers at ${engine.socketPath}: the core cannot run until one does`);

  const supervisorSettings = settings.section('supervisor', SUPERVISOR_DEFAULTS);
  logs.setDefaultLevel(LEVELS[supervisorSettings.get().logging as keyof typeof LEVELS] ?? LEVELS.info);
  const updaterSource = updaterSourceOf(options.updaterUrl);
  if (updaterSource !== undefined && updaterSource !== updaterSettings.get().source) await updaterSettings.set({ source: updaterSource }, context());
  const listener = carry?.listener ?? new SupervisorListener();
  const { router, table } = listener.generation();
  const api = new SupervisorApi(router, {
    lookup: (token) => tokens.lookup(token),
    state: () => state,
    v2: supervisorSettings.get().feature_flags.supervisor_v2_api === true,
    error: logger.error,
    warn: logger.warning,
  });
  let restartApi: () => void = () => {};
  const coreContainer = options.coreContainer ?? 'hearth_core';
  const coreDataDir = join(dataDir, 'core');
  const connectivityUrl = options.connectivityUrl === undefined ? DEFAULT_CONNECTIVITY_URL : options.connectivityUrl;
  const connectivity = new Connectivity({ url: () => connectivityUrl, now: () => clock.now(), logLine: logs.get('hearth.supervisor.network').debug });
  // apps join the plugins' network once the dns plugin is installed, else the engine's bridge
  const appNetwork = () => options.dockerNetwork ?? (plugins.dns.version() ? (options.pluginNetwork ?? DEFAULT_PLUGIN_NETWORK).name : 'bridge');
  const network = new Network({ engine, connectivity, dockerNetwork: appNetwork, logLine: logs.get('hearth.supervisor.network').info });
  const hostSystem = options.hostSystem ?? new LocalHost();
  const resolution = new ResolutionCenter({
    log, clock, ids, engine, dataDir, coreDataDir, coreContainer, context, host: hostSystem,
    freeSpaceMinBytes: options.freeSpaceMinBytes,
    interfaces: () => network.interfaces(),
    connectivityEnabled: () => connectivity.enabled,
    ignoredConditions: () => jobs.ignoredConditions(),
    warn: logs.get('hearth.supervisor.resolution').warning,
  });
  await replayArea(log, resolution);
  areas.push(resolution);
  const ingress = new IngressSessions({ log, clock, ids, lookupUser: options.lookupIngressUser, warn: logs.get('hearth.supervisor.ingress').warning });
  await replayArea(log, ingress);
  areas.push(ingress);
  await ingress.purgeExpired(context());
  jobs.useConditionFacts({
    state: () => state,
    unhealthy: () => resolution.unhealthy(),
    freeSpace: async () => ({ free: await freeBytes(dataDir), min: options.freeSpaceMinBytes ?? FREE_SPACE_MIN_BYTES }),
    lowOnSpace: async () => void (await resolution.addIssue({ type: 'free_space', context: 'system' })),
    supervisorNeedsUpdate: () => supervisorUpdate({ settings, updater }),
    unsupported: () => resolution.unsupported(),
    outdatedPlugins: () =>
      plugins.all().filter((p) => p.version() !== null && p.versionInfo().update_available).map((p) => ({ name: p.name, update: () => p.update(context()) })),
    warn: logs.get('hearth.supervisor.jobs').warning,
  });
  const os = new OperatingSystem({ swapFiles: options.swapFiles, logLine: logs.get('hearth.supervisor.os').warning });
  let listenPort = 0;
  const core = new CoreRuntime({ log, clock, ids, logger: logs.get('hearth.supervisor.core'), settings, tokens, engine, containerName: coreContainer, dataDir: coreDataDir, links: { jobs, resolution, updater }, defaultPort: options.corePort, supervisorUrl: () => `http://supervisor:${listenPort}`, timezone: () => supervisorSettings.get().timezone, hostProcess: options.coreHostProcess });
  const coreApi = new CoreApi({ url: async () => options.coreUrl ?? (await core.coreUrl()), refreshToken: () => core.section.get().refresh_token, clock });
  // a session made for a user carries who the core says that user is
  ingress.lookupUser ??= async (id) => {
    const user = await coreApi.lookupUser(id);
    return user && { id: user.id, username: user.username, name: user.name };
  };
  // the apps as `parts` holds them when asked (built later; a test may stand in its own)
  const services = new Services({ log, clock, apps: () => parts.apps });
  const discovery = new Discovery({ log, clock, ids, logger: logs.get('hearth.supervisor.discovery'), apps: () => parts.apps, store: () => store, push: corePush(coreApi, logs.get('hearth.supervisor.discovery')) });
  for (const area of [services, discovery]) {
    await replayArea(log, area);
    areas.push(area);
  }
  const mounts = new Mounts({ log, clock, logger: logs.get('hearth.supervisor.mounts'), dataDir, system: options.mountSystem ?? new HostMounts(), jobs, resolution, context });
  await replayArea(log, mounts);
  areas.push(mounts);
  // as the original does in setup: every configured mount again, failures become issues
  await mounts.load();
  const authHelper = new AuthHelper({ file: join(dataDir, 'auth.json'), core: coreApi, logger: logs.get('hearth.supervisor.auth') });
  // a local document is read before the API answers; a remote one in the background
  const firstRead = updater.reload({ force: true }).catch(() => {});
  if (!/^https?:/i.test(updater.location())) await firstRead;
  const gitRepositories = new GitRepositories({
    dir: join(dataDir, 'apps', 'git'),
    section: settings.section('store', STORE_SETTINGS_DEFAULTS),
    logger: logs.get('hearth.supervisor.store'),
    inUse: () => new Set(parts.apps.list().map((app) => app.repository)),
    changed: () => store.reload(),
  });
  const store = new AppStore({ localDir: join(dataDir, 'apps', 'local'), directories: () => options.appRepositories ?? [], clones: () => gitRepositories.list(), logger: logs.get('hearth.supervisor.store'), coreVersion: () => core.version() });
  await store.reload();
  const plugins = new Plugins({
    log, clock, ids, logs, settings, engine, dataDir,
    containerPrefix: options.pluginContainerPrefix,
    network: options.pluginNetwork,
    observerPort: options.observerPort,
    jobs: () => jobs,
    updater: () => updater,
    resolution: () => resolution,
    timezone: () => supervisorSettings.get().timezone,
    tokens,
    supervisorUrl: () => `http://supervisor:${listenPort}`,
    status: () => ({ supervisor: state, version: SUPERVISOR_VERSION, supported: resolution.unsupported().length === 0, healthy: resolution.unhealthy().length === 0 }),
  });
  network.dnsAddress = async () => (await plugins.dns.forApps())?.ip ?? null;
  const apps = new AppManager({
    log, clock, ids, tokens, engine, dataDir, coreDataDir,
    logger: logs.get('hearth.supervisor.apps'),
    store: () => store,
    jobs: () => jobs,
    resolution: () => resolution,
    containerPrefix: options.appContainerPrefix,
    supervisorUrl: () => `http://supervisor:${listenPort}`,
    timezone: () => supervisorSettings.get().timezone,
    pushPanel: corePanelPush(coreApi, logs.get('hearth.supervisor.apps')),
    dns: () => plugins.dns.forApps(),
  });
  await replayArea(log, apps);
  areas.push(apps);
  // backup/start waits for the core's log export: far longer than an ordinary command
  const backupCoreApi = new CoreApi({ url: async () => options.coreUrl ?? (await core.coreUrl()), refreshToken: () => core.section.get().refresh_token, clock, timeoutMs: 60 * 60_000 });
  const backups = new BackupManager({
    dataDir, coreDataDir, jobs, resolution, context,
    logger: logs.get('hearth.supervisor.backups'),
    mounts: () => mounts,
    state: { get: () => state, set: (s) => (state = s) },
    options: settings.section('backups', BACKUP_OPTIONS_DEFAULTS),
    core: coreBackupHooks(() => backupCoreApi, logs.get('hearth.supervisor.backups')),
    apps: () => parts.apps,
  });
  const backupSources = supervisorBackupSources({
    dataDir, engine, settings,
    coreVersion: () => core.version(),
    apps: () => parts.apps,
    store: () => store,
    mounts: () => mounts,
    freeSpaceMinBytes: options.freeSpaceMinBytes ?? FREE_SPACE_MIN_BYTES,
  });
  await backups.rescan();
  if (options.backupsCheck !== false) registerBackupsCheck(resolution, backups, () => createBackup(backups, backupSources, { type: 'full', name: '', compressed: true, locations: [locationName(mounts.defaultBackupMount())], core: true, apps: 'ALL', folders: [...BACKUP_FOLDERS], extra: {}, background: false, context: context() }));
  const backupRestore = new BackupRestorer({
    dataDir, coreDataDir, jobs, backups, core, apps, mounts,
    repositories: gitRepositories,
    logger: logs.get('hearth.supervisor.backups'),
    newId: () => ids.uuidHex().slice(0, 12),
  });
  const parts: SupervisorParts = {
    dataDir, coreDataDir, coreContainer, clock, logs, settings, engine, jobs, resolution, updater, core, coreApi, ingress, services, discovery,
    mounts, authHelper, network, os, gitRepositories, store, plugins, backups, backupSources, backupRestore,
    logFile: logs.filePath ?? join(dataDir, 'supervisor.log'),
    host: hostSystem,
    appManager: apps,
    apps,
    state: () => state,
    context,
    restart: () => restartApi(),
  };
  // every part is built: each route module is registered with the parts it uses
  registerSupervisorRoutes(api, parts);

  const host = options.host ?? '0.0.0.0';
  const port = await listener.listen(host, options.port).catch(async (err) => {
    await log.close();
    logs.close();
    throw err;
  });
  listenPort = port;
  // supported/healthy are right from the first request; the checks run in the background
  await resolution.evaluate();
  listener.logLine = logger.error;
  listener.serve(table);
  listener.coreProxy = {
    state: () => state,
    v2: api.v2,
    lookup: (token) => tokens.lookup(token),
    apps: () => parts.apps,
    core: { url: async () => options.coreUrl ?? (await core.coreUrl()), accessToken: () => coreApi.accessToken(), version: () => core.version() ?? CORE_VERSION },
    warn: logs.get('hearth.supervisor.api.proxy').warning,
    info: logs.get('hearth.supervisor.api.proxy').info,
  };
  listener.ingress = (incoming) => planIngress({ sessions: ingress, apps: () => parts.apps, state: () => state, context, v2: api.v2 }, incoming);
  state = 'running';
  resolution.start();
  mounts.start();
  void connectivity.check();
  logger.info(`supervisor running on port ${port}`);
  // in the background: the API answers while the image builds
  const coreBooted = options.bootCore !== false ? core.boot(context()) : Promise.resolve();
  // the plugins beside the core: the apps need the dns plugin's resolver
  const pluginsBooted = options.bootPlugins ? plugins.boot(context()) : Promise.resolve();
  // the apps after the core, in the background too
  if (options.bootApps !== false) void Promise.all([coreBooted, pluginsBooted]).then(() => apps.boot(context()));

  let stopping: Promise<void> | undefined;
  // a restart keeps the listener (its requests meanwhile are told the state: `stopping`)
  let keepListener = false;
  const fresh: Supervisor = {
    port,
    dataDir,
    log,
    logs,
    tokens,
    settings,
    jobs,
    resolution,
    adminToken: operator.token,
    api,
    updater,
    deps: parts,
    stop: () =>
      (stopping ??= (async () => {
        await backups.close();
        state = 'stopping';
        connectivity.stop();
        await core.close();
        plugins.close();
        await apps.close();
        await discovery.settled();
        await mounts.stop();
        await parts.authHelper.settled();
        if (!keepListener) listener.close();
        state = 'close';
        await resolution.stop();
        await jobs.close();
        await ingress.close();
        await log.close();
        logs.close();
      })()),
  };
  const handle = carry ? Object.assign(carry.into, fresh) : fresh;
  // soft restart: answer first, then stop this instance and start a fresh one on the same
  // listener and data; `handle` takes the new instance's parts, so whoever holds it holds the new one
  let restarting: Promise<void> | undefined;
  restartApi = () => {
    if (restarting) return;
    logger.info('supervisor restarting');
    restarting = handle.restarted = (async () => {
      await new Promise((r) => setImmediate(r));
      keepListener = true;
      await handle.stop();
      try {
        await startSupervisor({ ...options, port }, { into: handle, listener });
      } catch (err) {
        (options.log ?? console.error)(`supervisor could not start again: ${(err as Error).message}`);
        listener.close();
        options.onStop?.();
      }
    })();
  };
  return handle;
}

/** The updater's source as stored: a URL as given, a file path made absolute, null for `default`. */
function updaterSourceOf(given: string | undefined): string | null | undefined {
  if (given === undefined || given === '') return undefined;
  if (given === 'default') return null;
  return /^(?:https?|file):/i.test(given) ? given : resolve(given);
}
