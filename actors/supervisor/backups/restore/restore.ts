/**
 * Restores a backup (supervisor-wire §5.7): full or partial, as the job
 * `backup_manager_full_restore` / `_partial_restore`. Everything that can refuse the restore
 * (location, version, type, content, password, the backup lock) is checked before the job
 * starts and touches nothing. The job then works in two steps: every part is extracted and
 * checked into a staging directory beside its target while the system keeps running, and only
 * when all parts are staged are the core and apps stopped and the directories swapped. A part
 * that cannot be extracted (a damaged archive, a bad `addon.json`) fails the restore with the
 * previous state untouched.
 */
import { mkdir, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from '../../../../store/types.ts';
import { CORE_BACKUP_EXCLUDE as CORE_LIVE_FILES, CORE_EXPORT_DIR, CORE_RESTORE_MARKER } from '../../../../store/backup-layout.ts';
import type { Logger } from '../../../logging/logs.ts';
import { SupervisorError } from '../../errors.ts';
import { runInBackground } from '../../jobs/jobs.ts';
import { RESTORE_CONDITIONS } from '../../jobs/conditions.ts';
import type { JobHandle, Jobs } from '../../jobs/types.ts';
import type { AppManager } from '../../apps/manager.ts';
import type { CoreRuntime } from '../../core/runtime.ts';
import type { CoreSettings } from '../../core/types.ts';
import { compareVersions } from '../../../version-order.ts';
import type { Mounts } from '../../mounts/mounts.ts';
import { parseMount } from '../../mounts/body.ts';
import { SUPERVISOR_VERSION } from '../../../version.ts';
import { BackupReader, BackupReadError, coreConfigDir } from '../archive/reader.ts';
import type { BackupFolder, BackupMeta } from '../archive/backup-json.ts';
import { compileGlob } from '../archive/glob.ts';
import { InvalidPasswordError, SecureTarError } from '../securetar/securetar.ts';
import { locationName, type BackupManager } from '../manager.ts';
import { discard, stagingDir, swapDirectory } from './swap.ts';
import { parseAddonJson, type AddonJson } from './addon-json.ts';
import { folderDir } from './folders.ts';
import type { GitRepositories } from '../../apps/git-repositories.ts';
import { appDataDir } from '../../apps/container-spec.ts';
import { isObject } from '../../../json-object.ts';

export interface RestoreOptions {
  dataDir: string;
  coreDataDir: string;
  jobs: Jobs;
  /** where backups are, and the one-at-a-time claim shared with creation */
  backups: BackupManager;
  logger: Logger;
  /** a short unique id for staging directories */
  newId(): string;
  core?: CoreRuntime;
  apps?: AppManager;
  mounts?: Mounts;
  /** the store's added repositories */
  repositories?: GitRepositories;
  /** the running supervisor's version (a newer backup is refused) */
  supervisorVersion?: string;
}

export interface RestoreRequest {
  slug: string;
  location?: string | null;
  password?: string | null;
  background?: boolean;
  /** absent for a full restore */
  partial?: { homeassistant?: boolean; apps?: readonly string[]; folders?: readonly string[] };
}

/** The Core settings a restore takes over from the backup's `homeassistant.json`. */
const CORE_SETTINGS_RESTORED = ['audio_input', 'audio_output', 'port', 'ssl', 'refresh_token', 'watchdog'] as const;

// top-level names of the core's data directory that belong to the running core, not to a backup
const coreLive = CORE_LIVE_FILES.filter((glob) => !glob.includes('/')).map((glob) => compileGlob(glob));
const isCoreLive = (name: string) => coreLive.some((matches) => matches(name));

interface StagedCore {
  root: string;
  config: string;
  settings: Partial<CoreSettings>;
  /** the core's version when the backup was made */
  version: string | null;
}
interface StagedApp {
  slug: string;
  root: string;
  meta: AddonJson;
}
interface Staged {
  core?: StagedCore;
  apps: StagedApp[];
  folders: { folder: BackupFolder; dir: string }[];
  supervisor?: { mounts?: { default_backup_mount?: string | null; mounts?: Record<string, unknown>[] } };
  roots: string[];
  /** the store's repositories when the backup was made */
  repositories: readonly string[];
}

export class BackupRestorer {
  constructor(private readonly options: RestoreOptions) {}

  /**
   * Checks the request, then runs the restore job. Answers `{job_id}`; a failure of the job is
   * the original's error naming the job.
   */
  async restore(request: RestoreRequest, context: Context): Promise<{ job_id: string }> {
    const name = request.partial ? 'backup_manager_partial_restore' : 'backup_manager_full_restore';
    await this.options.jobs.requireConditions(request.partial ? 'BackupManager.do_restore_partial' : 'BackupManager.do_restore_full', RESTORE_CONDITIONS);
    const { reader, parts } = await this.validate(request);
    const release = this.options.backups.claim(name);
    let uuid = '';
    try {
      const answer = await runInBackground(
        this.options.jobs,
        { name, reference: reader.meta.slug, keep: true, context },
        async (job) => {
          uuid = job.uuid;
          job.validated();
          try {
            await this.options.backups.freezeDuring(() => this.run(reader, parts, request.partial === undefined, job, context));
          } finally {
            release();
          }
        },
        request.background === true,
        { validates: true },
      );
      return answer && typeof answer === 'object' && 'job_id' in answer ? answer : { job_id: uuid };
    } catch (error) {
      release();
      this.options.logger.error(`restore of backup ${request.slug} failed: ${(error as Error).message}`);
      throw new SupervisorError(`An error occurred during restore of ${request.slug}, check job '${uuid}' or supervisor logs for details`, { jobId: uuid });
    }
  }

  /** Every refusal before anything is touched (supervisor-wire §5.7 "Common" and per kind). */
  private async validate(request: RestoreRequest): Promise<{ reader: BackupReader; parts: { core: boolean; apps: string[]; folders: BackupFolder[] } }> {
    const { slug } = request;
    const backup = this.options.backups.get(slug);
    if (!backup) throw new SupervisorError('Backup does not exist', { status: 404 });
    const location = request.location === undefined ? undefined : locationName(request.location);
    const copy = this.options.backups.copy(backup, location);
    if (!copy) throw new SupervisorError(`Backup ${slug} does not exist in ${location}`);
    const path = copy.path;
    if (!(await stat(path).then(() => true, () => false))) {
      void this.options.backups.rescan().catch(() => {});
      throw new SupervisorError(`Cannot validate backup at ${path}, file does not exist!`, { status: 404 });
    }
    let reader: BackupReader;
    try {
      reader = await BackupReader.open(path);
    } catch (error) {
      if (error instanceof BackupReadError) throw new SupervisorError(error.message);
      throw error;
    }
    const meta = reader.meta;
    const running = this.options.supervisorVersion ?? SUPERVISOR_VERSION;
    if (compareVersions(meta.supervisor_version, running) > 0) {
      throw new SupervisorError(`Backup was made on supervisor version ${meta.supervisor_version}, can't restore on ${running}. Must update supervisor first.`);
    }
    const parts = request.partial ? this.partialParts(meta, request.partial) : this.fullParts(meta);
    if (meta.protected) {
      try {
        if (!request.password) throw new InvalidPasswordError(`Invalid password for backup ${slug}`);
        await reader.usePassword(request.password);
      } catch (error) {
        if (error instanceof SecureTarError) throw new SupervisorError(`Invalid password for backup ${slug}`);
        throw error;
      }
    }
    return { reader, parts };
  }

  private fullParts(meta: BackupMeta) {
    if (meta.type !== 'full') throw new SupervisorError(`${meta.slug} is only a partial backup!`);
    return { core: meta.homeassistant !== null, apps: meta.addons.map((app) => app.slug), folders: [...meta.folders] };
  }

  private partialParts(meta: BackupMeta, wanted: NonNullable<RestoreRequest['partial']>) {
    if (wanted.homeassistant && meta.homeassistant === null) throw new SupervisorError('No Home Assistant Core data inside the backup');
    const inBackup = new Set(meta.addons.map((app) => app.slug));
    const apps: string[] = [];
    for (const slug of wanted.apps ?? []) {
      if (inBackup.has(slug)) apps.push(slug);
      else this.options.logger.warning(`app ${slug} is not in backup ${meta.slug}: skipped`);
    }
    const folders = (wanted.folders ?? []).filter((folder): folder is BackupFolder => {
      if ((meta.folders as string[]).includes(folder)) return true;
      this.options.logger.warning(`folder ${folder} is not in backup ${meta.slug}: skipped`);
      return false;
    });
    return { core: wanted.homeassistant === true, apps, folders };
  }

  private async run(reader: BackupReader, parts: { core: boolean; apps: string[]; folders: BackupFolder[] }, full: boolean, job: JobHandle, context: Context): Promise<void> {
    const staged: Staged = { apps: [], folders: [], roots: [], repositories: reader.meta.repositories };
    try {
      await this.stage(reader, parts, staged);
    } catch (error) {
      for (const root of staged.roots) await discard(root).catch(() => {});
      throw error;
    }
    job.progress(20);
    try {
      await this.swap(staged, full, job, context);
    } finally {
      for (const root of staged.roots) await discard(root).catch(() => {});
    }
  }

  /** Everything extracted and checked beside its target; nothing in use is touched yet. */
  private async stage(reader: BackupReader, parts: { core: boolean; apps: string[]; folders: BackupFolder[] }, staged: Staged): Promise<void> {
    const id = this.options.newId();
    const begin = async (target: string) => {
      const root = await stagingDir(target, id);
      staged.roots.push(root);
      return root;
    };
    for (const folder of parts.folders) {
      const target = folderDir(this.options.dataDir, folder);
      const dir = await begin(target);
      await reader.extract(folder, dir);
      staged.folders.push({ folder, dir });
    }
    if (parts.core) {
      const root = await begin(this.options.coreDataDir);
      await reader.extract('homeassistant', root);
      const config = await coreConfigDir(root);
      const settings = await readCoreSettings(join(root, 'homeassistant.json'));
      if (config === root) await rm(join(root, 'homeassistant.json'), { force: true });
      // the live log of the core that was backed up never belongs in its data: the export does
      for (const name of await readdir(config)) if (isCoreLive(name)) await rm(join(config, name), { recursive: true, force: true });
      if (await hasLogExport(join(config, CORE_EXPORT_DIR))) await writeFile(join(config, CORE_EXPORT_DIR, CORE_RESTORE_MARKER), '');
      staged.core = { root, config, settings, version: reader.meta.homeassistant?.version ?? null };
    }
    for (const slug of parts.apps) {
      const target = this.appsDataDir(slug);
      const root = await begin(target);
      await reader.extract(slug, root);
      const raw = await readFile(join(root, 'addon.json')).catch(() => undefined);
      const meta = parseAddonJson(slug, raw);
      staged.apps.push({ slug, root, meta });
    }
    if (reader.member('supervisor')) {
      const root = await begin(join(this.options.dataDir, 'supervisor-config'));
      await reader.extract('supervisor', root);
      const mounts = await readFile(join(root, 'mounts.json'), 'utf8').then((text) => JSON.parse(text), () => undefined);
      staged.supervisor = { mounts };
    }
  }

  /** Stops what is replaced, swaps the staged directories in and starts things again. */
  private async swap(staged: Staged, full: boolean, job: JobHandle, context: Context): Promise<void> {
    const failures: string[] = [];
    job.stage('folders');
    // a network mount bound inside a folder (media/<mount>) is the mount's, not the folder's content
    const bound = new Set(this.options.mounts?.boundFolders() ?? []);
    for (const { folder, dir } of staged.folders) {
      const target = folderDir(this.options.dataDir, folder);
      await job.child('backup_folder_restore', folder, () => swapDirectory(target, dir, (name) => bound.has(join(target, name)))).catch((error) => failures.push(`folder ${folder}: ${(error as Error).message}`));
    }
    job.progress(35);
    let coreStopped = false;
    try {
      if (staged.core) {
        job.stage('home_assistant');
        const core = staged.core;
        await job.child('backup_restore_homeassistant', null, async (coreJob) => {
          if (this.options.core) {
            // set first: a core whose stop failed part way is started again all the same
            coreStopped = true;
            await this.options.core.stopForRestore(context);
          }
          await swapDirectory(this.options.coreDataDir, core.config, isCoreLive);
          if (this.options.core && Object.keys(core.settings).length) await this.options.core.setOptions(core.settings, context);
          // the restored data is of the backup's core version: run that one, as the original updates to it
          const runtime = this.options.core;
          const version = core.version;
          if (runtime?.runsContainer && version && version !== runtime.version()) {
            await coreJob
              .child('home_assistant_core_update', null, () => runtime.useVersionForRestore(version, context))
              .catch((error) => failures.push(`core version ${version}: ${(error as Error).message}`));
          }
        });
      }
      job.progress(50);
      if (full && this.options.apps) {
        job.stage('remove_delta_apps');
        const keep = new Set(staged.apps.map((app) => app.slug));
        const apps = this.options.apps;
        await job.child('backup_remove_delta_apps', null, async () => {
          for (const app of apps.list()) if (!keep.has(app.slug)) await apps.uninstall(app.slug, context).catch((error) => failures.push(`removing app ${app.slug}: ${(error as Error).message}`));
        });
      }
      job.stage('app_repositories');
      if (staged.apps.length) await this.options.repositories?.restoreFrom(staged.repositories, full, context);
      if (staged.apps.length) {
        job.stage('apps');
        const apps = this.options.apps;
        if (!apps) throw new SupervisorError('Apps are not available: the backup holds apps');
        await job.child('backup_restore_apps', null, async (appsJob) => {
          for (const app of staged.apps) {
            await appsJob
              .child('backup_app_restore', app.slug, async () => apps.restoreFromBackup(app.slug, { ...app.meta, ...(await stagedAppDirs(app.root)) }, context))
              .catch((error) => failures.push(`app ${app.slug}: ${(error as Error).message}`));
          }
        });
      }
      job.progress(80);
      if (staged.supervisor?.mounts && this.options.mounts) {
        job.stage('supervisor_config');
        const mounts = this.options.mounts;
        const saved = staged.supervisor.mounts;
        await job.child('backup_restore_supervisor_config', null, () => restoreMounts(mounts, saved, context, (line) => failures.push(line)));
      }
    } finally {
      job.stage('await_app_restarts');
      // the core runs again whatever happened after it was stopped: on its restored data, or on
      // its own when the swap was rolled back
      if (coreStopped) {
        job.stage('await_home_assistant_restart');
        await this.options.core!.startAfterRestore(context, job.uuid);
      }
    }
    job.progress(100);
    if (failures.length) throw new SupervisorError(`Restore of parts failed: ${failures.join('; ')}`);
  }

  private appsDataDir(slug: string): string {
    return this.options.apps?.dataDirOf(slug) ?? appDataDir(this.options.dataDir, slug);
  }
}

async function readCoreSettings(path: string): Promise<Partial<CoreSettings>> {
  const text = await readFile(path, 'utf8').catch(() => undefined);
  if (text === undefined) return {};
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new SupervisorError('homeassistant.json of the backup is not valid JSON');
  }
  const out: Record<string, unknown> = {};
  if (data && typeof data === 'object') for (const key of CORE_SETTINGS_RESTORED) if (key in data) out[key] = (data as Record<string, unknown>)[key];
  return out as Partial<CoreSettings>;
}

