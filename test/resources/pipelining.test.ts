// One socket pipelines 10,000 GET /api/states (each answer about half a megabyte) and never
// reads: the server must stop taking requests from it rather than buffer every answer, and keep
// serving everyone else.
import t from 'tap';
import http from 'node:http';
import net from 'node:net';
import { startServer, watchLatency, watchMemory, sleep, LATENCY_LIMIT_MS } from './probe.ts';

const ENTITIES = 1000;
const REQUESTS = 10_000;

t.test('a pipelining client that never reads', async (t) => {
  const server = await startServer(t);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const attributes = JSON.stringify({ friendly_name: 'Pipelined sensor', pad: 'x'.repeat(300) });
  const post = (i: number) =>
    new Promise<number>((resolve, reject) => {
      const body = `{"state":"${i}","attributes":${attributes}}`;
      const req = http.request({
        host: '127.0.0.1', port: server.port, method: 'POST', path: `/api/states/sensor.pipelined_${i}`, agent,
        headers: { Authorization: `Bearer ${server.token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body);
    });
  // 16 writers at a time, so the log's group commit takes them together
  let next = 0;
  await Promise.all(Array.from({ length: 16 }, async () => {
    while (next < ENTITIES) await post(next++);
  }));
  agent.destroy();
  const size = await fetch(`http://127.0.0.1:${server.port}/api/states`, { headers: { Authorization: `Bearer ${server.token}` } }).then((r) => r.text()).then((s) => s.length);
  t.comment(`${ENTITIES} entities; GET /api/states answers ${(size / 1024).toFixed(0)} KiB`);

  const memory = watchMemory(server);
  const latency = await watchLatency(server);
  const request = `GET /api/states HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${server.token}\r\n\r\n`;
  const sock = net.connect({ host: '127.0.0.1', port: server.port });
  sock.on('error', () => {});
  // no 'data' listener: once node's small buffer is full it stops reading the socket
  sock.pause();
  await new Promise<void>((resolve) => sock.once('connect', () => resolve()));
  sock.write(request.repeat(REQUESTS));
  await sleep(8000);
  sock.destroy();
  await sleep(500);
  memory.stop();
  await latency.stop();

  t.notOk(memory.killed, 'the server did not pass 1.5 GiB (it is killed there)');
  t.notOk(server.exit(), `the server is still running (${server.exit() ?? 'alive'})`);
  t.ok(memory.growth < 256, `RSS grew by ${memory.growth.toFixed(0)} MiB (from ${memory.baseline.toFixed(0)} to at most ${memory.peak.toFixed(0)} MiB); bound 256 MiB`);
  t.same(latency.late, [], `another client was answered within ${LATENCY_LIMIT_MS / 1000} s throughout (worst ${latency.worst.toFixed(0)} ms, ${latency.samples} samples)`);
  if (!server.exit()) {
    const after = await fetch(`http://127.0.0.1:${server.port}/api/`, { headers: { Authorization: `Bearer ${server.token}` } }).then((r) => r.status, () => 0);
    t.equal(after, 200, 'still serving after the pipelining client left');
  }
});
