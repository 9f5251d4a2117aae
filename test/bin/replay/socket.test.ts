import t, { type Test } from 'tap';
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import { LogSocketError, probeLogSocket, readLogRemote, serveLog, type LogRequest } from '../../../store/log-socket.ts';
import type { EventLog, NewEvent } from '../../../store/types.ts';
import { busEvent, FIXTURE, openFixtureLog } from './fixtures/log.ts';
import { collect } from '../../helpers/log-records.ts';

/** A short directory of its own: a Unix socket path must fit in 107 bytes, t.testdir() may not. */
async function shortDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-replay-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A fixture log served on `<dir>/hearth.sock`, both closed when the test ends. */
async function served(t: Test, options: { maxQueued?: number; log?: (log: EventLog) => EventLog } = {}) {
  const dir = await shortDir(t);
  const log = await openFixtureLog(join(dir, 'data'));
  const socketPath = join(dir, 'hearth.sock');
  const server = await serveLog(options.log ? options.log(log) : log, socketPath, { maxQueued: options.maxQueued });
  t.teardown(async () => {
    await server.close();
    await log.close();
  });
  return { dir, log, socketPath, server };
}

/** What a raw client receives for one request line, to the end of the connection. */
function rawExchange(socketPath: string, line: string): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = net.createConnection(socketPath, () => socket.write(line));
    let text = '';
    socket.setEncoding('utf8').on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(text.split('\n').filter((l) => l !== '')));
  });
}

const seqsOf = (records: { seq: number }[]) => records.map((r) => r.seq);
const range = (from: number, to: number) => Array.from({ length: Math.max(0, to - from + 1) }, (_, i) => from + i);

t.test('ranges, streams and the end line', async (t) => {
  const { log, socketPath } = await served(t);
  const stored = await collect(log.read());
  const cases: { request: LogRequest; expect: number[] }[] = [
    { request: {}, expect: range(1, 13) },
    { request: { gt: 3, lte: 6 }, expect: [4, 5, 6] },
    { request: { gt: 13 }, expect: [] },
    { request: { stream: 'entity/light.kitchen' }, expect: [2, 4, 6, 10] },
    { request: { stream: 'entity/light.kitchen', gt: 4, lte: 9 }, expect: [6] },
    { request: { stream: 'entity/nothing' }, expect: [] },
  ];
  for (const { request, expect } of cases) {
    const records = await collect(readLogRemote(socketPath, request));
    t.same(seqsOf(records), expect, JSON.stringify(request));
    t.same(records, stored.filter((r) => expect.includes(r.seq)), `${JSON.stringify(request)}: the records as read() gives them`);
  }
  const lines = await rawExchange(socketPath, '{"gt":11}\n');
  t.same(lines.map((l) => JSON.parse(l).seq ?? l), [12, 13, '{"end":true}'], 'newline-delimited JSON with a final end line');
});

t.test('bad requests are answered with an error line', async (t) => {
  const { socketPath } = await served(t);
  for (const line of ['not json\n', '[1]\n', '{"gt":"3"}\n', '{"stream":5}\n', '{"follow":"yes"}\n']) {
    const lines = await rawExchange(socketPath, line);
    t.equal(lines.length, 1, `${line.trim()}: one line`);
    t.type(JSON.parse(lines[0]).error, 'string', `${line.trim()}: an error`);
  }
  const error = await collect(readLogRemote(socketPath, { gt: 'x' as unknown as number })).catch((err) => err);
  t.equal(error.code, 'HEARTH_LOG_SOCKET_REMOTE');
  t.match(error.message, /gt must be a number/);
  // a client leaving without a request does not disturb the server
  await new Promise<void>((resolve) => net.createConnection(socketPath, function (this: net.Socket) { this.destroy(); resolve(); }));
  t.same(seqsOf(await collect(readLogRemote(socketPath, { gt: 12 }))), [13]);
});

t.test('the socket is private to its owner', async (t) => {
  const { socketPath } = await served(t);
  t.equal((await stat(socketPath)).mode & 0o777, 0o600);
});

