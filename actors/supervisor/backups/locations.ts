/**
 * Where backups live (supervisor-wire §5.9): the local folder, the core's own backup folder
 * (`.cloud_backup`, for the core alone) and every mount with usage `backup`. A location is named
 * `.local`, `.cloud_backup` or by its mount; on the wire local is `null`.
 */
import { join } from 'node:path';

export const LOCAL = '.local';
export const CLOUD = '.cloud_backup';

/** A request's location value as a name: `null`, `""` and `.local` are local storage. */
export function locationName(value: string | null | undefined): string {
  return value === null || value === undefined || value === '' || value === LOCAL ? LOCAL : value;
}

/** A location name as the wire shows it (`null` for local). */
export const wireLocation = (name: string): string | null => (name === LOCAL ? null : name);

export const localBackupDir = (dataDir: string) => join(dataDir, 'backup');
export const cloudBackupDir = (coreDataDir: string) => join(coreDataDir, 'backup');

/** Local first, then mounts by name, the core's folder last (the original's order of `locations`). */
export function sortLocations(names: Iterable<string>): string[] {
  const rank = (n: string) => (n === LOCAL ? 0 : n === CLOUD ? 2 : 1);
  return [...names].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}
