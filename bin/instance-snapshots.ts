/**
 * What keeps an instance's log short to restore and its history within `purge_keep_days`:
 * snapshots of every area after so many committed records (and when asked, at stop), the
 * primary's and a replica's alike, and the recorder's hourly purge of history older than the
 * days kept that every area's snapshot covers.
 */
import type { Clock } from '../actors/clock.ts';
import type { Area } from '../actors/area.ts';
import type { Logger } from '../actors/logging/logs.ts';
import type { EventLog, EventRecord } from '../store/types.ts';
import { REGISTRY_PREFIX } from '../actors/registries/index.ts';

export interface Snapshots {
  /** saves a snapshot of every area now */
  snapshot(): Promise<void>;
  /** the snapshot taken in the background, while one is */
  readonly pending: Promise<void> | undefined;
}

/** Saves a snapshot of every area, each part at `seq` (the areas are exactly the committed log up to it). */
export async function saveAreaSnapshots(log: EventLog, areas: readonly Area[], seq: number, time: number): Promise<void> {
  const parts = areas.map((a) => ({ name: a.name, version: a.snapshotVersion, data: a.snapshot() }));
  await Promise.all(parts.map((p) => log.saveSnapshot(p.name, { seq, version: p.version, time, data: p.data })));
}

/** Runs `save` after each `every` committed records, one at a time; a failure is a log line. */
export function snapshotEvery(log: EventLog, every: number, save: () => Promise<void>, logger: Logger): Snapshots {
  let sinceSnapshot = 0;
  let pending: Promise<void> | undefined;
  log.onCommit((batch) => {
    sinceSnapshot += batch.length;
    if (sinceSnapshot >= every && !pending) {
      sinceSnapshot = 0;
      pending = save()
        .catch((err) => logger.error('snapshot failed', err))
        .finally(() => (pending = undefined));
    }
  });
  return {
    snapshot: save,
    get pending() {
      return pending;
    },
  };
}

export interface RecorderPurge {
  /** prunes history older than the days kept that a snapshot covers; resolves to the count */
  purge(): Promise<number>;
  /** ends the hourly purge */
  stop(): void;
}

/** The recorder's purge, hourly and when asked. */
export function startRecorderPurge(options: { log: EventLog; areas: readonly Area[]; clock: Clock; keepDays: number; logger: Logger }): RecorderPurge {
  const { log, areas, clock, keepDays, logger } = options;
  const purge = async () => {
    const snaps = await Promise.all(areas.map((a) => log.loadSnapshot(a.name)));
    if (snaps.some((s) => !s)) return 0;
    const covered = Math.min(...snaps.map((s) => s!.seq));
    // users, tokens, core settings and registries live only in their records: retention is for history
    const kept = (r: EventRecord) => r.stream.startsWith('auth/') || r.stream.startsWith('authpub/') || r.stream.startsWith('core/') || r.stream.startsWith(REGISTRY_PREFIX);
    const removed = await log.purge(clock.now() - keepDays * 86_400_000, covered, kept);
    if (removed) logger.info(`recorder: purged ${removed} events older than ${keepDays} days`);
    return removed;
  };
  const timer = setInterval(() => purge().catch((err) => logger.error('purge failed', err)), 3_600_000);
  timer.unref();
  return { purge, stop: () => clearInterval(timer) };
}
