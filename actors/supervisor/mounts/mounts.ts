import { mkdir, readdir, rmdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { evolveOnCommit, type Area } from '../../area.ts';
import type { Clock } from '../../clock.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context, EventLog, EventRecord, NewEvent } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { Jobs } from '../jobs/types.ts';
import type { Resolution } from '../resolution/types.ts';
import { SupervisorError, keyedError, notFound, badRequest } from '../errors.ts';
import { CredentialFiles } from './credentials.ts';
import { MountCommandError, type MountSystem } from './system.ts';
import type { MountConfig, MountCredentials, MountRecord, MountState, MountView, MountsView } from './types.ts';
import { childPath } from '../paths.ts';

/**
 * The network mounts (supervisor-wire §4.6): CIFS and NFS shares mounted at
 * `<data>/mounts/<name>`; a `media` or `share` mount is also bound into `<data>/media/<name>` or
 * `<data>/share/<name>`, the folders apps see as `/media` and `/share`.
 *
 * Records: `supervisor/mount/<name>` holds `mount_created` and `mount_updated` (the whole
 * configuration without username or password, and whether a credentials file goes with it),
 * then `mount_removed`; `supervisor/mounts` holds `default_backup_mount_changed`
 * `{default_backup_mount}`. A stream's last record is its state. A mount's state (mounted or
 * not) is the host's, never recorded: it is found again at start, when every mount is mounted.
 * A mount that ends `failed` raises the `mount_failed` issue with `execute_reload` and
 * `execute_remove`; mounting it again resolves the issue.
 */

export const MOUNT_STREAM_PREFIX = 'supervisor/mount/';
export const MOUNT_OPTIONS_STREAM = 'supervisor/mounts';
const SNAPSHOT_VERSION = 1;
// covers both `supervisor/mount/<name>` and `supervisor/mounts`
const mountRecords = typedRecords<MountRecord>('supervisor/mount', { mount_created: true, mount_updated: true, mount_removed: true, default_backup_mount_changed: true });
/** how often mounts that are not mounted are tried again (the original's RUN_RELOAD_MOUNTS) */
export const MOUNT_REFRESH_INTERVAL_MS = 15 * 60 * 1000;

interface StoredMount {
  config: MountConfig;
  /** a credentials file belongs to the mount */
  credentials: boolean;
}

export interface MountsDeps {
  log: EventLog;
  clock: Clock;
  logger: Logger;
  /** the supervisor's data directory */
  dataDir: string;
  system: MountSystem;
  jobs: Jobs;
  resolution: Resolution;
  context(): Context;
}

/** A mount failure as the host told it (the mount command's words, or the target's problem). */
class MountFailure extends Error {
  constructor(
    message: string,
    /** a keyed error to answer as it is (a target holding data) instead of wrapping it */
    readonly keyed?: SupervisorError,
  ) {
    super(message);
  }
}

export class Mounts implements Area<RecordOf<MountRecord>>, MountsView {
  readonly name = 'supervisor-mounts';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = mountRecords.prefix;
  readonly latestSuffices = true;
  readonly credentials: CredentialFiles;
  private readonly mounts = new Map<string, StoredMount>();
  private defaultBackup: string | null = null;
  private readonly states = new Map<string, MountState>();
  /** one change at a time: a reload must not meet a removal half done */
  private serial: Promise<unknown> = Promise.resolve();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly deps: MountsDeps) {
    this.credentials = new CredentialFiles(deps.dataDir);
    evolveOnCommit(deps.log, this);
    deps.resolution.addFixup?.({ type: 'execute_reload', context: 'mount', issues: ['mount_failed'], auto: false, apply: (s) => this.reload(s.reference ?? '', deps.context()) });
    deps.resolution.addFixup?.({ type: 'execute_remove', context: 'mount', issues: ['mount_failed'], auto: false, apply: (s) => this.remove(s.reference ?? '', deps.context()) });
  }

  // ---- Area ----

  owns(record: EventRecord): record is RecordOf<MountRecord> {
    return (record.stream.startsWith(MOUNT_STREAM_PREFIX) || record.stream === MOUNT_OPTIONS_STREAM) && mountRecords.owns(record);
  }

  evolve(record: RecordOf<MountRecord>): void {
    const name = record.stream.slice(MOUNT_STREAM_PREFIX.length);
    switch (record.type) {
      case 'default_backup_mount_changed':
        this.defaultBackup = record.data.default_backup_mount ?? null;
        break;
      case 'mount_created':
      case 'mount_updated':
        this.mounts.set(name, { config: record.data.config, credentials: record.data.credentials === true });
        break;
      case 'mount_removed':
        this.mounts.delete(name);
    }
  }

  snapshot(): unknown {
    return { mounts: [...this.mounts.values()], default_backup_mount: this.defaultBackup };
  }

  restore(data: unknown): void {
    const d = data as { mounts: StoredMount[]; default_backup_mount: string | null };
    for (const m of d.mounts) this.mounts.set(m.config.name, m);
    this.defaultBackup = d.default_backup_mount;
  }

  // ---- reading ----

  has(name: string): boolean {
    return this.mounts.has(name);
  }

  config(name: string): MountConfig | undefined {
    const m = this.mounts.get(name);
    return m && { ...m.config };
  }

  defaultBackupMount(): string | null {
    return this.defaultBackup !== null && this.mounts.has(this.defaultBackup) ? this.defaultBackup : null;
  }

  async list(): Promise<MountView[]> {
    const out: MountView[] = [];
    // by name: a restart restores streams in the order of their last record, not of creation
    const sorted = [...this.mounts.values()].sort((a, b) => (a.config.name < b.config.name ? -1 : a.config.name > b.config.name ? 1 : 0));
    for (const { config } of sorted) out.push({ ...wireConfig(config), state: await this.stateOf(config.name), user_path: userPath(config) });
    return out;
  }

  async activeBackupPath(name: string): Promise<string | undefined> {
    const m = this.mounts.get(name);
    if (!m || m.config.usage !== 'backup' || (await this.stateOf(name)) !== 'active') return undefined;
    return this.mountPoint(name);
  }

  async backupLocation(name: string): Promise<string> {
    const m = this.mounts.get(name);
    // the manager's own wording carries no extra_fields (supervisor-wire §3)
    if (!m) throw new SupervisorError(`No mount exists with name '${name}'`, { status: 404, errorKey: 'mount_not_found_error' });
    if (m.config.usage !== 'backup') throw badRequest(`Mount ${name} is not used for backups, cannot backup to there`);
    const path = await this.activeBackupPath(name);
    if (!path) throw keyedError(400, 'backup_mount_down', "Backup mount '{mount}' is down", { mount: name });
    return path;
  }

  boundFolders(): string[] {
    return [...this.mounts.values()].map((m) => bindTarget(this.deps.dataDir, m.config)).filter((p): p is string => p !== undefined);
  }

  async exportForBackup(): Promise<{ default_backup_mount: string | null; mounts: (MountConfig & Partial<MountCredentials>)[] }> {
    const mounts: (MountConfig & Partial<MountCredentials>)[] = [];
    for (const m of this.mounts.values()) {
      const credentials = m.credentials ? await this.credentials.read(m.config.name) : undefined;
      mounts.push({ ...m.config, ...credentials });
    }
    return { default_backup_mount: this.defaultBackupMount(), mounts };
  }

  /** Whether this host lets the supervisor mount at all (the host's `mount` feature). */
  supported(): Promise<boolean> {
    return this.deps.system.available().catch(() => false);
  }

  /** The local folder a mount is mounted on. */
  mountPoint(name: string): string {
    return childPath(join(this.deps.dataDir, 'mounts'), name);
  }

  // ---- changing ----

  /** Mounts every configured mount (at start); failures become issues, never a failed start. */
  async load(): Promise<void> {
    if (!this.mounts.size) return;
    if (!(await this.deps.system.available())) {
      this.deps.logger.error('Cannot load configured mounts because mounting not supported on system: the supervisor needs root with CAP_SYS_ADMIN');
      return;
    }
    this.deps.logger.info('Initializing all user-configured mounts');
    await this.exclusive(() =>
      Promise.all(
        [...this.mounts.values()].map(async (m) => {
          try {
            await this.activate(m);
            await this.clearFailure(m.config.name);
          } catch (err) {
            this.deps.logger.error(`Could not mount ${m.config.name} due to: ${(err as Error).message}`);
            await this.reportFailure(m.config.name);
          }
        }),
      ),
    );
  }

  /**
   * Tries again every mount that is not mounted now (failed, or unmounted under it); a failure
   * is an issue, as at start. Runs every MOUNT_REFRESH_INTERVAL_MS once started.
   */
  async refresh(): Promise<void> {
    if (!(await this.deps.system.available())) return;
    for (const name of [...this.mounts.keys()]) {
      if ((await this.stateOf(name)) === 'active') continue;
      await this.reload(name, this.deps.context()).catch(() => {}); // reload reported it
    }
  }

  /** Starts the periodic refresh (the timer keeps nothing alive). */
  start(): void {
    this.timer = setInterval(() => void this.refresh().catch((err) => this.deps.logger.warning(`mount refresh failed: ${(err as Error)?.message ?? err}`)), MOUNT_REFRESH_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the refresh and waits for a change under way (before the log closes); mounts stay up. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.serial.catch(() => {});
  }

  /** POST /mounts: mounts it, and keeps it only when that worked. */
  create(config: MountConfig, credentials: MountCredentials | undefined, context: Context): Promise<void> {
    return this.exclusive(async () => {
      await this.requireAvailable('create_mount');
      if (this.mounts.has(config.name)) throw badRequest(`A mount already exists with name ${config.name}`);
      await this.job('mount_manager_create_mount', config.name, context, async () => {
        const stored: StoredMount = { config, credentials: credentials !== undefined };
        await this.writeCredentials(config.name, credentials);
        try {
          await this.activate(stored);
        } catch (err) {
          this.states.delete(config.name);
          await this.credentials.remove(config.name);
          await removeEmptyDir(this.mountPoint(config.name));
          throw this.failed(config.name, err, 'Could not mount');
        }
        this.deps.logger.info(`Created mount ${config.name}`);
        const events = [this.event(MOUNT_STREAM_PREFIX + config.name, { type: 'mount_created', data: { config, credentials: stored.credentials } }, context)];
        if (config.usage === 'backup' && this.defaultBackupMount() === null) events.push(this.defaultEvent(config.name, context));
        await this.deps.log.append(events);
      });
    });
  }

  /**
   * PUT /mounts/<name>: unmounts the old configuration, mounts the new one and keeps it whether
   * or not that worked (a failure leaves it `failed` with an issue, and is answered).
   */
  update(config: MountConfig, credentials: MountCredentials | undefined, context: Context): Promise<void> {
    return this.exclusive(async () => {
      await this.requireAvailable('create_mount');
      const old = this.mounts.get(config.name);
      if (!old) throw notFound(`No mount exists with name ${config.name}`);
      await this.job('mount_manager_create_mount', config.name, context, async () => {
        await this.deactivate(old.config);
        const stored: StoredMount = { config, credentials: credentials !== undefined };
        await this.writeCredentials(config.name, credentials);
        let failure: unknown;
        try {
          await this.activate(stored);
        } catch (err) {
          failure = err;
        }
        const events = [this.event(MOUNT_STREAM_PREFIX + config.name, { type: 'mount_updated', data: { config, credentials: stored.credentials } }, context)];
        if (this.defaultBackup === config.name && config.usage !== 'backup') events.push(this.defaultEvent(null, context));
        await this.deps.log.append(events);
        if (failure !== undefined) {
          await this.reportFailure(config.name);
          throw this.failed(config.name, failure, 'Could not mount');
        }
        await this.clearFailure(config.name);
      });
    });
  }

  /** DELETE /mounts/<name> (and the `execute_remove` fix). */
  remove(name: string, context: Context): Promise<void> {
    return this.exclusive(async () => {
      await this.requireAvailable('remove_mount');
      const m = this.mounts.get(name);
      if (!m) throw notFound(`Cannot remove '${name}', no mount exists with that name`);
      await this.job('mount_manager_remove_mount', name, context, async () => {
        this.deps.logger.info(`Removing mount: ${name}`);
        await this.deactivate(m.config);
        this.states.delete(name);
        const events = [this.event(MOUNT_STREAM_PREFIX + name, { type: 'mount_removed', data: { name } }, context)];
        if (this.defaultBackup === name) events.push(this.defaultEvent(null, context));
        await this.deps.log.append(events);
        await this.credentials.remove(name);
        await removeEmptyDir(this.mountPoint(name));
        const bound = bindTarget(this.deps.dataDir, m.config);
        if (bound) await removeEmptyDir(bound);
        await this.clearFailure(name);
      });
    });
  }

  /** POST /mounts/<name>/reload (and the `execute_reload` fix): unmounts if mounted, mounts again. */
  reload(name: string, context: Context): Promise<void> {
    return this.exclusive(async () => {
      await this.requireAvailable('reload_mount');
      const m = this.mounts.get(name);
      if (!m) throw notFound(`Cannot reload '${name}', no mount exists with that name`);
      await this.job('mount_manager_reload_mount', name, context, async () => {
        this.deps.logger.info(`Reloading mount: ${name}`);
        try {
          await this.deactivate(m.config);
          await this.activate(m);
        } catch (err) {
          this.states.set(name, 'failed');
          await this.reportFailure(name);
          throw this.failed(name, err, 'Reloading', 'did not succeed:');
        }
        await this.clearFailure(name);
      });
    });
  }

  /** POST /mounts/options: a backup mount's name, or null for local storage. */
  setDefaultBackupMount(name: string | null, context: Context): Promise<void> {
    return this.exclusive(async () => {
      if (name !== null) {
        const m = this.mounts.get(name);
        if (!m) throw notFound(`No mount exists with name '${name}'`);
        if (m.config.usage !== 'backup') throw badRequest(`Mount ${name} is not used for backups, cannot use it as default backup mount`);
      }
      if (name === this.defaultBackupMount()) return;
      await this.deps.log.append([this.defaultEvent(name, context)]);
    });
  }

  // ---- internals ----

  private async stateOf(name: string): Promise<MountState> {
    const state = this.states.get(name) ?? null;
    // something else unmounted it: systemd would call the unit inactive
    if (state === 'active' && !(await this.deps.system.mounted(this.mountPoint(name)))) return 'inactive';
    return state;
  }

  /** Mounts (and binds) unless already there; the state ends `active` or `failed`. */
  private async activate(m: StoredMount): Promise<void> {
    const { config } = m;
    const target = this.mountPoint(config.name);
    this.states.set(config.name, 'activating');
    try {
      if (!(await this.deps.system.mounted(target))) {
        await emptyDir(config.name, target);
        const file = m.credentials && (await this.credentials.exists(config.name)) ? this.credentials.path(config.name) : undefined;
        if (m.credentials && !file) this.deps.logger.warning(`Mount ${config.name}: its credentials file ${this.credentials.path(config.name)} is missing, mounting as a guest`);
        await this.deps.system.mount(config.type, source(config), target, mountOptions(config, file));
      }
      const bound = bindTarget(this.deps.dataDir, config);
      if (bound && !(await this.deps.system.mounted(bound))) {
        await emptyDir(config.name, bound);
        await this.deps.system.bind(target, bound);
      }
      this.states.set(config.name, 'active');
    } catch (err) {
      this.states.set(config.name, 'failed');
      if (err instanceof SupervisorError) throw new MountFailure(err.message, err);
      if (err instanceof MountCommandError) throw new MountFailure(err.message);
      throw new MountFailure((err as Error)?.message ?? String(err));
    }
  }

  private async deactivate(config: MountConfig): Promise<void> {
    const target = this.mountPoint(config.name);
    const bound = bindTarget(this.deps.dataDir, config);
    const before = this.states.get(config.name) ?? null;
    this.states.set(config.name, 'deactivating');
    try {
      if (bound && (await this.deps.system.mounted(bound))) await this.deps.system.unmount(bound);
      if (await this.deps.system.mounted(target)) await this.deps.system.unmount(target);
      this.states.delete(config.name);
    } catch (err) {
      this.states.set(config.name, before);
      throw new SupervisorError(`Could not unmount ${config.name} due to: ${(err as Error).message}`);
    }
  }

  /** The answer for a failed mount: a keyed target error as it is, else `<what> <name> <how> <why>`. */
  private failed(name: string, err: unknown, what: string, how = 'due to:'): SupervisorError {
    if (err instanceof MountFailure && err.keyed) return err.keyed;
    const message = `${what} ${name} ${how} ${(err as Error)?.message ?? err}`;
    this.deps.logger.error(message);
    return badRequest(message);
  }

  private async writeCredentials(name: string, credentials: MountCredentials | undefined) {
    if (credentials) await this.credentials.write(name, credentials);
    else await this.credentials.remove(name);
  }

  private async requireAvailable(operation: string) {
    if (this.deps.jobs.ignoredConditions().includes('mount_available')) return;
    if (!(await this.deps.system.available())) throw badRequest(`'MountManager.${operation}' blocked from execution, mounting not supported on system`);
  }

  private reportFailure(name: string): Promise<unknown> {
    const target = { context: 'mount', reference: name };
    return this.deps.resolution
      .addIssue({ type: 'mount_failed', ...target }, [
        { type: 'execute_reload', ...target },
        { type: 'execute_remove', ...target },
      ])
      .catch((err) => this.deps.logger.warning(`mount ${name}: issue not recorded: ${(err as Error)?.message ?? err}`));
  }

  private clearFailure(name: string): Promise<unknown> {
    return this.deps.resolution.clearIssues({ type: 'mount_failed', context: 'mount', reference: name }).catch((err) => this.deps.logger.warning(`mount ${name}: issue not resolved: ${(err as Error)?.message ?? err}`));
  }

  private async job(name: string, reference: string, context: Context, work: () => Promise<void>): Promise<void> {
    await this.deps.jobs.run({ name, reference, context }, () => work()).done;
  }

  private defaultEvent(name: string | null, context: Context): NewEvent {
    return this.event(MOUNT_OPTIONS_STREAM, { type: 'default_backup_mount_changed', data: { default_backup_mount: name } }, context);
  }

  private event(stream: string, kind: MountRecord, context: Context): NewEvent {
    return mountRecords.make(stream, kind, context, this.deps.clock.now());
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const next = this.serial.then(fn, fn);
    this.serial = next.catch(() => {});
    return next;
  }
}

/** A mount as GET /mounts shows it (before state and user_path): never a username or password. */
function wireConfig(c: MountConfig): Record<string, unknown> & { name: string } {
  const out: Record<string, unknown> & { name: string } = { name: c.name, type: c.type, usage: c.usage, read_only: c.read_only, server: c.server };
  if (c.port !== undefined) out.port = c.port;
  if (c.type === 'cifs') {
    out.share = c.share;
    out.version = c.version ?? null;
  } else out.path = c.path;
  return out;
}

/** Where apps see a media or share mount; backup mounts are not shown to apps. */
function userPath(c: MountConfig): string | null {
  return c.usage === 'backup' ? null : `/${c.usage}/${c.name}`;
}

function bindTarget(dataDir: string, c: MountConfig): string | undefined {
  return c.usage === 'backup' ? undefined : childPath(join(dataDir, c.usage), c.name);
}

function source(c: MountConfig): string {
  return c.type === 'cifs' ? `//${c.server}/${c.share}` : `${c.server}:${c.path}`;
}

/** The original's options: soft mounts that give up rather than hang the supervisor. */
function mountOptions(c: MountConfig, credentialsFile: string | undefined): string[] {
  const options = c.port !== undefined ? [`port=${c.port}`] : [];
  if (c.type === 'cifs') {
    options.push('noserverino', 'soft', 'echo_interval=10', 'retrans=0');
    if (c.version) options.push(`vers=${c.version}`);
    options.push(credentialsFile ? `credentials=${credentialsFile}` : 'guest');
  } else options.push('softerr', 'timeo=100', 'retrans=2');
  if (c.read_only) options.push('ro');
  return options;
}

/** Makes `path` an empty folder to mount on, or says why it cannot be one. */
async function emptyDir(name: string, path: string): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (!info) {
    await mkdir(path, { recursive: true });
    return;
  }
  if (!info.isDirectory()) throw keyedError(400, 'mount_target_not_directory_error', 'Cannot mount {name} at {path} as it is not a directory', { name, path });
  if ((await readdir(path)).length) throw keyedError(400, 'mount_target_not_empty_error', 'Cannot mount {name} because there is existing data at {path}. Move it away first, then retry', { name, path });
}

async function removeEmptyDir(path: string): Promise<void> {
  await rmdir(path).catch(() => {});
}
