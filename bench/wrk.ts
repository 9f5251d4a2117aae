// The load of the HTTP rate benchmarks: wrk (the Debian package `wrk`) when it is on PATH, the
// tool a new user would reach for; bench/loadgen.ts (one Node process) only when it is absent,
// and then marked as such. HEARTH_BENCH_LOADGEN=node forces the Node generator (to compare, or to
// see the status code of every answer), HEARTH_BENCH_LOADGEN=wrk fails without wrk.
import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { removeDir, tempDir } from './common.ts';
import { loadgen, type LoadOptions, type LoadResult } from './loadgen.ts';
import { stateBody, type RequestSpec } from './requests.ts';

export type Generator = 'wrk' | 'node';

export interface HttpLoadResult extends LoadResult {
  generator: Generator;
  /** the generator in words, for a row or a note */
  generatorText: string;
  /** what the answers weighed, in words (wrk counts headers and body, the Node generator bodies) */
  sizeText: string;
  /** connect, read, write and timeout errors (wrk; the Node generator fails instead) */
  socketErrors: number;
  /**
   * CPU this process used during the measured window, in cores: the server's alone when the
   * server runs in this process, since the load generator is another process. For the Node
   * generator the window includes its connecting and warm-up (it runs them in its child).
   */
  hostCpu: number;
}

/** The wrk executable on PATH, or undefined. */
export function wrkPath(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const file = join(dir, 'wrk');
    try {
      accessSync(file, constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** Which generator a timed HTTP load runs with, and why. */
export function chooseGenerator(): { generator: Generator; wrk?: string; why: string } {
  const forced = process.env.HEARTH_BENCH_LOADGEN;
  const wrk = wrkPath();
  if (forced === 'node') return { generator: 'node', why: 'HEARTH_BENCH_LOADGEN=node' };
  if (forced === 'wrk' && !wrk) throw new Error('HEARTH_BENCH_LOADGEN=wrk but wrk is not on PATH (apt-get install -y wrk)');
  if (forced && forced !== 'wrk') throw new Error(`HEARTH_BENCH_LOADGEN=${forced}: expected wrk or node`);
  return wrk ? { generator: 'wrk', wrk, why: `${wrk} on PATH` } : { generator: 'node', why: 'wrk is not on PATH (apt-get install -y wrk)' };
}

/** A Lua string literal (JSON's escapes are Lua's for the characters that matter here). */
const lua = (s: string) => JSON.stringify(s);

/**
 * The wrk script of a request spec. Requests are numbered from `first` in a global `n` (read back
 * by `done`), like the Node generator numbers them, so a post-state run sends the same bytes:
 * request n writes `sensor.bench_<n % ids>` with the body of requests.ts' stateBody(n). `done`
 * prints one `hearth-bench {...}` line: counts, non-2xx (wrk: status ≥ 400), socket errors, the
 * latency mean and max, and os.clock(), the CPU wrk used.
 */
export function wrkScript(spec: RequestSpec, port: number, first = 0): string {
  const host = `127.0.0.1:${port}`;
  let request: string;
  if (spec.kind === 'post-state') {
    const prefix = spec.prefix ?? 'sensor.bench_';
    // the body of stateBody(n, ids), cut where n and n % ids go
    const [a, rest] = stateBody(0, 1).split('"0"', 2).map((p, i) => (i === 0 ? p + '"' : '"' + p));
    const [b, c] = rest.split('Bench power 0');
    const body = (n: number) => `${a}${n}${b}Bench power ${n % spec.ids}${c}`;
    if (body(12345) !== stateBody(12345, spec.ids)) throw new Error('bench/wrk.ts: the Lua body no longer matches requests.ts stateBody');
    request = [
      `local ids = ${spec.ids}`,
      `local head = ${lua(`Host: ${host}\r\nAuthorization: Bearer ${spec.token}\r\nContent-Type: application/json\r\nContent-Length: `)}`,
      `local a, b, c = ${lua(a)}, ${lua(b + 'Bench power ')}, ${lua(c)}`,
      'request = function()',
      '  n = n + 1',
      '  local i = n % ids',
      '  local body = a .. n .. b .. i .. c',
      `  return "POST /api/states/${prefix}" .. i .. " HTTP/1.1\\r\\n" .. head .. #body .. "\\r\\n\\r\\n" .. body`,
      'end',
    ].join('\n');
  } else {
    let head = `GET ${spec.path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${spec.token}\r\n`;
    for (const k in spec.headers) head += `${k}: ${spec.headers[k]}\r\n`;
    request = [`local raw = ${lua(`${head}\r\n`)}`, 'request = function()', '  n = n + 1', '  return raw', 'end'].join('\n');
  }
  return `-- written by bench/wrk.ts
n = ${first - 1}
${request}

local threads = {}
setup = function(thread)
  table.insert(threads, thread)
end

done = function(summary, latency, requests)
  local sent = 0
  for _, t in ipairs(threads) do sent = sent + t:get("n") + 1 - ${first} end
  local e = summary.errors
  io.write(string.format('hearth-bench {"requests":%d,"sent":%d,"duration_us":%d,"bytes":%d,"non2xx":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"mean_us":%.3f,"max_us":%d,"cpu_s":%.6f}\\n',
    summary.requests, sent, summary.duration, summary.bytes, e.status, e.connect, e.read, e.write, e.timeout, latency.mean, latency.max, os.clock()))
end
`;
}

/** A wrk time (`94.00us`, `1.89ms`, `1.02s`, `1.5m`) in ms. */
function wrkTime(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m|h)$/.exec(text);
  if (!m) return NaN;
  const scale = { us: 1e-3, ms: 1, s: 1e3, m: 60e3, h: 3600e3 }[m[2] as 'us'];
  return Number(m[1]) * scale;
}

export interface WrkOutput {
  rps: number;
  /** from the --latency distribution, ms */
  percentiles: Record<string, number>;
  /** `Non-2xx or 3xx responses: N` (0 when wrk printed none) */
  non2xx: number;
  /** the `done` line */
  done: { requests: number; sent: number; duration_us: number; bytes: number; non2xx: number; connect: number; read: number; write: number; timeout: number; mean_us: number; max_us: number; cpu_s: number };
}

/** Reads wrk's report: Requests/sec, the latency distribution, non-2xx answers, and our `done` line. */
export function parseWrk(stdout: string): WrkOutput {
  const rps = /^Requests\/sec:\s+([\d.]+)/m.exec(stdout);
  const doneLine = /^hearth-bench (\{.*\})$/m.exec(stdout);
  if (!rps || !doneLine) throw new Error(`wrk: cannot read its report:\n${stdout}`);
  const percentiles: Record<string, number> = {};
  const dist = stdout.indexOf('Latency Distribution');
  if (dist >= 0) {
    for (const m of stdout.slice(dist).matchAll(/^\s+([\d.]+)%\s+([\d.]+(?:us|ms|s|m|h))\s*$/gm)) percentiles[m[1]] = wrkTime(m[2]);
  }
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(stdout);
  return { rps: Number(rps[1]), percentiles, non2xx: non2xx ? Number(non2xx[1]) : 0, done: JSON.parse(doneLine[1]) };
}

/** Runs wrk once; resolves with its standard output. */
export function runWrkOnce(path: string, args: string[], timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else reject(new Error(`wrk ${args.join(' ')} ended with ${signal ?? `code ${code}`}:\n${out}${err}`));
    });
  });
}

