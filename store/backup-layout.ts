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
 * A file of this name in the export directory asks the next start to restore the log from the
 * export even though a log is there (a restore unpacked over a data directory in use); the log
 * that was there is kept beside it as `log.replaced-<time>`.
 */
export const CORE_RESTORE_MARKER = 'restore';

/**
 * Globs, relative to the core's data directory, that a backup of it leaves out: the live log
 * (its files change under the archiver, and the export holds it at one seq), logs being
 * restored or replaced by a restore, the replay socket, log files, and exports not finished. `*` stays within one path
 * segment, `**` crosses them.
 */
export const CORE_BACKUP_EXCLUDE: readonly string[] = Object.freeze([
  `${CORE_LOG_DIR}`,
  `${CORE_LOG_DIR}/**`,
  `${CORE_LOG_DIR}.*`,
  `${CORE_LOG_DIR}.*/**`,
  'hearth.sock',
  '*.log',
  '*.log.*',
  `${CORE_EXPORT_DIR}/*.partial`,
  '**/.DS_Store',
]);
