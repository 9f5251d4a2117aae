// Sustained realistic load as a large install sees it: 100,000 entities exist, 10,000 of them
// change once per second (POST /api/states at a fixed 10,000 writes/s, paced by wrk's Lua
// `delay()` over 64 connections) for 60 s, while 100 WebSocket clients subscribed with
// subscribe_entities (the entities that change, by id) read everything. Hearth runs in this process, so
// process.cpuUsage() and the RSS samples are the server's; wrk and the clients (`ws`, one child
// process) are other processes on the same cores. The baseline is the raw uWS app of
// bench/raw-uws.ts (state writes published with app.publish) under the same paced load and the
// same 100 clients, for a shorter window; it keeps no entities and persists nothing.
//
// HEARTH_SUSTAINED_SECONDS (default 60) sets the measured window, for a quick check;
// HEARTH_SUSTAINED_RATE (default 10000) the writes/s asked; HEARTH_SUSTAINED_ENTITIES (default
// 100000) the entities created first.
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { isChild, isMain, ms, num, percentile, rateRow, removeDir, runAlone, sleep, tempDir, timeRow, type BenchOptions, type BenchResult } from './common.ts';
import { startBenchHearth } from './hearth.ts';
import { loadgen } from './loadgen.ts';
import { startRawFanout } from './raw-uws.ts';
import { parseWrk, runWrkOnce, wrkPath, type WrkOutput } from './wrk.ts';

const envInt = (name: string, dflt: number) => {
  const v = Number(process.env[name]);
  return Number.isFinite(v) && v > 0 ? Math.floor(v) : dflt;
};
export const SECONDS = envInt('HEARTH_SUSTAINED_SECONDS', 60);
export const RATE = envInt('HEARTH_SUSTAINED_RATE', 10_000);
export const ENTITIES = envInt('HEARTH_SUSTAINED_ENTITIES', 100_000);
/** entities that change, each once per second at RATE writes/s */
const CHANGING = Math.min(ENTITIES, RATE);
const CONNECTIONS = 64;
const CLIENTS = 100;
/** one write in SAMPLE carries a send-time marker */
const SAMPLE = 100;
const RAW_SECONDS = Math.min(15, SECONDS);
const PREFIX = 'sensor.sus_';
/** how long the clients may take to catch up after the writes stop */
const DRAIN_MS = 5000;
/** subscribing stops starting new clients after this long */
const CONNECT_MS = envInt('HEARTH_SUSTAINED_CONNECT_MS', 45_000);

/** CLOCK_MONOTONIC in ms: the clock wrk's Lua (via clock_gettime) and the client process share. */
const mono = () => Number(process.hrtime.bigint()) / 1e6;

// ---------------------------------------------------------------------------------------------
// wrk: a paced write load

/**
 * The wrk script: request n writes `sensor.sus_<n % changing>` with the power-sensor body of
 * requests.ts (state = n); every SAMPLE-th write adds the attributes `sent` (CLOCK_MONOTONIC ms,
 * taken as the request is built, just before it is written) and `k` (n). `delay()` hands out send
 * slots RATE per second from one schedule shared by every connection (wrk -t1: one Lua state), so
 * the rate holds however the latency moves; a server that falls behind gets at most 100 ms of
 * catch-up, never a burst.
 */
function pacedScript(port: number, token: string, rate: number, changing: number): string {
  const head = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: `;
  return `-- written by bench/sustained.ts
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } hearth_timespec;
int clock_gettime(int clk_id, hearth_timespec *tp);
]]
local ts = ffi.new("hearth_timespec")
local function mono_ms()
  ffi.C.clock_gettime(1, ts)
  return tonumber(ts.tv_sec) * 1000 + tonumber(ts.tv_nsec) / 1e6
end

n = -1
local ids = ${changing}
local interval = ${1000 / rate}
local slot = nil
local head = ${JSON.stringify(head)}
local a1 = '{"state":"'
local a2 = '","attributes":{"unit_of_measurement":"W","device_class":"power","state_class":"measurement","friendly_name":"Bench power '

delay = function()
  local t = mono_ms()
  if slot == nil then slot = t end
  slot = slot + interval
  if slot < t - 100 then slot = t - 100 end
  local d = slot - t
  if d <= 0 then return 0 end
  return math.floor(d)
end

