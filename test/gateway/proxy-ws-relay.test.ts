// The proxies' WebSocket relay against an upstream that breaks RFC 6455, as a third-party app's
// container may: a raw TCP server answers the handshake and then sends the frame under test. A
// client of the relay gets the upstream's first frame (sent with the 101), then a clean close with
// the code a broken upstream earns; the relay logs one line and keeps relaying.
import t from 'tap';
import { createHash } from 'node:crypto';
import { createServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import WebSocket, { WebSocketServer } from 'ws';
import uWS from '@trufflesuite/uws-js-unofficial';
import { serveProxy } from '../../gateway/proxy/relay.ts';
import { MAX_MESSAGE } from '../../gateway/proxy/exchange.ts';

/** One frame as the hostile upstream writes it; `length` claims another payload length than sent. */
function frame(first: number, payload: Buffer, options: { mask?: boolean; length?: number } = {}): Buffer {
  const length = options.length ?? payload.length;
  let head: Buffer;
  if (length < 126) head = Buffer.from([first, length]);
  else if (length < 65536) {
    head = Buffer.from([first, 126, 0, 0]);
    head.writeUInt16BE(length, 2);
  } else {
    head = Buffer.from([first, 127, 0, 0, 0, 0, 0, 0, 0, 0]);
    head.writeBigUInt64BE(BigInt(length), 2);
  }
  if (!options.mask) return Buffer.concat([head, payload]);
  head[1] |= 0x80;
  const key = Buffer.from([1, 2, 3, 4]);
  return Buffer.concat([head, key, Buffer.from(payload.map((b, i) => b ^ key[i & 3]))]);
}

const FIN_TEXT = 0x81;
const FIN_BINARY = 0x82;

/** What the upstream sends on each path once the relay's client has spoken. */
const AFTER_FIRST_MESSAGE: Record<string, Buffer> = {
  '/valid': frame(FIN_BINARY, Buffer.from([0, 255])),
  '/masked': frame(FIN_TEXT, Buffer.from('masked'), { mask: true }),
  '/rsv': frame(FIN_TEXT | 0x40, Buffer.from('compressed?')),
  '/long-ping': frame(0x89, Buffer.alloc(126)),
  '/fragmented-ping': frame(0x09, Buffer.from('ping')),
  '/bad-utf8': frame(FIN_TEXT, Buffer.from([0x68, 0xc3, 0x28])),
  '/interrupted': Buffer.concat([frame(0x01, Buffer.from('half')), frame(FIN_TEXT, Buffer.from('new'))]),
  '/reserved-opcode': frame(0x83, Buffer.from('?')),
  '/too-big': frame(FIN_BINARY, Buffer.alloc(0), { length: MAX_MESSAGE + 1 }),
};

async function hostileUpstream(t: { teardown(fn: () => unknown): void }) {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    let request = '';
    const onHandshake = (chunk: Buffer) => {
      request += chunk.toString('latin1');
      if (!request.includes('\r\n\r\n')) return;
      socket.off('data', onHandshake);
      const path = request.split(' ')[1];
      const key = /sec-websocket-key: *(\S+)/i.exec(request)![1];
      const accept = createHash('sha1').update(`${key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`).digest('base64');
      const answer = `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\n\r\n`;
      // the first frame in the same write as the 101: it must reach the client all the same
      if (path === '/broken-at-once') return void socket.write(Buffer.concat([Buffer.from(answer), frame(FIN_TEXT, Buffer.from('hello')), frame(FIN_TEXT | 0x20, Buffer.from('x'))]));
      socket.write(Buffer.concat([Buffer.from(answer), frame(FIN_TEXT, Buffer.from('hello'))]));
      socket.once('data', () => socket.write(AFTER_FIRST_MESSAGE[path]));
    };
    socket.on('data', onHandshake);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    server.close();
  });
  return (server.address() as AddressInfo).port;
}

async function relayTo(t: { teardown(fn: () => unknown): void }, upstreamPort: number) {
  const logs: string[] = [];
  const app = uWS.App();
  serveProxy(app, {
    pattern: '/up/*',
    matches: (url) => url.startsWith('/up/'),
    plan: (incoming) => ({ target: { host: '127.0.0.1', port: upstreamPort, path: incoming.url.slice(3), headers: {}, streamBody: false } }),
    log: (line) => logs.push(line),
    name: 'test',
  });
  const listen = await new Promise<uWS.us_listen_socket>((ok, fail) => app.listen('127.0.0.1', 0, (s) => (s ? ok(s) : fail(new Error('cannot listen')))));
  t.teardown(() => {
    uWS.us_listen_socket_close(listen);
    (app as { close?: () => void }).close?.();
  });
  return { base: `ws://127.0.0.1:${uWS.us_socket_local_port(listen)}/up`, logs };
}

