import { createReadStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import type Docker from 'dockerode';
import { evolveOnCommit, type Area } from '../../area.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { Tokens } from '../tokens.ts';
import type { Engine, ContainerStats } from '../docker/engine.ts';
import type { Jobs, JobHandle } from '../jobs/types.ts';
import type { Resolution } from '../resolution/types.ts';
import { runInBackground, untrackedJobs } from '../jobs/jobs.ts';
import { SupervisorError, keyedError } from '../errors.ts';
import { archOf } from '../machine.ts';
import { backupMode, type AppConfig, type RepositoryApp } from './repository.ts';
import type { AppStore } from './store.ts';
import type { AppsView, AppState, AppTarget, AppUserSettings, InstalledApp } from './types.ts';
import { appImageName, buildAppImage, imageExists, removeAppImage } from './image.ts';
import { invalidOptionsMessage, mergeOptions, parseSchema, validateOptions, type Schema } from './options-schema.ts';
import { appConfigDir, appDataDir } from './container-spec.ts';
import { effectiveBoot, ingressToken, newUserSettings, roleOf } from './user-settings.ts';
import { DieEvents, type ContainerDeath } from '../docker/die-events.ts';
import { containerRecord } from '../docker/container-records.ts';
import { AppActor, type AppRecord, type AppRecordKind, type AppSettingsRecordType, type PersistedApp } from './app-actor.ts';
import { appContainerActor, type AppContainerHost } from './app-container.ts';
import { runBackupCommand, writeToContainerStdin } from './container-exec.ts';
import type { PanelPush } from './panel-push.ts';
import { swapDirectory } from '../backups/restore/swap.ts';
import { UPDATE_CONDITIONS } from '../jobs/conditions.ts';

/**
 * The installed apps, one actor each. Every change is a record on `supervisor/app/<slug>`
 * (`app_installed`, `app_options_set`, `app_started`, `app_stopped`, `app_crashed`,
 * `watchdog_restart`, `app_rebuilt`, `app_updated`, `app_uninstalled`...); the records that change
 * what is kept carry the app's whole `config` and `user`, so the manager is rebuilt from the log
 * like any area. Containers are `<prefix><slug>` on the engine, made fresh on each start.
 * Operations on one app run one at a time, each as a job.
 *
 * One app's actor is app-actor.ts; its container's steps and watchdog reports are
 * app-container.ts; commands and stdin inside a running container are container-exec.ts. What
 * stays here (about 600 lines) is the area, the AppsView and the operations on an app (install,
 * start, update, backup hooks, restore...): each is a job on the app's queue that ends in this
 * manager's records, so they share its actor lookup, queue, jobs and record; split further, each
 * part would need that whole surface handed to it.
 */

export const APP_STREAM_PREFIX = 'supervisor/app/';
const appRecords = typedRecords<AppRecord>(APP_STREAM_PREFIX, {
  app_installed: true,
  app_restored: true,
  app_updated: true,
  app_options_set: true,
  app_sys_options_set: true,
  app_security_set: true,
  app_rebuilt: true,
  app_started: true,
  app_stopped: true,
  app_start_failed: true,
  app_crashed: true,
  watchdog_restart: true,
  watchdog_gave_up: true,
  app_uninstalled: true,
});

export interface AppManagerOptions {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  logger: Logger;
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

export class AppManager implements AppsView, Area<RecordOf<AppRecord>> {
  readonly name = 'supervisor-apps';
  readonly snapshotVersion = 1;
  readonly streamPrefix = APP_STREAM_PREFIX;
  readonly latestSuffices = false;
  private readonly actors = new Map<string, AppActor>();
  private readonly docker: Docker;
  private readonly prefix: string;
  private readonly deaths: DieEvents;
  private closed = false;
  /** what each app's container (app-container.ts) reads and records through */
  private readonly containerHost: AppContainerHost;

  constructor(private readonly deps: AppManagerOptions) {
    this.docker = deps.engine.docker;
    this.containerHost = {
      deps,
      docker: this.docker,
      containerName: (slug) => this.containerName(slug),
      dataDirOf: (slug) => this.dataDirOf(slug),
      view: (actor) => this.view(actor),
      validOptions: (app) => this.validOptions(app),
      imageOf: (actor) => this.imageOf(actor),
      inspect: (actor) => this.inspect(actor),
      record: (slug, kind, context) => this.record(slug, kind, context),
      job: (name, slug, context, work, internal) => this.job(name, slug, context, work, internal),
      systemContext: () => this.systemContext(),
    };
    this.prefix = deps.containerPrefix ?? 'app_';
    this.deaths = new DieEvents(this.docker, { label: ['io.hass.type=app'] }, (death) => this.onDeath(death));
    evolveOnCommit(deps.log, this);
  }

  // ------------------------------------------------------------------------------------------
  // the area: state from the log

  owns(record: EventRecord): record is RecordOf<AppRecord> {
    return appRecords.owns(record);
  }

  evolve(record: RecordOf<AppRecord>): void {
    const slug = record.stream.slice(APP_STREAM_PREFIX.length);
    const actor = this.actors.get(slug);
    switch (record.type) {
      case 'app_installed': {
        const { repository, config, user } = record.data;
        actor?.stop();
        this.actors.set(slug, new AppActor({ slug, repository, config, user }, (app) => appContainerActor(this.containerHost, app)));
        return;
      }
      case 'app_uninstalled':
        actor?.stop();
        this.actors.delete(slug);
        return;
    }
    if (!actor) return;
    const data = record.data;
    if ('config' in data) actor.persisted = { ...actor.persisted, config: data.config };
    if ('user' in data) actor.persisted = { ...actor.persisted, user: data.user };
    switch (record.type) {
      case 'app_started':
      case 'watchdog_restart':
        actor.machine.send({ type: 'running', healthy: true });
        break;
      case 'app_stopped':
        actor.machine.send({ type: 'stopped' });
        break;
      case 'app_crashed':
        actor.machine.send({ type: 'died', exitCode: record.data.exit_code ?? 1 });
        break;
      case 'app_start_failed':
        actor.machine.send({ type: 'failed' });
        break;
    }
  }

  snapshot(): unknown {
    return [...this.actors.values()].map((actor) => ({ ...actor.persisted, state: actor.state }));
  }

  restore(data: unknown): void {
    for (const saved of data as Array<PersistedApp & { state: AppState }>) {
      const actor = new AppActor({ slug: saved.slug, repository: saved.repository, config: saved.config, user: saved.user }, (app) => appContainerActor(this.containerHost, app));
      if (saved.state === 'started') actor.machine.send({ type: 'running', healthy: true });
      this.actors.set(saved.slug, actor);
    }
  }

  // ------------------------------------------------------------------------------------------
  // AppsView

  list(): InstalledApp[] {
    return [...this.actors.values()].map((actor) => this.view(actor));
  }

  get(slug: string): InstalledApp | undefined {
    const actor = this.actors.get(slug);
    return actor ? this.view(actor) : undefined;
  }

  byIngressToken(token: string): InstalledApp | undefined {
    for (const actor of this.actors.values()) if (actor.persisted.user.ingress_token === token) return this.view(actor);
    return undefined;
  }

  async ingressTarget(slug: string): Promise<AppTarget | null> {
    const actor = this.actors.get(slug);
    if (!actor || !actor.persisted.config.ingress) return null;
    const info = await this.inspect(actor);
    if (!info?.State?.Running) return null;
    const port = actor.persisted.config.ingress_port;
    if (actor.persisted.config.host_network) return { host: '127.0.0.1', port };
    const ip = Object.values(info.NetworkSettings?.Networks ?? {}).find((n) => n.IPAddress)?.IPAddress;
    return ip ? { host: ip, port } : null;
  }

  private view(actor: AppActor): InstalledApp {
    return { slug: actor.persisted.slug, repository: actor.persisted.repository, config: actor.persisted.config, user: actor.persisted.user, state: actor.state };
  }

  // ------------------------------------------------------------------------------------------
  // reading

  containerName(slug: string): string {
    return `${this.prefix}${slug}`;
  }

  dataDirOf(slug: string): string {
    return appDataDir(this.deps.dataDir, slug);
  }

  /** The installed app, or the original's errors: 400 `App is not installed` when only the store has it, else 404. */
  installed(slug: string): InstalledApp {
    const actor = this.actors.get(slug);
    if (actor) return this.view(actor);
    if (this.deps.store()?.find(slug)) throw new SupervisorError('App is not installed');
    throw new SupervisorError(`App ${slug} does not exist`, { status: 404 });
  }

  /** The store's app of an installed one (null when the store no longer has it: `detached`). */
  storeApp(slug: string): RepositoryApp | null {
    return this.deps.store()?.find(slug) ?? null;
  }

  async inspectOf(slug: string): Promise<Docker.ContainerInspectInfo | null> {
    const actor = this.actors.get(slug);
    return actor ? this.inspect(actor) : null;
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
    const result = validateOptions(this.schemaOf(app.config), options, { name: app.config.name, slug: app.slug }, { warn: (m) => this.deps.logger.warning(`app ${app.slug}: ${m}`) });
    if (!result.ok) throw keyedError(400, 'app_configuration_invalid_error', invalidOptionsMessage('{app}', '{validation_error}'), { app: app.slug, validation_error: result.message });
    return result.value;
  }

  async stats(slug: string): Promise<ContainerStats> {
    const actor = this.actor(slug);
    const info = await this.inspect(actor);
    if (!info?.State?.Running) throw notRunning(slug);
    return this.deps.engine.stats(this.containerName(slug));
  }

  // ------------------------------------------------------------------------------------------
  // changes of settings

  /** Stores new user settings (checked by the caller) as one record. */
  async setUser(slug: string, patch: Partial<AppUserSettings>, context: Context, type: AppSettingsRecordType = 'app_options_set'): Promise<void> {
    const actor = this.actor(slug);
    await actor.exclusive(() => this.record(slug, { type, data: { user: { ...actor.persisted.user, ...patch } } }, context));
    // as the original: each time the option is given, not only when it changes, so a core that
    // missed a push catches up
    if (patch.ingress_panel !== undefined && actor.persisted.config.ingress) await this.deps.pushPanel?.(slug, actor.persisted.user.ingress_panel);
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
    const token = await this.deps.tokens.issue({ name: app.key, kind: 'app', role: roleOf(app.config), slug: app.key }, context);
    const user = newUserSettings(app.config, { uuid: this.deps.ids.uuidHex(), accessToken: token.token, ingressToken: ingressToken(this.deps.ids), image: appImageName(app, archOf()) });
    await this.record(app.key, { type: 'app_installed', data: { repository: app.repository, config: app.config, user } }, context);
    this.deps.logger.info(`app ${app.key} ${app.config.version} installed`);
    job.progress(100);
  }

  async uninstall(slug: string, context: Context, options: { removeConfig?: boolean } = {}): Promise<void> {
    const actor = this.actor(slug);
    await this.job('app_manager_uninstall', slug, context, () =>
      actor.exclusive(async () => {
        await actor.container.remove();
        const ref = `${actor.persisted.user.image ?? ''}:${actor.persisted.user.version}`;
        if (actor.persisted.user.image) await removeAppImage(this.docker, ref);
        await rm(this.dataDirOf(slug), { recursive: true, force: true });
        if (options.removeConfig) await rm(appConfigDir(this.deps.dataDir, slug), { recursive: true, force: true });
        const token = this.deps.tokens.list().find((t) => t.token === actor.persisted.user.access_token);
        if (token) await this.deps.tokens.revoke(token.id, context);
        const hadPanel = actor.persisted.config.ingress && actor.persisted.user.ingress_panel;
        await this.record(slug, { type: 'app_uninstalled', data: { remove_config: options.removeConfig === true } }, context);
        this.deps.logger.info(`app ${slug} uninstalled`);
        if (hadPanel) await this.deps.pushPanel?.(slug, false);
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
    const repository = typeof part.system.repository === 'string' ? part.system.repository : (existing?.persisted.repository ?? 'local');
    const user = { ...(part.user as unknown as AppUserSettings), version: part.version };
    if (existing) user.access_token = existing.persisted.user.access_token;
    else user.access_token = (await this.deps.tokens.issue({ name: slug, kind: 'app', role: roleOf(config), slug }, context)).token;
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
    if (part.configDir) await swapDirectory(appConfigDir(this.deps.dataDir, slug), part.configDir);
    if (existing) await this.record(slug, { type: 'app_restored', data: { config, user } }, context);
    else await this.record(slug, { type: 'app_installed', data: { repository, config, user, restored: true } }, context);
    this.deps.logger.info(`app ${slug} ${user.version} restored from a backup`);
    if (part.state === 'started') {
      const actor = this.actor(slug);
      await actor.exclusive(() => this.startNow(actor, context));
    }
  }

  private async loadImage(path: string): Promise<void> {
    const stream = await this.docker.loadImage(createReadStream(path));
    await new Promise<void>((ok, fail) => this.docker.modem.followProgress(stream, (err: Error | null) => (err ? fail(err) : ok())));
  }

  async start(slug: string, context: Context): Promise<void> {
    const actor = this.actor(slug);
    await this.job('app_start', slug, context, () => actor.exclusive(() => this.startNow(actor, context)));
  }

  async stop(slug: string, context: Context): Promise<void> {
    const actor = this.actor(slug);
    await this.job('app_stop', slug, context, () => actor.exclusive(() => this.stopNow(actor, context)));
  }

  async restart(slug: string, context: Context): Promise<void> {
    const actor = this.actor(slug);
    await this.job('app_restart', slug, context, () =>
      actor.exclusive(async () => {
        await this.stopNow(actor, context).catch((err) => this.deps.logger.warning(`app ${slug}: stopping for the restart failed: ${(err as Error).message}`));
        await this.startNow(actor, context);
      }),
    );
  }

  /** Builds the image again from the store's copy and makes the container anew when it ran. */
  async rebuild(slug: string, context: Context, options: { force?: boolean } = {}): Promise<void> {
    const actor = this.actor(slug);
    const app = this.storeApp(slug);
    if (!app) throw keyedError(400, 'app_not_in_store_error', 'App {app} is not available inside store', { app: actor.persisted.config.name, slug });
    if (app.config.image !== null && !options.force) throw keyedError(400, 'app_rebuild_image_based_error', 'Cannot rebuild app {app}, it is image-based', { app: actor.persisted.config.name, slug });
    if (app.config.version !== actor.persisted.user.version) {
      throw keyedError(400, 'app_rebuild_version_changed_error', 'Local and store versions of app {app} differ, use Update instead of Rebuild', { app: actor.persisted.config.name, slug });
    }
    await this.job('app_rebuild', slug, context, (job) =>
      actor.exclusive(async () => {
        const wasRunning = (await this.inspect(actor))?.State?.Running === true;
        if (wasRunning) await this.stopNow(actor, context, false);
        job.stage('image');
        await this.buildImage(app, true);
        await this.record(slug, { type: 'app_rebuilt', data: { version: actor.persisted.user.version } }, context);
        if (wasRunning) await this.startNow(actor, context);
      }),
    );
  }

  /** Updates to the store's version (job `app_manager_update`); refusals come before the job. */
  async update(slug: string, context: Context, options: { background?: boolean; backup?: boolean } = {}): Promise<unknown> {
    await this.jobs().requireConditions('AppManager.update', UPDATE_CONDITIONS);
    const actor = this.actors.get(slug);
    const store = this.requireStore();
    if (!actor) {
      store.app(slug);
      throw keyedError(400, 'app_not_installed_error', 'App {slug} is not installed', { slug });
    }
    const app = store.find(slug);
    if (!app) throw keyedError(400, 'app_not_in_store_error', 'App {app} is not available inside store', { app: actor.persisted.config.name, slug });
    if (app.config.version === actor.persisted.user.version) throw keyedError(400, 'app_no_update_available_error', 'No update available for app {app}', { app: actor.persisted.config.name, slug });
    store.checkAvailable(app);
    if (options.backup) throw new SupervisorError('A backup before the update cannot be made: backups are not available on this supervisor yet; update with backup false');
    return runInBackground(
      this.jobs(),
      { name: 'app_manager_update', reference: slug, context },
      (job) =>
        actor.exclusive(async () => {
          const from = actor.persisted.user.version;
          job.stage('image');
          await job.child('docker_interface_install', this.containerName(slug), () => this.buildImage(app));
          const wasRunning = (await this.inspect(actor))?.State?.Running === true;
          if (wasRunning) await this.stopNow(actor, context, false);
          const oldRef = `${actor.persisted.user.image}:${from}`;
          await this.record(slug, { type: 'app_updated', data: { from, to: app.config.version, config: app.config, user: { ...actor.persisted.user, version: app.config.version, image: appImageName(app, archOf()) } } }, context);
          if (actor.persisted.user.image && `${actor.persisted.user.image}:${actor.persisted.user.version}` !== oldRef) await removeAppImage(this.docker, oldRef);
          if (wasRunning) await this.startNow(actor, context);
        }),
      options.background === true,
    );
  }

  /**
   * Before the app's backup, or a freeze (supervisor-wire §5.4, §5.8): a running `cold` app is
   * stopped, a running `hot` one runs its `backup_pre` inside its container; a job under
   * `parent`. Answers whether it was running; only then is endBackup() due. A pre command that
   * fails throws `app_pre_post_backup_command_returned_error`.
   */
  async beginBackup(slug: string, context: Context, parent?: JobHandle): Promise<boolean> {
    const actor = this.actor(slug);
    return this.jobUnder(parent, 'app_begin_backup', slug, context, async () => {
      if (!(await this.inspect(actor))?.State?.Running) return false;
      const { mode, pre } = backupMode(actor.persisted.config);
      if (mode === 'cold') {
        this.deps.logger.info(`app ${slug}: stopped for its cold backup`);
        await actor.exclusive(() => this.stopNow(actor, context));
      } else if (pre) await runBackupCommand(this.docker, this.containerName(slug), actor.persisted, pre, this.deps.logger);
      return true;
    });
  }

  /**
   * After the backup of an app beginBackup() found running: a `cold` app is started again (the
   * answer settles once it runs, for the backup's `await_app_restarts`), a `hot` one runs its
   * `backup_post`.
   */
  async endBackup(slug: string, context: Context, parent?: JobHandle): Promise<{ started?: Promise<void> }> {
    const actor = this.actor(slug);
    return this.jobUnder(parent, 'app_end_backup', slug, context, async () => {
      const { mode, post } = backupMode(actor.persisted.config);
      if (mode === 'cold') {
        this.deps.logger.info(`app ${slug}: started again after its cold backup`);
        const started = actor.exclusive(() => this.startNow(actor, context));
        started.catch((err) => this.deps.logger.warning(`app ${slug}: starting again after its cold backup failed: ${(err as Error).message}`));
        return { started };
      }
      if (post) await runBackupCommand(this.docker, this.containerName(slug), actor.persisted, post, this.deps.logger);
      return {};
    });
  }

  /** Writes `body` and a newline to the running container's stdin. */
  async writeStdin(slug: string, body: Buffer): Promise<void> {
    const actor = this.actor(slug);
    if (!actor.persisted.config.stdin) throw keyedError(400, 'app_not_supported_write_stdin_error', 'App {app} does not support writing to stdin', { app: slug });
    if (!(await this.inspect(actor))?.State?.Running) throw notRunning(slug);
    await this.job('app_write_stdin', slug, this.systemContext(), async () => {
      await writeToContainerStdin(this.docker, this.containerName(slug), body);
    });
  }

  /** Supervisor start: follow the engine, then start every `boot: auto` app that is not running. */
  async boot(context: Context): Promise<void> {
    if (!(await this.deps.engine.reachable())) {
      if (this.actors.size) this.deps.logger.warning(`no container engine answers at ${this.deps.engine.socketPath}: the apps are not started`);
      return;
    }
    // nothing installed: the engine's events are followed from the first start
    if (this.actors.size) this.follow();
    // what runs already is wanted running (the supervisor restarted under it)
    for (const actor of this.actors.values()) {
      const info = await this.inspect(actor).catch(() => null);
      if (info?.State?.Running) {
        actor.container.adopt();
        if (actor.state !== 'started') actor.machine.send({ type: 'running', healthy: true });
      } else if (actor.state === 'started' || actor.state === 'startup') actor.machine.send({ type: 'stopped' });
    }
    const order = ['initialize', 'system', 'services', 'application'];
    const wanted = [...this.actors.values()]
      .filter((actor) => effectiveBoot(actor.persisted.config, actor.persisted.user) === 'auto' && actor.persisted.config.startup !== 'once' && !actor.container.wanted())
      .sort((x, y) => order.indexOf(x.persisted.config.startup) - order.indexOf(y.persisted.config.startup));
    for (const actor of wanted) {
      if (this.closed) return;
      await this.start(actor.persisted.slug, context).catch((err) => this.deps.logger.error(`app ${actor.persisted.slug} could not be started at boot: ${(err as Error).message}`));
    }
  }

  /** Stops following the engine (the containers keep running). */
  async close(): Promise<void> {
    this.closed = true;
    this.deaths.close();
    for (const actor of this.actors.values()) actor.container.close();
  }

  // ------------------------------------------------------------------------------------------
  // inside (called with the app's queue held)

  private async startNow(actor: AppActor, context: Context): Promise<void> {
    const slug = actor.persisted.slug;
    const options = this.validOptions(this.view(actor));
    this.follow();
    actor.machine.send({ type: 'start' });
    try {
      await actor.container.start({ context, options });
    } catch (err) {
      await this.record(slug, { type: 'app_start_failed', data: { message: (err as Error).message } }, context);
      throw err;
    }
    await this.record(slug, { type: 'app_started', data: { version: actor.persisted.user.version } }, context);
  }

  private async stopNow(actor: AppActor, context: Context, record = true): Promise<void> {
    actor.machine.send({ type: 'stop' });
    try {
      await actor.container.remove();
    } catch (err) {
      actor.machine.send({ type: 'failed' });
      throw err;
    }
    if (record) await this.record(actor.persisted.slug, { type: 'app_stopped', data: { version: actor.persisted.user.version } }, context);
    else actor.machine.send({ type: 'stopped' });
  }

  /** An installed app's image (AppsView.ensureImage): built again from the store when it went missing. */
  ensureImage(slug: string): Promise<string> {
    const actor = this.actors.get(slug);
    if (!actor) return Promise.reject(new Error(`app ${slug} is not installed`));
    return this.imageOf(actor);
  }

  /** The installed version's image; built again from the store when it went missing. */
  private async imageOf(actor: AppActor): Promise<string> {
    const ref = `${actor.persisted.user.image}:${actor.persisted.user.version}`;
    if (actor.persisted.user.image && (await imageExists(this.docker, ref))) return ref;
    const app = this.storeApp(actor.persisted.slug);
    if (!app || app.config.version !== actor.persisted.user.version) {
      throw keyedError(500, 'app_unknown_error', 'An unknown error occurred with app {app}. Check Supervisor logs for details', { app: actor.persisted.slug });
    }
    return (await this.buildImage(app)).ref;
  }

  private buildImage(app: RepositoryApp, rebuild = false): Promise<{ ref: string; built: boolean }> {
    const logger = this.deps.logger;
    return buildAppImage(this.docker, app, { arch: archOf(), rebuild, logLine: (line) => logger.info(`app ${app.key}: ${line}`) });
  }

  private inspect(actor: AppActor): Promise<Docker.ContainerInspectInfo | null> {
    return this.deps.engine.inspect(this.containerName(actor.persisted.slug));
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


  // ------------------------------------------------------------------------------------------

  private actor(slug: string): AppActor {
    const actor = this.actors.get(slug);
    if (actor) return actor;
    this.installed(slug);
    throw new SupervisorError(`App ${slug} does not exist`, { status: 404 });
  }

  private requireStore(): AppStore {
    const store = this.deps.store();
    if (!store) throw new SupervisorError('The app store is not running');
    return store;
  }

  private jobs(): Jobs {
    return this.deps.jobs() ?? untrackedJobs(this.deps.ids);
  }

  /** A child job of `parent` (the backup's or the freeze's), or a job of its own without one. */
  private jobUnder<T>(parent: JobHandle | undefined, name: string, slug: string, context: Context, work: (job: JobHandle) => Promise<T>): Promise<T> {
    return parent ? parent.child(name, slug, work) : this.job(name, slug, context, work);
  }

  private job<T>(name: string, slug: string, context: Context, work: (job: JobHandle) => Promise<T>, internal = false): Promise<T> {
    return this.jobs().run({ name, reference: slug, context, internal }, work).done;
  }

  private systemContext(): Context {
    return { id: this.deps.ids.ulid(this.deps.clock.now()), parent_id: null, user_id: null };
  }

  private async record(slug: string, kind: AppRecordKind, context: Context): Promise<void> {
    await this.deps.log.append([containerRecord(APP_STREAM_PREFIX + slug, this.containerName(slug), kind, context, this.deps.clock.now())]);
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
