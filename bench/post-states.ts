// POST /api/states/{id} through Hearth (durable and fast commit) beside a raw uWS app answering
// the same requests without persistence: 64 keep-alive connections, one request in flight each,
// writes spread over 1000 entity ids.
import { isMain, ms, num, rateRow, removeDir, runAlone, type BenchOptions, type BenchResult } from './common.ts';
import { FAST_CONFIG, startBenchHearth } from './hearth.ts';
import { loadgen, type LoadOptions, type LoadResult } from './loadgen.ts';
import { hotSpotNotes, startProfile } from './profile.ts';
import { startRawHttp } from './raw-uws.ts';

export const CONNECTIONS = 64;
export const IDS = 1000;
const WARMUP_MS = 1000;
const DURATION_MS = 5000;
const ROUNDS = 3;

const load = (port: number, token: string): LoadOptions => ({
  port,
  connections: CONNECTIONS,
  warmupMs: WARMUP_MS,
  durationMs: DURATION_MS,
  request: { kind: 'post-state', token, ids: IDS },
});

const latency = (r: LoadResult) => `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}`;
const cpu = (r: Measured) => `server ${r.serverCpu.toFixed(2)} cores, load generator ${r.cpu.toFixed(2)} cores`;

type Measured = LoadResult & { serverCpu: number };

/** Runs a load and adds the CPU this (the server's) process used meanwhile, in cores. */
async function withCpu(run: () => Promise<LoadResult>): Promise<Measured> {
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await run();
  const c = process.cpuUsage(c0);
  return { ...r, serverCpu: (c.user + c.system) / 1000 / (performance.now() - t0) };
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const notes: string[] = [];

  const rawRun = async () => {
    const raw = await startRawHttp();
    const r = await withCpu(() => loadgen(load(raw.port, 'raw')));
    raw.close();
    return r;
  };
  const measure = async (mode: 'durable' | 'fast', profile: boolean) => {
    const h = await startBenchHearth(mode === 'fast' ? { config: FAST_CONFIG } : {});
    const stop = profile ? await startProfile() : undefined;
    const r = await withCpu(() => loadgen(load(h.port, h.token)));
    if (stop) notes.push(...hotSpotNotes(`Hearth under POST load (${mode})`, await stop()));
    await h.hearth.stop();
    await removeDir(h.dataDir);
    if (r.errors) notes.push(`${mode}: ${r.errors} answers were not 2xx: ${JSON.stringify(r.statuses)}`);
    return r;
  };
  // every configuration twice, interleaved, best run kept: the box is shared, and a neighbour's
  // burst should not decide a ratio
  const runs = { raw: [] as Measured[], durable: [] as Measured[], fast: [] as Measured[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.raw.push(await rawRun());
    runs.durable.push(await measure('durable', !!options.profile && round === 0));
    runs.fast.push(await measure('fast', !!options.profile && round === 0));
  }
  const bestOf = (list: Measured[]) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const base = bestOf(runs.raw);
  const durable = bestOf(runs.durable);
  const fast = bestOf(runs.fast);
  const all = (list: Measured[]) => list.map((r) => num(r.rps, 0)).join(' and ');
  notes.push(`best of ${ROUNDS} interleaved runs each: raw ${all(runs.raw)}; durable ${all(runs.durable)}; fast ${all(runs.fast)} req/s`);

  const baseline = { label: 'raw uWS', value: base.rps };
  const target = { text: '≥ 0.50× raw', min: 0.5 };
  const detail = (r: Measured) =>
    `Hearth ${latency(r)}, ${cpu(r)}; raw ${latency(base)}, ${cpu(base)}; ${num(r.bodyBytes, 0)} B answers (raw ${num(base.bodyBytes, 0)} B)`;
  notes.unshift(
    `${CONNECTIONS} keep-alive connections with one request in flight each, writes over ${IDS} entity ids, ` +
      `${WARMUP_MS / 1000} s warm-up then ${DURATION_MS / 1000} s measured; the load generator is one Node process on the same 2 cores`,
  );
  return {
    name: 'post-states',
    title: 'POST /api/states/{id} writes/s',
    rows: [
      rateRow('durable commit (default)', durable.rps, 'req/s', baseline, target, detail(durable)),
      rateRow('recorder: commit: fast', fast.rps, 'req/s', baseline, target, detail(fast)),
    ],
    notes,
  };
}

if (isMain(import.meta.url)) await runAlone(run);