/** A client of the relay: its messages and how its socket closed. */
function client(url: string) {
  const ws = new WebSocket(url);
  const messages: [string, boolean][] = [];
  ws.on('message', (data, binary) => {
    messages.push([binary ? [...(data as Buffer)].join(',') : data.toString(), binary]);
    if (messages.length === 1) ws.send('go');
  });
  // a code other than 1006 says a close frame came: the relay closed the socket cleanly
  const closed = new Promise<number>((ok) => ws.on('close', (code) => ok(code)));
  ws.on('error', () => {});
  return { ws, messages, closed };
}

t.test('a valid upstream: its first frame, sent with the 101, and an unmasked binary frame reach the client', async (t) => {
  const { base, logs } = await relayTo(t, await hostileUpstream(t));
  const c = client(`${base}/valid`);
  for (let i = 0; i < 200 && c.messages.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(c.messages, [['hello', false], ['0,255', true]], 'text then binary, each as sent');
  c.ws.close(4000);
  t.equal(await c.closed, 4000);
  t.same(logs, []);
});

const BROKEN: [path: string, code: number, why: RegExp][] = [
  ['/masked', 1002, /MASK must be clear/],
  ['/rsv', 1002, /RSV1 must be clear/],
  ['/long-ping', 1002, /invalid payload length 126/],
  ['/fragmented-ping', 1002, /FIN must be set/],
  ['/bad-utf8', 1002, /invalid UTF-8 sequence/],
  ['/interrupted', 1002, /invalid opcode 1/],
  ['/reserved-opcode', 1002, /invalid opcode 3/],
  ['/too-big', 1009, /Max payload size exceeded/],
];

for (const [path, code, why] of BROKEN) {
  t.test(`an upstream breaking the protocol (${path.slice(1)}): the client closed cleanly with ${code}, one line logged`, async (t) => {
    const { base, logs } = await relayTo(t, await hostileUpstream(t));
    const c = client(`${base}${path}`);
    t.equal(await c.closed, code);
    t.same(c.messages, [['hello', false]], 'nothing of the broken frame relayed');
    t.equal(logs.length, 1);
    t.match(logs[0], new RegExp(`^test WebSocket upstream 127\\.0\\.0\\.1:\\d+${path} broke the protocol: .*${why.source}`));
  });
}

t.test('broken within the handshake answer: the client is let in, gets the first frame and the close', async (t) => {
  const { base, logs } = await relayTo(t, await hostileUpstream(t));
  const c = client(`${base}/broken-at-once`);
  t.equal(await c.closed, 1002);
  t.same(c.messages, [['hello', false]]);
  t.match(logs, [/broke the protocol: Invalid WebSocket frame: RSV2 and RSV3 must be clear/]);
  // the relay lives on
  const next = client(`${base}/valid`);
  for (let i = 0; i < 200 && next.messages.length < 2; i++) await new Promise((r) => setTimeout(r, 10));
  t.equal(next.messages.length, 2, 'a later socket is relayed');
  next.ws.terminate();
});

t.test('a client behind: the upstream is read no further until it catches up, nothing dropped', async (t) => {
  const MIB = 1024 * 1024;
  const COUNT = 48;
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise((ok) => wss.once('listening', ok));
  t.teardown(() => {
    for (const s of wss.clients) s.terminate();
    wss.close();
  });
  const sender = new Promise<void>((ok) =>
    wss.on('connection', (socket) =>
      socket.once('message', () => {
        for (let i = 0; i < COUNT; i++) socket.send(Buffer.alloc(MIB, i));
        ok();
      }),
    ),
  );
  const { base } = await relayTo(t, (wss.address() as AddressInfo).port);
  const ws = new WebSocket(`${base}/`);
  const got: number[] = [];
  let closedWith: number | undefined;
  ws.on('message', (data: Buffer) => got.push(data.length === MIB && data.every((b) => b === data[0]) ? data[0] : -1));
  ws.on('close', (code) => (closedWith = code));
  await new Promise((ok) => ws.once('open', ok));
  ws.pause();
  ws.send('go');
  await sender;
  // long enough for a relay that kept reading to pass uWS's backpressure limit and close the client (1011)
  await new Promise((r) => setTimeout(r, 500));
  ws.resume();
  for (let i = 0; i < 500 && got.length < COUNT && closedWith === undefined; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(got, Array.from({ length: COUNT }, (_, i) => i), 'every message, whole and in order');
  t.equal(closedWith, undefined, 'not closed for backpressure');
  ws.terminate();
});
