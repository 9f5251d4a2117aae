// Runs fuzz cases against a real Hearth child process (hearth-process.ts) and checks, after every
// case, that it answered sanely, is alive and serving, and wrote nothing half-way. The clients
// it probes with are http-clients.ts and ws-client.ts; failures are reported by report.ts.
import http from 'node:http';
import { dataDirWith, onboard, CLIENT_ID } from '../helpers/hearth.ts';
import { fuzzSeed } from './rng.ts';
import { preview, type Body, type FuzzContext } from './generators.ts';
import { loginTokens, spawnHearth, startFlow, type HearthProcess } from './hearth-process.ts';
import { httpCall, type HttpCall, type HttpOutcome } from './http-clients.ts';
import { Reporter } from './report.ts';
import { FUZZ_CONFIG, HELPER_ENTITIES } from './routes-and-commands.ts';
import { WsClient } from './ws-client.ts';

/** A tap test, as the fuzz suites get it. */
export type Tap = import('tap').Test;

/** An SSE reader of /api/stream that counts the event types it gets. */
class SseReader {
  readonly seen = new Map<string, number>();
  open = true;
  private req?: http.ClientRequest;

  static async start(port: number, token: string): Promise<SseReader> {
    const r = new SseReader();
    await new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port, path: '/api/stream', headers: { Authorization: `Bearer ${token}` }, agent: false });
      r.req = req;
      req.on('response', (res) => {
        if (res.statusCode !== 200) return reject(new Error(`/api/stream answered ${res.statusCode}`));
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buf += chunk;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const m = /^data: (.*)$/ms.exec(block);
            if (!m || m[1] === 'ping') continue;
            try {
              const type = JSON.parse(m[1]).event_type;
              r.seen.set(type, (r.seen.get(type) ?? 0) + 1);
            } catch {
              r.seen.set('(not JSON)', (r.seen.get('(not JSON)') ?? 0) + 1);
            }
          }
        });
        res.on('close', () => (r.open = false));
        res.on('error', () => (r.open = false));
        resolve();
      });
      req.on('error', (err) => {
        r.open = false;
        reject(err);
      });
      req.end();
    });
    return r;
  }

  stop(): void {
    this.req?.destroy();
  }
}

/** Bus event types the match-all listeners never get. */
const NOT_FOR_ALL = new Set(['state_reported', 'homeassistant_close', 'core_close']);

/** What the oracle checks after a case besides the answer. */
export interface CaseChecks {
  /** entities a refused request must leave as they were */
  watch?: string[];
  /** GET paths a refused request must leave as they were */
  watchPaths?: string[];
  /** the event type the request fires when it succeeds */
  fires?: string;
}

/**
 * One Hearth child process with onboarding done, a probe WebSocket subscribed to every event,
 * an SSE reader, and the oracle run after each case.
 */
export class FuzzTarget {
  dead?: string;
  exit?: string;
  keepAlive = new http.Agent({ keepAlive: true, maxSockets: 2 });
  probe!: WsClient;
  sse!: SseReader;
  readonly probeEvents = new Map<string, number>();
  /** slowest liveness answer seen, in ms */
  slowestLiveness = 0;

  private constructor(
    public proc: HearthProcess,
    readonly dataDir: string,
    public port: number,
    readonly token: string,
    readonly ctx: FuzzContext,
    readonly report: Reporter,
  ) {
    this.watchExit();
  }

  private watchExit(): void {
    this.exit = undefined;
    this.proc.child.on('exit', (code, signal) => (this.exit = signal ? `killed by ${signal}` : `exit code ${code}`));
  }

  /** Starts Hearth (with the fuzz helpers configured), onboards, and opens the listeners. */
  static async start(t: Tap, file: string, opts: { config?: string; seed?: number } = {}): Promise<FuzzTarget> {
    const seed = opts.seed ?? fuzzSeed();
    const dataDir = await dataDirWith(opts.config ?? FUZZ_CONFIG);
    const proc = await spawnHearth(dataDir);
    t.teardown(() => proc.child.kill('SIGKILL'));
    const port = Number(new URL(proc.base).port);
    const tokens = await onboard(proc.base);
    // a second login whose refresh token the fuzz may spend or revoke
    const spare = await loginTokens(proc.base);
    const flow = await startFlow(proc.base);
    const ctx: FuzzContext = { entityIds: [...HELPER_ENTITIES], refreshToken: spare.refresh_token, clientId: CLIENT_ID, flowId: flow };
    const target = new FuzzTarget(proc, dataDir, port, tokens.access_token, ctx, new Reporter(t, seed, file));
    for (let i = 0; i < 30; i += 3) {
      const res = await target.http({ method: 'POST', path: `/api/states/sensor.fuzz_${i}`, body: JSON.stringify({ state: String(i), attributes: { i } }) });
      if (!('status' in res) || res.status >= 300) throw new Error(`seeding sensor.fuzz_${i} failed: ${JSON.stringify(res)}`);
      ctx.entityIds.push(`sensor.fuzz_${i}`);
    }
    await target.openListeners();
    return target;
  }

