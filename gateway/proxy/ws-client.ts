import { request } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';

/**
 * A WebSocket client (RFC 6455) for the proxies' upstream side: uWS serves WebSockets but does
 * not open them, and the project ships no client library. It speaks what a relay needs: the
 * handshake with subprotocols and extra headers, text and binary messages (fragmented ones
 * joined), ping/pong and the close handshake. No extensions (no permessage-deflate).
 */

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const OP = { continuation: 0x0, text: 0x1, binary: 0x2, close: 0x8, ping: 0x9, pong: 0xa } as const;

export interface WsConnectOptions {
  host: string;
  port: number;
  /** the path with its query string */
  path: string;
  headers?: Record<string, string>;
  /** subprotocols offered, in the client's order */
  protocols?: string[];
  /** larger messages close the connection (1009) */
  maxPayload?: number;
}

/** The upstream answered the handshake with something else than 101. */
export class WsHandshakeError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
  }
}

export interface UpstreamWebSocket {
  on(event: 'message', listener: (data: Buffer, binary: boolean) => void): this;
  on(event: 'ping' | 'pong', listener: (data: Buffer) => void): this;
  on(event: 'close', listener: (code: number, reason: Buffer) => void): this;
}

/** An open connection. Emits `message`, `ping`, `pong` and `close` (once, whichever side ended). */
export class UpstreamWebSocket extends EventEmitter {
  private buffered: Buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];
  private fragmentOp = 0;
  private fragmentSize = 0;
  private closeSent = false;
  private ended = false;

  constructor(
    private readonly socket: Socket,
    /** the subprotocol the upstream chose ('' for none) */
    readonly protocol: string,
    private readonly maxPayload: number,
    head: Buffer,
  ) {
    super();
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.finish(1006, Buffer.alloc(0)));
    socket.on('error', () => socket.destroy());
    // after the caller's continuation of connectWebSocket, so its listeners hear the first message
    if (head.length) setImmediate(() => this.receive(head));
  }

  get closed(): boolean {
    return this.ended;
  }

  send(data: Buffer | string, binary: boolean): boolean {
    return this.frame(binary ? OP.binary : OP.text, typeof data === 'string' ? Buffer.from(data) : data);
  }

  ping(data: Buffer = Buffer.alloc(0)): void {
    this.frame(OP.ping, data);
  }

  pong(data: Buffer = Buffer.alloc(0)): void {
    this.frame(OP.pong, data);
  }

  /** Starts the close handshake; the socket is dropped if the upstream does not answer soon. */
  close(code?: number, reason: Buffer | string = ''): void {
    if (this.closeSent || this.ended) return;
    const why = typeof reason === 'string' ? Buffer.from(reason) : reason;
    let payload = Buffer.alloc(0);
    // 1005 and 1006 say a close carried no code; they are never sent
    if (code !== undefined && code !== 1005 && code !== 1006) {
      payload = Buffer.alloc(2 + why.length);
      payload.writeUInt16BE(code, 0);
      why.copy(payload, 2);
    }
    this.frame(OP.close, payload);
    this.closeSent = true;
    setTimeout(() => this.socket.destroy(), 2000).unref();
  }

  /** Stops reading from the upstream (the other side has too much waiting). */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  terminate(): void {
    this.socket.destroy();
  }

  private frame(op: number, payload: Buffer): boolean {
    if (this.closeSent || this.ended || this.socket.destroyed) return false;
    const len = payload.length;
    const headLen = len < 126 ? 2 : len < 65536 ? 4 : 10;
    const head = Buffer.alloc(headLen + 4);
    head[0] = 0x80 | op;
    if (len < 126) head[1] = 0x80 | len;
    else if (len < 65536) {
      head[1] = 0x80 | 126;
      head.writeUInt16BE(len, 2);
    } else {
      head[1] = 0x80 | 127;
      head.writeBigUInt64BE(BigInt(len), 2);
    }
    // a client masks every frame it sends
    const mask = randomBytes(4);
    mask.copy(head, headLen);
    const masked = Buffer.allocUnsafe(len);
    for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i & 3];
    this.socket.write(head);
    return this.socket.write(masked);
  }

  private receive(chunk: Buffer) {
    this.buffered = this.buffered.length ? Buffer.concat([this.buffered, chunk]) : chunk;
    for (;;) {
      if (this.ended || this.buffered.length < 2) return;
      const b0 = this.buffered[0];
      const b1 = this.buffered[1];
      let len = b1 & 0x7f;
      let at = 2;
      if (len === 126) {
        if (this.buffered.length < 4) return;
        len = this.buffered.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (this.buffered.length < 10) return;
        const big = this.buffered.readBigUInt64BE(2);
        if (big > BigInt(this.maxPayload)) return this.fail(1009);
        len = Number(big);
        at = 10;
      }
      const masked = (b1 & 0x80) !== 0;
      const maskAt = at;
      if (masked) at += 4;
      if (len > this.maxPayload) return this.fail(1009);
      if (this.buffered.length < at + len) return;
      let payload = this.buffered.subarray(at, at + len);
      if (masked) {
        const copy = Buffer.allocUnsafe(len);
        for (let i = 0; i < len; i++) copy[i] = payload[i] ^ this.buffered[maskAt + (i & 3)];
        payload = copy;
      } else payload = Buffer.from(payload);
      this.buffered = this.buffered.subarray(at + len);
      this.handle(b0 & 0x0f, (b0 & 0x80) !== 0, payload);
    }
  }

  private handle(op: number, fin: boolean, payload: Buffer) {
    if (op === OP.ping) {
      this.pong(payload);
      this.emit('ping', payload);
      return;
    }
    if (op === OP.pong) return void this.emit('pong', payload);
    if (op === OP.close) {
      const code = payload.length >= 2 ? payload.readUInt16BE(0) : 1005;
      const reason = payload.length > 2 ? payload.subarray(2) : Buffer.alloc(0);
      if (!this.closeSent) {
        this.frame(OP.close, payload.length >= 2 ? payload.subarray(0, 2) : Buffer.alloc(0));
        this.closeSent = true;
      }
      this.finish(code, reason);
      this.socket.end();
      return;
    }
    if (op === OP.text || op === OP.binary) {
      if (fin) return void this.emit('message', payload, op === OP.binary);
      this.fragmentOp = op;
      this.fragments = [payload];
      this.fragmentSize = payload.length;
      return;
    }
    if (op === OP.continuation && this.fragments.length) {
      this.fragments.push(payload);
      this.fragmentSize += payload.length;
      if (this.fragmentSize > this.maxPayload) return this.fail(1009);
      if (!fin) return;
      const whole = Buffer.concat(this.fragments);
      this.fragments = [];
      this.emit('message', whole, this.fragmentOp === OP.binary);
      return;
    }
    this.fail(1002);
  }

  private fail(code: number) {
    this.close(code);
    this.finish(code, Buffer.alloc(0));
  }

  private finish(code: number, reason: Buffer) {
    if (this.ended) return;
    this.ended = true;
    this.emit('close', code, reason);
  }
}

