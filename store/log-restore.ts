import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { CORE_EXPORT_DIR, CORE_LOG_DIR } from './backup-layout.ts';
import { importLog, listExports, removeExports, type ExportManifest } from './log-export.ts';

/**
 * Before the log opens: a data directory that holds a log export (a restored backup) and no
 * log gets its log rebuilt from the export with the highest seq. A damaged export throws (the
 * core does not start) and leaves every file as it was; a data directory with a log, or
 * without an export, is left alone.
 */
export async function restoreLogFromExport(dataDir: string, say: (line: string) => void): Promise<ExportManifest | undefined> {
  const logPath = join(dataDir, CORE_LOG_DIR);
  const logFiles = await readdir(logPath).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (logFiles !== undefined && logFiles.length > 0) return undefined;
  const exportDir = join(dataDir, CORE_EXPORT_DIR);
  const [newest] = await listExports(exportDir);
  if (!newest) return undefined;
  const started = Date.now();
  say(`no event log in ${dataDir}: restoring it from ${CORE_EXPORT_DIR}/log-${newest.seq}.hlog`);
  // an empty log directory (a backup's leftover) is replaced as the rebuilt log is renamed onto it
  const manifest = await importLog(newest.manifest, logPath);
  // the export is now the log; left there it would be packed into the next backup as well
  await removeExports(exportDir);
  say(
    `event log restored from a ${manifest.mode === 'full' ? 'full' : 'state-only (no history)'} export at seq ${manifest.seq}: ` +
      `${manifest.records} records in ${Date.now() - started} ms`,
  );
  return manifest;
}