  get seed(): number {
    return this.report.seed;
  }

  private async openListeners(): Promise<void> {
    this.probe = await WsClient.authed(this.port, this.token);
    this.probe.onMessage((m) => {
      if (m?.type === 'event' && m.id === 1 && typeof m.event?.event_type === 'string') {
        this.probeEvents.set(m.event.event_type, (this.probeEvents.get(m.event.event_type) ?? 0) + 1);
      }
    });
    const sub = this.probe.nextId();
    this.probe.sendJson({ id: sub, type: 'subscribe_events' });
    const ok = await this.probe.take((m) => m.id === sub && m.type === 'result', 5000);
    if (!ok?.success) throw new Error(`probe subscription failed: ${JSON.stringify(ok)}`);
    this.sse = await SseReader.start(this.port, this.token);
  }

  /** An authenticated request (admin) unless headers say otherwise. */
  http(call: HttpCall & { auth?: boolean }): Promise<HttpOutcome> {
    const headers: Record<string, string> = { ...(call.auth === false ? {} : { Authorization: `Bearer ${this.token}` }) };
    if (call.body !== undefined) headers['Content-Type'] = 'application/json';
    // a fuzz request gets a connection of its own, so whatever it leaves behind cannot reach the next
    return httpCall(this.port, { agent: false, ...call, headers: { ...headers, ...call.headers } });
  }

  /** Server output from `mark` on, the lines worth showing in a failure. */
  logSince(mark: number): string | undefined {
    const text = this.proc.output().slice(mark).trim();
    if (!text) return undefined;
    const lines = text.split('\n');
    const shown = lines.slice(0, 12).map((l) => (l.length > 400 ? `${l.slice(0, 400)}…` : l));
    return shown.join('\n') + (lines.length > 12 ? `\n… ${lines.length - 12} more lines` : '');
  }

  logMark(): number {
    return this.proc.output().length;
  }

  /**
   * Undefined when Hearth still serves: the process lives, GET /api/ answers 200, the probe's
   * ping gets its pong, and the SSE reader is still connected. Otherwise what is wrong.
   */
  async alive(timeoutMs = 5000): Promise<string | undefined> {
    if (this.exit) return `the server process ended (${this.exit})`;
    const started = performance.now();
    const res = await this.http({ method: 'GET', path: '/api/', timeoutMs, agent: this.keepAlive });
    if (this.exit) return `the server process ended (${this.exit})`;
    if ('error' in res) return `GET /api/ got no answer (${res.error})`;
    if (res.status !== 200) return `GET /api/ answered ${res.status}`;
    if (!this.probe.isOpen) {
      const code = this.probe.closeCode;
      await this.reopenProbe();
      return `the server closed the probe WebSocket (code ${code})`;
    }
    const pong = await this.probe.ping(timeoutMs);
    if (this.exit) return `the server process ended (${this.exit})`;
    if (pong?.type !== 'pong') {
      if (!this.probe.isOpen) {
        const code = this.probe.closeCode;
        await this.reopenProbe();
        return `the server closed the probe WebSocket (code ${code})`;
      }
      return `WebSocket ping got no pong within ${timeoutMs} ms (${JSON.stringify(pong)})`;
    }
    this.slowestLiveness = Math.max(this.slowestLiveness, performance.now() - started);
    if (!this.sse.open) {
      this.sse = await SseReader.start(this.port, this.token).catch(() => this.sse);
      return 'the server ended the /api/stream listener';
    }
    return undefined;
  }

  private async reopenProbe(): Promise<void> {
    this.probe.close();
    await this.openListeners().catch(() => {});
  }

  /** After a failed liveness check: recovered after a stall, or dead (then the file stops). */
  async afterSick(problem: string): Promise<string> {
    if (this.exit) {
      this.dead = problem;
      return problem;
    }
    const started = Date.now();
    while (Date.now() - started < 20_000) {
      await new Promise((r) => setTimeout(r, 500));
      if (this.exit) break;
      const again = await this.alive(2000);
      if (!again) return `${problem}; it recovered after ${((Date.now() - started) / 1000).toFixed(1)} s`;
    }
    this.dead = this.exit ? `${problem} (the process then ended: ${this.exit})` : `${problem}; still not serving after 20 s`;
    this.proc.child.kill('SIGKILL');
    return this.dead;
  }

