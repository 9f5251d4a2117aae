import t from 'tap';
import { connect } from 'node:net';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';

/** Sends raw bytes and collects everything the server answers until it closes or goes quiet. */
function raw(port: number, bytes: Buffer | string, quietMs = 500): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    let timer: NodeJS.Timeout;
    const done = () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(Buffer.concat(chunks).toString('utf8'));
    };
    const arm = () => {
      clearTimeout(timer);
      timer = setTimeout(done, quietMs);
    };
    socket.on('data', (c) => {
      chunks.push(c);
      arm();
    });
    socket.on('close', done);
    socket.on('error', (err) => ((err as NodeJS.ErrnoException).code === 'ECONNRESET' ? done() : reject(err)));
    socket.on('connect', () => {
      socket.write(bytes);
      arm();
    });
  });
}

t.test('request limits', async (t) => {
  const { base, hearth } = await startTestHearth(t);
  const tokens = await onboard(base);
  const call = api(base, tokens.access_token);

  t.test('a request line past 8,190 bytes is refused and nothing is stored', async (t) => {
    const res = await call('POST', `/api/states/sensor.${'a'.repeat(20_000)}`, { state: '1' });
    t.equal(res.status, 400);
    t.match(res.text, /Got more than 8190 bytes \(\d+\) when reading Status line is too long/);
    const states = await call('GET', '/api/states');
    t.notOk(states.json.some((s: { entity_id: string }) => s.entity_id.length > 255));
  });

  t.test('an entity id is at most 255 characters, on REST as on the WebSocket', async (t) => {
    const ok = await call('POST', `/api/states/sensor.${'a'.repeat(248)}`, { state: '1' });
    t.equal(ok.status, 201, '255 characters');
    const tooLong = await call('POST', `/api/states/sensor.${'a'.repeat(249)}`, { state: '1' });
    t.equal(tooLong.status, 400, '256 characters');
    t.same(tooLong.json, { message: 'Invalid entity ID specified.' });
  });

  t.test('a header field past 8,190 bytes is refused', async (t) => {
    const res = await call('GET', '/api/', undefined, { 'X-Long': 'x'.repeat(9000) });
    t.equal(res.status, 400);
    t.match(res.text, /Header field is too long/);
  });

  t.test("a stranger's body is never read: 401 before it arrives", async (t) => {
    // the headers promise 10 MiB and only a few bytes follow: the answer cannot wait for the rest
    const answer = await raw(hearth.port, 'POST /api/states/sensor.a HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 10485760\r\n\r\n{"state":');
    t.match(answer, /^HTTP\/1\.1 401 Unauthorized\r\n/);
  });

  t.test('routes open to anyone read at most 1 MiB', async (t) => {
    const body = JSON.stringify({ client_id: 'http://127.0.0.1/', handler: ['core', null], redirect_uri: 'http://127.0.0.1/', pad: 'x'.repeat(1024 * 1024) });
    const res = await fetch(`${base}/auth/login_flow`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body });
    t.equal(res.status, 413);
    t.equal(await res.text(), '413: Request Entity Too Large');
    t.equal((await call('GET', '/api/')).status, 200, 'still serving');
  });

  t.test('HEAD /api/stream answers the headers and opens no stream', async (t) => {
    const answer = await raw(hearth.port, `HEAD /api/stream HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${tokens.access_token}\r\n\r\n`);
    t.match(answer, /^HTTP\/1\.1 200 OK\r\n/);
    t.match(answer, /content-type: text\/event-stream/i);
    t.notMatch(answer, /data: ping/, 'no event was written');
    const events = await call('GET', '/api/events');
    t.notOk(events.json.some((e: { event: string }) => e.event === '*'), 'no listener was left behind');
  });
});
