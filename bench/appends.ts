// Log appends/s through store/ beside raw LevelDB batches (bench/log-append.ts measures; this
// module reports it with the others).
import { join } from 'node:path';
import { benchLogAppend, type LogAppendResult } from './log-append.ts';
import { isMain, num, rateRow, removeDir, runAlone, tempDir, type BenchOptions, type BenchResult } from './common.ts';
import { hotSpotNotes, startProfile } from './profile.ts';

const BATCHES = 700;
const RUNS = 3;
const BATCH_SIZE = 64;

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const dir = await tempDir('append');
  const notes: string[] = [];
  try {
    const stop = options.profile ? await startProfile() : undefined;
    // best of a few runs of each figure: the box is shared, and a slow run says more about a neighbour than about the log
    const runs: LogAppendResult[] = [];
    for (let i = 0; i < RUNS; i++) runs.push(await benchLogAppend({ dir: join(dir, String(i)), batches: BATCHES, batchSize: BATCH_SIZE }));
    if (stop) notes.push(...hotSpotNotes('the append runs', await stop()));
    type Pair = { durable: number; fast: number };
    // bench/log-append.ts may also time raw chained batches (the write path the store uses): the
    // baseline is then the faster raw way
    const chained = (x: LogAppendResult): Pair | undefined => (x as { rawChained?: Pair }).rawChained;
    const best = (pick: (x: LogAppendResult) => number | undefined) => Math.max(...runs.map((x) => pick(x) ?? 0));
    const list = (pick: (x: LogAppendResult) => number | undefined) => runs.map((x) => num(pick(x) ?? NaN, 0)).join(', ');
    const figure = (mode: 'durable' | 'fast') => {
      const array = best((x) => x.raw[mode]);
      const chain = best((x) => chained(x)?.[mode]);
      const store = best((x) => x.store[mode]);
      return {
        store,
        detail: chain > 0 ? `vs raw array batches ${num(array, 0)}/s: ${(store / array).toFixed(2)}×; vs raw chained batches ${num(chain, 0)}/s: ${(store / chain).toFixed(2)}×` : undefined,
        raw: Math.max(array, chain),
        rawLabel: chain > array ? 'raw LevelDB chained batches' : 'raw LevelDB batches',
        runs:
          `store ${list((x) => x.store[mode])}; raw array batches ${list((x) => x.raw[mode])}` +
          (chain > 0 ? `; raw chained batches ${list((x) => chained(x)?.[mode])}` : ''),
      };
    };
    const durable = figure('durable');
    const fast = figure('fast');
    notes.push(`each figure is the best of ${RUNS} runs (appends/s), durable: ${durable.runs}; fast: ${fast.runs}`);
    notes.unshift(
      `${BATCHES * BATCH_SIZE} state_changed records (~300 B of JSON) per run (bench/log-append.ts), each run on a fresh database: raw = one LevelDB batch of ` +
        `${BATCH_SIZE} records at a time (sync on for durable); store = ${BATCH_SIZE} concurrent writers each awaiting one ` +
        `append() of one record at a time (group commit; each record also writes its two index entries)`,
    );
    return {
      name: 'log-append',
      title: 'log appends/s through store/ vs raw LevelDB batches',
      rows: [
        rateRow('durable (fsync per group commit)', durable.store, 'appends/s', { label: `${durable.rawLabel}, sync`, value: durable.raw }, { text: '≥ 0.70× raw', min: 0.7 }, durable.detail),
        rateRow('fast (page cache)', fast.store, 'appends/s', { label: fast.rawLabel, value: fast.raw }, undefined, fast.detail),
      ],
      notes,
    };
  } finally {
    await removeDir(dir);
  }
}

if (isMain(import.meta.url)) await runAlone(run);
