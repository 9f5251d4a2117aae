/**
 * The backup manager: which backups exist where, one backup or restore at a time, freeze and
 * thaw. The files are the truth: backups are found by scanning the locations (at start, on
 * reload, after a change), each file read with BackupReader; nothing about them is kept in the log.
 *
 * Restore (another module) works through the public part: `get`/`copyPath`, `exclusive`,
 * `freezeDuring`, `locationDir`, `rescan`.
 */
import { readdir, rm, stat, copyFile, rename, mkdir } from 'node:fs/promises';
import { requireConditions } from '../jobs/conditions.ts';
import { basename, join } from 'node:path';
import type { AppsView } from '../apps/types.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context } from '../../../store/types.ts';
import type { Jobs } from '../jobs/types.ts';
import type { Resolution } from '../resolution/types.ts';
import type { Mounts } from '../mounts/mounts.ts';
import type { SettingsSection } from '../settings.ts';
import { SupervisorError, badRequest } from '../errors.ts';
import { BackupReader } from './archive/reader.ts';
import { partialPath } from './archive/writer.ts';
import type { BackupMeta } from './archive/backup-json.ts';
import { CLOUD, LOCAL, cloudBackupDir, localBackupDir, sortLocations } from './locations.ts';
import { childPath } from '../paths.ts';

export { CLOUD, LOCAL, locationName, wireLocation } from './locations.ts';

/** One file of a backup in one location. */
export interface BackupCopy {
  location: string;
  path: string;
  size: number;
  protected: boolean;
}

/** A backup: its metadata (as the first copy found says) and its copies by location name. */
export interface Backup {
  slug: string;
  meta: BackupMeta;
  copies: Map<string, BackupCopy>;
}

export const BACKUP_OPTIONS_DEFAULTS = { days_until_stale: 30 };
export type BackupOptions = typeof BACKUP_OPTIONS_DEFAULTS;

/** The supervisor's state as the manager changes it (`running` ⇄ `freeze`). */
export interface StateControl {
  get(): string;
  set(state: string): void;
}

export interface CoreBackupHooks {
  /** the core's `backup/start`; resolves once its data may be read, to false when the core does not answer */
  start(excludeDatabase: boolean): Promise<boolean>;
  /** the core's `backup/end` */
  end(): Promise<void>;
}

export interface BackupManagerDeps {
  dataDir: string;
  coreDataDir: string;
  logger: Logger;
  jobs: Jobs;
  resolution: Resolution;
  mounts: () => Mounts | undefined;
  state: StateControl;
  options: SettingsSection<BackupOptions>;
  core: CoreBackupHooks;
  /** the installed apps, held still for a freeze as for their backup */
  apps?: () => AppsView | undefined;
  context(): Context;
}

/** The original's refusal while another backup or restore runs (its job group `backup_manager`). */
export const busyError = () => badRequest('Another job is running for job group backup_manager');

export class BackupManager {
  private readonly backups = new Map<string, Backup>();
  private busy: string | null = null;
  private frozenByApi: { thaw: () => void; done: Promise<void> } | null = null;
  private scanning: Promise<void> | null = null;
  /** partial files being written now (uploads, copies): a scan leaves them alone */
  private readonly writing = new Set<string>();

  constructor(readonly deps: BackupManagerDeps) {}

  // ---- reading ----

  /** Every backup known, newest first. */
  list(): Backup[] {
    return [...this.backups.values()].sort((a, b) => (a.meta.date < b.meta.date ? 1 : a.meta.date > b.meta.date ? -1 : 0));
  }

  get(slug: string): Backup | undefined {
    return this.backups.get(slug);
  }

  /** The location names of a backup's copies, local first. */
  locationsOf(backup: Backup): string[] {
    return sortLocations(backup.copies.keys());
  }

  /** The copy in `location`, or the primary one. */
  copy(backup: Backup, location?: string): BackupCopy | undefined {
    if (location !== undefined) return backup.copies.get(location);
    return backup.copies.get(this.locationsOf(backup)[0]);
  }

  options(): BackupOptions {
    return this.deps.options.get();
  }

  async setOptions(patch: Partial<BackupOptions>, context: Context): Promise<void> {
    await this.deps.options.set(patch, context);
  }

  /** The folder of a location; a mount must be a backup mount and active (the original's errors). */
  async locationDir(location: string): Promise<string> {
    if (location === LOCAL) return localBackupDir(this.deps.dataDir);
    if (location === CLOUD) return cloudBackupDir(this.deps.coreDataDir);
    const mounts = this.deps.mounts();
    if (!mounts) throw new SupervisorError(`No mount exists with name '${location}'`, { status: 404, errorKey: 'mount_not_found_error' });
    return mounts.backupLocation(location);
  }

