import { createReadStream } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type Docker from 'dockerode';
import { createActor, type Actor } from 'xstate';
import type { Area } from '../../area.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';
import type { Tokens } from '../tokens.ts';
import type { Engine, ContainerStats } from '../docker/engine.ts';
import type { Jobs, JobHandle } from '../jobs/types.ts';
import type { Resolution } from '../resolution/types.ts';
import { runInBackground, untrackedJob } from '../jobs/jobs.ts';
import { SupervisorError, keyedError } from '../errors.ts';
import { archOf } from '../machine.ts';
import { appMachine, isStable, type AppMachineState } from '../../../machines/app.machine.ts';
import { backupMode, type AppConfig, type RepositoryApp } from './repository.ts';
import { splitCommandLine } from './command-line.ts';
import type { AppStore } from './store.ts';
import type { AppsView, AppState, AppTarget, AppUserSettings, InstalledApp } from './types.ts';
import { appImageName, buildAppImage, imageExists, removeAppImage } from './image.ts';
import { invalidOptionsMessage, mergeOptions, parseSchema, validateOptions, type Schema } from './options-schema.ts';
import { appConfigDir, appDataDir, containerSpec, hostFolders, type AppContainerInput } from './container-spec.ts';
import { effectiveBoot, effectiveNetwork, ingressToken, newUserSettings, roleOf } from './user-settings.ts';
import { DieEvents, type ContainerDeath } from '../docker/die-events.ts';
import { createContainerActor, type ContainerActor, type WatchdogReports } from '../docker/container-actor.ts';
import type { PanelPush } from './panel-push.ts';
import { appDeviceAccess, type AppDeviceAccess } from '../hardware/app-devices.ts';
import { hostDevices } from '../hardware/devices.ts';
import { swapDirectory } from '../backups/restore/swap.ts';
import { UPDATE_CONDITIONS } from '../jobs/conditions.ts';

/**
 * The installed apps, one actor each. Every change is a record on `supervisor/app/<slug>`
 * (`app_installed`, `app_options_set`, `app_started`, `app_stopped`, `app_crashed`,
 * `watchdog_restart`, `app_rebuilt`, `app_updated`, `app_uninstalled`...); the records that change
 * what is kept carry the app's whole `config` and `user`, so the manager is rebuilt from the log
 * like any area. Containers are `<prefix><slug>` on the engine, made fresh on each start.
 * Operations on one app run one at a time, each as a job.
 */

export const APP_STREAM_PREFIX = 'supervisor/app/';

export interface AppManagerOptions {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  say: Logger;
  tokens: Tokens;
  engine: Engine;
  store: () => AppStore | undefined;
  jobs: () => Jobs | undefined;
  /** where a port conflict is told (issue `app_port_conflict`, context `addon`) */
  resolution?: () => Resolution | undefined;
  /** the supervisor's data directory: `apps/data/<slug>`, `app_configs/<slug>`, share, media... */
  dataDir: string;
  coreDataDir: string;
  /** container names are this plus the slug (default `app_`; tests give each supervisor its own) */
  containerPrefix?: string;
  supervisorUrl(): string;
  timezone(): string;
  /** the watchdog's pause between attempts (default 10 s) */
  watchdogPauseMs?: number;
  /** how long a start waits for an image healthcheck (default 120 s) */
  startTimeoutMs?: number;
  /** shows or drops an app's ingress panel in the core; never throws */
  pushPanel?: PanelPush;
  /** the dns plugin's network and address for new containers, null before it is installed */
  dns?: () => Promise<{ network: string; ip: string } | null>;
}

interface Kept {
  slug: string;
  repository: string;
  config: AppConfig;
  user: AppUserSettings;
}

/** What an app container's steps are given: the context of the records, the options already checked (an API start). */
interface AppRequest {
  context: Context;
  options?: Record<string, unknown>;
}

/** What an app's start readies before its container is made. */
interface AppPreparation {
  options: Record<string, unknown>;
  image: string;
  hardware: AppDeviceAccess | undefined;
  dns: { network: string; ip: string } | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PORT_CONFLICT = /(?:0\.0\.0\.0|\[::\]|:):?(\d+).*(?:address already in use|port is already allocated)|port is already allocated|address already in use/;

/** One installed app: what is kept of it, its state as the API shows it, its container. */
class AppActor {
  readonly machine: Actor<typeof appMachine>;
  /** the last state the API shows (transitional states show this) */
  stable: AppState = 'unknown';
  readonly container: ContainerActor<AppRequest>;

  constructor(
    public kept: Kept,
    containerOf: (app: AppActor) => ContainerActor<AppRequest>,
  ) {
    this.container = containerOf(this);
    this.machine = createActor(appMachine).start();
    this.machine.subscribe((s) => {
      const value = s.value as AppMachineState;
      if (isStable(value)) this.stable = value;
    });
    this.machine.send({ type: 'installed' });
  }

  get state(): AppState {
    return this.stable;
  }

