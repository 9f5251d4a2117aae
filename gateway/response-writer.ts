import { writeHead, type HeaderLine } from './response-head.ts';
import { plainError, statusLine, type HttpAnswer, type HttpReply } from './replies.ts';
import { sendFile } from './response-file.ts';
import { openStream } from './response-stream.ts';
import { GzipCache } from './response-gzip.ts';
import type { OutputBudget } from './output-budget.ts';
import type { RefusalLog } from './refusal-log.ts';
import type { Exchange } from './request.ts';

/** No extra headers (shared, never written to). */
export const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

const DEFAULT_HEADERS: [string, string][] = [
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'SAMEORIGIN'],
];

/** What the writer tells and shares: its log, the slow clients' budget, the refusals' log. */
export interface ResponseWriterOptions {
  log: (line: string) => void;
  /** what may wait for slow clients, shared with the WebSocket API */
  budget: OutputBudget;
  /** smallest body worth compressing */
  gzipMin: number;
  /** where answers that refuse (401, 403, 404, 405) are told, with who asked for what */
  refusals?: RefusalLog;
}

/**
 * Writes the router's answers: complete ones (gzipped when the client accepts it, at the pace the
 * socket takes them), files and event streams, each with the original's default headers and
 * the route's CORS. One answer per request: once answered or gone, nothing more is written.
 */
export class ResponseWriter {
  private readonly gzip = new GzipCache();

  constructor(private readonly options: ResponseWriterOptions) {}

  /** Answers what a handler returned. */
  respond(x: Exchange, reply: HttpAnswer, cors: Record<string, string>): void {
    if (x.aborted) return;
    if ('file' in reply) {
      if (x.method === 'HEAD') return this.send(x, { status: reply.status, headers: reply.headers }, cors);
      return sendFile(x.res, x, reply, () => this.head(x, reply.status, reply.headers, cors));
    }
    if ('open' in reply) {
      // HEAD learns the stream's headers without opening it
      if (x.method === 'HEAD') return this.send(x, { status: reply.status, headers: reply.headers }, cors);
      return openStream(x.res, x, reply, () => this.head(x, reply.status, reply.headers, cors), this.options.budget);
    }
    const body = reply.body;
    const accepts = (x.headers['accept-encoding'] ?? '').includes('gzip');
    if (accepts && body !== undefined && body.length >= this.options.gzipMin) {
      const zipped = (z: Buffer) => this.send(x, { ...reply, body: z, headers: { ...reply.headers, 'Content-Encoding': 'gzip' } }, cors);
      const cached = this.gzip.cached(x.path, body);
      if (cached) return zipped(cached);
      this.gzip.zip(x.path, body).then(zipped, (err) => this.fail(x, err, cors));
      return;
    }
    this.send(x, reply, cors);
  }

  /** A handler that failed: a log line with its stack, and a 500. */
  fail(x: Exchange, err: unknown, cors: Record<string, string>): void {
    this.options.log(`error answering ${x.method} ${x.path}: ${(err as Error)?.stack ?? err}`);
    this.send(x, plainError(500), cors);
  }

  /**
   * Writes one complete answer. What the socket cannot take now is written as it drains
   * (`tryEnd`/`onWritable`); until then uWS reads no further pipelined request of this
   * connection, so a client that never reads holds one answer in memory, not thousands.
   * `close` ends the connection after it (a body left unread).
   */
  send(x: Exchange, reply: HttpReply, cors: Record<string, string> = NO_HEADERS, close = false): void {
    if (x.aborted) return;
    // before the request counts as answered: uWS forgets the client's address then
    this.options.refusals?.http(reply.status, x);
    x.aborted = true; // one answer per request
    // answered before its body's end: the rest is read and thrown away first, then the
    // connection closes (the client can read the answer only once it stops sending)
    if (x.intake && !x.intake.ended) {
      x.bodyStream?.destroy();
      return x.intake.afterBody(() => this.write(x, reply, cors, true));
    }
    this.write(x, reply, cors, close);
  }

  private write(x: Exchange, reply: HttpReply, cors: Record<string, string>, close: boolean) {
    const res = x.res;
    res.cork(() => {
      if (!this.head(x, reply.status, reply.headers, cors)) return;
      if (x.method === 'HEAD') return void res.endWithoutBody();
      const body = reply.body ?? '';
      if (close) return void res.end(body, true);
      const total = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
      const start = res.getWriteOffset();
      const [, done] = res.tryEnd(body, total);
      if (done) return;
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      res.onWritable((offset) => {
        const [ok] = res.tryEnd(bytes.subarray(offset - start), total);
        return ok;
      });
    });
  }

  /**
   * The status line and headers: the original's defaults (a route may replace one, as the login
   * page does X-Frame-Options, never send both), CORS, the answer's own. False when the answer
   * was dropped for a 500 (a header that would split its line).
   */
  private head(x: Exchange, status: number, headers: Record<string, string> | undefined, cors: Record<string, string>): boolean {
    const lines: HeaderLine[] = [];
    for (const [k, v] of DEFAULT_HEADERS) if (headers?.[k] === undefined) lines.push([k, v]);
    for (const k in cors) lines.push([k, cors[k]]);
    if (headers) for (const k in headers) lines.push([k, headers[k]]);
    return writeHead(x.res, statusLine(status), lines, this.options.log);
  }
}
