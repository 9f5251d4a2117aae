// The proxies' WebSocket client against the `ws` package's server over real sockets: the
// handshake (subprotocols, refusals), messages of each length encoding, fragments, ping/pong and
// the close handshake both ways.
import t from 'tap';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { connectWebSocket, WsHandshakeError } from '../../gateway/proxy/ws-client.ts';

async function server(t: { teardown(fn: () => unknown): void }, onConnection: (socket: WebSocket, req: IncomingMessage) => void) {
  const http = createServer((_req, res) => res.writeHead(404).end('no'));
  const wss = new WebSocketServer({ server: http, handleProtocols: (p) => (p.has('two') ? 'two' : false), verifyClient: (info: { req: IncomingMessage }) => !info.req.url!.startsWith('/refuse') });
  wss.on('connection', onConnection);
  await new Promise<void>((ok) => http.listen(0, '127.0.0.1', ok));
  t.teardown(
    () =>
      new Promise<void>((ok) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        http.closeAllConnections();
        http.close(() => ok());
      }),
  );
  return (http.address() as AddressInfo).port;
}

const nextMessage = (c: Awaited<ReturnType<typeof connectWebSocket>>) => new Promise<{ data: Buffer; binary: boolean }>((ok) => c.once('message', (data, binary) => ok({ data, binary })));

t.test('messages both ways, every length encoding, fragments, ping answered', async (t) => {
  let serverSide!: WebSocket;
  const pongs: string[] = [];
  const port = await server(t, (socket) => {
    serverSide = socket;
    socket.on('message', (data, binary) => socket.send(data, { binary }));
    socket.on('pong', (d) => pongs.push(d.toString()));
  });
  const c = await connectWebSocket({ host: '127.0.0.1', port, path: '/x?y=1', protocols: ['one', 'two'], headers: { 'X-Test': '1' } });
  t.equal(c.protocol, 'two', 'the subprotocol the server chose');
  for (const size of [0, 125, 126, 65535, 65536, 300_000]) {
    const payload = Buffer.alloc(size, size % 251);
    const got = nextMessage(c);
    c.send(payload, true);
    const m = await got;
    t.ok(m.binary && m.data.equals(payload), `binary of ${size} bytes`);
  }
  const text = nextMessage(c);
  c.send('héllo', false);
  t.same(await text.then((m) => [m.data.toString(), m.binary]), ['héllo', false]);
  const fragmented = nextMessage(c);
  serverSide.send('frag', { fin: false });
  serverSide.send('ment', { fin: false });
  serverSide.send('ed', { fin: true });
  t.equal((await fragmented).data.toString(), 'fragmented', 'fragments joined');
  serverSide.ping('are you there');
  for (let i = 0; i < 100 && !pongs.length; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(pongs, ['are you there'], 'a ping is answered with its payload');
  const closed = new Promise<[number, string]>((ok) => c.on('close', (code, reason) => ok([code, reason.toString()])));
  serverSide.close(4100, 'server says bye');
  t.same(await closed, [4100, 'server says bye'], 'the server closing: its code and reason');
  t.ok(c.closed);
});

t.test('the client closing: the server gets the code', async (t) => {
  const codes: number[] = [];
  const port = await server(t, (socket) => socket.on('close', (code, reason) => codes.push(code, reason.length)));
  const c = await connectWebSocket({ host: '127.0.0.1', port, path: '/' });
  t.equal(c.protocol, '');
  const closed = new Promise<number>((ok) => c.on('close', (code) => ok(code)));
  c.close(4200, 'bye');
  t.equal(await closed, 4200, 'the close handshake completes with the code');
  for (let i = 0; i < 100 && !codes.length; i++) await new Promise((r) => setTimeout(r, 10));
  t.same(codes, [4200, 3]);
});

t.test('refusals: a status, nothing listening', async (t) => {
  const port = await server(t, () => {});
  const refused = await connectWebSocket({ host: '127.0.0.1', port, path: '/refuse' }).catch((e) => e);
  t.ok(refused instanceof WsHandshakeError);
  t.equal(refused.status, 401);
  const closedPort = await new Promise<number>((ok) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => ok(p));
    });
  });
  const nothing = await connectWebSocket({ host: '127.0.0.1', port: closedPort, path: '/' }).catch((e) => e);
  t.match(nothing.code, 'ECONNREFUSED');
});
