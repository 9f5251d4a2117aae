import { Readable } from 'node:stream';
import type { HttpResponse as UwsResponse } from '@trufflesuite/uws-js-unofficial';
import type { Exchange } from './request.ts';

/** The largest body a route reads unless the router or the route says otherwise (the original's 16 MiB). */
export const MAX_BODY = 16 * 1024 * 1024;

/** Routes open to anyone (login, tokens, onboarding) read at most this much of a body. */
export const OPEN_MAX_BODY = 1024 * 1024;

const EMPTY = Buffer.alloc(0);

/** A request body that cannot be taken, and the status that says why. */
export class BodyError extends Error {
  constructor(
    readonly status: 400 | 413,
    message: string,
  ) {
    super(message);
    this.name = 'BodyError';
  }
}

type Chunks = (chunk: ArrayBuffer, isLast: boolean) => void;

/**
 * The request body as a stream, uWS paused while nobody reads it (an upload of gigabytes goes
 * at the pace of the disk it is written to). Call it in the uWS handler: uWS hands the body only
 * to an `onData` attached there. `gone` says the response is answered or aborted (uWS must not
 * be touched then). Past `maxBody` bytes the stream fails with a 413 BodyError.
 */
export function requestBody(res: UwsResponse, gone: () => boolean, maxBody = Infinity): Readable {
  const { stream, take } = bodyStream(res, gone, maxBody);
  res.onData(take);
  return stream;
}

/** A stream of the chunks `take` is given; `unpause` resumes uWS if the stream paused it. */
function bodyStream(res: UwsResponse, gone: () => boolean, maxBody: number): { stream: Readable; take: Chunks; unpause: () => void } {
  let paused = false;
  let size = 0;
  const stream = new Readable({
    read() {
      if (paused && !gone()) {
        paused = false;
        res.resume();
      }
    },
  });
  const take: Chunks = (chunk, isLast) => {
    if (stream.destroyed) return;
    size += chunk.byteLength;
    if (size > maxBody) return void stream.destroy(new BodyError(413, `the body is larger than ${maxBody} bytes`));
    // uWS reuses the chunk's memory after this callback returns
    if (chunk.byteLength && !stream.push(Buffer.from(chunk.slice(0))) && !isLast && !gone()) {
      paused = true;
      res.pause();
    }
    if (isLast) stream.push(null);
  };
  // uWS's resume of a socket it did not pause stops its reading
  const unpause = () => {
    if (!paused) return;
    paused = false;
    res.resume();
  };
  return { stream, take, unpause };
}

/**
 * How much of a body is read and thrown away, at most, when it is answered before its end (too
 * large, say): a socket closed with bytes unread is reset, and a client still sending then fails
 * on its next write without reading the answer. The original's server reads the rest the same
 * way (aiohttp's lingering close, 10 s). A client that sends nothing for `idleMs` is not sending
 * any more, or is waiting for the answer.
 */
export const DRAIN_LIMITS = { bytes: 64 * 1024 * 1024, ms: 10_000, idleMs: 1000 };

/**
 * A request body as the router takes it: collected whole or streamed, until the request is
 * answered. An answer given before the body's end waits while the rest is read and thrown away
 * (within DRAIN_LIMITS), then goes out and closes the connection, which the client can then read.
 * Make it in the uWS handler (uWS hands the body only to an `onData` attached there).
 */
export class RequestBody {
  private received = 0;
  private last = false;
  /** answered or aborted: uWS must not be touched */
  private over = false;
  private receiver: Chunks | undefined;
  private unpause: (() => void) | undefined;
  private drain: { answer: () => void; left: number; timer: NodeJS.Timeout; idle: NodeJS.Timeout } | undefined;

  constructor(
    private readonly res: UwsResponse,
    /** Content-Length, when the client gave one */
    private readonly declared: number | undefined,
    private readonly limits = DRAIN_LIMITS,
  ) {
    res.onData((chunk, isLast) => this.take(chunk, isLast));
  }

  /** Whether the last byte has arrived. */
  get ended(): boolean {
    return this.last;
  }

  /** The body as it arrives (see requestBody). */
  stream(maxBody: number): Readable {
    const { stream, take, unpause } = bodyStream(this.res, () => this.over || this.drain !== undefined, maxBody);
    this.receiver = take;
    this.unpause = unpause;
    return stream;
  }

  /** The whole body to `done`; past `maxBody` bytes, `tooLarge` instead (and nothing more). */
  collect(maxBody: number, done: (body: Buffer) => void, tooLarge: () => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    this.receiver = (chunk, isLast) => {
      size += chunk.byteLength;
      if (size > maxBody) {
        this.receiver = undefined;
        return tooLarge();
      }
      // uWS reuses the chunk's memory after this callback returns
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) done(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
    };
  }

  /**
   * Calls `answer` (which must close the connection) once no more of the body is coming: now
   * when it has all arrived or more than DRAIN_LIMITS is announced, else when the rest has been
   * read and thrown away, or the limits are reached.
   */
  afterBody(answer: () => void): void {
    if (this.over) return;
    const left = this.declared === undefined ? 0 : this.declared - this.received;
    if (this.last || left > this.limits.bytes) {
      this.over = true;
      return answer();
    }
    this.receiver = undefined;
    // a streamed body may have paused uWS while its reader was slow
    this.unpause?.();
    const drained = () => this.drained();
    this.drain = { answer, left: this.limits.bytes, timer: setTimeout(drained, this.limits.ms), idle: setTimeout(drained, this.limits.idleMs) };
  }

  /** The client left: nothing is answered. */
  abandon(): void {
    this.over = true;
    this.stopDrain();
  }

  private take(chunk: ArrayBuffer, isLast: boolean): void {
    this.received += chunk.byteLength;
    if (isLast) this.last = true;
    if (this.drain) {
      this.drain.idle.refresh();
      this.drain.left -= chunk.byteLength;
      if (isLast || this.drain.left < 0) this.drained();
      return;
    }
    if (!this.over) this.receiver?.(chunk, isLast);
  }

  private drained(): void {
    const drain = this.drain;
    if (!drain || this.over) return;
    this.stopDrain();
    this.over = true;
    drain.answer();
  }

  private stopDrain(): void {
    if (!this.drain) return;
    clearTimeout(this.drain.timer);
    clearTimeout(this.drain.idle);
    this.drain = undefined;
  }
}

/**
 * Takes in a request's body for its handler. Past `maxBody`, announced or sent, `tooLarge` is
 * called (its answer waits for the rest of the body, then closes). Else `ready`: once the body is
 * whole, or at once for a `streamed` route, whose handler reads `bodyStream` as it arrives (and
 * may answer before reading it all, or never read it). Call it in the uWS handler.
 */
export function takeBody(x: Exchange, maxBody: number, streamed: boolean, ready: (body: Buffer) => void, tooLarge: () => void): void {
  const length = x.headers['content-length'];
  const declared = length === undefined ? undefined : Number(length);
  // from here an answer given before the body's end waits for the rest of it
  const body = x.hasBody ? (x.intake = new RequestBody(x.res, Number.isSafeInteger(declared) ? declared : undefined)) : undefined;
  if (declared !== undefined && declared > maxBody) return tooLarge();
  if (!body) return ready(EMPTY);
  if (streamed) {
    const stream = body.stream(maxBody);
    // the handler's to see, if it reads at all
    stream.on('error', () => {});
    x.bodyStream = stream;
    x.cleanup = () => stream.destroy(new BodyError(400, 'the client left before its body was sent'));
    return ready(EMPTY);
  }
  body.collect(maxBody, ready, tooLarge);
}
