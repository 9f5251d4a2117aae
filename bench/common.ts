// Shared pieces of the benchmarks: result rows, formatting, the machine, child processes, and
// a Hearth instance with an owner's token. Benchmarks never assert; they measure and report.
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { statfsSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** One figure beside its baseline. */
export interface Row {
  /** what was measured, e.g. `POST /api/states, durable` */
  label: string;
  value: number;
  unit: string;
  /** the raw baseline measured in the same run */
  baseline?: { label: string; value: number };
  /** value / baseline for rates, baseline / value for times: >1 is faster than the baseline */
  ratio?: number;
  /** the target in words, e.g. `≥ 0.50× raw` */
  target?: string;
  met?: boolean;
  /** anything else worth printing on the row (latencies, counts) */
  detail?: string;
}

export interface BenchResult {
  name: string;
  title: string;
  rows: Row[];
  /** what the figures mean, what limits them, hot spots of a profile */
  notes: string[];
  seconds?: number;
}

export interface BenchOptions {
  /** take a CPU profile of the server side of the measured window and report its hot spots */
  profile?: boolean;
}

export const now = () => performance.timeOrigin + performance.now();
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls `work` for `ms` of wall time, 100 calls at a time, and answers calls per second. */
export function rate(ms: number, work: () => unknown): number {
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < ms) {
    for (let i = 0; i < 100; i++) work();
    n += 100;
    t = performance.now();
  }
  return (n / (t - t0)) * 1000;
}

/** The p-th percentile (0..100) of numbers, by nearest rank. */
export function percentile(values: ArrayLike<number>, p: number): number {
  const n = values.length;
  if (n === 0) return NaN;
  const sorted = Float64Array.from(values as ArrayLike<number>).sort();
  const rank = Math.min(n - 1, Math.max(0, Math.ceil((p / 100) * n) - 1));
  return sorted[rank];
}

export function median(values: ArrayLike<number>): number {
  return percentile(values, 50);
}

/** A number with a sensible amount of digits. */
export function num(v: number, digits?: number): string {
  if (!Number.isFinite(v)) return String(v);
  const d = digits ?? (Math.abs(v) >= 100 ? 0 : Math.abs(v) >= 10 ? 1 : 2);
  return v.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

export function ms(v: number): string {
  return `${num(v, v >= 100 ? 0 : v >= 10 ? 1 : 2)} ms`;
}

export function ratioText(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? '' : `${r.toFixed(2)}×`;
}

/** A rate row: higher is better, ratio = value / baseline. */
export function rateRow(label: string, value: number, unit: string, baseline: Row['baseline'], target?: { text: string; min: number }, detail?: string): Row {
  const ratio = baseline ? value / baseline.value : undefined;
  return { label, value, unit, baseline, ratio, target: target?.text, met: target && ratio !== undefined ? ratio >= target.min : undefined, detail };
}

/** A time row: lower is better, ratio = baseline / value (so 1.0× is as fast as the baseline). */
export function timeRow(label: string, value: number, baseline: Row['baseline'], target?: { text: string; met: boolean }, detail?: string): Row {
  const ratio = baseline ? baseline.value / value : undefined;
  return { label, value, unit: 'ms', baseline, ratio, target: target?.text, met: target?.met, detail };
}

/** Formats one benchmark's rows for the terminal. */
export function printResult(r: BenchResult): void {
  console.log(`\n== ${r.title}${r.seconds ? ` (${r.seconds.toFixed(0)} s)` : ''}`);
  for (const row of r.rows) {
    const value = `${num(row.value)} ${row.unit}`;
    const base = row.baseline ? `  vs ${row.baseline.label} ${num(row.baseline.value)} ${row.unit}` : '';
    const ratio = row.ratio !== undefined ? `  = ${ratioText(row.ratio)}` : '';
    const target = row.target ? `  target ${row.target}: ${row.met === undefined ? 'n/a' : row.met ? 'met' : 'MISSED'}` : '';
    console.log(`  ${row.label}: ${value}${base}${ratio}${target}`);
    if (row.detail) console.log(`      ${row.detail}`);
  }
  for (const note of r.notes) console.log(`  - ${note}`);
}

/** What the figures were measured on. */
export interface Machine {
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  kernel: string;
  tmpdir: string;
  fs: string;
  date: string;
}

export function machine(): Machine {
  const cpus = os.cpus();
  const tmp = os.tmpdir();
  let fs = 'unknown';
  try {
    fs = execFileSync('findmnt', ['-n', '-o', 'FSTYPE,SOURCE,OPTIONS', '-T', tmp], { encoding: 'utf8' }).trim().replace(/\s+/g, ' ');
  } catch {
    try {
      fs = `statfs type 0x${statfsSync(tmp).type.toString(16)}`;
    } catch {
      // leave unknown
    }
  }
  return {
    cpu: cpus[0]?.model ?? 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    kernel: `${os.type()} ${os.release()} ${os.version()}`,
    tmpdir: tmp,
    fs,
    date: new Date().toISOString(),
  };
}

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(os.tmpdir(), `hearth-bench-${prefix}-`));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
}