/** Opens a WebSocket to `host:port` + `path`; rejects with WsHandshakeError when it is refused. */
export function connectWebSocket(options: WsConnectOptions): Promise<UpstreamWebSocket> {
  const key = randomBytes(16).toString('base64');
  const headers: Record<string, string> = {
    ...options.headers,
    Connection: 'Upgrade',
    Upgrade: 'websocket',
    'Sec-WebSocket-Key': key,
    'Sec-WebSocket-Version': '13',
  };
  if (options.protocols?.length) headers['Sec-WebSocket-Protocol'] = options.protocols.join(', ');
  return new Promise((ok, fail) => {
    const req = request({ host: options.host, port: options.port, path: options.path, method: 'GET', headers, agent: false });
    req.on('upgrade', (res, socket, head) => {
      const expected = createHash('sha1').update(key + GUID).digest('base64');
      if (res.headers['sec-websocket-accept'] !== expected) {
        socket.destroy();
        return fail(new WsHandshakeError('the upstream answered the WebSocket handshake with a wrong Sec-WebSocket-Accept'));
      }
      const protocol = String(res.headers['sec-websocket-protocol'] ?? '');
      if (protocol && !options.protocols?.includes(protocol)) {
        socket.destroy();
        return fail(new WsHandshakeError(`the upstream chose a subprotocol it was not offered: ${protocol}`));
      }
      ok(new UpstreamWebSocket(socket, protocol, options.maxPayload ?? 16 * 1024 * 1024, head));
    });
    req.on('response', (res) => {
      res.resume();
      fail(new WsHandshakeError(`the upstream answered the WebSocket handshake with ${res.statusCode}`, res.statusCode));
    });
    req.on('error', (err) => fail(err));
    req.end();
  });
}
