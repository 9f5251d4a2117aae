// The log exported for a backup (backup/start) and a log rebuilt from that export (a restored
// core's start), 1M state_changed records over 10k entities, beside a raw LevelDB copy of the
// same entries: one snapshot iterator over every key, written in batches into a fresh LevelDB.
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { Level } from 'level';
import { openEventLog } from '../store/log.ts';
import { importLog } from '../store/log-export.ts';
import { stateRecords } from './replay.ts';
import { isMain, ms, num, removeDir, runAlone, tempDir, timeRow, type BenchOptions, type BenchResult } from './common.ts';

const RECORDS = Number(process.env.HEARTH_BACKUP_RECORDS ?? 1_000_000);
const CHUNK = 10_000;
const BATCH_BYTES = 4 * 1024 * 1024;

/** The least a copy of the log costs: iterate every entry as bytes, write them in ~4 MiB batches. */
async function rawCopy(from: string, to: string): Promise<{ ms: number; entries: number }> {
  const src = new Level<Buffer, Buffer>(from, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  const dst = new Level<Buffer, Buffer>(to, { keyEncoding: 'buffer', valueEncoding: 'buffer' });
  await src.open();
  await dst.open();
  const started = performance.now();
  const it = src.iterator({ highWaterMarkBytes: 256 * 1024 });
  let entries = 0;
  let batch = dst.batch();
  let bytes = 0;
  for (let chunk = await it.nextv(1000); chunk.length > 0; chunk = await it.nextv(1000)) {
    for (const [k, v] of chunk) {
      batch.put(k, v);
      bytes += k.length + v.length;
      entries++;
    }
    if (bytes >= BATCH_BYTES) {
      await batch.write();
      batch = dst.batch();
      bytes = 0;
    }
  }
  await batch.write({ sync: true });
  await it.close();
  const elapsed = performance.now() - started;
  await src.close();
  await dst.close();
  return { ms: elapsed, entries };
}

export async function run(_options: BenchOptions = {}): Promise<BenchResult> {
  const dir = await tempDir('core-backup');
  try {
    const path = join(dir, 'log');
    const log = await openEventLog({ path, commit: 'fast' });
    const last = new Map<number, unknown>();
    const t0 = Date.now() - 3 * 86_400_000;
    for (let n = 0; n < RECORDS; n += CHUNK) await log.append(stateRecords(n, Math.min(RECORDS, n + CHUNK), last, t0));

    let started = performance.now();
    const full = await log.exportTo({ dir: join(dir, 'full'), mode: 'full' });
    const exportMs = performance.now() - started;
    started = performance.now();
    const state = await log.exportTo({ dir: join(dir, 'state'), mode: 'state' });
    const stateMs = performance.now() - started;
    await log.close();

    started = performance.now();
    await importLog(join(dir, 'full', `log-${full.seq}.json`), join(dir, 'restored-full'));
    const restoreMs = performance.now() - started;
    started = performance.now();
    await importLog(join(dir, 'state', `log-${state.seq}.json`), join(dir, 'restored-state'));
    const stateRestoreMs = performance.now() - started;

    const raw = await rawCopy(path, join(dir, 'raw-copy'));
    const logBytes = await dirBytes(path);
    return {
      name: 'core-backup',
      title: `the log exported for a backup and restored from it, ${num(RECORDS, 0)} events over 10,000 entities`,
      rows: [
        timeRow('full export + restore', exportMs + restoreMs, { label: 'raw LevelDB iterate + batch write of the same entries', value: raw.ms }, undefined, `export ${ms(exportMs)}, restore ${ms(restoreMs)}`),
        timeRow('state-only export + restore (exclude_database)', stateMs + stateRestoreMs, { label: 'raw LevelDB iterate + batch write of the whole log', value: raw.ms }, undefined, `export ${ms(stateMs)}, restore ${ms(stateRestoreMs)}`),
      ],
      notes: [
        `${num(full.entries, 0)} entries (${num(full.records, 0)} records and their two indexes), export file ${num(full.bytes / 1e6, 1)} MB, log directory ${num(logBytes / 1e6, 1)} MB; the raw copy moved ${num(raw.entries, 0)} entries`,
        `state-only: ${num(state.records, 0)} records (the last of each stream), ${num(state.bytes / 1e6, 2)} MB`,
        'export = a LevelDB snapshot iterated as bytes into one file with its SHA-256, fsync, manifest; restore = read, hash, batch-write into a fresh LevelDB (last batch fsync), check SHA-256 and counts, rename',
      ],
    };
  } finally {
    await removeDir(dir);
  }
}

async function dirBytes(path: string): Promise<number> {
  let total = 0;
  for (const name of await readdir(path)) total += (await stat(join(path, name))).size;
  return total;
}

if (isMain(import.meta.url)) await runAlone(run);
