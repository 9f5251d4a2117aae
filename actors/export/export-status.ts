// How far the export is, told two ways every second at most: `<data>/export-nats.json` for
// `hearth export status`, and the lag entity `sensor.hearth_export_lag` when the lag changed.
// A lag past `lag_warning` is warned of once, and its end said once.
import { rename, writeFile } from 'node:fs/promises';
import type { Context } from '../../store/types.ts';

/** The entity that shows the export's lag. */
export const LAG_ENTITY = 'sensor.hearth_export_lag';
/** The status file's name in the data directory. */
export const STATUS_FILE = 'export-nats.json';

/** What `<data>/export-nats.json` holds (written at most once a second, and at stop). */
export interface ExportStatus {
  exporter: 'nats';
  stream: string;
  servers: string[];
  /** every record up to this seq is in the stream (or is never exported: auth/) */
  acked_seq: number;
  /** the log's last seq when this was written */
  last_seq: number;
  lag: number;
  connected: boolean;
  /** epoch ms */
  updated: number;
}

/** Where the exporter's progress is told. */
export interface ReportTargets {
  /** where export-nats.json goes */
  statusPath: string;
  /** writes the lag entity */
  writeLag: (lag: number, acked: number) => Promise<unknown>;
  /** lag (records) past which a warning is logged once */
  lagWarning: number;
  warn: (line: string) => void;
  info: (line: string) => void;
}

/** Writes the status file and the lag entity, each only when what it says changed. */
export class ExportReporter {
  readonly #targets: ReportTargets;
  #lastStatus = '';
  #lastLag: number | undefined;
  #lagWarned = false;

  constructor(targets: ReportTargets) {
    this.#targets = targets;
  }

  /** The file first: whoever sees the entity's new lag finds export status at least as new. */
  async report(status: ExportStatus): Promise<void> {
    const { lag, acked_seq: acked } = status;
    await this.writeStatus(status);
    if (lag !== this.#lastLag) {
      this.#lastLag = lag;
      await this.#targets.writeLag(lag, acked);
    }
    const { lagWarning } = this.#targets;
    if (lag > lagWarning && !this.#lagWarned) {
      this.#lagWarned = true;
      this.#targets.warn(`NATS export: ${lag} records behind the log (over lag_warning ${lagWarning})`);
    } else if (lag <= lagWarning && this.#lagWarned) {
      this.#lagWarned = false;
      this.#targets.info(`NATS export: caught up to ${lag} records behind the log`);
    }
  }

  /** Writes export-nats.json (through a temporary file) unless it would say what it says. */
  async writeStatus(status: ExportStatus): Promise<void> {
    const key = `${status.acked_seq}/${status.last_seq}/${status.connected}`;
    if (key === this.#lastStatus) return;
    this.#lastStatus = key;
    const tmp = `${this.#targets.statusPath}.tmp`;
    await writeFile(tmp, JSON.stringify(status) + '\n');
    await rename(tmp, this.#targets.statusPath);
  }
}

/** The lag entity's writer over EntityActors-like `write`. */
export function lagWriter(
  write: (entityId: string, written: { state: string; attributes: Record<string, unknown>; force_update: boolean }, context: Context) => Promise<unknown>,
  newContext: () => Context,
): (lag: number) => Promise<unknown> {
  return (lag) =>
    write(LAG_ENTITY, { state: String(lag), attributes: { state_class: 'measurement', unit_of_measurement: 'records', friendly_name: 'Hearth export lag' }, force_update: false }, newContext());
}