  /** The wire text of each watched entity (or its 404) and each watched path. */
  async snapshot(checks: CaseChecks): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    for (const id of checks.watch ?? []) {
      const r = await this.http({ method: 'GET', path: `/api/states/${encodeURIComponent(id)}`, agent: this.keepAlive });
      out.set(id, 'status' in r ? `${r.status} ${r.body.toString()}` : `(${r.error})`);
    }
    for (const p of checks.watchPaths ?? []) {
      const r = await this.http({ method: 'GET', path: p, agent: this.keepAlive });
      out.set(p, 'status' in r ? `${r.status} ${r.body.toString()}` : `(${r.error})`);
    }
    return out;
  }

  resetEvents(): void {
    this.probeEvents.clear();
    this.sse.seen.clear();
  }

  /**
   * What a case left wrong: a refused request changed a watched entity, or fired its event;
   * an accepted one did not reach the listeners.
   */
  async consequences(refused: boolean, checks: CaseChecks, before: Map<string, string>): Promise<string[]> {
    const problems: string[] = [];
    if (refused && before.size) {
      const after = await this.snapshot(checks);
      for (const [k, v] of before) {
        if (after.get(k) !== v) problems.push(`${k} changed although the request was refused (before ${v.slice(0, 120)}, after ${after.get(k)?.slice(0, 120)})`);
      }
    }
    const type = checks.fires;
    // the original's limit on event types (MAX_LENGTH_EVENT_EVENT_TYPE)
    if (type !== undefined && !refused && (type === '' || type.length > 64)) problems.push(`accepted an event type of ${type.length} characters`);
    if (type !== undefined) {
      const probe = this.probeEvents.get(type) ?? 0;
      if (refused && probe > 0) problems.push(`event ${JSON.stringify(type.slice(0, 80))} was fired although the request was refused`);
      if (!refused && !NOT_FOR_ALL.has(type)) {
        if (probe === 0) problems.push(`event ${JSON.stringify(type.slice(0, 80))} was accepted but never reached a WebSocket subscriber`);
        // the stream's socket is not ordered with the probe's: give it a moment
        for (let i = 0; i < 20 && !this.sse.seen.get(type) && this.sse.open; i++) await new Promise((r) => setTimeout(r, 50));
        if (!this.sse.seen.get(type)) problems.push(`event ${JSON.stringify(type.slice(0, 80))} was accepted but never reached /api/stream`);
      }
    }
    return problems;
  }

  /**
   * Runs one case: `act` sends it and returns the problems of the answer and whether it was
   * refused; then liveness and consequences. Returns false once the server is gone.
   */
  async runCase(caseId: string, route: string, input: string, checks: CaseChecks, act: () => Promise<{ problems: string[]; refused: boolean }>): Promise<boolean> {
    if (this.dead) return false;
    const before = await this.snapshot(checks);
    this.resetEvents();
    const mark = this.logMark();
    let outcome: { problems: string[]; refused: boolean };
    try {
      outcome = await act();
    } catch (err) {
      // a client error because the server went away is reported by the liveness check
      outcome = { problems: this.exit ? [] : [`the test client failed: ${(err as Error).message}`], refused: true };
    }
    let problems = [...outcome.problems];
    const sick = await this.alive();
    // the client's own error is noise once the process is known to have died under it
    if (this.exit) problems = problems.filter((p) => !p.startsWith('the test client failed'));
    if (sick) problems.push(await this.afterSick(sick));
    else problems.push(...(await this.consequences(outcome.refused, checks, before)));
    if (problems.length) this.report.fail({ caseId, route, input, problems, serverLog: this.logSince(mark) });
    return !this.dead;
  }

  /** REST GET /api/states and WS get_states must hold the same states. */
  async compareStates(t: Tap): Promise<void> {
    if (this.dead) {
      t.fail(`[seed ${this.seed}] states not compared: the server is gone (${this.dead})`, { at: null });
      return;
    }
    const rest = await this.http({ method: 'GET', path: '/api/states', timeoutMs: 30_000 });
    if (!('status' in rest) || rest.status !== 200) {
      t.fail(`[seed ${this.seed}] GET /api/states failed at the end: ${'status' in rest ? `${rest.status} ${rest.body.toString().slice(0, 200)}` : rest.error}`, { at: null });
      return;
    }
    const ws = await WsClient.authed(this.port, this.token);
    const id = ws.nextId();
    ws.sendJson({ id, type: 'get_states' });
    const res = await ws.take((m) => m.id === id && m.type === 'result', 30_000);
    ws.close();
    if (!res?.success) {
      t.fail(`[seed ${this.seed}] WS get_states failed at the end: ${JSON.stringify(res)?.slice(0, 300)}`, { at: null });
      return;
    }
    const byId = (list: any[]) => new Map(list.map((s) => [s.entity_id, JSON.stringify(s)]));
    const a = byId(JSON.parse(rest.body.toString()));
    const b = byId(res.result);
    const differ: string[] = [];
    for (const [k, v] of a) if (b.get(k) !== v) differ.push(`${k.slice(0, 80)}: REST ${v.slice(0, 150)} / WS ${b.get(k)?.slice(0, 150)}`);
    for (const k of b.keys()) if (!a.has(k)) differ.push(`${k.slice(0, 80)}: only in WS get_states`);
    if (differ.length) t.fail(`[seed ${this.seed}] REST GET /api/states and WS get_states disagree on ${differ.length} entities`, { at: null, differences: differ.slice(0, 10) });
    else t.pass(`REST GET /api/states and WS get_states agree on all ${a.size} entities`);
  }

  /**
   * Stops Hearth cleanly, starts it again on the same data, and compares the states: what was
   * answered as written must be exactly what the log restores.
   */
  async restartAndCompare(t: Tap): Promise<void> {
    if (this.dead) return;
    const states = async () => {
      const r = await this.http({ method: 'GET', path: '/api/states', timeoutMs: 30_000 });
      if (!('status' in r) || r.status !== 200) throw new Error(`GET /api/states: ${'status' in r ? r.status : r.error}`);
      return new Map((JSON.parse(r.body.toString()) as any[]).map((s) => [s.entity_id as string, JSON.stringify(s)]));
    };
    const before = await states();
    this.probe.close();
    this.sse.stop();
    this.keepAlive.destroy();
    this.keepAlive = new http.Agent({ keepAlive: true, maxSockets: 2 });
    const mark = this.logMark();
    this.proc.child.kill('SIGTERM');
    let timer: ReturnType<typeof setTimeout> | undefined;
    const code = await Promise.race([this.proc.exited, new Promise((r) => (timer = setTimeout(() => r('timeout'), 20_000)))]);
    clearTimeout(timer);
    if (code !== 0) {
      this.proc.child.kill('SIGKILL');
      t.fail(`[seed ${this.seed}] after the fuzz cases Hearth did not stop cleanly on SIGTERM (${code === 'timeout' ? 'still running after 20 s' : `exit code ${code}`})`, {
        at: null,
        serverLog: this.logSince(mark),
      });
    }
    try {
      this.proc = await spawnHearth(this.dataDir);
    } catch (err) {
      this.dead = `it did not start again on its own data: ${(err as Error).message.slice(0, 2000)}`;
      t.fail(`[seed ${this.seed}] after the fuzz cases Hearth ${this.dead}`, { at: null });
      return;
    }
    this.watchExit();
    this.port = Number(new URL(this.proc.base).port);
    const after = await states();
    // configured helpers take their options from configuration.yaml again at start, as in the original
    for (const id of HELPER_ENTITIES) {
      before.delete(id);
      after.delete(id);
    }
    const differ: string[] = [];
    for (const [k, v] of before) if (after.get(k) !== v) differ.push(`${k.slice(0, 80)}: before ${v.slice(0, 200)} / after ${after.get(k)?.slice(0, 200) ?? '(gone)'}`);
    for (const k of after.keys()) if (!before.has(k)) differ.push(`${k.slice(0, 80)}: only after the restart`);
    if (differ.length) t.fail(`[seed ${this.seed}] ${differ.length} states differ after a restart on the same data`, { at: null, differences: differ.slice(0, 10) });
    else t.pass(`all ${before.size} states are restored exactly after a restart`);
  }

  async stop(): Promise<void> {
    this.probe?.close();
    this.sse?.stop();
    this.keepAlive.destroy();
    this.proc.child.kill('SIGKILL');
    await this.proc.exited.catch(() => {});
  }
}