request = function()
  n = n + 1
  local i = n % ids
  local body
  if n % ${SAMPLE} == 0 then
    body = a1 .. n .. a2 .. i .. '","sent":' .. string.format("%.3f", mono_ms()) .. ',"k":' .. n .. '}}'
  else
    body = a1 .. n .. a2 .. i .. '"}}'
  end
  return "POST /api/states/${PREFIX}" .. i .. " HTTP/1.1\\r\\n" .. head .. #body .. "\\r\\n\\r\\n" .. body
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format('hearth-bench {"requests":%d,"sent":%d,"duration_us":%d,"bytes":%d,"non2xx":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"mean_us":%.3f,"max_us":%d,"cpu_s":%.6f}\\n',
    summary.requests, n + 1, summary.duration, summary.bytes, e.status, e.connect, e.read, e.write, e.timeout, latency.mean, latency.max, os.clock()))
end
`;
}


// ---------------------------------------------------------------------------------------------
// the subscribers, in a child process

interface ClientsResult {
  connectMs: number;
  /** frames and bytes received by all clients during the window (after subscribing) */
  frames: number;
  bytes: number;
  /** sampled deliveries: marker written (monotonic, by wrk) → frame received */
  samples: number;
  p50: number;
  p99: number;
  max: number;
  /** distinct markers seen, and deliveries of them missing (a marker reached fewer than CLIENTS) */
  markers: number;
  missing: number;
  /** sockets closed before the end */
  closed: number;
  /** CPU of the client process over the window, in cores */
  cpu: number;
}

type ToClients = { type: 'start'; port: number; token: string; clients: number } | { type: 'stop' };
type FromClients = { type: 'ready'; connectMs: number } | { type: 'result'; result: ClientsResult } | { type: 'error'; error: string };

async function clientsChild(): Promise<void> {
  const send = (m: FromClients) => process.send!(m);
  const SENT = Buffer.from('"sent":');
  const K = Buffer.from('"k":');
  const latencies: number[] = [];
  const counts = new Map<number, number>();
  let frames = 0;
  let bytes = 0;
  let closed = 0;
  let counting = false;
  let stopping = false;
  const sockets: WebSocket[] = [];
  const ids = Array.from({ length: CHANGING }, (_, i) => `${PREFIX}${i}`);
  let c0 = process.cpuUsage();
  let t0 = 0;

  const onFrame = (data: Buffer) => {
    const at = mono();
    if (!counting) return;
    frames++;
    bytes += data.length;
    for (let p = data.indexOf(SENT); p >= 0; p = data.indexOf(SENT, p + SENT.length)) {
      const sent = parseFloat(data.toString('latin1', p + SENT.length, p + SENT.length + 24));
      const kAt = data.indexOf(K, p);
      if (kAt < 0) continue;
      const k = parseInt(data.toString('latin1', kAt + K.length, kAt + K.length + 16), 10);
      latencies.push(at - sent);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  };

  const connect = (port: number, token: string) =>
    new Promise<WebSocket>((resolve, reject) => {
      const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket`, { perMessageDeflate: false, skipUTF8Validation: true, maxPayload: 1024 * 2 ** 20 });
      let step = 0;
      ws.on('error', reject);
      ws.on('close', (code, reason) => {
        if (!stopping) closed++;
        if (step < 4) reject(new Error(`subscriber closed while subscribing: ${code} ${reason.toString()}`));
      });
      ws.on('message', (data: Buffer) => {
        if (step === 4) return onFrame(data);
        if (step === 0) {
          step = 1;
          ws.send(JSON.stringify({ type: 'auth', access_token: token }));
        } else if (step === 1) {
          if (!data.toString('latin1', 0, 40).includes('auth_ok')) return reject(new Error(`auth: ${data.toString('utf8').slice(0, 200)}`));
          step = 2;
          // the changing entities by id: 100 first events of all 100k states (27.7 MB each) at once
          // would measure the snapshot burst, not the sustained load
          ws.send(JSON.stringify({ id: 1, type: 'subscribe_entities', entity_ids: ids }));
        } else if (step === 2) {
          step = 3; // the result
        } else if (step === 3) {
          step = 4; // the first event: every current state
          resolve(ws);
        }
      });
    });

  process.on('message', async (m: ToClients) => {
    try {
      if (m.type === 'start') {
        const started = mono();
        // ten at a time: each first event holds every state
        // bounded in time: once CONNECT_MS has passed no more groups start, and the run goes on with those subscribed
        for (let i = 0; i < m.clients && mono() - started < CONNECT_MS; i += 10) {
          sockets.push(...(await Promise.all(Array.from({ length: Math.min(10, m.clients - i) }, () => connect(m.port, m.token)))));
          if (process.env.HEARTH_SUSTAINED_VERBOSE) console.error(`sustained: ${sockets.length} subscribed after ${Math.round(mono() - started)} ms`);
        }
        counting = true;
        c0 = process.cpuUsage();
        t0 = mono();
        send({ type: 'ready', connectMs: mono() - started });
      } else if (m.type === 'stop') {
        // let the last markers arrive: until every marker seen reached every client, or DRAIN_MS
        const deadline = mono() + DRAIN_MS;
        const complete = () => {
          for (const n of counts.values()) if (n < m_clients()) return false;
          return true;
        };
        while (!complete() && mono() < deadline) await sleep(50);
        const c = process.cpuUsage(c0);
        const wall = mono() - t0;
        counting = false;
        stopping = true;
        for (const ws of sockets) ws.terminate();
        let missing = 0;
        for (const n of counts.values()) missing += m_clients() - n;
        const sorted = Float64Array.from(latencies).sort();
        send({
          type: 'result',
          result: {
            connectMs: 0,
            frames,
            bytes,
            samples: latencies.length,
            p50: percentile(sorted, 50),
            p99: percentile(sorted, 99),
            max: sorted.length ? sorted[sorted.length - 1] : NaN,
            markers: counts.size,
            missing,
            closed,
            cpu: (c.user + c.system) / 1000 / wall,
          },
        });
      }
    } catch (err) {
      send({ type: 'error', error: (err as Error)?.stack ?? String(err) });
    }
  });
  const m_clients = () => sockets.length;
}