  exclusive<T>(work: () => Promise<T>): Promise<T> {
    return this.container.exclusive(work);
  }

  stop(): void {
    this.machine.stop();
    this.container.close();
  }
}

/** bytes of a backup command's output kept for the log */
const EXEC_OUTPUT_KEPT = 64 * 1024;

export class AppManager implements AppsView, Area {
  readonly name = 'supervisor-apps';
  readonly snapshotVersion = 1;
  readonly streamPrefix = APP_STREAM_PREFIX;
  readonly latestSuffices = false;
  private readonly actors = new Map<string, AppActor>();
  private readonly docker: Docker;
  private readonly prefix: string;
  private readonly deaths: DieEvents;
  private closed = false;

  constructor(private readonly o: AppManagerOptions) {
    this.docker = o.engine.docker;
    this.prefix = o.containerPrefix ?? 'app_';
    this.deaths = new DieEvents(this.docker, { label: ['io.hass.type=app'] }, (death) => this.onDeath(death));
    o.log.onCommit((records) => {
      for (const r of records) if (this.owns(r)) this.evolve(r);
    });
  }

  // ------------------------------------------------------------------------------------------
  // the area: state from the log

  owns(record: EventRecord): boolean {
    return record.stream.startsWith(APP_STREAM_PREFIX);
  }

  evolve(record: EventRecord): void {
    const slug = record.stream.slice(APP_STREAM_PREFIX.length);
    const data = record.data as Partial<Kept> & { exit_code?: number };
    const actor = this.actors.get(slug);
    switch (record.type) {
      case 'app_installed':
        actor?.stop();
        this.actors.set(slug, new AppActor({ slug, repository: data.repository!, config: data.config!, user: data.user! }, (app) => this.containerOf(app)));
        return;
      case 'app_uninstalled':
        actor?.stop();
        this.actors.delete(slug);
        return;
    }
    if (!actor) return;
    if (data.config) actor.kept = { ...actor.kept, config: data.config };
    if (data.user) actor.kept = { ...actor.kept, user: data.user };
    switch (record.type) {
      case 'app_started':
      case 'watchdog_restart':
        actor.machine.send({ type: 'running', healthy: true });
        break;
      case 'app_stopped':
        actor.machine.send({ type: 'stopped' });
        break;
      case 'app_crashed':
        actor.machine.send({ type: 'died', exitCode: data.exit_code ?? 1 });
        break;
      case 'app_start_failed':
        actor.machine.send({ type: 'failed' });
        break;
    }
  }

  snapshot(): unknown {
    return [...this.actors.values()].map((a) => ({ ...a.kept, state: a.state }));
  }

  restore(data: unknown): void {
    for (const k of data as Array<Kept & { state: AppState }>) {
      const actor = new AppActor({ slug: k.slug, repository: k.repository, config: k.config, user: k.user }, (app) => this.containerOf(app));
      if (k.state === 'started') actor.machine.send({ type: 'running', healthy: true });
      this.actors.set(k.slug, actor);
    }
  }

  // ------------------------------------------------------------------------------------------
  // AppsView

  list(): InstalledApp[] {
    return [...this.actors.values()].map((a) => this.view(a));
  }

  get(slug: string): InstalledApp | undefined {
    const a = this.actors.get(slug);
    return a ? this.view(a) : undefined;
  }

  byIngressToken(token: string): InstalledApp | undefined {
    for (const a of this.actors.values()) if (a.kept.user.ingress_token === token) return this.view(a);
    return undefined;
  }