async function hasLogExport(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => [] as string[]);
  return names.some((name) => /^log-\d+\.json$/.test(name));
}

async function stagedAppDirs(root: string): Promise<{ dataDir: string; configDir?: string; imageTar?: string }> {
  const exists = (path: string) => stat(path).then(() => true, () => false);
  const dataDir = join(root, 'data');
  await mkdir(dataDir, { recursive: true });
  return {
    dataDir,
    configDir: (await exists(join(root, 'config'))) ? join(root, 'config') : undefined,
    imageTar: (await exists(join(root, 'image.tar'))) ? join(root, 'image.tar') : undefined,
  };
}


/** Mounts as the backup had them: created or updated; one that fails to mount is its state, not the restore's failure. */
async function restoreMounts(mounts: Mounts, saved: NonNullable<NonNullable<Staged['supervisor']>['mounts']>, context: Context, fail: (line: string) => void): Promise<void> {
  for (const entry of saved.mounts ?? []) {
    const name = isObject(entry) ? String(entry.name) : JSON.stringify(entry);
    try {
      // a backup's mounts.json is as hostile as a client's body: the same checks
      if (!isObject(entry)) throw new SupervisorError('expected a dictionary');
      const { config, credentials } = parseMount(entry);
      if (mounts.has(name)) await mounts.update(config, credentials, context);
      else await mounts.create(config, credentials, context);
    } catch (error) {
      fail(`mount ${name}: ${(error as Error).message}`);
    }
  }
  if (saved.default_backup_mount !== undefined) {
    await mounts.setDefaultBackupMount(saved.default_backup_mount ?? null, context).catch((error) => fail(`default backup mount: ${(error as Error).message}`));
  }
}

