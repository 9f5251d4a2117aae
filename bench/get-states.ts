// GET /api/states and the WebSocket get_states with 10k entities, timed from the client side,
// beside one JSON.stringify of the same array of state objects in this process.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { gzipSync } from 'node:zlib';
import { isMain, median, ms, num, percentile, removeDir, runAlone, timeRow, type BenchOptions, type BenchResult } from './common.ts';
import { startBenchHearth } from './hearth.ts';
import { loadgen } from './loadgen.ts';
import { hotSpotNotes, startProfile } from './profile.ts';
import { runWsClients } from './ws-clients.ts';

export const ENTITIES = 10_000;

/**
 * One GET timed by curl (`time_total`, in ms), or undefined without curl. The first read after a
 * restart is a single request: timed from a fresh Node process, it would mostly measure that
 * process's own cold start reading 4 MB, which a C client does not have.
 */
async function curlTime(url: string, token: string): Promise<number | undefined> {
  try {
    const { stdout } = await promisify(execFile)('curl', ['-s', '-o', '/dev/null', '-w', '%{time_total}', '-H', `Authorization: Bearer ${token}`, url]);
    const seconds = Number(stdout);
    return Number.isFinite(seconds) ? seconds * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/** Times `fn` `n` times after `warm` unmeasured runs; the median in ms. */
function timeIt(fn: () => unknown, n: number, warm = 3): { median: number; p90: number } {
  for (let i = 0; i < warm; i++) fn();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    fn();
    times.push(performance.now() - t0);
  }
  return { median: median(times), p90: percentile(times, 90) };
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const notes: string[] = [];
  let h = await startBenchHearth();
  // the entities, through the REST API (64 connections, one write per entity)
  const created = await loadgen({ port: h.port, connections: 64, count: ENTITIES, request: { kind: 'post-state', token: h.token, ids: ENTITIES } });
  if (created.errors) notes.push(`creating the entities: ${created.errors} answers were not 2xx`);

  // a restart, so the first read finds states restored from the snapshot with no JSON made yet
  const { dataDir, token } = h;
  await h.hearth.stop();
  h = { ...(await startBenchHearth({ dataDir, onboard: false })), token };
  const get = (headers?: Record<string, string>) => ({ kind: 'get' as const, token, path: '/api/states', headers });
  const curled = await curlTime(`${h.base}/api/states`, token);
  const first = curled !== undefined ? { mean: curled, by: 'curl' } : { ...(await loadgen({ port: h.port, connections: 1, count: 1, request: get() })), by: 'a fresh Node client (no curl on PATH)' };

  const stop = options.profile ? await startProfile() : undefined;
  const warm = await loadgen({ port: h.port, connections: 1, warmupMs: 500, durationMs: 3000, request: get() });
  if (stop) notes.push(...hotSpotNotes('Hearth answering GET /api/states', await stop()));
  const gzip = await loadgen({ port: h.port, connections: 1, count: 20, request: get({ 'Accept-Encoding': 'gzip, deflate' }) });
  const ws = await runWsClients({ mode: 'get-states', port: h.port, token, iterations: 40 });

  // the baseline: the same states as the client got them, serialised once
  const res = await fetch(`${h.base}/api/states`, { headers: { Authorization: `Bearer ${token}` } });
  const text = await res.text();
  const states = JSON.parse(text) as unknown[];
  await h.hearth.stop();
  await removeDir(h.dataDir);

  const stringify = timeIt(() => JSON.stringify(states), 30);
  const zipped = timeIt(() => gzipSync(JSON.stringify(states)), 10, 1);
  const wsMedian = median(ws.times.slice(5));
  const baseline = { label: 'JSON.stringify', value: stringify.median };
  const target = (v: number) => ({ text: '≤ JSON.stringify', met: v <= stringify.median });

  notes.unshift(
    `${states.length} entities created with POST /api/states (the power-sensor body of post-states), then a restart; ` +
      `answers are ${num(text.length / 1e6, 2)} MB of JSON (gzipped: ${num(gzip.bodyBytes / 1e6, 2)} MB). One keep-alive connection, ` +
      `requests one after another, timed from request written to last byte read in a child process. Baseline: JSON.stringify of the ` +
      `parsed answer (${states.length} state objects), median of 30 in the bench process (p90 ${ms(stringify.p90)}); ` +
      `JSON.stringify + gzipSync (zlib default level) takes ${ms(zipped.median)}.`,
  );
  if (states.length !== ENTITIES) notes.push(`expected ${ENTITIES} states, GET /api/states answered ${states.length}`);
  return {
    name: 'get-states',
    title: `GET /api/states and get_states with ${num(ENTITIES, 0)} entities, time per request`,
    rows: [
      timeRow('GET /api/states, repeated (median)', warm.p50, baseline, target(warm.p50), `${warm.requests} requests in 3 s: mean ${ms(warm.mean)}, p99 ${ms(warm.p99)}`),
      timeRow('GET /api/states, first after a restart', first.mean, baseline, target(first.mean), `timed by ${first.by}; the start makes every restored state's JSON, and their join, before it listens`),
      timeRow('GET /api/states with Accept-Encoding: gzip (median)', gzip.p50, baseline, target(gzip.p50), `what browsers send; Hearth gzips bodies ≥ 1 KiB at zlib's default level; p99 ${ms(gzip.p99)}`),
      timeRow('WebSocket get_states (median)', wsMedian, baseline, target(wsMedian), `${num(ws.bytes / 1e6, 2)} MB result frame; ${ws.times.length - 5} requests after 5 unmeasured`),
    ],
    notes,
  };
}

if (isMain(import.meta.url)) await runAlone(run);
