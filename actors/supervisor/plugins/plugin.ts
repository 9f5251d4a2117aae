import type Docker from 'dockerode';
import type { Clock, Ids } from '../../clock.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context, EventLog } from '../../../store/types.ts';
import type { Settings, SettingsSection } from '../settings.ts';
import type { Engine, ContainerStats } from '../docker/engine.ts';
import type { Jobs, JobHandle } from '../jobs/types.ts';
import type { Resolution } from '../resolution/types.ts';
import type { UpdaterView } from '../updater/types.ts';
import { SupervisorError } from '../errors.ts';
import { createContainerActor, type ContainerActor, type WatchdogReports } from '../docker/container-actor.ts';
import { containerRecord } from '../docker/container-records.ts';
import { isNewer } from '../../version-order.ts';
import { CORE_VERSION } from '../../version.ts';
import { ensurePluginImage, pluginImage } from './images.ts';
import type { PluginNetwork } from './network.ts';
import { OBSERVER_PORT, PLUGIN_SPECS, type PluginName, type PluginSpec } from './specs.ts';
import { PLUGIN_UPDATE_CONDITIONS } from '../jobs/conditions.ts';
import { untrackedJobs } from '../jobs/jobs.ts';

/**
 * One plugin as a container on the local engine, with the core's lifecycle: its image made
 * here (images.ts), installed at the channel's version, started at supervisor start, restarted
 * on purpose or when its container dies while meant to run, updated by building the asked
 * version and making the container anew. Every change is a record on `plugins/<name>`
 * (`plugin_installed`, `plugin_started`, `plugin_restarted`, `plugin_updated`, `plugin_crashed`);
 * the installed version is the settings section `plugin_<name>`. One operation at a time.
 */

export const PLUGIN_STREAM_PREFIX = 'plugins/';

/** What a plugin records on `plugins/<name>`, less the container's name each record starts with (an audit trail; never read back). */
export type PluginRecordKind =
  | { type: 'plugin_installed'; data: { version: string; built: boolean } }
  | { type: 'plugin_started'; data: { version: string | null; address: string | null } }
  | { type: 'plugin_restarted'; data: { version: string | null; address?: string | null; attempt?: number; exit_code?: number } }
  | { type: 'plugin_stopped'; data: { version: string | null } }
  | { type: 'plugin_updated'; data: { from: string | null; to: string } }
  | { type: 'plugin_crashed'; data: { exit_code: number; version: string | null } }
  | { type: 'watchdog_gave_up'; data: { reason: string } };

/** What every plugin's info starts with. */
export interface PluginVersionInfo {
  version: string | null;
  version_latest: string | null;
  update_available: boolean;
}

export interface PluginOptions {
  name: PluginName;
  log: EventLog;
  clock: Clock;
  ids: Ids;
  logger: Logger;
  settings: Settings;
  engine: Engine;
  containerName: string;
  /** the network as configured (the plugins' addresses), known without asking the engine */
  planned: PluginNetwork;
  /** the network on the engine, made on first use */
  network(): Promise<PluginNetwork>;
  jobs(): Jobs | undefined;
  updater(): UpdaterView | undefined;
  resolution(): Resolution | undefined;
  timezone(): string;
  /** the host side made ready before each start (config files); answers the container's binds */
  prepare?(): Promise<string[]>;
  /** the observer's port on the host */
  hostPort?: number;
  /** more environment for a new container (the cli's and the observer's token), asked at each creation */
  environment?(context: Context): Promise<string[]>;
  /** the pause between the watchdog's attempts (default 10 s) */
  watchdogPauseMs?: number;
}

/** What a plugin container's steps are given: the context of the records. */
interface PluginRequest {
  context: Context;
}

/** seconds a plugin gets to stop before the engine kills it */
const PLUGIN_STOP_TIMEOUT = 10;

export class Plugin<S extends Record<string, unknown> = Record<string, unknown>> {
  readonly name: PluginName;
  readonly spec: PluginSpec;
  readonly containerName: string;
  readonly section: SettingsSection<{ version: string | null } & S>;
  protected readonly docker: Docker;
  private readonly container: ContainerActor<PluginRequest>;

  constructor(
    protected readonly options: PluginOptions,
    defaults: S = {} as S,
  ) {
    this.name = options.name;
    this.spec = PLUGIN_SPECS[options.name];
    this.containerName = options.containerName;
    this.docker = options.engine.docker;
    this.section = options.settings.section(`plugin_${options.name}`, { version: null as string | null, ...defaults });
    this.container = createContainerActor<PluginRequest, string[]>({
      engine: options.engine,
      name: options.containerName,
      // as the core's: a clean exit is the plugin's own, and a plugin that cannot be brought up is still wanted
      policy: { cleanExitIsCrash: false, staysWantedWhenDown: true, newContainerEachStart: false },
      clock: options.clock,
      stopTimeout: () => PLUGIN_STOP_TIMEOUT,
      retryPauseMs: options.watchdogPauseMs,
      steps: {
        prepare: () => this.prepare(),
        create: (request, binds) => this.create(binds, request.context),
      },
      watchdog: this.watchdogReports(),
    });
  }