  /** Every location that can hold backups now, with its folder. */
  async locations(): Promise<Map<string, string>> {
    const out = new Map<string, string>([
      [LOCAL, localBackupDir(this.deps.dataDir)],
      [CLOUD, cloudBackupDir(this.deps.coreDataDir)],
    ]);
    const mounts = this.deps.mounts();
    if (mounts) {
      for (const m of await mounts.list()) {
        if (m.usage !== 'backup') continue;
        const path = await mounts.activeBackupPath(m.name);
        if (path) out.set(m.name, path);
      }
    }
    return out;
  }

  /** Scans every location again (POST /backups/reload, start, a vanished file); concurrent calls share one scan. */
  rescan(): Promise<void> {
    return (this.scanning ??= this.scan().finally(() => (this.scanning = null)));
  }

  private async scan(): Promise<void> {
    const found = new Map<string, Backup>();
    for (const [location, dir] of await this.locations()) {
      let names: string[];
      try {
        names = await readdir(dir);
      } catch {
        continue;
      }
      for (const name of names.sort()) {
        const path = join(dir, name);
        if (name.endsWith('.tar.partial')) {
          await this.interrupted(path);
          continue;
        }
        if (!name.endsWith('.tar')) continue;
        const reader = await this.read(path);
        if (reader) addCopy(found, reader.meta, { location, path, size: (await stat(path)).size, protected: reader.meta.protected });
      }
    }
    this.backups.clear();
    for (const [slug, backup] of found) this.backups.set(slug, backup);
  }

  private async read(path: string): Promise<BackupReader | undefined> {
    try {
      return await BackupReader.open(path);
    } catch (err) {
      this.deps.logger.warning(`not a backup, left out of the list: ${path}: ${(err as Error).message}`);
      return undefined;
    }
  }

  /**
   * A backup that was being written when the supervisor died: its partial file goes (no writer
   * is running now: the scan at start runs before any backup) and the operator is told by an issue.
   */
  private async interrupted(path: string): Promise<void> {
    if (this.busy || this.writing.has(path)) return;
    this.deps.logger.warning(`removing the unfinished backup ${path} (the supervisor stopped while writing it)`);
    await rm(path, { force: true });
    await this.deps.resolution.addIssue({ type: 'fatal_error', context: 'system', reference: basename(path) }).catch(() => {});
  }

  /** Records a copy just written or imported. */
  async learn(path: string, location: string): Promise<Backup> {
    const reader = await BackupReader.open(path);
    addCopy(this.backups, reader.meta, { location, path, size: (await stat(path)).size, protected: reader.meta.protected });
    return this.backups.get(reader.meta.slug)!;
  }

  /** Forgets a copy whose file is gone (and the backup when it was its last). */
  forget(slug: string, location: string): void {
    const backup = this.backups.get(slug);
    if (!backup) return;
    backup.copies.delete(location);
    if (backup.copies.size === 0) this.backups.delete(slug);
  }

  // ---- one at a time ----

  /** What runs now (`backup_manager_full_backup`...), null when nothing does. */
  running(): string | null {
    return this.busy;
  }

