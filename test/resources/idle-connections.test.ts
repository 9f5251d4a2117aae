// 2,000 connections that never finish a request (and WebSockets that never authenticate) while
// a well-behaved client goes on working: it is answered within 2 s, memory stays bounded.
import t from 'tap';
import net from 'node:net';
import { startServer, watchLatency, watchMemory, sleep, LATENCY_LIMIT_MS } from './probe.ts';

const IDLE = 2000;
const UNAUTHENTICATED_WS = 200;

function connect(port: number, first?: string): Promise<net.Socket | undefined> {
  return new Promise((resolve) => {
    const sock = net.connect({ host: '127.0.0.1', port });
    const timer = setTimeout(() => {
      sock.destroy();
      resolve(undefined);
    }, 5000);
    sock.on('error', () => {});
    sock.on('data', () => {});
    sock.once('connect', () => {
      clearTimeout(timer);
      if (first) sock.write(first);
      resolve(sock);
    });
    sock.once('close', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

t.test('2,000 idle connections do not hold up anyone else', async (t) => {
  const server = await startServer(t);
  const memory = watchMemory(server);
  const sockets: net.Socket[] = [];
  const kinds = [
    undefined, // nothing at all
    'GET /api/sta', // half a request line
    `GET /api/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n`, // headers never finished
    `POST /api/states/sensor.idle HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"state":`, // body never finished
  ];
  // in batches, so the listen backlog is not what is measured
  for (let i = 0; i < IDLE; i += 200) {
    const batch = await Promise.all(Array.from({ length: Math.min(200, IDLE - i) }, (_, j) => connect(server.port, kinds[(i + j) % kinds.length])));
    for (const s of batch) if (s) sockets.push(s);
  }
  const upgrade = `GET /api/websocket HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n`;
  const ws = (await Promise.all(Array.from({ length: UNAUTHENTICATED_WS }, () => connect(server.port, upgrade)))).filter((s): s is net.Socket => !!s);
  t.comment(`${sockets.length} idle connections and ${ws.length} unauthenticated WebSockets open`);
  t.ok(sockets.length >= IDLE * 0.95, `the server accepted the idle connections (${sockets.length} of ${IDLE})`);

  const latency = await watchLatency(server);
  await sleep(5000);
  await latency.stop();
  memory.stop();
  const stillOpen = sockets.filter((s) => !s.destroyed).length;
  t.comment(`${stillOpen} idle connections still open after 5 s`);

  t.notOk(server.exit(), `the server is still running (${server.exit() ?? 'alive'})`);
  t.same(latency.late, [], `another client was answered within ${LATENCY_LIMIT_MS / 1000} s throughout (worst ${latency.worst.toFixed(0)} ms, ${latency.samples} samples)`);
  t.ok(memory.growth < 256, `RSS grew by ${memory.growth.toFixed(0)} MiB (from ${memory.baseline.toFixed(0)} to at most ${memory.peak.toFixed(0)} MiB); bound 256 MiB`);
  for (const s of [...sockets, ...ws]) s.destroy();
  await sleep(200);
  const after = await fetch(`http://127.0.0.1:${server.port}/api/`, { headers: { Authorization: `Bearer ${server.token}` } }).then((r) => r.status, () => 0);
  t.equal(after, 200, 'still serving after they left');
});
