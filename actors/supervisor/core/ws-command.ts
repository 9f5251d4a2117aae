import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { randomBytes, createHash } from 'node:crypto';
import type { Socket } from 'node:net';

/**
 * One command over the core's WebSocket API (`/api/websocket`): connect, authenticate with an
 * access token, send the command, wait for its result, close. Written on node:http because the
 * supervisor has no WebSocket client among its dependencies and needs only this much of one.
 */

export class CoreWsError extends Error {}

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

/** Resolves to the `result` of `command`; rejects with CoreWsError on refusal, failure or timeout. */
export function coreWsCommand(baseUrl: string, accessToken: string, command: Record<string, unknown>, timeoutMs = 10_000): Promise<unknown> {
  const url = new URL('/api/websocket', baseUrl);
  const key = randomBytes(16).toString('base64');
  const request = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, reject) => {
    let socket: Socket | undefined;
    const timer = setTimeout(() => done(new CoreWsError(`no answer to ${command.type} from the core in time`)), timeoutMs);
    let settled = false;
    function done(err: Error | null, value?: unknown) {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket?.destroy();
      if (err) reject(err);
      else resolve(value);
    }
    const req = request(url, {
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': key },
    });
    req.on('error', (err) => done(new CoreWsError(`cannot reach the core's WebSocket API: ${err.message}`)));
    req.on('response', (res) => done(new CoreWsError(`the core refused the WebSocket upgrade: ${res.statusCode}`)));
    req.on('upgrade', (res, sock, head) => {
      socket = sock;
      const accept = createHash('sha1').update(key + WS_GUID).digest('base64');
      if (res.headers['sec-websocket-accept'] !== accept) return done(new CoreWsError('the core answered the WebSocket upgrade wrongly'));
      const frames = new FrameReader();
      const onMessage = (text: string) => {
        let parsed: any;
        try {
          parsed = JSON.parse(text);
        } catch {
          return done(new CoreWsError('the core sent a message that is not JSON'));
        }
        // a frame may hold several messages (the original's coalesced messages)
        for (const msg of Array.isArray(parsed) ? parsed : [parsed]) onOne(msg);
      };
      const onOne = (msg: any) => {
        if (msg.type === 'auth_required') sock.write(frame(JSON.stringify({ type: 'auth', access_token: accessToken })));
        else if (msg.type === 'auth_invalid') done(new CoreWsError(`the core refused the supervisor's access token: ${msg.message ?? ''}`));
        else if (msg.type === 'auth_ok') sock.write(frame(JSON.stringify({ id: 1, ...command })));
        else if (msg.type === 'result' && msg.id === 1) {
          if (msg.success) done(null, msg.result);
          else done(new CoreWsError(`the core refused ${command.type}: ${msg.error?.message ?? msg.error?.code ?? 'unknown error'}`));
        }
      };
      const feed = (chunk: Buffer) => {
        try {
          for (const message of frames.push(chunk)) onMessage(message);
        } catch (err) {
          done(err as Error);
        }
      };
      sock.on('data', feed);
      sock.on('error', (err) => done(new CoreWsError(`the core's WebSocket failed: ${err.message}`)));
      sock.on('close', () => done(new CoreWsError('the core closed the WebSocket before answering')));
      if (head.length) feed(head);
    });
    req.end();
  });
}

/** A masked text frame, as a client must send it. */
function frame(text: string): Buffer {
  const payload = Buffer.from(text, 'utf8');
  const mask = randomBytes(4);
  const len = payload.length;
  const header = len < 126 ? Buffer.from([0x81, 0x80 | len]) : len < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (len >= 126 && len < 65536) {
    header[0] = 0x81;
    header[1] = 0x80 | 126;
    header.writeUInt16BE(len, 2);
  } else if (len >= 65536) {
    header[0] = 0x81;
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(len), 2);
  }
  const masked = Buffer.alloc(len);
  for (let i = 0; i < len; i++) masked[i] = payload[i] ^ mask[i % 4];
  return Buffer.concat([header, mask, masked]);
}

/** Server frames (unmasked) to whole text messages; control frames are skipped, fragments joined. */
class FrameReader {
  private buffer = Buffer.alloc(0);
  private fragments: Buffer[] = [];

  push(chunk: Buffer): string[] {
    this.buffer = Buffer.concat([this.buffer, chunk]);
    const out: string[] = [];
    for (;;) {
      if (this.buffer.length < 2) return out;
      const fin = (this.buffer[0] & 0x80) !== 0;
      const opcode = this.buffer[0] & 0x0f;
      let len = this.buffer[1] & 0x7f;
      let offset = 2;
      if (len === 126) {
        if (this.buffer.length < 4) return out;
        len = this.buffer.readUInt16BE(2);
        offset = 4;
      } else if (len === 127) {
        if (this.buffer.length < 10) return out;
        len = Number(this.buffer.readBigUInt64BE(2));
        offset = 10;
      }
      if (this.buffer.length < offset + len) return out;
      const payload = this.buffer.subarray(offset, offset + len);
      this.buffer = this.buffer.subarray(offset + len);
      if (opcode === 0x8) throw new CoreWsError('the core closed the WebSocket before answering');
      if (opcode >= 0x8) continue; // ping and pong
      this.fragments.push(Buffer.from(payload));
      if (fin) {
        out.push(Buffer.concat(this.fragments).toString('utf8'));
        this.fragments = [];
      }
    }
  }
}
