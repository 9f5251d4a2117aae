/**
 * Making a backup (supervisor-wire §5.6): checks that fail the request fast (location, free
 * space, `running`, one at a time), then a job `backup_manager_full_backup` /
 * `backup_manager_partial_backup` with the original's stages and a child job per app and folder.
 * The file is written as `.tar.partial` and renamed when complete; on failure it is removed.
 */
import { createWriteStream } from 'node:fs';
import { requireConditions } from '../jobs/conditions.ts';
import { mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { Context } from '../../../store/types.ts';
import type { JobHandle } from '../jobs/types.ts';
import { runInBackground } from '../jobs/jobs.ts';
import { SupervisorError } from '../errors.ts';
import { freeBytes } from '../resolution/checks.ts';
import type { InstalledApp } from '../apps/types.ts';
import { backupMode } from '../apps/repository.ts';
import { CORE_BACKUP_EXCLUDE as CORE_LAYOUT_EXCLUDE } from '../../../store/backup-layout.ts';
import { BACKUP_FOLDERS, backupDate, backupSlug, nowMicros, type BackupFolder } from './archive/backup-json.ts';
import { BackupWriter, appArchiveSources } from './archive/writer.ts';
import { CLOUD, LOCAL } from './locations.ts';
import type { BackupManager } from './manager.ts';
import { childPath } from '../paths.ts';

/** What a backup reads besides the manager's locations. */
export interface BackupSources {
  supervisorVersion: string;
  coreVersion(): string | null;
  /** the Supervisor's core settings (homeassistant.json) */
  coreSettings(): Record<string, unknown>;
  /** the core's `backups_exclude_database` option (the default of the request's flag) */
  coreExcludeDatabase(): boolean;
  apps(): InstalledApp[];
  appDataDir(slug: string): string;
  appConfigDir(slug: string): string;
  /** a `docker save` of an installed app's image (built again first when it went missing), or undefined when there is none */
  saveImage(ref: string, slug: string): Promise<Readable | undefined>;
  /** before an app's backup: a running cold app stops, a running hot one runs its backup_pre; whether it ran */
  beginAppBackup(slug: string, context: Context, job: JobHandle): Promise<boolean>;
  /** after it, when beginAppBackup said it ran: a cold app starts again (`started`), a hot one runs its backup_post */
  endAppBackup(slug: string, context: Context, job: JobHandle): Promise<{ started?: Promise<void> }>;
  repositories(): string[];
  /** mounts and registries for supervisor.tar.gz; null when there are none */
  supervisorConfig(): Promise<{ mounts: unknown; docker: unknown } | null>;
  /** bind-mounted network mounts inside the folders (skipped) */
  boundFolders(): string[];
  freeSpaceMinBytes: number;
  /** a temporary folder for image exports */
  tmpDir: string;
}

export interface BackupRequest {
  type: 'full' | 'partial';
  name: string;
  filename?: string;
  password?: string | null;
  compressed: boolean;
  /** location names; the first holds the backup, the others get copies */
  locations: string[];
  core: boolean;
  excludeDatabase?: boolean;
  apps: string[] | 'ALL';
  folders: BackupFolder[];
  extra: Record<string, unknown>;
  background: boolean;
  context: Context;
}

/** The core's data directory for its archive: Hearth's own layout, and the backups kept in it. */
export const CORE_ARCHIVE_EXCLUDE: readonly string[] = [...CORE_LAYOUT_EXCLUDE, 'backup/*.tar', 'backup/*.tar.partial', 'backup/*.tmp'];

/** Where a folder of a backup lies on this supervisor. */
export function folderDir(dataDir: string, folder: BackupFolder): string {
  return folder === 'addons/local' ? join(dataDir, 'apps', 'local') : join(dataDir, folder);
}


export async function createBackup(manager: BackupManager, sources: BackupSources, request: BackupRequest): Promise<unknown> {
  const method = request.type === 'full' ? 'BackupManager.do_backup_full' : 'BackupManager.do_backup_partial';
  const jobName = request.type === 'full' ? 'backup_manager_full_backup' : 'backup_manager_partial_backup';
  const [primary, ...extra] = request.locations.length ? request.locations : [LOCAL];
  const dir = await manager.locationDir(primary);
  for (const location of extra) await manager.locationDir(location);
  if (primary === LOCAL || primary === CLOUD) {
    await mkdir(dir, { recursive: true });
    // the free_space condition, judged where this backup is written
    await requireConditions(
      method,
      ['free_space'],
      {
        freeSpace: async () => ({ free: await freeBytes(dir), min: sources.freeSpaceMinBytes }),
        lowOnSpace: async () => void (await manager.deps.resolution.addIssue({ type: 'free_space', context: 'system' })),
      },
      manager.deps.jobs.ignoredConditions(),
    );
  }
  await manager.requireRunning(method);
  const date = backupDate(nowMicros());
  const slug = backupSlug(request.name, date);
  const fileName = request.filename ?? `${slug}.tar`;
  const path = childPath(dir, fileName);
  const release = manager.claim(jobName);
  let jobId = '';
  let started = false;
  const work = async (job: JobHandle) => {
    started = true;
    jobId = job.uuid;
    job.validated();
    try {
      const restarts = await manager.freezeDuring(() => write(manager, sources, request, job, { slug, date, path }));
      job.stage('copy_additional_locations');
      if (extra.length) {
        await job.child('backup_copy_to_additional_locations', slug, async (child) => {
          for (const location of extra) {
            await child.child('backup_copy_to_location', location, () => manager.copyTo(path, location, fileName)).catch(() => {});
          }
        }).catch((err) => manager.deps.logger.warning(`backup ${slug}: copy to other locations: ${(err as Error).message}`));
      }
      job.stage('await_app_restarts');
      // cold apps started again after their part: their failures were logged as they came
      await Promise.allSettled(restarts);
      job.progress(100);
      return { job_id: job.uuid, slug };
    } finally {
      release();
    }
  };
  try {
    return await runInBackground(manager.deps.jobs, { name: jobName, reference: slug, keep: true, context: request.context }, work, request.background, { validates: true });
  } catch (err) {
    if (!started) release();
    if (err instanceof SupervisorError && !jobId) throw err;
    throw new SupervisorError(`An error occurred while making backup, check job '${jobId}' or supervisor logs for details`, { jobId });
  }
}

/** Writes the backup; answers the starts of the cold apps stopped for it, still under way. */
async function write(manager: BackupManager, sources: BackupSources, request: BackupRequest, job: JobHandle, at: { slug: string; date: string; path: string }): Promise<Promise<void>[]> {
  const restarts: Promise<void>[] = [];
  const logger = manager.deps.logger;
  // a core not installed as a container (run beside the supervisor) is this Hearth's version
  const coreVersion = sources.coreVersion() ?? sources.supervisorVersion;
  const writer = await BackupWriter.create({ path: at.path, compressed: request.compressed, password: request.password, coreVersion });
  try {
    job.stage('app_repositories');
    const repositories = sources.repositories();

    if (request.core) {
      job.stage('home_assistant');
      const excludeDatabase = request.excludeDatabase ?? sources.coreExcludeDatabase();
      await job.child('backup_store_homeassistant', null, async () => {
        // without the core's export its log is not in the backup: no backup rather than one without it
        if (!(await manager.deps.core.start(excludeDatabase))) {
          const err = new SupervisorError('Core does not answer: its data cannot be taken consistently (start the core, then try again)');
          // the original's HomeAssistantBackupError, the brand word renamed
          err.name = 'CoreBackupError';
          throw err;
        }
        try {
          await writer.addCore({
            version: coreVersion,
            settings: sources.coreSettings(),
            configDir: manager.deps.coreDataDir,
            excludeDatabase,
            exclude: CORE_ARCHIVE_EXCLUDE,
          });
        } finally {
          // always: a core left in backup mode would hold its export and refuse the next backup
          await manager.deps.core.end().catch((err) => logger.warning(`backup ${at.slug}: backup/end: ${(err as Error).message}`));
        }
      });
    }
    job.progress(30);

    job.stage('apps');
    const installed = sources.apps();
    const wanted = request.apps === 'ALL' ? installed : request.apps.flatMap((slug) => {
      const app = installed.find((a) => a.slug === slug);
      if (!app) logger.warning(`backup ${at.slug}: app ${slug} is not installed, left out`);
      return app ? [app] : [];
    });
    if (wanted.length) {
      await job.child('backup_store_apps', null, async (parent) => {
        for (const app of wanted) {
          // one app's failure (its pre command, say) leaves it out; the backup goes on and the failure stays on the job
          await parent.child('backup_app_save', app.slug, (appJob) => saveApp(writer, sources, app, request.context, appJob, restarts)).catch((err) => {
            parent.capture(err);
            logger.warning(`backup ${at.slug}: app ${app.slug}: ${(err as Error).message}`);
          });
        }
      });
    }
    job.progress(60);

    job.stage('folders');
    if (request.folders.length) {
      const bound = sources.boundFolders();
      await job.child('backup_store_folders', null, async (parent) => {
        for (const folder of BACKUP_FOLDERS.filter((f) => request.folders.includes(f))) {
          const dir = folderDir(manager.deps.dataDir, folder);
          if (!(await stat(dir).then((s) => s.isDirectory(), () => false))) {
            logger.warning(`backup ${at.slug}: no folder ${dir}, left out`);
            continue;
          }
          await parent.child('backup_folder_save', folder, () => writer.addFolder(folder, dir, (full) => bound.includes(full))).catch((err) => logger.warning(`backup ${at.slug}: folder ${folder}: ${(err as Error).message}`));
        }
      });
    }
    job.progress(80);

    job.stage('supervisor_config');
    const config = await sources.supervisorConfig();
    if (config) await job.child('backup_store_supervisor_config', null, () => writer.addSupervisorConfig(config));

    job.stage('finishing_file');
    await writer.finish({ slug: at.slug, name: request.name, date: at.date, type: request.type, supervisor_version: sources.supervisorVersion, extra: request.extra, repositories });
  } catch (err) {
    await writer.abort();
    throw err;
  }
  await manager.learn(at.path, request.locations[0] ?? LOCAL);
  return restarts;
}

/** An app's part, between its begin and end of backup (cold: stopped; hot: its pre and post commands). */
async function saveApp(writer: BackupWriter, sources: BackupSources, app: InstalledApp, context: Context, job: JobHandle, restarts: Promise<void>[]): Promise<void> {
  try {
    const ran = await sources.beginAppBackup(app.slug, context, job);
    try {
      await addApp(writer, sources, app);
    } finally {
      if (ran) {
        const { started } = await sources.endAppBackup(app.slug, context, job);
        if (started) restarts.push(started.catch(() => {}));
      }
    }
  } catch (err) {
    // the original's jobs show an app's failure as a BackupError unless it has a kind of its own
    if (err instanceof SupervisorError && err.errorKey) throw err;
    const wrapped = new SupervisorError((err as Error).message);
    wrapped.name = 'BackupError';
    throw wrapped;
  }
}

async function addApp(writer: BackupWriter, sources: BackupSources, app: InstalledApp): Promise<void> {
  const addonJson = {
    user: app.user,
    system: { ...app.config, repository: app.repository },
    version: app.user.version,
    state: app.state === 'started' || app.state === 'startup' ? 'started' : 'stopped',
  };
  let tmp: string | undefined;
  let imageTar: string | undefined;
  try {
    // only a locally built image is kept: one with an `image` is pulled again on restore
    if (app.config.image === null && app.user.image) {
      const image = await sources.saveImage(`${app.user.image}:${app.user.version}`, app.slug);
      if (image) {
        await mkdir(sources.tmpDir, { recursive: true });
        tmp = await mkdtemp(join(sources.tmpDir, `image-${app.slug}-`));
        imageTar = join(tmp, 'image.tar');
        await pipeline(image, createWriteStream(imageTar));
      }
    }
    const mapsConfig = app.config.map.some((m) => m.type === 'app_config' || m.type === 'addon_config');
    const configDir = mapsConfig ? sources.appConfigDir(app.slug) : undefined;
    const hasConfig = configDir && (await stat(configDir).then((s) => s.isDirectory(), () => false));
    const dataDir = sources.appDataDir(app.slug);
    await mkdir(dataDir, { recursive: true });
    await writer.addApp(
      { slug: app.slug, name: app.config.name, version: app.user.version },
      appArchiveSources({ addonJson, dataDir, configDir: hasConfig ? configDir : undefined, backupExclude: backupMode(app.config).exclude, imageTar }),
    );
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true });
  }
}
