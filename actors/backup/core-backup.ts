import { join } from 'node:path';
import { CORE_EXPORT_DIR } from '../../store/backup-layout.ts';
import { removeExports, type ExportManifest } from '../../store/log-export.ts';
import type { EventLog } from '../../store/types.ts';
import type { Area } from '../area.ts';

/** A backup/start while an export is still open: the original's recorder refuses to lock twice. */
export class BackupBusyError extends Error {}

/**
 * The core's side of a backup (the original's `backup/start` and `backup/end`): start writes
 * the log export under `<data>/backup/` and answers once it is on disk; end removes it. The
 * log is never paused: the export is a snapshot at one seq, appends go on.
 */
export class CoreBackup {
  readonly #log: EventLog;
  readonly #dir: string;
  readonly #areas: readonly Area[];
  readonly #logLine: (line: string) => void;
  /** set from the start of an export to the matching end */
  #open: Promise<ExportManifest> | undefined;

  constructor(options: { log: EventLog; dataDir: string; areas: readonly Area[]; logLine: (line: string) => void }) {
    this.#log = options.log;
    this.#dir = join(options.dataDir, CORE_EXPORT_DIR);
    // read at each start: the instance adds areas after this is made
    this.#areas = options.areas;
    this.#logLine = options.logLine;
  }

  /** The export of the backup in progress, if one is. */
  get current(): Promise<ExportManifest> | undefined {
    return this.#open;
  }

  /** Writes the export; `excludeDatabase` keeps only what rebuilds the current state. */
  async start(options: { excludeDatabase?: boolean } = {}): Promise<ExportManifest> {
    if (this.#open) throw new BackupBusyError('Could not lock database within timeout');
    const run = (async () => {
      // exports of a backup that never ended (a crash, a lost supervisor) would be archived too
      await removeExports(this.#dir);
      const mode = options.excludeDatabase ? 'state' : 'full';
      // an area whose last record is not its whole state needs every record of its streams
      const whole = this.#areas.filter((a) => !a.latestSuffices).map((a) => a.streamPrefix);
      const keepAll = (stream: string) => whole.some((prefix) => stream.startsWith(prefix));
      const manifest = await this.#log.exportTo({ dir: this.#dir, mode, keepAll });
      this.#logLine(`backup: event log exported at seq ${manifest.seq} (${mode}, ${manifest.records} records, ${manifest.bytes} bytes)`);
      return manifest;
    })();
    this.#open = run;
    try {
      return await run;
    } catch (err) {
      this.#open = undefined;
      throw err;
    }
  }

  /** Removes the export; nothing to do when no backup is in progress, as the original's unlock. */
  async end(): Promise<void> {
    const open = this.#open;
    if (!open) return;
    await open.catch(() => undefined);
    await removeExports(this.#dir);
    this.#open = undefined;
    this.#logLine('backup: ended, event log export removed');
  }
}