  async ingressTarget(slug: string): Promise<AppTarget | null> {
    const a = this.actors.get(slug);
    if (!a || !a.kept.config.ingress) return null;
    const info = await this.inspect(a);
    if (!info?.State?.Running) return null;
    const port = a.kept.config.ingress_port;
    if (a.kept.config.host_network) return { host: '127.0.0.1', port };
    const ip = Object.values(info.NetworkSettings?.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
    return ip ? { host: ip, port } : null;
  }

  private view(a: AppActor): InstalledApp {
    return { slug: a.kept.slug, repository: a.kept.repository, config: a.kept.config, user: a.kept.user, state: a.state };
  }

  // ------------------------------------------------------------------------------------------
  // reading

  containerName(slug: string): string {
    return `${this.prefix}${slug}`;
  }

  dataDirOf(slug: string): string {
    return appDataDir(this.o.dataDir, slug);
  }

  /** The installed app, or the original's errors: 400 `App is not installed` when only the store has it, else 404. */
  installed(slug: string): InstalledApp {
    const a = this.actors.get(slug);
    if (a) return this.view(a);
    if (this.o.store()?.find(slug)) throw new SupervisorError('App is not installed');
    throw new SupervisorError(`App ${slug} does not exist`, { status: 404 });
  }

  /** The store's app of an installed one (null when the store no longer has it: `detached`). */
  storeApp(slug: string): RepositoryApp | null {
    return this.o.store()?.find(slug) ?? null;
  }

  /** What of the host's hardware the app's config asks for, read from the host as it is now. */
  private async hardwareOf(config: AppConfig): Promise<AppDeviceAccess | undefined> {
    if (!config.devices.length && !config.uart && !config.usb && !config.gpio && !config.video && !config.udev && !config.devicetree) return undefined;
    const needsList = config.uart || config.video || config.gpio;
    const access = appDeviceAccess(config, needsList ? await hostDevices() : []);
    if (access.missing.length) this.o.say.warning(`app ${config.slug}: ${access.missing.join(', ')} not on this host, started without`);
    return access;
  }

  async inspectOf(slug: string): Promise<Docker.ContainerInspectInfo | null> {
    const a = this.actors.get(slug);
    return a ? this.inspect(a) : null;
  }

  /** The options the app runs with: its config's defaults with the user's over them. */
  options(app: InstalledApp): Record<string, unknown> {
    return mergeOptions(app.config.options, app.user.options);
  }

  schemaOf(config: AppConfig): Schema {
    return parseSchema(config.schema);
  }

  /** The app's options checked against its schema, or the original's `app_configuration_invalid_error`. */
  validOptions(app: InstalledApp, options: unknown = this.options(app)): Record<string, unknown> {
    const result = validateOptions(this.schemaOf(app.config), options, { name: app.config.name, slug: app.slug }, { warn: (m) => this.o.say.warning(`app ${app.slug}: ${m}`) });
    if (!result.ok) throw keyedError(400, 'app_configuration_invalid_error', invalidOptionsMessage('{app}', '{validation_error}'), { app: app.slug, validation_error: result.message });
    return result.value;
  }

  async stats(slug: string): Promise<ContainerStats> {
    const a = this.actor(slug);
    const info = await this.inspect(a);
    if (!info?.State?.Running) throw notRunning(slug);
    return this.o.engine.stats(this.containerName(slug));
  }

  // ------------------------------------------------------------------------------------------
  // changes of settings

  /** Stores new user settings (checked by the caller) as one record. */
  async setUser(slug: string, patch: Partial<AppUserSettings>, context: Context, type = 'app_options_set'): Promise<void> {
    const a = this.actor(slug);
    await a.exclusive(() => this.record(slug, type, { user: { ...a.kept.user, ...patch } }, context));
    // as the original: each time the option is given, not only when it changes, so a core that
    // missed a push catches up
    if (patch.ingress_panel !== undefined && a.kept.config.ingress) await this.o.pushPanel?.(slug, a.kept.user.ingress_panel);
  }

  // ------------------------------------------------------------------------------------------
  // lifecycle

  /** Installs an app of the store (job `app_manager_install`); refusals come before the job. */
  async install(key: string, context: Context, background = false): Promise<unknown> {
    await this.jobs().requireConditions('AppManager.install', UPDATE_CONDITIONS);
    const store = this.requireStore();
    const app = store.app(key);
    if (this.actors.has(key)) throw keyedError(400, 'app_already_installed_error', 'App {app} is already installed', { app: app.config.name, slug: key });
    store.checkAvailable(app);
    return runInBackground(this.jobs(), { name: 'app_manager_install', reference: key, context }, (job) => this.installNow(app, context, job), background);
  }

  private async installNow(app: RepositoryApp, context: Context, job: JobHandle): Promise<void> {
    if (this.actors.has(app.key)) throw keyedError(400, 'app_already_installed_error', 'App {app} is already installed', { app: app.config.name, slug: app.key });
    job.stage('image');
    await job.child('docker_interface_install', this.containerName(app.key), () => this.buildImage(app));
    job.progress(80);
    job.stage('settings');
    await mkdir(this.dataDirOf(app.key), { recursive: true });
    const token = await this.o.tokens.issue({ name: app.key, kind: 'app', role: roleOf(app.config), slug: app.key }, context);
    const user = newUserSettings(app.config, { uuid: this.o.ids.uuidHex(), accessToken: token.token, ingressToken: ingressToken(this.o.ids), image: appImageName(app, archOf()) });
    await this.record(app.key, 'app_installed', { repository: app.repository, config: app.config, user }, context);
    this.o.say.info(`app ${app.key} ${app.config.version} installed`);
    job.progress(100);
  }

  async uninstall(slug: string, context: Context, o: { removeConfig?: boolean } = {}): Promise<void> {
    const a = this.actor(slug);
    await this.job('app_manager_uninstall', slug, context, () =>
      a.exclusive(async () => {
        await a.container.remove();
        const ref = `${a.kept.user.image ?? ''}:${a.kept.user.version}`;
        if (a.kept.user.image) await removeAppImage(this.docker, ref);
        await rm(this.dataDirOf(slug), { recursive: true, force: true });
        if (o.removeConfig) await rm(appConfigDir(this.o.dataDir, slug), { recursive: true, force: true });
        const token = this.o.tokens.list().find((t) => t.token === a.kept.user.access_token);
        if (token) await this.o.tokens.revoke(token.id, context);
        const hadPanel = a.kept.config.ingress && a.kept.user.ingress_panel;
        await this.record(slug, 'app_uninstalled', { remove_config: o.removeConfig === true }, context);
        this.o.say.info(`app ${slug} uninstalled`);
        if (hadPanel) await this.o.pushPanel?.(slug, false);
      }),
    );
  }

  /**
   * Puts an app back as a backup holds it (supervisor-wire §5.7): the running container stopped,
   * the image loaded from the backup's `image.tar` or made here when missing, the data and config
   * folders swapped for the staged ones, the backup's settings kept, started when it was.
   * The caller validated `addon.json`; a new install gets a token of this supervisor.
   */
  async restoreFromBackup(slug: string, part: RestoredApp, context: Context): Promise<void> {
    const existing = this.actors.get(slug);
    if (existing) await existing.exclusive(() => this.stopNow(existing, context));
    const config = part.system as unknown as AppConfig;
    const repository = typeof part.system.repository === 'string' ? part.system.repository : (existing?.kept.repository ?? 'local');
    const user = { ...(part.user as unknown as AppUserSettings), version: part.version };
    if (existing) user.access_token = existing.kept.user.access_token;
    else user.access_token = (await this.o.tokens.issue({ name: slug, kind: 'app', role: roleOf(config), slug }, context)).token;
    user.image ??= appImageName({ key: slug, repository, config } as RepositoryApp, archOf());
    const ref = `${user.image}:${user.version}`;
    // an image already here under the same name and version is the one the backup saved
    if (part.imageTar && !(await imageExists(this.docker, ref))) await this.loadImage(part.imageTar);
    if (!(await imageExists(this.docker, ref))) {
      const app = this.storeApp(slug);
      if (!app || app.config.version !== user.version) throw keyedError(400, 'app_unknown_error', 'An unknown error occurred with app {app}. Check Supervisor logs for details', { app: slug });
      await this.buildImage(app);
    }
    await swapDirectory(this.dataDirOf(slug), part.dataDir);
    if (part.configDir) await swapDirectory(appConfigDir(this.o.dataDir, slug), part.configDir);
    if (existing) await this.record(slug, 'app_restored', { config, user }, context);
    else await this.record(slug, 'app_installed', { repository, config, user, restored: true }, context);
    this.o.say.info(`app ${slug} ${user.version} restored from a backup`);
    if (part.state === 'started') {
      const a = this.actor(slug);
      await a.exclusive(() => this.startNow(a, context));
    }
  }

  private async loadImage(path: string): Promise<void> {
    const stream = await this.docker.loadImage(createReadStream(path));
    await new Promise<void>((ok, fail) => this.docker.modem.followProgress(stream, (err: Error | null) => (err ? fail(err) : ok())));
  }

  async start(slug: string, context: Context): Promise<void> {
    const a = this.actor(slug);
    await this.job('app_start', slug, context, () => a.exclusive(() => this.startNow(a, context)));
  }

  async stop(slug: string, context: Context): Promise<void> {
    const a = this.actor(slug);
    await this.job('app_stop', slug, context, () => a.exclusive(() => this.stopNow(a, context)));
  }

  async restart(slug: string, context: Context): Promise<void> {
    const a = this.actor(slug);
    await this.job('app_restart', slug, context, () =>
      a.exclusive(async () => {
        await this.stopNow(a, context).catch((err) => this.o.say.warning(`app ${slug}: stopping for the restart failed: ${(err as Error).message}`));
        await this.startNow(a, context);
      }),
    );
  }

  /** Builds the image again from the store's copy and makes the container anew when it ran. */
  async rebuild(slug: string, context: Context, o: { force?: boolean } = {}): Promise<void> {
    const a = this.actor(slug);
    const app = this.storeApp(slug);
    if (!app) throw keyedError(400, 'app_not_in_store_error', 'App {app} is not available inside store', { app: a.kept.config.name, slug });
    if (app.config.image !== null && !o.force) throw keyedError(400, 'app_rebuild_image_based_error', 'Cannot rebuild app {app}, it is image-based', { app: a.kept.config.name, slug });
    if (app.config.version !== a.kept.user.version) {
      throw keyedError(400, 'app_rebuild_version_changed_error', 'Local and store versions of app {app} differ, use Update instead of Rebuild', { app: a.kept.config.name, slug });
    }
    await this.job('app_rebuild', slug, context, (job) =>
      a.exclusive(async () => {
        const wasRunning = (await this.inspect(a))?.State?.Running === true;
        if (wasRunning) await this.stopNow(a, context, false);
        job.stage('image');
        await this.buildImage(app, true);
        await this.record(slug, 'app_rebuilt', { version: a.kept.user.version }, context);
        if (wasRunning) await this.startNow(a, context);
      }),
    );
  }

  /** Updates to the store's version (job `app_manager_update`); refusals come before the job. */
  async update(slug: string, context: Context, o: { background?: boolean; backup?: boolean } = {}): Promise<unknown> {
    await this.jobs().requireConditions('AppManager.update', UPDATE_CONDITIONS);
    const a = this.actors.get(slug);
    const store = this.requireStore();
    if (!a) {
      store.app(slug);
      throw keyedError(400, 'app_not_installed_error', 'App {slug} is not installed', { slug });
    }
    const app = store.find(slug);
    if (!app) throw keyedError(400, 'app_not_in_store_error', 'App {app} is not available inside store', { app: a.kept.config.name, slug });
    if (app.config.version === a.kept.user.version) throw keyedError(400, 'app_no_update_available_error', 'No update available for app {app}', { app: a.kept.config.name, slug });
    store.checkAvailable(app);
    if (o.backup) throw new SupervisorError('A backup before the update cannot be made: backups are not available on this supervisor yet; update with backup false');
    return runInBackground(
      this.jobs(),
      { name: 'app_manager_update', reference: slug, context },
      (job) =>
        a.exclusive(async () => {
          const from = a.kept.user.version;
          job.stage('image');
          await job.child('docker_interface_install', this.containerName(slug), () => this.buildImage(app));
          const wasRunning = (await this.inspect(a))?.State?.Running === true;
          if (wasRunning) await this.stopNow(a, context, false);
          const oldRef = `${a.kept.user.image}:${from}`;
          await this.record(slug, 'app_updated', { from, to: app.config.version, config: app.config, user: { ...a.kept.user, version: app.config.version, image: appImageName(app, archOf()) } }, context);
          if (a.kept.user.image && `${a.kept.user.image}:${a.kept.user.version}` !== oldRef) await removeAppImage(this.docker, oldRef);
          if (wasRunning) await this.startNow(a, context);
        }),
      o.background === true,
    );
  }

  /**
   * Before the app's backup, or a freeze (supervisor-wire §5.4, §5.8): a running `cold` app is
   * stopped, a running `hot` one runs its `backup_pre` inside its container; a job under
   * `parent`. Answers whether it was running; only then is endBackup() due. A pre command that
   * fails throws `app_pre_post_backup_command_returned_error`.
   */
  async beginBackup(slug: string, context: Context, parent?: JobHandle): Promise<boolean> {
    const a = this.actor(slug);
    return this.jobUnder(parent, 'app_begin_backup', slug, context, async () => {
      if (!(await this.inspect(a))?.State?.Running) return false;
      const { mode, pre } = backupMode(a.kept.config);
      if (mode === 'cold') {
        this.o.say.info(`app ${slug}: stopped for its cold backup`);
        await a.exclusive(() => this.stopNow(a, context));
      } else if (pre) await this.backupCommand(a, pre);
      return true;
    });
  }

  /**
   * After the backup of an app beginBackup() found running: a `cold` app is started again (the
   * answer settles once it runs, for the backup's `await_app_restarts`), a `hot` one runs its
   * `backup_post`.
   */
  async endBackup(slug: string, context: Context, parent?: JobHandle): Promise<{ started?: Promise<void> }> {
    const a = this.actor(slug);
    return this.jobUnder(parent, 'app_end_backup', slug, context, async () => {
      const { mode, post } = backupMode(a.kept.config);
      if (mode === 'cold') {
        this.o.say.info(`app ${slug}: started again after its cold backup`);
        const started = a.exclusive(() => this.startNow(a, context));
        started.catch((err) => this.o.say.warning(`app ${slug}: starting again after its cold backup failed: ${(err as Error).message}`));
        return { started };
      }
      if (post) await this.backupCommand(a, post);
      return {};
    });
  }

  /** A backup_pre/backup_post command, run in the app's container without a shell. */
  private async backupCommand(a: AppActor, command: string): Promise<void> {
    const slug = a.kept.slug;
    let result: { exitCode: number; output: string };
    try {
      result = await this.runInside(slug, splitCommandLine(command));
    } catch (err) {
      throw new SupervisorError(`Failed running pre-/post backup command ${command}: ${(err as Error).message}`);
    }
    if (result.exitCode === 0) return;
    this.o.say.debug(`app ${slug}: pre-/post backup command failed with: ${result.output}`);
    const err = keyedError(
      400,
      'app_pre_post_backup_command_returned_error',
      'Pre-/Post backup command for app {app} returned error code: {exit_code}. Please report this to the app developer. Enable debug logging to capture complete command output using {debug_logging_command}',
      { app: a.kept.config.name, exit_code: result.exitCode, debug_logging_command: 'ha supervisor options --logging debug' },
    );
    // the type a job's error shows
    err.name = 'AppPrePostBackupCommandReturnedError';
    throw err;
  }

  /** Runs `argv` in the app's running container (docker exec); its exit code and the end of its output. */
  private async runInside(slug: string, argv: string[]): Promise<{ exitCode: number; output: string }> {
    const exec = await this.docker.getContainer(this.containerName(slug)).exec({ Cmd: argv, AttachStdout: true, AttachStderr: true });
    const stream = await exec.start({ hijack: true, stdin: false });
    // a chatty command's output is kept to its last part: enough for the debug line
    const chunks: Buffer[] = [];
    let kept = 0;
    const sink = new PassThrough();
    sink.on('data', (c: Buffer) => {
      chunks.push(c);
      kept += c.length;
      while (kept > EXEC_OUTPUT_KEPT && chunks.length > 1) kept -= chunks.shift()!.length;
    });
    this.docker.modem.demuxStream(stream, sink, sink);
    await new Promise<void>((ok, fail) => {
      stream.on('end', ok);
      stream.on('close', ok);
      stream.on('error', fail);
    });
    // the engine may close the stream a moment before it notes the exit code
    let info = await exec.inspect();
    for (let tries = 0; info.Running && tries < 100; tries++) {
      await sleep(20);
      info = await exec.inspect();
    }
    return { exitCode: info.ExitCode ?? -1, output: Buffer.concat(chunks).toString('utf8') };
  }

  /** Writes `body` and a newline to the running container's stdin. */
  async writeStdin(slug: string, body: Buffer): Promise<void> {
    const a = this.actor(slug);
    if (!a.kept.config.stdin) throw keyedError(400, 'app_not_supported_write_stdin_error', 'App {app} does not support writing to stdin', { app: slug });
    if (!(await this.inspect(a))?.State?.Running) throw notRunning(slug);
    await this.job('app_write_stdin', slug, this.systemContext(), async () => {
      const stream = (await this.docker.getContainer(this.containerName(slug)).attach({ stream: true, stdin: true, hijack: true })) as NodeJS.ReadWriteStream & { destroy?: () => void };
      await new Promise<void>((ok, fail) => {
        stream.on('error', fail);
        stream.write(Buffer.concat([body, Buffer.from('\n')]), (err) => (err ? fail(err) : ok()));
      });
      // the engine passes the bytes on asynchronously; closing at once could lose them
      await sleep(100);
      stream.end();
      stream.destroy?.();
    });
  }

  /** Supervisor start: follow the engine, then start every `boot: auto` app that is not running. */
  async boot(context: Context): Promise<void> {
    if (!(await this.o.engine.reachable())) {
      if (this.actors.size) this.o.say.warning(`no container engine answers at ${this.o.engine.socketPath}: the apps are not started`);
      return;
    }
    // nothing installed: the engine's events are followed from the first start
    if (this.actors.size) this.follow();
    // what runs already is wanted running (the supervisor restarted under it)
    for (const a of this.actors.values()) {
      const info = await this.inspect(a).catch(() => null);
      if (info?.State?.Running) {
        a.container.adopt();
        if (a.state !== 'started') a.machine.send({ type: 'running', healthy: true });
      } else if (a.state === 'started' || a.state === 'startup') a.machine.send({ type: 'stopped' });
    }
    const order = ['initialize', 'system', 'services', 'application'];
    const wanted = [...this.actors.values()]
      .filter((a) => effectiveBoot(a.kept.config, a.kept.user) === 'auto' && a.kept.config.startup !== 'once' && !a.container.wanted())
      .sort((x, y) => order.indexOf(x.kept.config.startup) - order.indexOf(y.kept.config.startup));
    for (const a of wanted) {
      if (this.closed) return;
      await this.start(a.kept.slug, context).catch((err) => this.o.say.error(`app ${a.kept.slug} could not be started at boot: ${(err as Error).message}`));
    }
  }

  /** Stops following the engine (the containers keep running). */
  async close(): Promise<void> {
    this.closed = true;
    this.deaths.close();
    for (const a of this.actors.values()) a.container.close();
  }

  // ------------------------------------------------------------------------------------------
  // inside (called with the app's queue held)

  private async startNow(a: AppActor, context: Context, type = 'app_started'): Promise<void> {
    const slug = a.kept.slug;
    const options = this.validOptions(this.view(a));
    this.follow();
    a.machine.send({ type: 'start' });
    try {
      await a.container.start({ context, options });
    } catch (err) {
      await this.record(slug, 'app_start_failed', { message: (err as Error).message }, context);
      throw err;
    }
    await this.record(slug, type, { version: a.kept.user.version }, context);
  }

  /** The app's container as the lifecycle machine runs it: made anew on each start. */
  private containerOf(a: AppActor): ContainerActor<AppRequest> {
    return createContainerActor<AppRequest, AppPreparation>({
      engine: this.o.engine,
      name: this.containerName(a.kept.slug),
      // as the original: any exit of an app meant to run is a crash; one not brought up is stopped
      policy: { cleanExitIsCrash: true, staysWantedWhenDown: false, newContainerEachStart: true },
      clock: this.o.clock,
      stopTimeout: () => a.kept.config.timeout,
      retryPauseMs: this.o.watchdogPauseMs,
      steps: {
        prepare: (request) => this.prepareStart(a, request),
        create: (_, preparation) => this.createContainer(a, preparation),
        start: () => this.startContainer(a),
        waitHealthy: () => this.waitStarted(a),
      },
      watchdog: this.watchdogReports(a),
    });
  }

  /** What a new container needs: the options, the devices, the dns plugin, the image (built again when missing). */
  private async prepareStart(a: AppActor, request: AppRequest): Promise<AppPreparation> {
    const slug = a.kept.slug;
    const options = request.options ?? this.validOptions(this.view(a));
    const hardware = await this.hardwareOf(a.kept.config);
    const dns = (await this.o.dns?.().catch((err) => {
      this.o.say.warning(`${slug} starts without the dns plugin: ${(err as Error).message}`);
      return null;
    })) ?? null;
    return { options, hardware, dns, image: await this.imageOf(a) };
  }

  /** The host folders and `options.json`, then the container. */
  private async createContainer(a: AppActor, { options, hardware, dns, image }: AppPreparation): Promise<void> {
    const slug = a.kept.slug;
    const dataDir = this.dataDirOf(slug);
    const input = (image: string): AppContainerInput => ({
      slug,
      config: a.kept.config,
      image,
      name: this.containerName(slug),
      token: a.kept.user.access_token,
      timezone: this.o.timezone(),
      supervisorUrl: this.o.supervisorUrl(),
      network: effectiveNetwork(a.kept.config, a.kept.user),
      dataDir,
      supervisorDataDir: this.o.dataDir,
      coreDataDir: this.o.coreDataDir,
      hardware,
      dns,
    });
    for (const dir of hostFolders(input(image))) await mkdir(dir, { recursive: true });
    await writeFile(join(dataDir, 'options.json'), JSON.stringify(options));
    try {
      await this.docker.createContainer(containerSpec(input(image)));
    } catch (err: any) {
      // the image went away meanwhile (another supervisor on this engine uninstalled the same app)
      if (err?.statusCode !== 404) throw err;
      await this.docker.createContainer(containerSpec(input(await this.imageOf(a))));
    }
  }

  /** The engine's start; a port in use removes the container and is the original's `app_port_conflict`. */
  private async startContainer(a: AppActor): Promise<void> {
    const slug = a.kept.slug;
    const container = this.docker.getContainer(this.containerName(slug));
    try {
      await container.start();
    } catch (err: any) {
      const text = String(err?.json?.message ?? err?.message ?? '');
      await container.remove({ force: true }).catch(() => {});
      const m = PORT_CONFLICT.exec(text);
      if (m) {
        const port = m[1] ? Number(m[1]) : Number(/:(\d+)/.exec(text)?.[1] ?? 0);
        await this.o.resolution?.()?.addIssue({ type: 'app_port_conflict', context: 'addon', reference: slug }).catch(() => {});
        throw keyedError(400, 'app_port_conflict', 'Cannot start app {name} because port {port} is already in use', { name: slug, port });
      }
      throw err;
    }
  }

  /** Until the container runs (and its image's healthcheck, if any, has an answer). */
  private async waitStarted(a: AppActor): Promise<void> {
    const until = Date.now() + (this.o.startTimeoutMs ?? 120_000);
    for (;;) {
      const info = await this.inspect(a);
      if (!info?.State?.Running) {
        throw keyedError(500, 'app_unknown_error', 'An unknown error occurred with app {app}. Check Supervisor logs for details', { app: a.kept.slug });
      }
      const health = info.State.Health?.Status;
      if (!health || health === 'healthy' || health === 'unhealthy' || Date.now() > until) return;
      await sleep(250);
    }
  }

  private async stopNow(a: AppActor, context: Context, record = true): Promise<void> {
    a.machine.send({ type: 'stop' });
    try {
      await a.container.remove();
    } catch (err) {
      a.machine.send({ type: 'failed' });
      throw err;
    }
    if (record) await this.record(a.kept.slug, 'app_stopped', { version: a.kept.user.version }, context);
    else a.machine.send({ type: 'stopped' });
  }

  /** An installed app's image (AppsView.ensureImage): built again from the store when it went missing. */
  ensureImage(slug: string): Promise<string> {
    const a = this.actors.get(slug);
    if (!a) return Promise.reject(new Error(`app ${slug} is not installed`));
    return this.imageOf(a);
  }

  /** The installed version's image; built again from the store when it went missing. */
  private async imageOf(a: AppActor): Promise<string> {
    const ref = `${a.kept.user.image}:${a.kept.user.version}`;
    if (a.kept.user.image && (await imageExists(this.docker, ref))) return ref;
    const app = this.storeApp(a.kept.slug);
    if (!app || app.config.version !== a.kept.user.version) {
      throw keyedError(500, 'app_unknown_error', 'An unknown error occurred with app {app}. Check Supervisor logs for details', { app: a.kept.slug });
    }
    return (await this.buildImage(app)).ref;
  }

  private buildImage(app: RepositoryApp, rebuild = false): Promise<{ ref: string; built: boolean }> {
    const say = this.o.say;
    return buildAppImage(this.docker, app, { arch: archOf(), rebuild, say: (line) => say.info(`app ${app.key}: ${line}`) });
  }

  private inspect(a: AppActor): Promise<Docker.ContainerInspectInfo | null> {
    return this.o.engine.inspect(this.containerName(a.kept.slug));
  }

  // ------------------------------------------------------------------------------------------
  // watchdog: the engine's `die` events of the apps' containers

  private follow(): void {
    this.deaths.start();
  }

  private onDeath({ name, exitCode }: ContainerDeath): void {
    if (!name.startsWith(this.prefix)) return;
    this.actors.get(name.slice(this.prefix.length))?.container.died(exitCode);
  }

  /**
   * What an app's watchdog tells: a crash is `app_crashed`; each repair is the internal job
   * `app_restart_after_problem`, up to 5 starts of a new container 10 s apart (a port conflict
   * ends them), each recorded as a start is (`watchdog_restart`, `app_start_failed`), then
   * `watchdog_gave_up`.
   */
  private watchdogReports(a: AppActor): WatchdogReports<AppRequest> {
    const slug = a.kept.slug;
    return {
      crashed: async (exitCode) => {
        const context = this.systemContext();
        this.o.say.warning(`app ${slug}: its container died with exit code ${exitCode}`);
        await this.record(slug, 'app_crashed', { exit_code: exitCode }, context);
        return { request: { context }, watchdog: a.kept.user.watchdog };
      },
      repairing: ({ context }, repair) => void this.job('app_restart_after_problem', slug, context, () => repair, true).catch(() => {}),
      restarted: async ({ context }, attempt, exitCode) => {
        await this.record(slug, 'watchdog_restart', { version: a.kept.user.version }, context);
        this.o.say.info(`watchdog: app ${slug} is running again (restart ${attempt}, exit code ${exitCode})`);
      },
      attemptFailed: async ({ context }, attempt, error) => {
        await this.record(slug, 'app_start_failed', { message: error.message }, context);
        this.o.say.warning(`watchdog: restart ${attempt} of app ${slug} failed: ${error.message}`);
        return !(error instanceof SupervisorError && error.errorKey === 'app_port_conflict');
      },
      gaveUp: async ({ context }, reason) => {
        if (reason === 'rate') this.o.say.error(`watchdog: more than 10 restarts of app ${slug} in 30 minutes, not restarting it`);
        await this.record(slug, 'watchdog_gave_up', { reason }, context);
      },
      unreported: (error) => this.o.say.error(`watchdog of app ${slug}: ${error.message}`),
    };
  }

  // ------------------------------------------------------------------------------------------

  private actor(slug: string): AppActor {
    const a = this.actors.get(slug);
    if (a) return a;
    this.installed(slug);
    throw new SupervisorError(`App ${slug} does not exist`, { status: 404 });
  }

  private requireStore(): AppStore {
    const store = this.o.store();
    if (!store) throw new SupervisorError('The app store is not running');
    return store;
  }

  private jobs(): Jobs {
    const jobs = this.o.jobs();
    if (jobs) return jobs;
    // without a tracker (a bare manager) the work just runs
    return {
      run: (_spec, work) => {
        const uuid = this.o.ids.uuidHex();
        return { uuid, done: work(untrackedJob(uuid)) };
      },
      requireConditions: async () => {},
    } as Partial<Jobs> as Jobs;
  }

  /** A child job of `parent` (the backup's or the freeze's), or a job of its own without one. */
  private jobUnder<T>(parent: JobHandle | undefined, name: string, slug: string, context: Context, work: (job: JobHandle) => Promise<T>): Promise<T> {
    return parent ? parent.child(name, slug, work) : this.job(name, slug, context, work);
  }

  private job<T>(name: string, slug: string, context: Context, work: (job: JobHandle) => Promise<T>, internal = false): Promise<T> {
    return this.jobs().run({ name, reference: slug, context, internal }, work).done;
  }

  private systemContext(): Context {
    return { id: this.o.ids.ulid(this.o.clock.now()), parent_id: null, user_id: null };
  }

  private async record(slug: string, type: string, data: Record<string, unknown>, context: Context): Promise<void> {
    await this.o.log.append([{ time: this.o.clock.now(), stream: APP_STREAM_PREFIX + slug, type, data: { container: this.containerName(slug), ...data }, context }]);
  }
}

/** An app as a backup holds it: `addon.json` (checked) and the staged folders of its archive. */
export interface RestoredApp {
  user: Record<string, unknown>;
  system: Record<string, unknown>;
  version: string;
  state: 'started' | 'stopped';
  /** staged `data/`, consumed */
  dataDir: string;
  /** staged `config/`, consumed; absent when the backup has none */
  configDir?: string;
  /** the backup's `image.tar` (a `docker save`), loaded before the image is looked for */
  imageTar?: string;
}

function notRunning(slug: string): SupervisorError {
  return keyedError(400, 'app_not_running_error', 'App {app} is not running', { app: slug });
}