/**
 * Runs a module of bench/ in a child process (its own event loop and core), sends it one
 * message, and resolves with the first message it sends back.
 */
export function runChild<T>(module: string, message: unknown, options: { execArgv?: string[]; timeoutMs?: number } = {}): Promise<T> {
  const path = fileURLToPath(new URL(module, import.meta.url));
  const child: ChildProcess = fork(path, ['--bench-child'], {
    execArgv: ['--import=tsx', ...(options.execArgv ?? [])],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise<T>((resolve, reject) => {
    let done = false;
    const timer = setTimeout(() => {
      if (done) return;
      done = true;
      child.kill('SIGKILL');
      reject(new Error(`${module}: no answer within ${options.timeoutMs} ms`));
    }, options.timeoutMs ?? 300_000);
    child.once('message', (m: any) => {
      done = true;
      clearTimeout(timer);
      if (m && m.error) reject(new Error(`${module}: ${m.error}`));
      else resolve(m as T);
      child.disconnect();
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!done) {
        done = true;
        reject(new Error(`${module} exited with code ${code} before answering`));
      }
    });
    child.send(message as any);
  });
}

/** In a child started by runChild: answers the parent's one message with `handler`'s result. */
export function serveChild(handler: (message: any) => Promise<unknown>): void {
  process.once('message', async (m) => {
    try {
      const result = await handler(m);
      process.send!(result as any, () => process.exit(0));
    } catch (err) {
      process.send!({ error: (err as Error)?.stack ?? String(err) }, () => process.exit(1));
    }
  });
}

/** True when the module at `url` is the process's entry point. */
export function isMain(url: string): boolean {
  return !!process.argv[1] && url === pathToFileURL(process.argv[1]).href;
}

/** True when the module at `url` is the entry point of a process started by runChild. */
export const isChild = (url: string) => process.argv.includes('--bench-child') && isMain(url);

/** Runs one benchmark when its module is started directly: prints it. */
export async function runAlone(run: (options: BenchOptions) => Promise<BenchResult>): Promise<void> {
  const started = performance.now();
  const result = await run({ profile: process.argv.includes('--profile') });
  result.seconds = (performance.now() - started) / 1000;
  printResult(result);
  process.exit(0);
}

/** Forces a full collection (needs --expose-gc), a few times so weak references settle. */
export async function fullGc(): Promise<void> {
  const gc = (globalThis as any).gc as undefined | (() => void);
  if (!gc) return;
  for (let i = 0; i < 3; i++) {
    gc();
    await sleep(50);
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** A ULID-shaped context id from a number (cheap and unique). */
export function contextId(n: number): string {
  let s = '';
  for (let i = 0; i < 16; i++) {
    s = CROCKFORD[n % 32] + s;
    n = Math.floor(n / 32);
  }
  return `01JGKZ3M5D${s}`;
}