/** The client process, driven by messages. */
class Clients {
  private child: ChildProcess;
  private waiters: ((m: FromClients) => void)[] = [];
  constructor() {
    this.child = fork(fileURLToPath(import.meta.url), ['--bench-child'], { execArgv: ['--import=tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: FromClients) => this.waiters.shift()?.(m));
    this.child.once('exit', (code) => {
      for (const w of this.waiters.splice(0)) w({ type: 'error', error: `the client process exited with code ${code}` });
    });
  }
  private ask(m: ToClients, timeoutMs: number): Promise<FromClients> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the client process did not answer ${m.type} within ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push((r) => {
        clearTimeout(timer);
        if (r.type === 'error') reject(new Error(r.error));
        else resolve(r);
      });
      this.child.send(m);
    });
  }
  async start(port: number, token: string): Promise<number> {
    const r = await this.ask({ type: 'start', port, token, clients: CLIENTS }, 120_000);
    return (r as { connectMs: number }).connectMs;
  }
  async stop(): Promise<ClientsResult> {
    const r = await this.ask({ type: 'stop' }, 60_000);
    return (r as { result: ClientsResult }).result;
  }
  kill(): void {
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
  }
}

// ---------------------------------------------------------------------------------------------
// one measured window against a server in this process

interface Window {
  wrk: WrkOutput;
  clients: ClientsResult;
  connectMs: number;
  seconds: number;
  /** server (this process) CPU in cores over the wrk run */
  cpu: number;
  /** RSS, MiB, one sample a second from the start of the wrk run */
  rss: number[];
}

