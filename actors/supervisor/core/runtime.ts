import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type Docker from 'dockerode';
import type { Clock, Ids } from '../../clock.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context, EventLog } from '../../../store/types.ts';
import { containerRecord } from '../docker/container-records.ts';
import type { Settings, SettingsSection } from '../settings.ts';
import type { Tokens } from '../tokens.ts';
import type { Engine, ContainerStats } from '../docker/engine.ts';
import type { Jobs, JobHandle } from '../jobs/types.ts';
import { untrackedJobs } from '../jobs/jobs.ts';
import type { Resolution } from '../resolution/types.ts';
import type { UpdaterView } from '../updater/types.ts';
import { SupervisorError, keyedError } from '../errors.ts';
import { CORE_VERSION } from '../../version.ts';
import { isNewer } from '../../version-order.ts';
import { CORE_DEFAULTS, type CoreHostProcess, type CoreInfo, type CoreRuntimeView, type CoreSettings } from './types.ts';
import { checkCoreConfig, coreContainerSpec, startCoreContainer, waitUntilCoreAnswers } from './container.ts';
import { CORE_CONTAINER_PORT, CORE_IMAGE, ensureCoreImage, hostArch, imageExists } from './image.ts';
import { MIGRATION_MESSAGE, offlineMigrationRunning } from './migration.ts';
import { createContainerActor, type ContainerActor, type WatchdogReports } from '../docker/container-actor.ts';
import { UPDATE_CONDITIONS } from '../jobs/conditions.ts';

/**
 * The core runtime: the Hearth core as a container on the local engine (`hearth_core`), its
 * image built here (image.ts), its data directory `<supervisor data>/core` mounted at `/config`,
 * its port published on the host. Every lifecycle change is a record on `core/runtime`
 * (`core_installed`, `core_started`, `core_stopped`, `core_restarted`, `core_rebuilt`,
 * `core_updated`, `core_crashed`, `watchdog_restart`...); its settings are the section `core`.
 * Operations run one at a time, each as a job when the job tracker is there.
 *
 * Its settings, its info and a core run as a host process are types.ts; the container itself
 * (spec, the engine's start, the wait for HTTP, the configuration check) is container.ts.
 */

export const CORE_RUNTIME_STREAM = 'core/runtime';

/** What the core runtime records on `core/runtime`, less the container's name each record starts with (an audit trail; never read back). */
export type CoreRuntimeRecordKind =
  | { type: 'core_installed'; data: { version: string; image: string; built: boolean } }
  | { type: 'core_container_created'; data: { version: string; image: string; port: number } }
  | { type: 'core_started' | 'core_rebuilt'; data: { version: string | null; port?: number; reason?: 'restore' } }
  | { type: 'core_stopped'; data: { version: string | null; reason?: 'restore' } }
  | { type: 'core_restarted'; data: { version: string | null; port?: number; safe_mode?: boolean } }
  | { type: 'core_updated' | 'core_update_rolled_back'; data: { from: string | null; to: string | null; reason?: 'restore' } }
  | { type: 'core_update_failed'; data: { from: string | null; to: string | null; message: string } }
  | { type: 'core_crashed'; data: { exit_code: number; version: string | null } }
  | { type: 'watchdog_restart'; data: { attempt: number; exit_code: number } }
  | { type: 'watchdog_gave_up'; data: { reason: string } };

/** The parts filled in later by other areas (read when used, never copied). */
export interface CoreRuntimeLinks {
  jobs?: Jobs;
  resolution?: Resolution;
  updater?: UpdaterView;
}

export interface CoreRuntimeOptions {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  settings: Settings;
  tokens: Tokens;
  engine: Engine;
  containerName: string;
  dataDir: string;
  links: CoreRuntimeLinks;
  /** the supervisor's URL as the container reaches it (env SUPERVISOR) */
  supervisorUrl(): string;
  /** the timezone handed to the container (env TZ) */
  timezone(): string;
  /** the host port published by default (settings `port`) */
  defaultPort?: number;
  /** how long a start may take until the core answers HTTP (default 120 s) */
  startTimeoutMs?: number;
  /** the watchdog's pause between attempts (default 10 s) */
  watchdogPauseMs?: number;
  /** the core as a host process instead of a container (tests): how a restore stops and starts it */
  hostProcess?: CoreHostProcess;
}

/** What the core container's steps are given: the context of the records, the restore a new container follows. */
interface CoreRequest {
  context: Context;
  restoreJobId?: string;
}

/** seconds the core gets to stop before the engine kills it */
const CORE_STOP_TIMEOUT = 20;