  version(): string | null {
    return this.section.get().version;
  }

  /** The channel's version, else the one this Hearth makes (its own release). */
  latest(): string {
    return this.options.updater()?.latest(this.name) ?? this.version() ?? CORE_VERSION;
  }

  versionInfo(): PluginVersionInfo {
    const version = this.version();
    const latest = this.latest();
    return { version, version_latest: latest, update_available: isNewer(latest, version) };
  }

  /** The plugin's address on the plugin network (null for a plugin on the host's network). */
  address(): string | null {
    return this.spec.hostPart === null ? null : this.options.planned.address(this.spec.hostPart);
  }

  inspect(): Promise<Docker.ContainerInspectInfo | null> {
    return this.options.engine.inspect(this.containerName);
  }

  async running(): Promise<boolean> {
    return (await this.inspect())?.State?.Running === true;
  }

  /** One statistics sample; a 400 naming the container when it does not run. */
  async stats(): Promise<ContainerStats> {
    if (!(await this.running())) throw new SupervisorError(`Plugin ${this.name} is not running: its container ${this.containerName} is stopped`);
    return this.options.engine.stats(this.containerName);
  }

  // ------------------------------------------------------------------------------------------
  // lifecycle

  /** Supervisor start: install at the channel's version when never installed, then run it. */
  async boot(context: Context): Promise<void> {
    this.container.follow();
    await this.exclusive(async () => {
      if (this.version() === null) await this.installLocked(context, this.latest());
      if (await this.running()) {
        this.container.adopt();
        return;
      }
      await this.startLocked(context, 'plugin_started');
    });
  }

  /** Restarts the container (made first when there is none); config files are written again. */
  async restart(context: Context): Promise<void> {
    await this.exclusive(async () => {
      if (this.version() === null) await this.installLocked(context, this.latest());
      this.container.follow();
      // a missing container is made: that start is recorded as a start is
      if ((await this.container.restart({ context })) === 'created') await this.record({ type: 'plugin_restarted', data: { version: this.version(), address: this.address() } }, context);
      else await this.record({ type: 'plugin_restarted', data: { version: this.version() } }, context);
    });
  }

  /** Stops the container (the supervisor stopping leaves plugins running; this is for tests and repair). */
  async stop(context: Context): Promise<void> {
    await this.exclusive(async () => {
      if (await this.container.stop()) await this.record({ type: 'plugin_stopped', data: { version: this.version() } }, context);
    });
  }

  /**
   * Updates to `version` (default: the channel's latest): the image of that version is made, the
   * container made anew from it. The version in use is a 400 for the plugins that say so, a
   * no-op for the others.
   */
  async update(context: Context, version?: string): Promise<void> {
    // the original's method: PluginDns.update, PluginAudio.update, ...
    await this.options.jobs()?.requireConditions(`Plugin${this.name[0].toUpperCase()}${this.name.slice(1)}.update`, PLUGIN_UPDATE_CONDITIONS);
    const target = version ?? this.latest();
    if (target === this.version()) {
      if (this.spec.refusesSameVersion) throw new SupervisorError(`Version ${target} is already in use`);
      return;
    }
    const work = (job: JobHandle) =>
      this.exclusive(async () => {
        const from = this.version();
        job.stage('image');
        await ensurePluginImage(this.docker, this.name, target, (l) => this.options.logger.info(l));
        job.progress(50);
        job.stage('container');
        await this.container.remove();
        await this.section.set({ version: target } as Partial<{ version: string | null } & S>, context);
        await this.startLocked(context, 'plugin_started');
        await this.record({ type: 'plugin_updated', data: { from, to: target } }, context);
      });
    await (this.options.jobs() ?? untrackedJobs(this.options.ids)).run({ name: `plugin_${this.name}_update`, reference: null, context }, work).done;
  }

  /** Makes the installed version's image again when it is missing or stale (`/supervisor/repair`); true when it did. */
  async repair(): Promise<boolean> {
    const version = this.version();
    if (version === null) return false;
    return ensurePluginImage(this.docker, this.name, version, (l) => this.options.logger.info(l));
  }

  /** Stops following the engine (the container keeps running, as the original's plugins do). */
  close(): void {
    this.container.close();
  }

  // ------------------------------------------------------------------------------------------
  // inside (the queue held)

  /** Makes the host side ready before a start; answers the container's binds. */
  protected async prepare(): Promise<string[]> {
    return (await this.options.prepare?.()) ?? [];
  }