async function measure(wrk: string, port: number, token: string, seconds: number): Promise<Window> {
  const dir = await tempDir('sustained');
  const clients = new Clients();
  try {
    const script = join(dir, 'paced.lua');
    await writeFile(script, pacedScript(port, token, RATE, CHANGING));
    const connectMs = await clients.start(port, token);
    const rss: number[] = [process.memoryUsage.rss() / 2 ** 20];
    const timer = setInterval(() => rss.push(process.memoryUsage.rss() / 2 ** 20), 1000);
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    let stdout: string;
    try {
      stdout = await runWrkOnce(wrk, ['-t1', `-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '--latency', '-s', script, `http://127.0.0.1:${port}/`], seconds * 1000 + 60_000);
    } finally {
      clearInterval(timer);
    }
    const c = process.cpuUsage(c0);
    const wall = performance.now() - t0;
    rss.push(process.memoryUsage.rss() / 2 ** 20);
    const result = await clients.stop();
    return { wrk: parseWrk(stdout), clients: result, connectMs, seconds: wall / 1000, cpu: (c.user + c.system) / 1000 / wall, rss };
  } finally {
    clients.kill();
    await removeDir(dir);
  }
}

/** Least-squares slope of the last `n` samples (one a second), in MiB per minute. */
function slope(samples: number[], n: number): number {
  const ys = samples.slice(-n);
  const k = ys.length;
  if (k < 2) return NaN;
  const mx = (k - 1) / 2;
  const my = ys.reduce((a, b) => a + b, 0) / k;
  let sxy = 0;
  let sxx = 0;
  ys.forEach((y, x) => {
    sxy += (x - mx) * (y - my);
    sxx += (x - mx) ** 2;
  });
  return (sxy / sxx) * 60;
}

export async function run(_options: BenchOptions = {}): Promise<BenchResult> {
  const wrk = wrkPath();
  if (!wrk) throw new Error('sustained: wrk is not on PATH (apt-get install -y wrk); this benchmark has no Node fallback for a paced load');
  const notes: string[] = [];

  // the baseline first: raw uWS, no entities, the same paced writes and the same clients
  const raw = await startRawFanout();
  let base: Window;
  try {
    base = await measure(wrk, raw.port, 'raw', RAW_SECONDS);
  } finally {
    raw.close();
  }

  const h = await startBenchHearth();
  let w: Window;
  let createSeconds: number;
  try {
    const created = await loadgen({ port: h.port, connections: 64, count: ENTITIES, request: { kind: 'post-state', token: h.token, ids: ENTITIES, prefix: PREFIX } });
    createSeconds = created.seconds;
    if (created.errors) notes.push(`creating the entities: ${created.errors} answers were not 2xx`);
    w = await measure(wrk, h.port, h.token, SECONDS);
  } finally {
    await h.hearth.stop();
    await removeDir(h.dataDir);
  }

  const rate = (x: Window) => x.wrk.done.requests / (x.wrk.done.duration_us / 1e6);
  const p = (x: Window, q: string) => x.wrk.percentiles[q] ?? NaN;
  const rssFigures = (x: Window) => {
    const n = Math.min(40, Math.max(2, Math.floor(x.rss.length * 2 / 3)));
    return { start: x.rss[0], end: x.rss[x.rss.length - 1], max: Math.max(...x.rss), slope: slope(x.rss, n), n };
  };
  const mem = rssFigures(w);
  const bmem = rssFigures(base);
  const mib = (v: number) => `${num(v, 1)} MiB`;
  const errors = (who: string, x: Window) => {
    const d = x.wrk.done;
    const socket = d.connect + d.read + d.write + d.timeout;
    if (x.wrk.non2xx) notes.push(`${who}: ${x.wrk.non2xx} answers were not 2xx`);
    if (socket) notes.push(`${who}: ${socket} socket errors (connect ${d.connect}, read ${d.read}, write ${d.write}, timeout ${d.timeout})`);
    if (x.clients.closed) notes.push(`${who}: ${x.clients.closed} of ${CLIENTS} subscribers were disconnected during the run`);
    if (x.clients.missing) notes.push(`${who}: ${x.clients.missing} sampled deliveries missing (a marker reached fewer than all ${CLIENTS} subscribers within ${DRAIN_MS / 1000} s of the end)`);
  };
  errors('Hearth', w);
  errors('raw', base);
  const held = rate(w);
  const holds = held >= RATE * 0.98;
  const perClient = (x: Window) => x.clients.frames / CLIENTS / x.seconds;

  notes.unshift(
    `${num(ENTITIES, 0)} entities created first with POST /api/states (power-sensor body, 64 connections, Node generator, ${num(createSeconds, 1)} s), durable commit (the default); ` +
      `then ${CLIENTS} WebSocket clients (\`ws\`, one child process) subscribed with subscribe_entities to the ${num(CHANGING, 0)} changing entities by entity_ids (so every write reaches every client) (ten at a time; ${ms(w.connectMs)} for all, each first event holding those states), ` +
      `then wrk -t1 -c${CONNECTIONS} -d${SECONDS}s --latency with a Lua script pacing ${num(RATE, 0)} writes/s (one send schedule shared by all connections through \`delay()\`) over ${num(CHANGING, 0)} entities (each changes once a second).`,
    `Hearth ${holds ? 'held' : 'DID NOT hold'} the ${num(RATE, 0)} writes/s asked: ${num(held, 0)} writes/s answered (${num(w.wrk.done.requests, 0)} in ${num(w.wrk.done.duration_us / 1e6, 1)} s; wrk's own CPU ${num(w.wrk.done.cpu_s / (w.wrk.done.duration_us / 1e6))} cores).` +
      (holds ? '' : ' wrk\'s latency is measured from each request\'s actual send, so when the server falls behind the pacing the wait before sending is not in the write latency (coordinated omission): read the rate first.'),
    `delivery: one write in ${SAMPLE} carries the CLOCK_MONOTONIC ms at which wrk built it (just before writing it) and its number; the clients take the same clock on receipt. ` +
      `Hearth: ${num(w.clients.samples, 0)} sampled deliveries of ${num(w.clients.markers, 0)} markers, p50 ${ms(w.clients.p50)}, p99 ${ms(w.clients.p99)}, max ${ms(w.clients.max)}; ` +
      `subscribers got ${num(perClient(w), 0)} frames/s each (${num(w.clients.bytes / w.seconds / 2 ** 20, 1)} MiB/s in all). Raw: ${num(base.clients.samples, 0)} samples, p50 ${ms(base.clients.p50)}, p99 ${ms(base.clients.p99)}, max ${ms(base.clients.max)}, ${num(perClient(base), 0)} frames/s each.`,
    `CPU (cores, over the wrk run): Hearth server ${num(w.cpu)}, the client process ${num(w.clients.cpu)}, wrk ${num(w.wrk.done.cpu_s / (w.wrk.done.duration_us / 1e6))}; ` +
      `raw server ${num(base.cpu)}, clients ${num(base.clients.cpu)}, wrk ${num(base.wrk.done.cpu_s / (base.wrk.done.duration_us / 1e6))}. All three share this box's cores, so the clients reading everything compete with the server for CPU.`,
    `RSS of the server process (Hearth runs in the bench process), ${w.rss.length} samples a second apart: start ${mib(mem.start)}, end ${mib(mem.end)}, max ${mib(mem.max)}, slope over the last ${mem.n} s ${num(mem.slope, 2)} MiB/min; ` +
      `raw server over its ${RAW_SECONDS} s: ${mib(bmem.start)} → ${mib(bmem.end)}, max ${mib(bmem.max)}.`,
    `baseline: bench/raw-uws.ts's fan-out app (parses each write, builds the state against a Map, answers it, app.publish of a change frame of Hearth's shape), no persistence, no auth, no entities created first, ` +
      `the same paced wrk script and ${CLIENTS} clients, ${RAW_SECONDS} s. RSS has no baseline (the raw app holds no 100k entities).`,
    `wrk: Hearth latency p50 ${ms(p(w, '50'))}, p75 ${ms(p(w, '75'))}, p90 ${ms(p(w, '90'))}, p99 ${ms(p(w, '99'))}; raw p50 ${ms(p(base, '50'))}, p99 ${ms(p(base, '99'))}.`,
  );

  const target = { text: `≥ ${num(RATE, 0)} writes/s`, met: holds };
  return {
    name: 'sustained',
    title: `sustained load: ${num(ENTITIES, 0)} entities, ${num(RATE, 0)} writes/s for ${SECONDS} s, ${CLIENTS} subscribe_entities clients`,
    rows: [
      { ...rateRow('writes/s held (paced, asked ' + num(RATE, 0) + '/s)', held, 'writes/s', { label: 'raw uWS, same pacing', value: rate(base) }), target: target.text, met: target.met, detail: `${num(w.wrk.done.requests, 0)} writes answered in ${num(w.wrk.done.duration_us / 1e6, 1)} s` },
      timeRow('write latency p50', p(w, '50'), { label: 'raw uWS', value: p(base, '50') }, undefined, 'wrk --latency, from each request\'s send'),
      timeRow('write latency p99', p(w, '99'), { label: 'raw uWS', value: p(base, '99') }),
      timeRow('delivery p99 (write sent → subscriber)', w.clients.p99, { label: 'raw uWS publish', value: base.clients.p99 }, undefined, `p50 ${ms(w.clients.p50)} (raw ${ms(base.clients.p50)}); ${num(w.clients.samples, 0)} samples, 1 write in ${SAMPLE} × ${CLIENTS} clients`),
      { label: 'server CPU', value: w.cpu, unit: 'cores', baseline: { label: 'raw uWS', value: base.cpu }, ratio: base.cpu / w.cpu, detail: 'process.cpuUsage() over the wrk run' },
      { label: 'server RSS slope, last ' + mem.n + ' s', value: mem.slope, unit: 'MiB/min', detail: `start ${mib(mem.start)}, end ${mib(mem.end)}, max ${mib(mem.max)}; no baseline` },
    ],
    notes,
  };
}

if (isChild(import.meta.url)) await clientsChild();
else if (isMain(import.meta.url)) await runAlone(run);