export class CoreRuntime implements CoreRuntimeView {
  readonly containerName: string;
  readonly dataDir: string;
  readonly section: SettingsSection<CoreSettings>;
  private readonly docker: Docker;
  private readonly container: ContainerActor<CoreRequest>;

  constructor(private readonly options: CoreRuntimeOptions) {
    this.containerName = options.containerName;
    this.dataDir = options.dataDir;
    this.docker = options.engine.docker;
    this.section = options.settings.section('core', { ...CORE_DEFAULTS, port: options.defaultPort ?? CORE_DEFAULTS.port });
    this.container = createContainerActor<CoreRequest>({
      engine: options.engine,
      name: options.containerName,
      // a clean exit is the core stopping itself; a core that cannot be brought up is still wanted
      policy: { cleanExitIsCrash: false, staysWantedWhenDown: true, newContainerEachStart: false },
      clock: options.clock,
      stopTimeout: () => CORE_STOP_TIMEOUT,
      retryPauseMs: options.watchdogPauseMs,
      steps: {
        create: (request) => this.create(request.context, request.restoreJobId),
        start: () => startCoreContainer(this.docker, this.containerName),
        waitHealthy: async () => waitUntilCoreAnswers(this.docker, this.containerName, await this.coreUrl(), this.options.startTimeoutMs ?? 120_000, () => this.inspect()),
      },
      watchdog: this.watchdogReports(),
    });
  }

  image(): string {
    return this.section.get().image ?? CORE_IMAGE;
  }

  version(): string | null {
    return this.section.get().version;
  }

  /** `image:version` of a version (the installed one by default). */
  ref(version = this.version() ?? CORE_VERSION): string {
    return `${this.image()}:${version}`;
  }

  /** The core's base URL from the host: the port its container publishes, else the `port` option. */
  async coreUrl(): Promise<string> {
    const s = this.section.get();
    const info = await this.inspect().catch(() => null);
    const bound = info?.HostConfig?.PortBindings?.[`${CORE_CONTAINER_PORT}/tcp`]?.[0]?.HostPort;
    return `${s.ssl ? 'https' : 'http'}://127.0.0.1:${bound ? Number(bound) : s.port}`;
  }

  // ------------------------------------------------------------------------------------------
  // reading

