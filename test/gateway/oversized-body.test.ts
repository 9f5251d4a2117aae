// A body past its route's limit is answered 413, and the client reads that answer even while
// it is still sending: the rest of the body is read and thrown away before the connection closes.
import t from 'tap';
import { request } from 'node:http';
import { connect } from 'node:net';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { DRAIN_LIMITS, RequestBody } from '../../gateway/request-body.ts';

const MiB = 1024 * 1024;
const TOO_LARGE = '413: Request Entity Too Large';

interface Answer {
  status?: number;
  connection?: string;
  body: string;
  error?: string;
}

/** POSTs `size` bytes with node's http.request, written as fast as the socket takes them. */
function streamPost(url: string, size: number, { chunked = false, headers = {} as Record<string, string> } = {}): Promise<Answer> {
  return new Promise((resolve) => {
    const req = request(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...(chunked ? {} : { 'Content-Length': String(size) }), ...headers } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode, connection: res.headers.connection, body }));
      res.on('error', (err) => resolve({ status: res.statusCode, body, error: err.message }));
    });
    req.on('error', (err) => resolve({ body: '', error: err.message }));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    let sent = 0;
    const write = () => {
      while (sent < size) {
        sent += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', write);
      }
      req.end();
    };
    write();
  });
}

/** Writes `head`, then chunks of a chunked body until the server closes; how much was sent. */
function endlessChunks(port: number, head: string): Promise<number> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    const chunk = Buffer.concat([Buffer.from('10000\r\n'), Buffer.alloc(0x10000, 0x20), Buffer.from('\r\n')]);
    let sent = 0;
    let open = true;
    const write = () => {
      while (open && socket.write(chunk)) sent += 0x10000;
      if (open) socket.once('drain', write);
    };
    socket.on('connect', () => {
      socket.write(head);
      write();
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      open = false;
      resolve(sent);
    });
  });
}

t.test('oversized bodies', async (t) => {
  const { base, hearth } = await startTestHearth(t);
  const tokens = await onboard(base);
  const call = api(base, tokens.access_token);
  const bearer = { Authorization: `Bearer ${tokens.access_token}` };

  const routes = [
    { what: 'a route open to anyone (1 MiB)', path: '/auth/token', size: 10 * MiB, headers: {} },
    { what: 'a route open to anyone (1 MiB)', path: '/auth/login_flow', size: 10 * MiB, headers: {} },
    { what: 'an authenticated route (16 MiB)', path: '/api/states/sensor.big', size: 17 * MiB, headers: bearer },
  ];

  for (const route of routes) {
    t.test(`${route.path}, ${route.what}: 413 reaches a client still sending`, async (t) => {
      // several times: a reset before the answer depends on timing
      for (let i = 0; i < 3; i++) {
        for (const chunked of [false, true]) {
          const answer = await streamPost(`${base}${route.path}`, route.size, { chunked, headers: route.headers });
          t.same(answer, { status: 413, connection: 'close', body: TOO_LARGE }, `http.request, ${chunked ? 'chunked' : 'Content-Length'}, round ${i + 1}`);
        }
      }
      const res = await fetch(`${base}${route.path}`, { method: 'POST', headers: route.headers, body: Buffer.alloc(route.size, 0x20) });
      t.equal(res.status, 413, 'fetch');
      t.equal(await res.text(), TOO_LARGE);
    });
  }

  t.test('nothing was taken, and the server still serves', async (t) => {
    t.equal((await call('GET', '/api/states/sensor.big')).status, 404);
    t.equal((await call('GET', '/api/')).status, 200);
  });

  t.test('a body announced past what is ever drained is answered at once', async (t) => {
    const started = Date.now();
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(hearth.port, '127.0.0.1');
      let text = '';
      socket.on('connect', () => socket.write(`POST /auth/token HTTP/1.1\r\nHost: x\r\nContent-Length: ${200 * MiB}\r\n\r\n`));
      socket.on('data', (c) => (text += c));
      socket.on('error', () => {});
      socket.on('close', () => resolve(text));
    });
    t.match(answer, /^HTTP\/1\.1 413 Request Entity Too Large\r\n/);
    t.ok(Date.now() - started < DRAIN_LIMITS.ms / 2, 'without waiting for the body');
  });

  t.test('a body that never ends is read no further than the drain limit', async (t) => {
    // the answer goes out before the close, which resets the connection (bytes are left unread)
    const sent = await endlessChunks(hearth.port, 'POST /auth/token HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n');
    t.ok(sent < 1 * MiB + DRAIN_LIMITS.bytes + 16 * MiB, `closed after ${(sent / MiB).toFixed(0)} MiB sent`);
  });
});

t.test('the drain: what an answer given before the body ends waits for', async (t) => {
  /** A uWS response that records what the body reader asks of it; `feed` plays the client. */
  const fakeResponse = () => {
    let onData: (chunk: ArrayBuffer, isLast: boolean) => void = () => {};
    const res = { onData: (h: typeof onData) => void (onData = h), pause() {}, resume() {} };
    return { res: res as never, feed: (bytes: number, isLast = false) => onData(new ArrayBuffer(bytes), isLast) };
  };
  const limits = { bytes: 1000, ms: 200, idleMs: 50 };

  t.test('the rest arrives: answered at its end', async (t) => {
    const { res, feed } = fakeResponse();
    const body = new RequestBody(res, 900, limits);
    feed(100);
    let answered = false;
    body.afterBody(() => (answered = true));
    feed(400);
    t.notOk(answered, 'not before the end');
    feed(400, true);
    t.ok(answered);
  });

  t.test('more than the limit arrives: answered then', async (t) => {
    const { res, feed } = fakeResponse();
    const body = new RequestBody(res, undefined, limits);
    let answered = false;
    body.afterBody(() => (answered = true));
    feed(1000);
    t.notOk(answered);
    feed(1);
    t.ok(answered);
  });

  t.test('more than the limit announced: answered at once', async (t) => {
    const { res } = fakeResponse();
    const body = new RequestBody(res, 1001, limits);
    let answered = false;
    body.afterBody(() => (answered = true));
    t.ok(answered);
  });

  t.test('the client goes quiet: answered once it has been quiet a while', async (t) => {
    const { res, feed } = fakeResponse();
    const body = new RequestBody(res, 900, limits);
    const started = Date.now();
    const answered = new Promise<number>((resolve) => body.afterBody(() => resolve(Date.now() - started)));
    await new Promise((r) => setTimeout(r, 30));
    feed(10);
    const after = await answered;
    t.ok(after >= 30 + limits.idleMs - 5 && after < limits.ms, `after ${after} ms`);
  });

  t.test('the client trickles: answered after the time limit', async (t) => {
    const { res, feed } = fakeResponse();
    const body = new RequestBody(res, 900, limits);
    const started = Date.now();
    let answeredAfter: number | undefined;
    body.afterBody(() => (answeredAfter = Date.now() - started));
    while (answeredAfter === undefined && Date.now() - started < limits.ms * 3) {
      await new Promise((r) => setTimeout(r, limits.idleMs / 3));
      feed(1);
    }
    t.ok(answeredAfter !== undefined && answeredAfter >= limits.ms - 5, `after ${answeredAfter} ms`);
  });

  t.test('the client leaves: never answered', async (t) => {
    const { res } = fakeResponse();
    const body = new RequestBody(res, 900, limits);
    let answered = false;
    body.afterBody(() => (answered = true));
    body.abandon();
    await new Promise((r) => setTimeout(r, limits.ms * 2));
    t.notOk(answered);
  });
});