  private async installLocked(context: Context, version: string): Promise<void> {
    const built = await ensurePluginImage(this.docker, this.name, version, (l) => this.options.logger.info(l));
    await this.section.set({ version } as Partial<{ version: string | null } & S>, context);
    await this.record({ type: 'plugin_installed', data: { version, built } }, context);
  }

  private async startLocked(context: Context, type: 'plugin_started'): Promise<void> {
    this.container.follow();
    if ((await this.container.start({ context })) === 'alreadyRunning') return;
    await this.record({ type, data: { version: this.version(), address: this.address() } }, context);
  }

  private async create(binds: string[], context: Context): Promise<void> {
    const version = this.version() ?? CORE_VERSION;
    await ensurePluginImage(this.docker, this.name, version, (l) => this.options.logger.info(l));
    const hostNetwork = this.spec.hostPart === null;
    const network = hostNetwork ? null : await this.options.network();
    const ports: Docker.ContainerCreateOptions = {};
    if (this.name === 'observer') {
      ports.ExposedPorts = { [`${OBSERVER_PORT}/tcp`]: {} };
    }
    await this.docker.createContainer({
      name: this.containerName,
      Hostname: hostNetwork ? undefined : `hassio-${this.name}`,
      Image: `${pluginImage(this.name)}:${version}`,
      Env: [`TZ=${this.options.timezone()}`, ...((await this.options.environment?.(context)) ?? [])],
      Labels: { supervisor_managed: '', 'io.hass.type': 'plugin', 'io.hass.name': this.name },
      ...ports,
      StopTimeout: 10,
      HostConfig: {
        Binds: binds,
        // the supervisor listens on the host, which is the network's gateway
        ExtraHosts: network ? [`supervisor:${network.gateway}`, `hassio:${network.gateway}`] : ['supervisor:127.0.0.1', 'hassio:127.0.0.1'],
        NetworkMode: hostNetwork ? 'host' : network!.name,
        PortBindings: this.name === 'observer' ? { [`${OBSERVER_PORT}/tcp`]: [{ HostIp: '', HostPort: String(this.options.hostPort ?? OBSERVER_PORT) }] } : undefined,
        Init: false,
        // the original's observer runs with `always`; the others are the supervisor's to restart
        RestartPolicy: { Name: this.name === 'observer' ? 'always' : 'no' },
      },
      NetworkingConfig: network ? { EndpointsConfig: { [network.name]: { IPAMConfig: { IPv4Address: network.address(this.spec.hostPart!) } } } } : undefined,
    });
  }

  // ------------------------------------------------------------------------------------------
  // watchdog

  /**
   * What a plugin's watchdog tells: a crash is `plugin_crashed`; each repair is the job
   * `plugin_<name>_restart_after_problem` (when there is a job tracker), up to 5 starts 10 s
   * apart, each `plugin_restarted`; giving up after them is a `fatal_error` issue.
   */
  private watchdogReports(): WatchdogReports<PluginRequest> {
    return {
      crashed: async (exitCode) => {
        const context: Context = { id: this.options.ids.ulid(this.options.clock.now()), parent_id: null, user_id: null };
        this.options.logger.warning(`the ${this.name} plugin's container ${this.containerName} died with exit code ${exitCode}`);
        await this.record({ type: 'plugin_crashed', data: { exit_code: exitCode, version: this.version() } }, context);
        return { request: { context }, watchdog: true };
      },
      repairing: ({ context }, repair) => {
        const jobs = this.options.jobs();
        if (jobs) void jobs.run({ name: `plugin_${this.name}_restart_after_problem`, reference: null, context }, () => repair).done.catch(() => {});
      },
      restarted: async ({ context }, attempt, exitCode) => {
        await this.record({ type: 'plugin_restarted', data: { version: this.version(), attempt, exit_code: exitCode } }, context);
      },
      attemptFailed: async (_, attempt, error) => {
        this.options.logger.warning(`restart ${attempt} of the ${this.name} plugin failed: ${error.message}`);
        return true;
      },
      gaveUp: async ({ context }, reason) => {
        if (reason === 'rate') {
          this.options.logger.error(`watchdog: more than 10 restarts of the ${this.name} plugin in 30 minutes, not restarting it`);
          await this.record({ type: 'watchdog_gave_up', data: { reason } }, context);
        } else await this.options.resolution()?.addIssue({ type: 'fatal_error', context: 'plugin', reference: this.name }).catch(() => {});
      },
      unreported: (error) => this.options.logger.error(`watchdog of the ${this.name} plugin: ${error.message}`),
    };
  }

  protected exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.container.exclusive(work);
  }

  protected async record(kind: PluginRecordKind, context: Context): Promise<void> {
    await this.options.log.append([containerRecord(`${PLUGIN_STREAM_PREFIX}${this.name}`, this.containerName, kind, context, this.options.clock.now())]);
  }
}