  async info(): Promise<CoreInfo> {
    const s = this.section.get();
    const latest = this.options.links.updater?.latest('core') ?? s.version ?? CORE_VERSION;
    const inspect = await this.inspect().catch(() => null);
    const { arch, machine } = hostArch();
    const ip = Object.values(inspect?.NetworkSettings?.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress ?? null;
    return {
      version: s.version,
      version_latest: latest,
      update_available: isNewer(latest, s.version),
      machine,
      ip_address: ip,
      arch,
      image: this.image(),
      boot: s.boot,
      port: s.port,
      ssl: s.ssl,
      watchdog: s.watchdog,
      audio_input: s.audio_input,
      audio_output: s.audio_output,
      backups_exclude_database: s.backups_exclude_database,
      duplicate_log_file: s.duplicate_log_file,
    };
  }

  /** The container as the engine describes it, or null when there is none. */
  inspect(): Promise<Docker.ContainerInspectInfo | null> {
    return this.options.engine.inspect(this.containerName);
  }

  async running(): Promise<boolean> {
    return (await this.inspect())?.State?.Running === true;
  }

  /** One statistics sample; a 400 when the core does not run. */
  async stats(): Promise<ContainerStats> {
    if (!(await this.running())) throw new SupervisorError(`Core container ${this.containerName} is not running`);
    return this.options.engine.stats(this.containerName);
  }

  async setOptions(patch: Partial<CoreSettings>, context: Context): Promise<void> {
    // `image: null` puts the built image back; a new `port` is published from the next rebuild
    await this.section.set(patch, context);
  }

  // ------------------------------------------------------------------------------------------
  // lifecycle

  /** Supervisor start: install when never installed, then start when `boot` (in the background). */
  boot(context: Context): Promise<void> {
    this.follow();
    return (async () => {
      if (!(await this.options.engine.reachable())) {
        this.options.logger.warning(`no container engine answers at ${this.options.engine.socketPath}: the core is not started`);
        return;
      }
      if (this.version() === null) await this.job('home_assistant_core_install', context, (job) => this.install(context, job)).done;
      if (!this.section.get().boot) return;
      if (await this.running()) {
        this.container.adopt();
        return;
      }
      await this.job('home_assistant_core_start', context, () => this.exclusive(() => this.startNow(context))).done;
    })().catch((err) => this.options.logger.error(`the core could not be started at boot: ${(err as Error).message}`));
  }

  /** Builds the image of this Hearth when missing (or when `rebuild`); records the install. */
  async install(context: Context, job?: JobHandle, options: { rebuild?: boolean } = {}): Promise<void> {
    await this.exclusive(async () => {
      job?.stage('image');
      const built = await this.imageAsChild(job, CORE_VERSION, options.rebuild);
      if (this.version() === null) {
        await this.section.set({ version: CORE_VERSION }, context);
        await this.record({ type: 'core_installed', data: { version: CORE_VERSION, image: this.image(), built } }, context);
      }
    });
  }

  start(context: Context): { uuid: string; done: Promise<void> } {
    return this.job('home_assistant_core_start', context, (job) =>
      this.exclusive(async () => {
        if (this.version() === null) await this.installLocked(context, job);
        await this.startNow(context);
      }),
    );
  }

  async stop(context: Context, options: { force?: boolean } = {}): Promise<void> {
    if (!options.force) await this.guard();
    await this.job('home_assistant_core_stop', context, () =>
      this.exclusive(async () => {
        if (await this.container.stop()) await this.record({ type: 'core_stopped', data: { version: this.version() } }, context);
      }),
    ).done;
  }

  async restart(context: Context, options: { safeMode?: boolean; force?: boolean } = {}): Promise<void> {
    if (!options.force) await this.guard();
    await this.job('home_assistant_core_restart', context, () =>
      this.exclusive(async () => {
        if (options.safeMode) await this.touchSafeMode();
        // a missing container is made: that start is recorded as a start is
        if ((await this.container.restart({ context })) === 'created') await this.record({ type: 'core_restarted', data: { version: this.version(), port: this.section.get().port } }, context);
        else await this.record({ type: 'core_restarted', data: { version: this.version(), safe_mode: options.safeMode === true } }, context);
      }),
    ).done;
  }

  /** Stops and removes the container, then creates it anew (a new token) and starts it. */
  async rebuild(context: Context, options: { safeMode?: boolean; force?: boolean } = {}): Promise<void> {
    if (!options.force) await this.guard();
    await this.job('home_assistant_core_rebuild', context, (job) =>
      this.exclusive(async () => {
        if (this.version() === null) await this.installLocked(context, job);
        if (options.safeMode) await this.touchSafeMode();
        await this.container.remove();
        await this.startNow(context, 'core_rebuilt');
      }),
    ).done;
  }

  /**
   * Updates to `version` (default: the latest the updater knows). Refusals come at once, also
   * with `background`; then the job runs and `background` answers its uuid.
   */
  async update(context: Context, options: { version?: string; backup?: boolean; background?: boolean } = {}): Promise<{ job_id: string } | undefined> {
    await this.guard();
    await this.options.links.jobs?.requireConditions('HomeAssistantCore.update', UPDATE_CONDITIONS);
    const current = this.version();
    const target = options.version ?? this.options.links.updater?.latest('core') ?? current ?? CORE_VERSION;
    if (target === current) throw keyedError(400, 'homeassistant_update_already_installed_error', 'Home Assistant version {version} is already installed', { version: target });
    if (options.backup) {
      throw new SupervisorError('A backup before the update cannot be made: backups are not available on this supervisor yet; update with backup false');
    }
    const ref = this.ref(target);
    // nothing can be pulled: a version is there when its image is (this Hearth's own can be built)
    if (!(await imageExists(this.docker, ref)) && !(target === CORE_VERSION && this.image() === CORE_IMAGE)) {
      throw keyedError(400, 'homeassistant_update_image_error', 'Downloading Home Assistant version {version} failed', { version: target });
    }
    const { uuid, done } = this.job('home_assistant_core_update', context, (job) => this.exclusive(() => this.updateNow(context, target, job)));
    if (options.background) {
      done.catch(() => {}); // recorded on the job and in the log
      return { job_id: uuid };
    }
    await done;
    return undefined;
  }

  /**
   * Checks the configuration in a throwaway container of the core's image; an invalid one is a
   * 400 whose message is the check's output without colours.
   */
  async check(): Promise<void> {
    const ref = this.ref();
    await this.ensureImage(this.version() ?? CORE_VERSION);
    await mkdir(this.dataDir, { recursive: true });
    await checkCoreConfig(this.docker, ref, this.dataDir);
  }

  /**
   * Stops the core before a restore replaces its data; answers whether it ran. The container is
   * removed: the next one is created with the settings the backup brings (port, ssl).
   */
  async stopForRestore(context: Context): Promise<boolean> {
    return this.exclusive(async () => {
      const host = this.options.hostProcess;
      const wasRunning = host ? await host.running() : await this.running();
      if (host) await host.stop();
      else await this.container.remove();
      await this.record({ type: 'core_stopped', data: { version: this.version(), reason: 'restore' } }, context);
      return wasRunning;
    });
  }

  /**
   * Starts the core on its restored data (its log is rebuilt from the export at this start). A
   * core container is made anew with `SUPERVISOR_RESTORE_JOB_ID`, the job it can follow.
   */
  async startAfterRestore(context: Context, restoreJobId?: string): Promise<void> {
    await this.exclusive(async () => {
      const host = this.options.hostProcess;
      if (!host) return this.startNow(context, 'core_started', restoreJobId);
      await host.start();
      await this.record({ type: 'core_started', data: { version: this.version(), reason: 'restore' } }, context);
    });
  }

  /** Whether the core runs in a container of a versioned image (not as a host process, as in tests). */
  get runsContainer(): boolean {
    return !this.options.hostProcess;
  }

  /**
   * A restore brings the core's data of `version`: the next container runs that version's image
   * (the container is gone while the data is swapped, so nothing is recreated here). An image
   * that cannot be had is the update's 400 and the version stays.
   */
  async useVersionForRestore(version: string, context: Context): Promise<void> {
    await this.exclusive(async () => {
      const from = this.version();
      if (from === version || !this.runsContainer) return;
      await this.ensureImage(version);
      await this.section.set({ version }, context);
      await this.record({ type: 'core_updated', data: { from, to: version, reason: 'restore' } }, context);
    });
  }

  /** Stops following the engine's events (the container keeps running). */
  async close(): Promise<void> {
    this.container.close();
  }

  // ------------------------------------------------------------------------------------------
  // inside (called with the queue held)

  private async installLocked(context: Context, job?: JobHandle) {
    const built = await this.imageAsChild(job, CORE_VERSION);
    await this.section.set({ version: CORE_VERSION }, context);
    await this.record({ type: 'core_installed', data: { version: CORE_VERSION, image: this.image(), built } }, context);
  }

  /** The image made sure of as the child job `docker_interface_install` (the original's pull). */
  private imageAsChild(job: JobHandle | undefined, version: string, rebuild = false): Promise<boolean> {
    if (!job) return this.ensureImage(version, rebuild);
    return job.child('docker_interface_install', this.containerName, () => this.ensureImage(version, rebuild));
  }

  private async ensureImage(version: string, rebuild = false): Promise<boolean> {
    if (this.image() !== CORE_IMAGE || version !== CORE_VERSION) {
      if (await imageExists(this.docker, this.ref(version))) return false;
      throw keyedError(400, 'homeassistant_update_image_error', 'Downloading Home Assistant version {version} failed', { version });
    }
    return ensureCoreImage(this.docker, { tag: version, rebuild, logLine: (l) => this.options.logger.info(l) });
  }

  /** Creates the container (with a new core token) when there is none, starts it, waits for HTTP. */
  private async startNow(context: Context, type: 'core_started' | 'core_rebuilt' = 'core_started', restoreJobId?: string): Promise<void> {
    this.follow();
    if ((await this.container.start({ context, restoreJobId })) === 'alreadyRunning') return;
    await this.record({ type, data: { version: this.version(), port: this.section.get().port } }, context);
  }

  private async create(context: Context, restoreJobId?: string): Promise<void> {
    const s = this.section.get();
    const version = s.version ?? CORE_VERSION;
    await this.ensureImage(version);
    await mkdir(this.dataDir, { recursive: true });
    const token = await this.options.tokens.rotateCore(context);
    const url = this.options.supervisorUrl();
    const env = [`SUPERVISOR=${url}`, `HASSIO=${url}`, `SUPERVISOR_TOKEN=${token.token}`, `HASSIO_TOKEN=${token.token}`, `TZ=${this.options.timezone()}`];
    if (s.duplicate_log_file) env.push('HA_DUPLICATE_LOG_FILE=1');
    if (restoreJobId) env.push(`SUPERVISOR_RESTORE_JOB_ID=${restoreJobId}`);
    await this.docker.createContainer(coreContainerSpec({ name: this.containerName, image: this.ref(version), env, dataDir: this.dataDir, port: s.port }));
    await this.record({ type: 'core_container_created', data: { version, image: this.ref(version), port: s.port } }, context);
  }

  private async updateNow(context: Context, target: string, job: JobHandle): Promise<void> {
    const from = this.version();
    const wasRunning = await this.running();
    job.stage('image');
    if (target === CORE_VERSION) await this.imageAsChild(job, target);
    job.progress(30);
    job.stage('container');
    await this.container.remove();
    await this.section.set({ version: target }, context);
    try {
      if (wasRunning) await this.startNow(context, 'core_started');
      else await this.container.create({ context });
      job.progress(100);
      await this.record({ type: 'core_updated', data: { from, to: target } }, context);
    } catch (err) {
      this.options.logger.error(`the update to ${target} failed: ${(err as Error).message}; going back to ${from}`);
      await this.record({ type: 'core_update_failed', data: { from, to: target, message: (err as Error).message } }, context);
      try {
        await this.container.remove();
        await this.section.set({ version: from }, context);
        if (wasRunning) await this.startNow(context, 'core_started');
        await this.record({ type: 'core_update_rolled_back', data: { from: target, to: from } }, context);
        await this.options.links.resolution?.addIssue({ type: 'update_rollback', context: 'core' }).catch(() => {});
      } catch (again) {
        this.options.logger.error(`going back to ${from} failed too: ${(again as Error).message}`);
        await this.options.links.resolution?.addIssue({ type: 'update_failed', context: 'core' }).catch(() => {});
        throw keyedError(400, 'homeassistant_update_error', 'Updating Home Assistant failed');
      }
    }
  }

  private async touchSafeMode(): Promise<void> {
    await mkdir(this.dataDir, { recursive: true });
    await writeFile(join(this.dataDir, 'safe-mode'), '');
  }

  private async guard(): Promise<void> {
    const s = this.section.get();
    if (await offlineMigrationRunning({ url: await this.coreUrl(), refreshToken: s.refresh_token, warn: (l) => this.options.logger.warning(l) })) {
      throw new SupervisorError(MIGRATION_MESSAGE, { status: 503 });
    }
  }

  // ------------------------------------------------------------------------------------------
  // watchdog: the engine's events for this container

  /** Follows `die` events of the container (idempotent; reconnects while not closed). */
  follow(): void {
    this.container.follow();
  }

  /**
   * What the watchdog tells: a crash is `core_crashed` and a boot_fail issue; each repair is the
   * job `home_assistant_core_restart_after_problem`, up to 5 starts 10 s apart, recorded as
   * `watchdog_restart`, or `watchdog_gave_up`.
   */
  private watchdogReports(): WatchdogReports<CoreRequest> {
    return {
      crashed: async (exitCode) => {
        const context: Context = { id: this.options.ids.ulid(this.options.clock.now()), parent_id: null, user_id: null };
        this.options.logger.warning(`the core container ${this.containerName} died with exit code ${exitCode}`);
        await this.record({ type: 'core_crashed', data: { exit_code: exitCode, version: this.version() } }, context);
        // no dedicated issue type in the original for a crashed core: boot_fail (context core) names it closest
        await this.options.links.resolution?.addIssue({ type: 'boot_fail', context: 'core', reference: this.containerName }, [{ type: 'execute_restart', context: 'core', reference: this.containerName }]).catch(() => {});
        return { request: { context }, watchdog: this.section.get().watchdog };
      },
      repairing: ({ context }, repair) => void this.job('home_assistant_core_restart_after_problem', context, () => repair).done.catch(() => {}),
      restarted: async ({ context }, attempt, exitCode) => {
        await this.record({ type: 'watchdog_restart', data: { attempt, exit_code: exitCode } }, context);
        this.options.logger.info(`watchdog: the core is running again (restart ${attempt})`);
      },
      attemptFailed: async (_, attempt, error) => {
        this.options.logger.warning(`watchdog: restart ${attempt} of the core failed: ${error.message}`);
        return true;
      },
      gaveUp: async ({ context }, reason) => {
        if (reason === 'rate') this.options.logger.error('watchdog: more than 10 restarts of the core in 30 minutes, not restarting it');
        await this.record({ type: 'watchdog_gave_up', data: { reason } }, context);
      },
      unreported: (error) => this.options.logger.error(`watchdog: ${error.message}`),
    };
  }

  // ------------------------------------------------------------------------------------------

  private exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.container.exclusive(work);
  }

  private job<T>(name: string, context: Context, work: (job: JobHandle) => Promise<T>): { uuid: string; done: Promise<T> } {
    this.follow();
    return (this.options.links.jobs ?? untrackedJobs(this.options.ids)).run({ name, reference: null, context }, work);
  }

  private async record(kind: CoreRuntimeRecordKind, context: Context): Promise<void> {
    await this.options.log.append([containerRecord(CORE_RUNTIME_STREAM, this.containerName, kind, context, this.options.clock.now())]);
  }
}
