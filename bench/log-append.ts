// Append throughput of the event log beside raw LevelDB batches of the same records, measured
// in the same run so the figures are ratios, not absolute times.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Level } from 'level';
import { encodeRecord } from '../store/codec.ts';
import { seqKey, seqOfKey } from '../store/keys.ts';
import { openEventLog } from '../store/log.ts';
import type { CommitMode, NewEvent } from '../store/types.ts';

/** Appends per second, for raw LevelDB batches and for the event log, in both commit modes. */
export interface LogAppendResult {
  raw: { durable: number; fast: number };
  store: { durable: number; fast: number };
  /** raw LevelDB again through a chained batch, the cheaper write path the store itself uses */
  rawChained: { durable: number; fast: number };
}

/**
 * Writes `batches * batchSize` small state_changed records, in each commit mode: raw
 * `db.batch(ops)` of `batchSize` records, `batchSize` concurrent writers each awaiting one
 * append() at a time through the event log, and raw chained batches. Each run gets a fresh database.
 */
export async function benchLogAppend(opts: { dir: string; batches: number; batchSize: number }): Promise<LogAppendResult> {
  const { dir, batches, batchSize } = opts;
  const events = makeEvents(batches * batchSize);
  // raw and store alternate, so a change in machine load mid-run skews both sides alike
  const result: LogAppendResult = {
    raw: { durable: 0, fast: 0 },
    store: { durable: 0, fast: 0 },
    rawChained: { durable: 0, fast: 0 },
  };
  for (const mode of ['durable', 'fast'] as const) {
    result.raw[mode] = await rawAppend(join(dir, `raw-${mode}`), events, batchSize, mode === 'durable', 'array');
    result.store[mode] = await storeAppend(join(dir, `store-${mode}`), events, batchSize, mode);
    result.rawChained[mode] = await rawAppend(join(dir, `chained-${mode}`), events, batchSize, mode === 'durable', 'chained');
  }
  return result;
}

/** Seconds to read every record back, raw LevelDB values iterator beside the event log's read(). */
export interface LogReadResult {
  count: number;
  raw: number;
  store: number;
}

/** Fills a log (and a raw database) with `count` records, then times one full read of each. */
export async function benchLogRead(opts: { dir: string; count: number }): Promise<LogReadResult> {
  const { dir, count } = opts;
  const events = makeEvents(count);

  const rawPath = join(dir, 'read-raw');
  const db = new Level<string, string>(rawPath);
  for (let start = 0; start < count; start += 10_000) {
    const chunk = events.slice(start, start + 10_000);
    await db.batch(chunk.map((e, i) => ({ type: 'put' as const, key: seqKey(start + i + 1), value: encodeRecord(e) })));
  }
  let started = performance.now();
  let seen = 0;
  const it = db.iterator();
  for (let entries = await it.nextv(1000); entries.length > 0; entries = await it.nextv(1000)) {
    for (const [key, value] of entries) if (seqOfKey(key) > 0 && JSON.parse(value)) seen++;
  }
  await it.close();
  const raw = (performance.now() - started) / 1000;
  await db.close();
  if (seen !== count) throw new Error(`raw read saw ${seen} of ${count} records`);

  const log = await openEventLog({ path: join(dir, 'read-store'), commit: 'fast' });
  for (let start = 0; start < count; start += 10_000) await log.append(events.slice(start, start + 10_000));
  started = performance.now();
  seen = 0;
  for await (const record of log.read()) if (record.seq > 0) seen++;
  const store = (performance.now() - started) / 1000;
  await log.close();
  if (seen !== count) throw new Error(`store read saw ${seen} of ${count} records`);
  return { count, raw, store };
}

// Roughly the size of a real state change (~300 bytes of JSON), spread over 64 entities.
function makeEvents(count: number): NewEvent[] {
  const t0 = Date.UTC(2025, 0, 2, 3, 4, 5);
  return Array.from({ length: count }, (_, i) => {
    const entityId = `light.bench_${i % 64}`;
    const state = { entity_id: entityId, state: i % 2 ? 'on' : 'off', attributes: { brightness: i % 256, friendly_name: `Bench ${i % 64}` } };
    return {
      time: t0 + i / 1000,
      stream: `entity/${entityId}`,
      type: 'state_changed',
      data: { entity_id: entityId, old_state: null, new_state: state },
      context: { id: '01JGKZ3M5D7Q8R9S0T1V2W3X4Y', parent_id: null, user_id: null },
      origin: 'LOCAL' as const,
    };
  });
}

async function rawAppend(path: string, events: NewEvent[], batchSize: number, sync: boolean, form: 'array' | 'chained'): Promise<number> {
  const db = new Level<string, string>(path);
  await db.open();
  const started = performance.now();
  for (let start = 0; start < events.length; start += batchSize) {
    const end = Math.min(start + batchSize, events.length);
    if (form === 'array') {
      const ops = [];
      for (let i = start; i < end; i++) ops.push({ type: 'put' as const, key: seqKey(i + 1), value: encodeRecord(events[i]) });
      await db.batch(ops, { sync });
    } else {
      const batch = db.batch();
      for (let i = start; i < end; i++) batch.put(seqKey(i + 1), encodeRecord(events[i]));
      await batch.write({ sync });
    }
  }
  const rate = events.length / ((performance.now() - started) / 1000);
  await db.close();
  return rate;
}

async function storeAppend(path: string, events: NewEvent[], writers: number, commit: CommitMode): Promise<number> {
  const log = await openEventLog({ path, commit });
  let next = 0;
  const writer = async () => {
    // each writer takes the next event and waits for its commit before taking another
    while (next < events.length) await log.append([events[next++]]);
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: writers }, writer));
  const rate = events.length / ((performance.now() - started) / 1000);
  await log.close();
  return rate;
}

function flag(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const batches = flag('batches', 500);
  const batchSize = flag('batch-size', 64);
  const readCount = flag('read', 0);
  const dir = await mkdtemp(join(tmpdir(), 'hearth-bench-'));
  try {
    const r = await benchLogAppend({ dir, batches, batchSize });
    const rate = (n: number) => n.toFixed(0).padStart(12);
    const row = (mode: 'durable' | 'fast') =>
      `${mode.padEnd(8)} ${rate(r.raw[mode])} ${rate(r.store[mode])} ${(r.store[mode] / r.raw[mode]).toFixed(2).padStart(8)}` +
      ` ${rate(r.rawChained[mode])} ${(r.store[mode] / r.rawChained[mode]).toFixed(2).padStart(8)}`;
    console.log(`log append: ${batches * batchSize} records, raw batches of ${batchSize}, ${batchSize} concurrent writers`);
    console.log(`${'commit'.padEnd(8)} ${'raw/s'.padStart(12)} ${'store/s'.padStart(12)} ${'ratio'.padStart(8)} ${'chained/s'.padStart(12)} ${'ratio'.padStart(8)}`);
    console.log(row('durable'));
    console.log(row('fast'));
    if (readCount > 0) {
      const read = await benchLogRead({ dir, count: readCount });
      console.log(`full read of ${read.count} records: raw ${read.raw.toFixed(2)} s, store ${read.store.toFixed(2)} s`);
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