t.test('follow: history then live records, without gaps or duplicates', async (t) => {
  const { log, socketPath } = await served(t);
  const total = 13 + 600;
  // appends race the history read: some commit before the client connects, some while it reads
  const writer = (async () => {
    for (let n = 0; n < 200; n++) {
      await log.append([busEvent(3 * n), busEvent(3 * n + 1), busEvent(3 * n + 2)]);
      if (n % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const seen: number[] = [];
  for await (const record of readLogRemote(socketPath, { follow: true })) {
    seen.push(record.seq);
    if (record.seq === total) break;
  }
  await writer;
  t.same(seen, range(1, total));
});

t.test('follow of one stream up to a seq ends by itself', async (t) => {
  const { log, socketPath } = await served(t);
  const reading = collect(readLogRemote(socketPath, { gt: 5, stream: 'bus', lte: 16, follow: true }));
  await log.append([busEvent(1)]); // 14
  await log.append([{ ...busEvent(2), stream: 'elsewhere' }, busEvent(3)]); // 15, 16
  await log.append([busEvent(4)]); // 17: past lte
  t.same(seqsOf(await reading), [7, 14, 16]);
});

t.test('a follower too slow for the queue catches up from the log', async (t) => {
  const { log, socketPath } = await served(t, { maxQueued: 5 });
  const total = 13 + 1000;
  const writer = (async () => {
    for (let n = 0; n < 100; n++) await log.append(Array.from({ length: 10 }, (_, i) => busEvent(10 * n + i)));
  })();
  const seen: number[] = [];
  for await (const record of readLogRemote(socketPath, { follow: true })) {
    seen.push(record.seq);
    if (record.seq % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    if (record.seq === total) break;
  }
  await writer;
  t.same(seen, range(1, total));
});

t.test('backpressure: a client that does not read stops the server reading the log', async (t) => {
  let yielded = 0;
  const counting = (log: EventLog): EventLog =>
    new Proxy(log, {
      get(target, key) {
        if (key === 'read') {
          return async function* (options: Parameters<EventLog['read']>[0]) {
            for await (const record of target.read(options)) {
              yielded++;
              yield record;
            }
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
  const { log, socketPath } = await served(t, { log: counting });
  const big = 'x'.repeat(1000);
  const events: NewEvent[] = Array.from({ length: 20_000 }, (_, n) => ({ ...busEvent(n), data: { n, big } }));
  for (let i = 0; i < events.length; i += 1000) await log.append(events.slice(i, i + 1000));
  const total = 13 + events.length;

  const socket = net.createConnection(socketPath, () => socket.write('{}\n'));
  socket.pause();
  await new Promise((resolve) => setTimeout(resolve, 500));
  t.ok(yielded < total / 2, `the server stopped reading after ${yielded} of ${total} records (about 20 MB)`);

  let text = '';
  socket.setEncoding('utf8').on('data', (d: string) => (text += d));
  socket.resume();
  await new Promise((resolve) => socket.on('close', resolve));
  const lines = text.trimEnd().split('\n');
  t.equal(lines.length, total + 1, 'every record, then the end line, once the client reads');
  t.same(JSON.parse(lines[lines.length - 1]), { end: true });
  t.equal(yielded, total);
});

t.test('closing the server ends its followers, and removes the socket', async (t) => {
  const dir = await shortDir(t);
  const log = await openFixtureLog(join(dir, 'data'));
  t.teardown(() => log.close());
  const socketPath = join(dir, 'hearth.sock');
  const server = await serveLog(log, socketPath);
  const seen: number[] = [];
  const following = (async () => {
    for await (const record of readLogRemote(socketPath, { follow: true })) seen.push(record.seq);
  })().then(
    () => undefined,
    (err: unknown) => err,
  );
  while (seen.length < 13) await new Promise((resolve) => setTimeout(resolve, 10));
  await server.close();
  const error = (await following) as LogSocketError;
  t.ok(error instanceof LogSocketError);
  t.equal(error.code, 'HEARTH_LOG_SOCKET_CLOSED');
  t.same(seen, range(1, 13));
  t.equal(await probeLogSocket(socketPath), false);
  t.rejects(stat(socketPath), { code: 'ENOENT' }, 'no socket file left behind');
});

t.test('an aborted follow ends quietly', async (t) => {
  const { socketPath } = await served(t);
  const stop = new AbortController();
  const seen: number[] = [];
  for await (const record of readLogRemote(socketPath, { follow: true }, { signal: stop.signal })) {
    seen.push(record.seq);
    if (record.seq === 13) setTimeout(() => stop.abort(), 20);
  }
  t.same(seen, range(1, 13));
});

t.test('a stale socket file is replaced; a live one or another file is not', async (t) => {
  const dir = await shortDir(t);
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  await log.append(FIXTURE.slice(0, 2));
  const socketPath = join(dir, 'hearth.sock');

  // a process killed while listening leaves its socket file behind
  const script = `require('net').createServer().listen(${JSON.stringify(socketPath)}, () => process.kill(process.pid, 'SIGKILL'))`;
  await new Promise((resolve) => spawn(process.execPath, ['-e', script]).on('exit', resolve));
  t.ok((await stat(socketPath)).isSocket(), 'a stale socket file');
  t.equal(await probeLogSocket(socketPath), false);

  const server = await serveLog(log, socketPath);
  t.same(seqsOf(await collect(readLogRemote(socketPath, {}))), [1, 2], 'served over the stale file');
  await t.rejects(serveLog(log, socketPath), { code: 'HEARTH_LOG_SOCKET_IN_USE', message: /already serving/ });
  t.same(seqsOf(await collect(readLogRemote(socketPath, {}))), [1, 2], 'the first server still answers');
  await server.close();

  const notSocket = join(dir, 'notes.txt');
  await writeFile(notSocket, 'keep me');
  await t.rejects(serveLog(log, notSocket), { code: 'HEARTH_LOG_SOCKET_IN_USE', message: /is not a socket/ });
  t.equal((await stat(notSocket)).size, 7);
});

t.test('paths too long for a socket address are refused, not truncated', async (t) => {
  const dir = await shortDir(t);
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  const long = join(dir, 'x'.repeat(120) + '.sock');
  await t.rejects(serveLog(log, long), { code: 'HEARTH_LOG_SOCKET_PATH' });
  await t.rejects(collect(readLogRemote(long, {})), { code: 'HEARTH_LOG_SOCKET_PATH' });
  t.equal(await probeLogSocket(long), false);
});

t.test('nothing to connect to', async (t) => {
  const dir = await shortDir(t);
  await t.rejects(collect(readLogRemote(join(dir, 'hearth.sock'), {})), { code: 'HEARTH_LOG_SOCKET_UNAVAILABLE' });
});
