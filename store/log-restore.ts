import { readdir, rename, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { CORE_EXPORT_DIR, CORE_LOG_DIR, CORE_RESTORE_MARKER } from './backup-layout.ts';
import { StoreError } from './errors.ts';
import { importLog, listExports, removeExports, type ExportManifest } from './log-export.ts';

/**
 * Before the log opens: a data directory that holds a log export (a restored backup) and no
 * log, or a log and the restore marker, gets its log rebuilt from the export with the highest
 * seq. A damaged export throws (the core does not start) and leaves every file as it was; a
 * data directory with a log and no marker, or without an export, is left alone.
 */
export async function restoreLogFromExport(dataDir: string, logLine: (line: string) => void): Promise<ExportManifest | undefined> {
  const logPath = join(dataDir, CORE_LOG_DIR);
  const exportDir = join(dataDir, CORE_EXPORT_DIR);
  const markerPath = join(exportDir, CORE_RESTORE_MARKER);
  const logFiles = await readdir(logPath).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  const hasLog = logFiles !== undefined && logFiles.length > 0;
  const asked = await stat(markerPath).then(
    () => true,
    () => false,
  );
  if (hasLog && !asked) return undefined;
  const [newest] = await listExports(exportDir);
  if (!newest) {
    if (!asked) return undefined;
    throw new StoreError('HEARTH_LOG_CORRUPT', `${markerPath} asks for the log to be restored, but ${exportDir} holds no finished log export (log-<seq>.json and .hlog); nothing was changed`);
  }
  const started = Date.now();
  logLine(`${hasLog ? 'restore asked' : 'no event log'} in ${dataDir}: restoring the log from ${CORE_EXPORT_DIR}/log-${newest.seq}.hlog`);
  let manifest: ExportManifest;
  if (hasLog) {
    // built and checked beside the log first: a damaged export must not cost the log in use
    const restored = `${logPath}.restored`;
    await rm(restored, { recursive: true, force: true });
    manifest = await importLog(newest.manifest, restored);
    const replaced = `${logPath}.replaced-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(logPath, replaced);
    await rename(restored, logPath);
    logLine(`the log that was there is kept as ${replaced}`);
  } else {
    // an empty log directory (a backup's leftover) is replaced as the rebuilt log is renamed onto it
    manifest = await importLog(newest.manifest, logPath);
  }
  // the export is now the log; left there it would be packed into the next backup as well
  await removeExports(exportDir);
  await rm(markerPath, { force: true });
  logLine(
    `event log restored from a ${manifest.mode === 'full' ? 'full' : 'state-only (no history)'} export at seq ${manifest.seq}: ` +
      `${manifest.records} records in ${Date.now() - started} ms`,
  );
  return manifest;
}
