import net from 'node:net';
import { chmod, lstat, unlink } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { messageOf } from './errors.ts';
import type { EventLog, EventRecord } from './types.ts';

/** One request on the log socket: records with gt < seq <= lte (of one stream), then live ones with follow. */
export interface LogRequest {
  gt?: number;
  lte?: number;
  stream?: string;
  follow?: boolean;
}

/** The codes the log socket fails with. */
export type LogSocketErrorCode =
  /** nothing answers at the socket path (Hearth not running, or a stale socket file) */
  | 'HEARTH_LOG_SOCKET_UNAVAILABLE'
  /** serveLog found the path taken by a live server or by something that is not a socket */
  | 'HEARTH_LOG_SOCKET_IN_USE'
  /** the path does not fit in a Unix socket address */
  | 'HEARTH_LOG_SOCKET_PATH'
  /** the connection ended before the server's end line (Hearth stopped) */
  | 'HEARTH_LOG_SOCKET_CLOSED'
  /** the server refused the request or failed reading the log */
  | 'HEARTH_LOG_SOCKET_REMOTE'
  /** a line that is not the protocol's JSON */
  | 'HEARTH_LOG_SOCKET_PROTOCOL';

/** An error of the log socket, carrying a `HEARTH_LOG_SOCKET_*` code. */
export class LogSocketError extends Error {
  readonly code: LogSocketErrorCode;

  constructor(code: LogSocketErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'LogSocketError';
    this.code = code;
  }
}

/** Tuning of serveLog (tests shrink the queue to exercise the catch-up path). */
export interface ServeLogOptions {
  /** live records held for one slow follower before it is switched back to reading the log */
  maxQueued?: number;
}

// sun_path is 108 bytes with its NUL; a longer path is silently truncated by the kernel
// interface, so the server would listen somewhere else than the clients look.
const MAX_SOCKET_PATH = 107;
const MAX_REQUEST = 64 * 1024;
// Lines are sent in chunks of about this size: one write per record would cost a syscall each.
const FLUSH_AT = 64 * 1024;
const MAX_QUEUED = 10_000;

/**
 * Serves `log` on a Unix-domain socket (mode 0600) as newline-delimited JSON: one request line
 * in, matching records out, then `{"end":true}` (or live records forever with `follow`).
 */
