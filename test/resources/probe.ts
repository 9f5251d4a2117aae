// What the resource tests measure on a Hearth child process: its resident memory, and how long
// a well-behaved client waits for an answer while others misbehave.
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { dataDirWith, onboard } from '../helpers/hearth.ts';
import { spawnHearth, type HearthProcess } from '../fuzz/hearth-process.ts';
import { WsClient } from '../fuzz/ws-client.ts';

/** Resident memory of a process in MiB (VmRSS), or undefined once it is gone. */
export function rssMiB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

export interface Server {
  proc: HearthProcess;
  port: number;
  token: string;
  pid: number;
  /** the process ended: how */
  exit(): string | undefined;
}

export async function startServer(t: { teardown(fn: () => unknown): unknown }): Promise<Server> {
  const dataDir = await dataDirWith();
  const proc = await spawnHearth(dataDir);
  let exit: string | undefined;
  proc.child.on('exit', (code, signal) => (exit = signal ? `killed by ${signal}` : `exit code ${code}`));
  t.teardown(() => proc.child.kill('SIGKILL'));
  const tokens = await onboard(proc.base);
  return { proc, port: Number(new URL(proc.base).port), token: tokens.access_token, pid: proc.child.pid!, exit: () => exit };
}

/**
 * Samples the server's RSS every 100 ms, and kills it past `killAboveMiB` so that a server
 * without bounds cannot take the test machine down with it.
 */
export function watchMemory(server: Server, killAboveMiB = 1536) {
  const baseline = rssMiB(server.pid) ?? 0;
  let peak = baseline;
  let killed = false;
  const timer = setInterval(() => {
    const now = rssMiB(server.pid);
    if (now === undefined) return;
    peak = Math.max(peak, now);
    if (now > killAboveMiB && !killed) {
      killed = true;
      server.proc.child.kill('SIGKILL');
    }
  }, 100);
  return {
    baseline,
    get peak() {
      return peak;
    },
    get growth() {
      return peak - baseline;
    },
    get killed() {
      return killed;
    },
    stop: () => clearInterval(timer),
  };
}

/**
 * A well-behaved client: every 250 ms a GET /api/ and a WebSocket ping, each of which must be
 * answered within `limitMs`. Collects the slow or missing answers. The bound tells a served
 * client from a starved one (whose answer never comes while the abuse lasts), not speed: two
 * seconds leave room for a box whose other core is busy with other tests.
 */
export const LATENCY_LIMIT_MS = 2000;
export async function watchLatency(server: Server, limitMs = LATENCY_LIMIT_MS) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const ws = await WsClient.authed(server.port, server.token);
  const late: string[] = [];
  let worst = 0;
  let samples = 0;
  let stopped = false;
  const get = () =>
    new Promise<number | string>((resolve) => {
      const started = performance.now();
      const req = http.request({ host: '127.0.0.1', port: server.port, path: '/api/', agent, headers: { Authorization: `Bearer ${server.token}` } });
      const timer = setTimeout(() => {
        req.destroy();
        resolve(`GET /api/ got no answer within ${limitMs} ms`);
      }, limitMs);
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => {
          clearTimeout(timer);
          resolve(res.statusCode === 200 ? performance.now() - started : `GET /api/ answered ${res.statusCode}`);
        });
      });
      req.on('error', (err) => {
        clearTimeout(timer);
        resolve(`GET /api/ failed: ${err.message}`);
      });
      req.end();
    });
  const loop = (async () => {
    while (!stopped) {
      const at = new Date().toISOString().slice(11, 23);
      const g = await get();
      const started = performance.now();
      const pong = ws.isOpen ? await ws.ping(limitMs) : undefined;
      const p = pong?.type === 'pong' ? performance.now() - started : ws.isOpen ? `ping got no pong within ${limitMs} ms` : 'the WebSocket was closed';
      for (const r of [g, p]) {
        if (typeof r === 'string') late.push(`${at} ${r}`);
        else {
          worst = Math.max(worst, r);
          if (r > limitMs) late.push(`${at} answered after ${r.toFixed(0)} ms`);
        }
      }
      samples++;
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  return {
    get worst() {
      return worst;
    },
    get samples() {
      return samples;
    },
    late,
    async stop() {
      stopped = true;
      await loop;
      ws.close();
      agent.destroy();
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