const seconds = (ms: number) => `${Math.max(1, Math.round(ms / 1000))}s`;

/**
 * A timed load with wrk: `wrk -t1 -c<connections> -d<warm-up>` unmeasured, then
 * `wrk -t1 -c<connections> -d<duration> --latency` measured, both with the script of the spec.
 */
export async function runWrk(path: string, options: LoadOptions): Promise<HttpLoadResult> {
  const dir = await tempDir('wrk');
  try {
    const url = `http://127.0.0.1:${options.port}/`;
    const base = ['-t1', `-c${options.connections}`];
    const timeout = (ms: number) => ms + 60_000;
    let first = 0;
    if ((options.warmupMs ?? 1000) > 0) {
      const script = join(dir, 'warmup.lua');
      await writeFile(script, wrkScript(options.request, options.port, 0));
      const warm = parseWrk(await runWrkOnce(path, [...base, `-d${seconds(options.warmupMs ?? 1000)}`, '-s', script, url], timeout(options.warmupMs ?? 1000)));
      first = warm.done.sent;
    }
    const script = join(dir, 'measured.lua');
    await writeFile(script, wrkScript(options.request, options.port, first));
    const durationMs = options.durationMs ?? 5000;
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    const stdout = await runWrkOnce(path, [...base, `-d${seconds(durationMs)}`, '--latency', '-s', script, url], timeout(durationMs));
    const c = process.cpuUsage(c0);
    const wall = performance.now() - t0;
    const r = parseWrk(stdout);
    const d = r.done;
    const socketErrors = d.connect + d.read + d.write + d.timeout;
    const duration = d.duration_us / 1e6;
    return {
      generator: 'wrk',
      generatorText: `wrk -t1 -c${options.connections} -d${seconds(durationMs)} --latency (after a ${seconds(options.warmupMs ?? 1000)} warm-up run)`,
      requests: d.requests,
      seconds: duration,
      rps: r.rps,
      p50: r.percentiles['50'] ?? NaN,
      p99: r.percentiles['99'] ?? NaN,
      mean: d.mean_us / 1000,
      max: d.max_us / 1000,
      errors: r.non2xx,
      statuses: r.non2xx ? { '2xx or 3xx': d.requests - r.non2xx, '4xx or 5xx': r.non2xx } : { '2xx or 3xx': d.requests },
      bodyBytes: d.bytes / d.requests,
      sizeText: `${Math.round(d.bytes / d.requests)} B answers with headers`,
      socketErrors,
      cpu: d.cpu_s / duration,
      hostCpu: (c.user + c.system) / 1000 / wall,
    };
  } finally {
    await removeDir(dir);
  }
}

/**
 * A timed HTTP load (warm-up, then a measured window) with wrk when it is on PATH, else with the
 * Node generator of bench/loadgen.ts.
 */
export async function timedLoad(options: LoadOptions): Promise<HttpLoadResult> {
  const chosen = chooseGenerator();
  if (chosen.generator === 'wrk') return runWrk(chosen.wrk!, options);
  const t0 = performance.now();
  const c0 = process.cpuUsage();
  const r = await loadgen(options);
  const c = process.cpuUsage(c0);
  return {
    ...r,
    generator: 'node',
    generatorText: `the Node load generator (bench/loadgen.ts, one process; ${chosen.why})`,
    sizeText: `${Math.round(r.bodyBytes)} B answer bodies`,
    socketErrors: 0,
    hostCpu: (c.user + c.system) / 1000 / (performance.now() - t0),
  };
}
