// The load generator: N keep-alive connections over node:net, each with one request in flight,
// run in a child process so it never shares the server's event loop. Either a timed run (a
// warm-up, then a measured window) or a fixed count of requests (to create entities).
import { HttpConnection } from './http-client.ts';
import { requestMaker, type RequestSpec } from './requests.ts';
import { isChild, percentile, runChild, serveChild } from './common.ts';

export interface LoadOptions {
  port: number;
  connections: number;
  request: RequestSpec;
  /** timed run: not measured */
  warmupMs?: number;
  /** timed run: measured */
  durationMs?: number;
  /** count run: exactly this many requests, numbered 0..count-1, all measured */
  count?: number;
  /** first request number (count runs) */
  first?: number;
}

export interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  mean: number;
  max: number;
  /** answers that were not 2xx */
  errors: number;
  statuses: Record<string, number>;
  /** mean response body size in bytes */
  bodyBytes: number;
  /** CPU the load generator used over the run, in cores (1 = one core busy all the time) */
  cpu: number;
}

/** Runs the load in a child process and resolves with its figures. */
export function loadgen(options: LoadOptions): Promise<LoadResult> {
  return runChild<LoadResult>('./loadgen.ts', options, { timeoutMs: 600_000 });
}

async function generate(options: LoadOptions): Promise<LoadResult> {
  const make = requestMaker(options.request);
  const conns = await Promise.all(
    Array.from({ length: options.connections }, async () => {
      const c = new HttpConnection(options.port);
      await c.open();
      return c;
    }),
  );
  const counted = options.count !== undefined;
  let next = options.first ?? 0;
  const last = counted ? next + options.count! : Infinity;
  const latencies = new Float64Array(counted ? options.count! : 4_000_000);
  let measured = 0;
  let errors = 0;
  let bodyBytes = 0;
  const statuses: Record<string, number> = {};
  const start = performance.now();
  const cpu0 = process.cpuUsage();
  const from = counted ? start : start + (options.warmupMs ?? 1000);
  const until = counted ? Infinity : from + (options.durationMs ?? 5000);

  const worker = async (c: HttpConnection) => {
    for (;;) {
      if (next >= last) return;
      const sent = performance.now();
      if (sent >= until) return;
      const n = next++;
      const res = await c.request(make(n));
      const done = performance.now();
      if (done >= from && done < until && measured < latencies.length) {
        latencies[measured++] = done - sent;
        bodyBytes += res.bodyLength;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        if (res.status < 200 || res.status > 299) errors++;
      }
    }
  };
  await Promise.all(conns.map(worker));
  const end = performance.now();
  const used = process.cpuUsage(cpu0);
  for (const c of conns) c.close();
  const seconds = counted ? (end - start) / 1000 : (until - from) / 1000;
  const lat = latencies.subarray(0, measured);
  let sum = 0;
  let max = 0;
  for (const v of lat) {
    sum += v;
    if (v > max) max = v;
  }
  return {
    requests: measured,
    seconds,
    rps: measured / seconds,
    p50: percentile(lat, 50),
    p99: percentile(lat, 99),
    mean: sum / measured,
    max,
    errors,
    statuses,
    bodyBytes: bodyBytes / measured,
    cpu: (used.user + used.system) / 1000 / (end - start),
  };
}

if (isChild(import.meta.url)) serveChild((m) => generate(m as LoadOptions));