export async function serveLog(
  log: EventLog,
  socketPath: string,
  options: ServeLogOptions = {},
): Promise<{ close(): Promise<void> }> {
  assertSocketPath(socketPath);
  const maxQueued = options.maxQueued ?? MAX_QUEUED;
  await removeStaleSocket(socketPath);
  const sessions = new Map<net.Socket, Promise<void>>();
  const server = net.createServer((socket) => {
    const done = serveConnection(log, socket, maxQueued).finally(() => sessions.delete(socket));
    sessions.set(socket, done);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  try {
    // the records hold secrets (token keys, password hashes): only the owner may connect
    await chmod(socketPath, 0o600);
  } catch (err) {
    await new Promise((resolve) => server.close(resolve));
    throw err;
  }
  let closing: Promise<void> | undefined;
  return {
    close() {
      closing ??= (async () => {
        // Node unlinks the socket file once the server is closed
        const closed = new Promise((resolve) => server.close(resolve));
        for (const socket of sessions.keys()) socket.destroy();
        await Promise.allSettled([...sessions.values()]);
        await closed;
      })();
      return closing;
    },
  };
}

/** Reads records from a log served by serveLog; ends at the server's end line, throws a LogSocketError otherwise. */
export async function* readLogRemote(
  socketPath: string,
  request: LogRequest,
  options: { signal?: AbortSignal } = {},
): AsyncGenerator<EventRecord> {
  const { signal } = options;
  if (signal?.aborted) return;
  const socket = await connect(socketPath);
  const abort = () => socket.destroy();
  signal?.addEventListener('abort', abort, { once: true });
  try {
    socket.write(JSON.stringify(request) + '\n');
    const decoder = new StringDecoder('utf8');
    let rest = '';
    // pulling chunk by chunk leaves the socket paused while the consumer is busy, so a slow
    // consumer slows the server down instead of filling this process's memory
    for await (const chunk of socket) {
      const lines = (rest + decoder.write(chunk as Buffer)).split('\n');
      rest = lines.pop()!;
      for (const line of lines) {
        if (line === '') continue;
        const message = parseLine(line, socketPath);
        if (message.end === true) return;
        if (typeof message.error === 'string') {
          throw new LogSocketError('HEARTH_LOG_SOCKET_REMOTE', `the log server at ${socketPath} failed: ${message.error}`);
        }
        yield message as unknown as EventRecord;
      }
    }
    if (signal?.aborted) return;
    throw closedBeforeEnd(socketPath);
  } catch (err) {
    if (signal?.aborted) return;
    if (err instanceof LogSocketError) throw err;
    throw closedBeforeEnd(socketPath, err);
  } finally {
    signal?.removeEventListener('abort', abort);
    socket.destroy();
  }
}

/** Whether a server accepts connections at `socketPath` (false for a missing or stale socket). */
export async function probeLogSocket(socketPath: string): Promise<boolean> {
  try {
    (await connect(socketPath)).destroy();
    return true;
  } catch {
    return false;
  }
}

/** One client: its request, the records it asked for, then live ones until it leaves. */
async function serveConnection(log: EventLog, socket: net.Socket, maxQueued: number): Promise<void> {
  // a client that vanishes mid-write surfaces as an error here; it only ends this session
  socket.on('error', () => {});
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  let request: LogRequest;
  try {
    const line = await readRequestLine(socket, closed);
    if (line === undefined) return;
    request = parseRequest(line);
  } catch (err) {
    socket.end(JSON.stringify({ error: messageOf(err) }) + '\n');
    return;
  }

  const out = new LineWriter(socket, closed);
  const lte = request.lte ?? Infinity;
  const wanted = (r: EventRecord) => r.seq <= lte && (request.stream === undefined || r.stream === request.stream);
  // Live records wait here until the history before them is sent. A follower too slow to keep
  // up loses the queue and reads the missed records back from the log, so memory stays bounded.
  let queue: EventRecord[] = [];
  let overflowed = false;
  let seen = 0;
  let wake: (() => void) | undefined;
  const unsubscribe = request.follow
    ? log.onCommit((records) => {
        if (overflowed) return;
        for (const r of records) if (wanted(r)) queue.push(r);
        seen = records[records.length - 1].seq;
        if (queue.length > maxQueued) {
          queue = [];
          overflowed = true;
        }
        wake?.();
      })
    : () => {};

  // every record up to `cursor` has been sent or skipped
  let cursor = request.gt ?? 0;
  const sendRange = async (last: number) => {
    for await (const record of log.read({ gt: cursor, lte: Math.min(last, lte), stream: request.stream })) {
      if (socket.destroyed) break;
      await out.line(record);
    }
    await out.flush();
    cursor = Math.max(cursor, last);
  };

  try {
    // lastSeq() and the subscription above happen in the same tick: what is committed later
    // reaches the listener, what is committed already is in the log, nothing is in both or neither
    await sendRange(log.lastSeq());
    while (request.follow && cursor < lte && !socket.destroyed) {
      if (overflowed) {
        overflowed = false;
        queue = [];
        await sendRange(log.lastSeq());
        continue;
      }
      if (queue.length > 0) {
        const batch = queue;
        queue = [];
        for (const record of batch) {
          if (record.seq <= cursor) continue;
          await out.line(record);
          cursor = record.seq;
          if (socket.destroyed) break;
        }
        await out.flush();
        continue;
      }
      // the queue is empty, so every wanted record up to the last committed one has been sent
      cursor = Math.max(cursor, seen);
      if (cursor >= lte) break;
      await Promise.race([new Promise<void>((resolve) => (wake = resolve)), closed]);
      wake = undefined;
    }
    if (!socket.destroyed) socket.end(JSON.stringify({ end: true }) + '\n');
  } catch (err) {
    // a closed log (Hearth stopping) or a corrupt record: say so rather than just hanging up
    if (!socket.destroyed) socket.end(JSON.stringify({ error: messageOf(err) }) + '\n');
  } finally {
    unsubscribe();
  }
}

/** Buffers outgoing lines and waits for the socket to drain when its write buffer is full. */
class LineWriter {
  #buffer = '';
  readonly #socket: net.Socket;
  readonly #closed: Promise<void>;

  constructor(socket: net.Socket, closed: Promise<void>) {
    this.#socket = socket;
    this.#closed = closed;
  }

  async line(value: unknown): Promise<void> {
    this.#buffer += JSON.stringify(value) + '\n';
    if (this.#buffer.length >= FLUSH_AT) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.#buffer === '' || this.#socket.destroyed) return;
    const text = this.#buffer;
    this.#buffer = '';
    if (this.#socket.write(text)) return;
    let onDrain: (() => void) | undefined;
    await Promise.race([new Promise<void>((resolve) => this.#socket.once('drain', (onDrain = resolve))), this.#closed]);
    if (onDrain) this.#socket.off('drain', onDrain);
  }
}

/** The first line a client sends, or undefined when it leaves without one. */
function readRequestLine(socket: net.Socket, closed: Promise<void>): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const decoder = new StringDecoder('utf8');
    let text = '';
    let answered = false;
    const onData = (chunk: Buffer) => {
      if (answered) return; // anything after the request is ignored, but read so 'close' is seen
      text += decoder.write(chunk);
      const end = text.indexOf('\n');
      if (end >= 0) {
        answered = true;
        resolve(text.slice(0, end));
      } else if (text.length > MAX_REQUEST) {
        answered = true;
        reject(new Error(`request line longer than ${MAX_REQUEST} bytes`));
      }
    };
    socket.on('data', onData);
    void closed.then(() => {
      if (!answered) resolve(undefined);
    });
  });
}

/** The request a line holds, or an Error naming what is wrong with it. */
function parseRequest(line: string): LogRequest {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch (err) {
    throw new Error(`the request is not JSON: ${messageOf(err)}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error('the request must be a JSON object like {"gt":0,"follow":true}');
  }
  const raw = value as Record<string, unknown>;
  const request: LogRequest = {};
  for (const key of ['gt', 'lte'] as const) {
    const bound = raw[key];
    if (bound === undefined || bound === null) continue;
    if (typeof bound !== 'number' || !Number.isFinite(bound)) throw new Error(`${key} must be a number, got ${JSON.stringify(bound)}`);
    request[key] = bound;
  }
  if (raw.stream !== undefined && raw.stream !== null) {
    if (typeof raw.stream !== 'string') throw new Error(`stream must be a string, got ${JSON.stringify(raw.stream)}`);
    request.stream = raw.stream;
  }
  if (raw.follow !== undefined && raw.follow !== null) {
    if (typeof raw.follow !== 'boolean') throw new Error(`follow must be true or false, got ${JSON.stringify(raw.follow)}`);
    request.follow = raw.follow;
  }
  return request;
}

function parseLine(line: string, socketPath: string): Record<string, unknown> {
  try {
    const value = JSON.parse(line);
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value;
  } catch {
    // reported below with the line itself
  }
  throw new LogSocketError('HEARTH_LOG_SOCKET_PROTOCOL', `unexpected line from ${socketPath}: ${line.slice(0, 200)}`);
}

function connect(socketPath: string): Promise<net.Socket> {
  assertSocketPath(socketPath);
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath);
    const onError = (err: Error) =>
      reject(new LogSocketError('HEARTH_LOG_SOCKET_UNAVAILABLE', `nothing answers at ${socketPath}: ${messageOf(err)}`, { cause: err }));
    socket.once('error', onError);
    socket.once('connect', () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

/** Removes a socket file no server answers on (left by a killed process); refuses anything else. */
async function removeStaleSocket(socketPath: string): Promise<void> {
  let stat;
  try {
    stat = await lstat(socketPath);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  if (!stat.isSocket()) {
    throw new LogSocketError('HEARTH_LOG_SOCKET_IN_USE', `${socketPath} exists and is not a socket; not replacing it`);
  }
  if (await probeLogSocket(socketPath)) {
    throw new LogSocketError('HEARTH_LOG_SOCKET_IN_USE', `another process is already serving at ${socketPath}`);
  }
  await unlink(socketPath).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'ENOENT') throw err;
  });
}

function assertSocketPath(socketPath: string): void {
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH) {
    throw new LogSocketError(
      'HEARTH_LOG_SOCKET_PATH',
      `the socket path ${socketPath} is longer than ${MAX_SOCKET_PATH} bytes, the limit of a Unix socket address`,
    );
  }
}

function closedBeforeEnd(socketPath: string, cause?: unknown): LogSocketError {
  const why = cause === undefined ? '' : ` (${messageOf(cause)})`;
  return new LogSocketError(
    'HEARTH_LOG_SOCKET_CLOSED',
    `the connection to ${socketPath} ended before the last record${why}; Hearth may have stopped`,
    cause === undefined ? undefined : { cause },
  );
}