/** A case written out by hand (a reproduction, a known attack), as runFixedCases runs it. */
export interface FixedCase {
  name: string;
  input: string;
  checks?: CaseChecks;
  /** the problems it finds; the case counts as refused */
  run(target: FuzzTarget): Promise<string[]>;
}

/**
 * Runs fixed cases one after another through the oracle, each passing or reported on its own:
 * a case that killed the server gets the next one a fresh server (`started` sees each).
 * HEARTH_FUZZ_CASE=<name> runs one.
 */
export async function runFixedCases(t: Tap, file: string, route: string, cases: FixedCase[], started?: (target: FuzzTarget) => void): Promise<void> {
  let target: FuzzTarget | undefined;
  t.teardown(() => target?.stop());
  for (const c of cases) {
    if (process.env.HEARTH_FUZZ_CASE && process.env.HEARTH_FUZZ_CASE !== c.name) continue;
    if (!target || target.dead) {
      await target?.stop();
      target = await FuzzTarget.start(t, file, { seed: 0 });
      started?.(target);
    }
    const failuresBefore = target.report.failures;
    const current = target;
    await current.runCase(c.name, route, c.input, c.checks ?? {}, () => c.run(current).then((problems) => ({ problems, refused: true })));
    if (current.report.failures === failuresBefore) t.pass(c.name);
  }
}
