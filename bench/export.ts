// What mirroring the log to NATS JetStream costs the primary: the load of post-states (POST
// /api/states/{id}, durable commit, 64 keep-alive connections over 1000 entity ids, wrk when on
// PATH) against a Hearth without export and one with `recorder: export: nats:` pointing at a real
// nats-server -js started for the run, each on a fresh data directory; raw uWS (bench/raw-uws.ts)
// beside them as in post-states. While the exporting Hearth is loaded, its exporter's acked seq
// and the log's last seq are sampled; after the load, the time until the exporter has caught up.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { connect } from 'nats';
import { freePort } from '../test/helpers/ports.ts';
import { NATS_SERVER, killNats, startNats as startNatsServer } from '../test/helpers/nats.ts';
import { isMain, median, ms, num, rateRow, removeDir, runAlone, sleep, tempDir, type BenchOptions, type BenchResult, type Row } from './common.ts';
import { startBenchHearth, type BenchHearth } from './hearth.ts';
import type { LoadOptions } from './loadgen.ts';
import { CONNECTIONS, IDS } from './post-states.ts';
import { hotSpotNotes, startProfile } from './profile.ts';
import { startRawHttp } from './raw-uws.ts';
import { chooseGenerator, timedLoad, type HttpLoadResult } from './wrk.ts';

const WARMUP_MS = 1000;
const DURATION_MS = 5000;
const ROUNDS = 4;
const SAMPLE_MS = 100;
const DRAIN_LIMIT_MS = 60_000;

/** A cost in µs beside its baseline: ratio = baseline / value, as for times. */
function timeRowUs(label: string, value: number, baseline: number, detail: string): Row {
  return { label, value, unit: 'µs', baseline: { label: 'export off', value: baseline }, ratio: baseline / value, detail };
}

const load = (port: number, token: string): LoadOptions => ({
  port,
  connections: CONNECTIONS,
  warmupMs: WARMUP_MS,
  durationMs: DURATION_MS,
  request: { kind: 'post-state', token, ids: IDS },
});

/** CPU seconds (user + system) of a process so far, from /proc (Linux); NaN elsewhere. */
function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    // utime and stime are the 14th and 15th fields of the line, the 12th and 13th after the name
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return NaN;
  }
}

