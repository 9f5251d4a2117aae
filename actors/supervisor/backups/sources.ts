/**
 * The supervisor's parts as a backup reads them (BackupSources) and the core's backup/start
 * and backup/end over its WebSocket API (CoreBackupHooks).
 */
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Logger } from '../../logging/logs.ts';
import type { Engine } from '../docker/engine.ts';
import type { CoreApi } from '../core/api.ts';
import type { AppsView } from '../apps/types.ts';
import type { AppStoreView } from '../apps/store.ts';
import type { Mounts } from '../mounts/mounts.ts';
import type { Settings } from '../settings.ts';
import { DockerConfig } from '../docker/config.ts';
import { imageExists } from '../core/image.ts';
import { appConfigDir, appDataDir } from '../apps/container-spec.ts';
import { SUPERVISOR_VERSION } from '../../version.ts';
import type { BackupSources } from './create.ts';
import type { CoreBackupHooks } from './manager.ts';

export function supervisorBackupSources(options: {
  dataDir: string;
  engine: Engine;
  settings: Settings;
  coreVersion(): string | null;
  apps(): AppsView | undefined;
  store(): AppStoreView | undefined;
  mounts(): Mounts | undefined;
  freeSpaceMinBytes: number;
}): BackupSources {
  const coreSection = () => options.settings.section('core', {} as Record<string, unknown>).get();
  return {
    supervisorVersion: SUPERVISOR_VERSION,
    coreVersion: options.coreVersion,
    coreSettings: () => coreSection(),
    coreExcludeDatabase: () => coreSection().backups_exclude_database === true,
    apps: () => options.apps()?.list() ?? [],
    appDataDir: (slug) => appDataDir(options.dataDir, slug),
    appConfigDir: (slug) => appConfigDir(options.dataDir, slug),
    saveImage: async (ref, slug) => {
      // an image removed meanwhile (by hand, or by an uninstall elsewhere) is built again, as a start would
      if (!(await imageExists(options.engine.docker, ref)) && (await options.apps()?.ensureImage?.(slug).catch(() => undefined)) !== ref) return undefined;
      return (await options.engine.docker.getImage(ref).get()) as unknown as Readable;
    },
    beginAppBackup: async (slug, context, job) => (await options.apps()?.beginBackup?.(slug, context, job)) ?? false,
    endAppBackup: async (slug, context, job) => (await options.apps()?.endBackup?.(slug, context, job)) ?? {},
    repositories: () => options.store()?.repositories().map((r) => r.source) ?? [],
    supervisorConfig: async () => {
      const mounts = (await options.mounts()?.exportForBackup()) ?? { default_backup_mount: null, mounts: [] };
      const registries = new DockerConfig(options.settings).get().registries;
      if (!mounts.mounts.length && !Object.keys(registries).length) return null;
      return { mounts, docker: { registries } };
    },
    boundFolders: () => options.mounts()?.boundFolders() ?? [],
    freeSpaceMinBytes: options.freeSpaceMinBytes,
    tmpDir: join(options.dataDir, 'tmp'),
  };
}

/** backup/start and backup/end on the core; a core that does not answer is skipped (and told). */
export function coreBackupHooks(api: () => CoreApi | undefined, logger: Logger): CoreBackupHooks {
  let started = false;
  return {
    async start(excludeDatabase) {
      const core = api();
      if (!core || !(await core.up())) {
        logger.warning('the core does not answer: backup/start not sent');
        return false;
      }
      await core.command({ type: 'backup/start', exclude_database: excludeDatabase });
      started = true;
      return true;
    },
    async end() {
      if (!started) return;
      started = false;
      await api()?.command({ type: 'backup/end' });
    },
  };
}
