// HTTP as the fuzz speaks it: one request over a fresh node:http connection with what came
// back (or why nothing did), raw bytes over node:net for what node:http will not send, and the
// check every answer passes: never a 5xx, never no answer.
import http from 'node:http';
import net from 'node:net';
import { preview, type Body } from './generators.ts';

/** What came back from one request. */
export interface HttpAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}
/** An answer, or why there was none. */
export type HttpOutcome = HttpAnswer | { error: string; ms: number };

/** One request to make. */
export interface HttpCall {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: Body;
  timeoutMs?: number;
  /** a long-lived answer: resolve after its first chunk and hang up */
  stream?: boolean;
  agent?: http.Agent | false;
}

/** Makes one request on a fresh connection (unless an agent is given); never rejects. */
export function httpCall(port: number, call: HttpCall): Promise<HttpOutcome> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  return new Promise((resolve) => {
    let done = false;
    const finish = (outcome: HttpOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const timeoutMs = call.timeoutMs ?? 15_000;
    let req: http.ClientRequest;
    try {
      req = http.request({
        host: '127.0.0.1',
        port,
        method: call.method,
        path: call.path,
        headers: call.headers,
        agent: call.agent ?? false,
        // a 20,000-character Location header is an answer too, not a client error
        maxHeaderSize: 64 << 20,
        insecureHTTPParser: true,
      });
    } catch (err) {
      return resolve({ error: `the test client refused the request: ${(err as Error).message}`, ms: 0 });
    }
    const timer = setTimeout(() => {
      finish({ error: `no answer within ${timeoutMs} ms`, ms: ms() });
      req.destroy();
    }, timeoutMs);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      const answer = () => ({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks), ms: ms() });
      if (call.stream && res.statusCode === 200) {
        const stop = setTimeout(() => {
          finish(answer());
          req.destroy();
        }, 1000);
        res.once('data', (c: Buffer) => {
          chunks.push(c);
          clearTimeout(stop);
          finish(answer());
          req.destroy();
        });
        res.on('error', () => {});
        return;
      }
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => finish(answer()));
      res.on('error', (err) => finish({ error: `answer cut off: ${err.message}`, ms: ms() }));
    });
    req.on('error', (err) => finish({ error: `${(err as NodeJS.ErrnoException).code ?? ''} ${err.message}`.trim(), ms: ms() }));
    req.end(call.body);
  });
}

// raw bytes over node:net

/** What a raw exchange read back. */
export interface RawOutcome {
  data: Buffer;
  /** the server closed the connection */
  closed: boolean;
  /** status codes of every answer seen */
  statuses: number[];
  error?: string;
}

/**
 * Writes bytes on a fresh connection and collects what comes back until the server closes it,
 * nothing arrives for `idleMs`, or `timeoutMs` passes.
 */
export function rawExchange(port: number, chunks: Array<string | Buffer>, opts: { idleMs?: number; timeoutMs?: number; gapMs?: number } = {}): Promise<RawOutcome> {
  const idleMs = opts.idleMs ?? 400;
  return new Promise((resolve) => {
    const got: Buffer[] = [];
    let closed = false;
    let error: string | undefined;
    const sock = net.connect({ host: '127.0.0.1', port });
    let idle: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(idle);
      clearTimeout(total);
      sock.destroy();
      const data = Buffer.concat(got);
      const statuses = [...data.toString('latin1').matchAll(/HTTP\/1\.[01] (\d{3})/g)].map((m) => Number(m[1]));
      resolve({ data, closed, statuses, error });
    };
    const arm = () => {
      clearTimeout(idle);
      idle = setTimeout(finish, idleMs);
    };
    const total = setTimeout(finish, opts.timeoutMs ?? 10_000);
    sock.on('data', (c) => {
      got.push(c);
      arm();
    });
    sock.on('end', () => {
      closed = true;
      finish();
    });
    sock.on('close', () => {
      closed = true;
      finish();
    });
    sock.on('error', (err) => {
      error = (err as NodeJS.ErrnoException).code ?? err.message;
    });
    sock.on('connect', async () => {
      for (const c of chunks) {
        if (sock.destroyed) break;
        sock.write(c);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      arm();
    });
  });
}

/** The answer's problems: never 5xx, never no answer. */
export function answerProblems(res: HttpOutcome): string[] {
  if ('error' in res) return [`no answer: ${res.error}`];
  if (res.status >= 500) return [`answered ${res.status}: ${preview(res.body, 160)}`];
  return [];
}