interface Nats {
  port: number;
  url: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

async function startNats(): Promise<Nats> {
  const dir = await tempDir('nats');
  const port = await freePort();
  const child = await startNatsServer(port, dir);
  return {
    port,
    url: `nats://127.0.0.1:${port}`,
    child,
    async stop() {
      await killNats(child);
      await removeDir(dir);
    },
  };
}

/** The stream's message count, and removes it (each exporting run has its own). */
async function streamMessagesAndDelete(url: string, stream: string): Promise<number> {
  const nc = await connect({ servers: url, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager();
    const info = await jsm.streams.info(stream);
    await jsm.streams.delete(stream);
    return info.state.messages;
  } finally {
    await nc.close();
  }
}

interface Sample {
  t: number;
  acked: number;
  last: number;
}

interface Measured extends HttpLoadResult {
  /** export on: records/s the exporter acked over the measured window, and written over it */
  exported?: number;
  written?: number;
  /** records behind when the load ended, ms until caught up, messages in the stream */
  lagAtEnd?: number;
  drainMs?: number;
  messages?: number;
  lastSeq?: number;
  /** nats-server's CPU over the measured window, cores */
  natsCpu?: number;
}

/** The sample closest to time `t` (the samples are in time order). */
function sampleAt(samples: Sample[], t: number): Sample {
  let best = samples[0];
  for (const s of samples) if (Math.abs(s.t - t) < Math.abs(best.t - t)) best = s;
  return best;
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const notes: string[] = [];
  const generator = chooseGenerator();
  const nats = await startNats();
  const errors = (who: string, r: Measured) => {
    if (r.errors) notes.push(`${who}: ${r.errors} answers were not 2xx: ${JSON.stringify(r.statuses)}`);
    if (r.socketErrors) notes.push(`${who}: ${r.socketErrors} socket errors (connect, read, write or timeout)`);
  };

  const rawRun = async () => {
    const raw = await startRawHttp();
    const r = await timedLoad(load(raw.port, 'raw'));
    raw.close();
    errors('raw', r);
    return r;
  };

  const measure = async (exportOn: boolean, round: number, profile: boolean): Promise<Measured> => {
    const stream = `bench_${round}`;
    const config = exportOn ? `recorder:\n  export:\n    nats:\n      servers: [${nats.url}]\n      stream: ${stream}\n` : undefined;
    const h: BenchHearth = await startBenchHearth(config === undefined ? {} : { config });
    try {
      const exporter = h.hearth.exporter;
      if (exportOn) {
        if (!exporter) throw new Error('recorder: export: nats: configured, but Hearth has no exporter');
        // the onboarding's records are out before the load starts
        const end = Date.now() + 10_000;
        while (!exporter.connected || exporter.acked < h.hearth.log.lastSeq()) {
          if (Date.now() > end) throw new Error(`the exporter did not reach ${nats.url} (connected ${exporter.connected}, acked ${exporter.acked})`);
          await sleep(20);
        }
      }
      const samples: Sample[] = [];
      const sample = () => samples.push({ t: performance.now(), acked: exporter?.acked ?? 0, last: h.hearth.log.lastSeq() });
      sample();
      const sampler = setInterval(sample, SAMPLE_MS);
      const stop = profile ? await startProfile() : undefined;
      const natsCpu0 = { t: performance.now(), cpu: cpuSecondsOf(nats.child.pid) };
      const r: Measured = await timedLoad(load(h.port, h.token));
      const loadEnd = performance.now();
      const natsCpu = (cpuSecondsOf(nats.child.pid) - natsCpu0.cpu) / ((loadEnd - natsCpu0.t) / 1000);
      clearInterval(sampler);
      sample();
      if (stop) notes.push(...hotSpotNotes(`Hearth under POST load, export ${exportOn ? 'on' : 'off'}`, await stop()));
      errors(`export ${exportOn ? 'on' : 'off'}`, r);
      if (!exporter) return r;
      // the measured window is the load's last DURATION_MS (wrk's warm-up run comes first)
      const a = sampleAt(samples, loadEnd - r.seconds * 1000);
      const z = samples[samples.length - 1];
      const dt = (z.t - a.t) / 1000;
      const lastAtEnd = z.last;
      const drainStart = performance.now();
      while (exporter.acked < lastAtEnd) {
        if (performance.now() - drainStart > DRAIN_LIMIT_MS) throw new Error(`the exporter did not catch up within ${DRAIN_LIMIT_MS} ms (acked ${exporter.acked} of ${lastAtEnd})`);
        await sleep(5);
      }
      const drainMs = performance.now() - drainStart;
      return { ...r, exported: (z.acked - a.acked) / dt, written: (z.last - a.last) / dt, lagAtEnd: z.last - z.acked, drainMs, lastSeq: lastAtEnd, natsCpu };
    } finally {
      await h.hearth.stop();
      await removeDir(h.dataDir);
    }
  };

  const runs = { raw: [] as Measured[], off: [] as Measured[], on: [] as Measured[] };
  try {
    // every configuration ROUNDS times, interleaved, best run kept (post-states' rule: the box is shared)
    for (let round = 0; round < ROUNDS; round++) {
      runs.raw.push(await rawRun());
      const offRun = () => measure(false, round, !!options.profile && round === 0);
      const onRun = async () => {
        const on = await measure(true, round, !!options.profile && round === 0);
        on.messages = await streamMessagesAndDelete(nats.url, `bench_${round}`);
        return on;
      };
      // off first in even rounds, on first in odd ones: neither always runs on a warmer box
      if (round % 2 === 0) {
        runs.off.push(await offRun());
        runs.on.push(await onRun());
      } else {
        runs.on.push(await onRun());
        runs.off.push(await offRun());
      }
    }
  } finally {
    await nats.stop();
  }

  const bestOf = (list: Measured[]) => list.reduce((a, b) => (b.rps > a.rps ? b : a));
  const base = bestOf(runs.raw);
  const off = bestOf(runs.off);
  const on = bestOf(runs.on);
  const all = (list: Measured[]) => list.map((r) => num(r.rps, 0)).join(' and ');
  // the ratio of the rounds, each export-on run against the export-off run just before it
  const pairs = runs.on.map((r, i) => r.rps / runs.off[i].rps);
  const medianPair = median(pairs);
  // CPU per write moves less than the rate when neighbours take the cores: the cost in another unit
  const perWrite = (r: Measured) => (r.hostCpu / r.rps) * 1e6;
  const cpuOff = median(runs.off.map(perWrite));
  const cpuOn = median(runs.on.map(perWrite));
  const natsPerWrite = median(runs.on.map((r) => (r.natsCpu! / r.rps) * 1e6));
  notes.push(
    `best of ${ROUNDS} interleaved runs each: raw ${all(runs.raw)}; export off ${all(runs.off)}; export on ${all(runs.on)} req/s; ` +
      `export on ÷ off round by round: ${pairs.map((p) => p.toFixed(2)).join(', ')}`,
  );
  for (const [i, r] of runs.on.entries()) {
    notes.push(
      `export on, round ${i + 1}: ${num(r.written!, 0)} records/s written and ${num(r.exported!, 0)} exported over the measured window; ` +
        `${num(r.lagAtEnd!, 0)} records behind at the end of the load, caught up ${ms(r.drainMs!)} later; ` +
        `${num(r.messages ?? NaN, 0)} messages in the stream after the stop (the log's last seq was ${num(r.lastSeq!, 0)} when the load ended; the lag entity and core_stop come after, auth/ records are never exported); nats-server ${r.natsCpu!.toFixed(2)} cores`,
    );
  }

  const byWrk = generator.generator === 'wrk';
  const cores = os.cpus().length;
  notes.unshift(
    `load generator: ${base.generatorText}; the load of post-states: ${CONNECTIONS} keep-alive connections with one request in flight each, writes over ${IDS} entity ids, ` +
      `${WARMUP_MS / 1000} s warm-up then ${DURATION_MS / 1000} s measured, durable commit; Hearth, wrk and nats-server (${NATS_SERVER} -js, file store in the temp dir) share the same ${cores} cores`,
    `export on: configuration.yaml recorder: export: nats: servers: [nats://127.0.0.1:<port>], one stream per run (deleted after it); the exporter runs in Hearth's process, ` +
      `publishing the committed records in bursts (one piece of protocol text each, one ack per burst, the next burst when it is in; the log is read back only for what is older than its in-memory tail); exported/s is the change in its acked seq over the measured window (sampled every ${SAMPLE_MS} ms), the lag the log's last seq minus it`,
  );
  const baseline = { label: 'raw uWS', value: base.rps };
  const latency = (r: Measured) => `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}`;
  const cpu = (r: Measured) => `server ${r.hostCpu.toFixed(2)} cores`;
  const mark = byWrk ? '' : ' [Node load generator]';
  const detail = (r: Measured) => `${byWrk ? 'wrk' : 'Node load generator'}: ${latency(r)}, ${cpu(r)}${r.natsCpu !== undefined ? `, nats-server ${r.natsCpu.toFixed(2)} cores` : ''}`;
  const onRatio = on.rps / off.rps;
  return {
    name: 'export',
    title: 'the cost of exporting the log to NATS JetStream under POST /api/states load',
    rows: [
      rateRow(`export off (durable commit)${mark}`, off.rps, 'req/s', baseline, undefined, detail(off)),
      rateRow(`export on, recorder: export: nats:${mark}`, on.rps, 'req/s', baseline, undefined, detail(on)),
      rateRow('write rate, export on ÷ export off', on.rps, 'req/s', { label: 'export off', value: off.rps }, { text: '≥ 0.90× export off', min: 0.9 }, `best runs: ${num(on.rps, 0)} ÷ ${num(off.rps, 0)} = ${onRatio.toFixed(2)}; median of the ${ROUNDS} rounds' ratios ${medianPair.toFixed(2)}`),
      timeRowUs('Hearth CPU per write (median of the rounds)', cpuOn, cpuOff, `export off ${num(cpuOff)} µs, export on ${num(cpuOn)} µs (+${num(cpuOn - cpuOff)} µs); nats-server another ${num(natsPerWrite)} µs per write`),
      rateRow('records exported during the load', on.exported!, 'records/s', { label: 'records written', value: on.written! }, undefined, `lag at the end of the load ${num(on.lagAtEnd!, 0)} records, drained in ${ms(on.drainMs!)}`),
    ],
    notes,
  };
}

if (isMain(import.meta.url)) await runAlone(run);
