/**
 * Where the core's data lies for a backup, shared by the core (which writes the export) and
 * the supervisor's archiver (which packs the core's data directory and must leave out what
 * is being written while it packs).
 */

/** The live event log under the core's data directory: never archived, the export stands for it. */
export const CORE_LOG_DIR = 'log';

/** Where `backup/start` writes the log export (`log-<seq>.hlog` and its manifest `log-<seq>.json`). */
export const CORE_EXPORT_DIR = 'backup';

/**
 * Globs, relative to the core's data directory, that a backup of it leaves out: the live log
 * (its files change under the archiver, and the export holds it at one seq), a log being
 * restored, the replay socket, log files, and exports not finished. `*` stays within one path
 * segment, `**` crosses them.
 */
export const CORE_BACKUP_EXCLUDE: readonly string[] = Object.freeze([
  `${CORE_LOG_DIR}`,
  `${CORE_LOG_DIR}/**`,
  `${CORE_LOG_DIR}.restoring`,
  `${CORE_LOG_DIR}.restoring/**`,
  'hearth.sock',
  '*.log',
  '*.log.*',
  `${CORE_EXPORT_DIR}/*.partial`,
  '**/.DS_Store',
]);
