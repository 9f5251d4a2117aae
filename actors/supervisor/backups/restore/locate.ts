/**
 * Finds a backup's file by slug in one location (supervisor-wire §5.9 location values). The
 * backup manager's list answers this once it exists; until then a location's `*.tar` files are
 * read for their backup.json.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { BackupReader } from '../archive/reader.ts';
import { SupervisorError } from '../../errors.ts';
import type { Mounts } from '../../mounts/mounts.ts';

export const LOCAL_LOCATION = '.local';
export const CLOUD_LOCATION = '.cloud_backup';

export interface LocationDirs {
  dataDir: string;
  coreDataDir: string;
  mounts?: Mounts;
}

/** `null`, `""` and `.local` are the local folder; anything else but the cloud names a backup mount. */
export async function locationDir(location: string | null | undefined, dirs: LocationDirs): Promise<string> {
  if (location === null || location === undefined || location === '' || location === LOCAL_LOCATION) return join(dirs.dataDir, 'backup');
  if (location === CLOUD_LOCATION) return join(dirs.coreDataDir, 'backup');
  if (!dirs.mounts) throw new SupervisorError(`No mount exists with name '${location}'`, { status: 404, errorKey: 'mount_not_found_error' });
  return dirs.mounts.backupLocation(location);
}

/** The file of backup `slug` in `dir`, or undefined. */
export async function findBackupFile(dir: string, slug: string): Promise<string | undefined> {
  const names = await readdir(dir).catch(() => [] as string[]);
  // `<slug>.tar` first: the usual name, and the cheap guess
  names.sort((a, b) => Number(b === `${slug}.tar`) - Number(a === `${slug}.tar`));
  for (const name of names) {
    if (!name.endsWith('.tar')) continue;
    const path = join(dir, name);
    const reader = await BackupReader.open(path).catch(() => undefined);
    if (reader?.meta.slug === slug) return path;
  }
  return undefined;
}