  /**
   * Claims the manager for one backup or restore; the original's group error when it is taken.
   * The claim is released by the returned function (call it once the work is over).
   */
  claim(what: string): () => void {
    if (this.busy) throw busyError();
    this.busy = what;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.busy = null;
    };
  }

  /** Runs `work` holding the claim. */
  async exclusive<T>(what: string, work: () => Promise<T>): Promise<T> {
    const release = this.claim(what);
    try {
      return await work();
    } finally {
      release();
    }
  }

  /** The `running` job condition in the original's words, unless the operator ignores it. */
  requireRunning(method: string): Promise<void> {
    return requireConditions(method, ['running'], { state: () => this.deps.state.get() }, this.deps.jobs.ignoredConditions());
  }

  /** The supervisor in state `freeze` while `work` runs, `running` again after. */
  async freezeDuring<T>(work: () => Promise<T>): Promise<T> {
    this.deps.state.set('freeze');
    try {
      return await work();
    } finally {
      this.deps.state.set('running');
    }
  }

  // ---- freeze / thaw (external snapshots) ----

  /**
   * POST /backups/freeze: state `freeze`, the core told `backup/start`; thawed by `thaw()` or
   * after `timeoutS`, whichever comes first (job `backup_manager_thaw_all`).
   */
  async freeze(timeoutS: number, context: Context): Promise<void> {
    await this.requireRunning('BackupManager.freeze_all');
    const release = this.claim('backup_manager_freeze_all');
    // the apps held still (cold ones stopped, hot ones past their backup_pre): the thaw lets them go
    const held: string[] = [];
    try {
      await this.deps.jobs.run({ name: 'backup_manager_freeze_all', keep: true, context }, async (job) => {
        this.deps.state.set('freeze');
        try {
          // a core that is down writes nothing: there is nothing to hold still
          job.stage('home_assistant');
          await this.deps.core.start(false);
        } catch (err) {
          this.deps.state.set('running');
          throw err;
        }
        job.stage('apps');
        const apps = this.deps.apps?.();
        for (const app of apps?.list() ?? []) {
          try {
            if (await apps?.beginBackup?.(app.slug, context, job)) held.push(app.slug);
          } catch (err) {
            // one app that cannot be held still leaves the others frozen; the failure stays on the job
            job.capture(err);
            this.deps.logger.warning(`freeze: app ${app.slug}: ${(err as Error).message}`);
          }
        }
      }).done;
    } catch (err) {
      release();
      throw err;
    }
    let thaw: () => void = () => {};
    const signal = new Promise<void>((ok) => (thaw = ok));
    const timer = setTimeout(thaw, timeoutS * 1000);
    timer.unref?.();
    const done = this.deps.jobs.run({ name: 'backup_manager_thaw_all', keep: true, context }, async (job) => {
      await signal;
      clearTimeout(timer);
      try {
        job.stage('home_assistant');
        await this.deps.core.end();
        job.stage('apps');
        const apps = this.deps.apps?.();
        const restarts: Promise<void>[] = [];
        for (const slug of held) {
          try {
            const { started } = (await apps?.endBackup?.(slug, context, job)) ?? {};
            if (started) restarts.push(started.catch(() => {}));
          } catch (err) {
            job.capture(err);
            this.deps.logger.warning(`thaw: app ${slug}: ${(err as Error).message}`);
          }
        }
        job.stage('await_app_restarts');
        await Promise.all(restarts);
      } finally {
        this.frozenByApi = null;
        this.deps.state.set('running');
        release();
      }
    }).done.catch((err) => this.deps.logger.warning(`thaw: ${(err as Error).message}`));
    this.frozenByApi = { thaw, done };
  }

  /** POST /backups/thaw: ends a freeze made by freeze(); resolves once thawed. */
  async thaw(): Promise<void> {
    await requireConditions('BackupManager.thaw_all', ['frozen'], { state: () => this.deps.state.get() }, this.deps.jobs.ignoredConditions());
    if (!this.frozenByApi) throw badRequest('Freeze was not initiated by freeze API, cannot thaw this way');
    const { thaw, done } = this.frozenByApi;
    thaw();
    await done;
  }

  /** At stop: a freeze made through the API ends now (the core gets its backup/end). */
  async close(): Promise<void> {
    const frozen = this.frozenByApi;
    if (!frozen) return;
    frozen.thaw();
    await frozen.done;
  }

  // ---- files ----

  /** Removes copies (all by default); a file already gone is the original's 404. */
  async remove(backup: Backup, locations?: string[]): Promise<void> {
    const which = locations ?? [...backup.copies.keys()];
    for (const location of which) {
      const copy = backup.copies.get(location);
      if (!copy) throw badRequest(`Backup ${backup.slug} is not in location ${location}`);
      try {
        await stat(copy.path);
      } catch {
        this.forget(backup.slug, location);
        throw new SupervisorError(`Cannot delete backup at ${copy.path}, file does not exist!`, { status: 404 });
      }
      await rm(copy.path, { force: true });
      this.forget(backup.slug, location);
    }
  }

  /** Copies a backup file into another location's folder, partial then renamed. */
  async copyTo(source: string, location: string, fileName: string): Promise<string> {
    const dir = await this.locationDir(location);
    await mkdir(dir, { recursive: true });
    const target = childPath(dir, fileName);
    if (await exists(target)) throw badRequest(`Cannot copy backup to ${target}, file already exists!`);
    await this.whileWriting(partialPath(target), async () => {
      await copyFile(source, partialPath(target));
      await rename(partialPath(target), target);
    });
    await this.learn(target, location);
    return target;
  }

  /** Gives a complete backup file written in a location's folder its name there, and records it. */
  async adopt(file: string, location: string, fileName: string): Promise<string> {
    const target = childPath(await this.locationDir(location), fileName);
    if (await exists(target)) throw badRequest(`Cannot import backup to ${target}, file already exists!`);
    await rename(file, target);
    await this.learn(target, location);
    return target;
  }

  /** Runs `work`, which writes `partial`; a scan meanwhile does not take it for a leftover. */
  async whileWriting<T>(partial: string, work: () => Promise<T>): Promise<T> {
    this.writing.add(partial);
    try {
      return await work();
    } catch (err) {
      await rm(partial, { force: true });
      throw err;
    } finally {
      this.writing.delete(partial);
    }
  }
}

const exists = (path: string) => stat(path).then(() => true, () => false);

function addCopy(into: Map<string, Backup>, meta: BackupMeta, copy: BackupCopy): void {
  const known = into.get(meta.slug);
  if (known) known.copies.set(copy.location, copy);
  else into.set(meta.slug, { slug: meta.slug, meta, copies: new Map([[copy.location, copy]]) });
}
