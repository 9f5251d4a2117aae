// A minimal HTTP/1.1 keep-alive client over node:net: one request in flight per connection,
// responses framed by Content-Length. Small and allocation-light so the load generator costs
// less than the servers it drives.
import { connect, type Socket } from 'node:net';

export interface Response {
  status: number;
  /** header block as latin1 text (lower-case search is left to the caller) */
  head: string;
  /** the body when `keepBody` was asked, else an empty buffer */
  body: Buffer;
  bodyLength: number;
}

const CRLFCRLF = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);

export class HttpConnection {
  private socket!: Socket;
  private pending: Buffer = EMPTY;
  private chunks: Buffer[] = [];
  private have = 0;
  private need = -1;
  private headEnd = 0;
  private status = 0;
  private head = '';
  private resolve?: (r: Response) => void;
  private reject?: (e: Error) => void;
  private keepBody = false;
  closed = false;

  constructor(
    private readonly port: number,
    private readonly host = '127.0.0.1',
  ) {}

  open(): Promise<void> {
    return new Promise((ok, fail) => {
      this.socket = connect({ port: this.port, host: this.host, noDelay: true }, () => ok());
      this.socket.once('error', fail);
      this.socket.on('error', (err) => this.fail(err));
      this.socket.on('close', () => {
        this.closed = true;
        this.fail(new Error('connection closed'));
      });
      this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    });
  }

  /** Sends one request (a complete HTTP/1.1 message) and resolves with its response. */
  request(raw: string | Buffer, keepBody = false): Promise<Response> {
    this.keepBody = keepBody;
    return new Promise((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
      this.socket.write(raw);
    });
  }

  close(): void {
    this.socket?.destroy();
  }

  private fail(err: Error): void {
    const reject = this.reject;
    this.resolve = this.reject = undefined;
    reject?.(err);
  }

  private onData(chunk: Buffer): void {
    if (this.need < 0) {
      // still reading the header block
      this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
      const end = this.pending.indexOf(CRLFCRLF);
      if (end < 0) return;
      this.head = this.pending.toString('latin1', 0, end);
      this.status = Number(this.head.slice(9, 12));
      const m = /\r\ncontent-length:\s*(\d+)/i.exec(this.head);
      if (!m) return this.fail(new Error(`response without Content-Length: ${this.head.slice(0, 200)}`));
      this.headEnd = end + 4;
      this.need = Number(m[1]);
      const rest = this.pending.subarray(this.headEnd);
      this.pending = EMPTY;
      this.chunks = [];
      this.have = 0;
      if (rest.length) this.addBody(rest);
      else if (this.need === 0) this.finish(EMPTY);
      return;
    }
    this.addBody(chunk);
  }

  private addBody(chunk: Buffer): void {
    const want = this.need - this.have;
    if (chunk.length > want) {
      // pipelining is never used, so bytes past the body can only be a protocol error
      return this.fail(new Error(`${chunk.length - want} bytes past the response body`));
    }
    if (this.keepBody) this.chunks.push(chunk);
    this.have += chunk.length;
    if (this.have === this.need) this.finish(this.keepBody ? (this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks)) : EMPTY);
  }

  private finish(body: Buffer): void {
    const response: Response = { status: this.status, head: this.head, body, bodyLength: this.need };
    this.need = -1;
    this.chunks = [];
    const resolve = this.resolve;
    this.resolve = this.reject = undefined;
    resolve?.(response);
  }
}

/** A complete HTTP/1.1 request. */
export function httpRequest(method: string, path: string, headers: Record<string, string>, body?: string): string {
  let head = `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n`;
  for (const k in headers) head += `${k}: ${headers[k]}\r\n`;
  if (body !== undefined) head += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
  return `${head}\r\n${body ?? ''}`;
}
