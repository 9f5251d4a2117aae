import { join } from 'node:path';
import type { BackupFolder } from '../archive/backup-json.ts';

/** Where a backup folder lives in the supervisor's data (`addons/local` is the local app repository). */
export function folderDir(dataDir: string, folder: BackupFolder): string {
  return folder === 'addons/local' ? join(dataDir, 'apps', 'local') : join(dataDir, folder);
}
