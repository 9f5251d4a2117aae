// The supervisor's ingress proxy over real sockets: a real supervisor, app web servers started
// here (test/helpers/ingress-apps.ts), requests made with the `ingress_session` cookie as a
// browser sends it. Asserts what the app sees and what the client gets.
import t from 'tap';
import { request } from 'node:http';
import WebSocket from 'ws';
import { startTestSupervisor, type TestSupervisor } from '../../../helpers/supervisor.ts';
import { fakeApps, startUpstream, BIG_SIZE, bigByte, type FakeApp } from '../../../helpers/ingress-apps.ts';
import { freePort } from '../../../helpers/ports.ts';

const USER = { id: 'u1', username: 'ada', name: 'Ada Lovelace' };
const TOKEN = 'AbCd_ingress-Token1';
const STREAM_TOKEN = 'stream_app_token';
const DOWN_TOKEN = 'stopped_app_token';
const GONE_TOKEN = 'unreachable_app_token';

async function setup(t: { teardown(fn: () => unknown): void }) {
  const upstream = await startUpstream(t);
  const s = await startTestSupervisor(t, { lookupIngressUser: async (id) => (id === USER.id ? USER : undefined) });
  const apps: FakeApp[] = [
    { slug: 'local_web', ingressToken: TOKEN, target: { host: '127.0.0.1', port: upstream.port } },
    { slug: 'local_stream', ingressToken: STREAM_TOKEN, target: { host: '127.0.0.1', port: upstream.port }, stream: true },
    { slug: 'local_down', ingressToken: DOWN_TOKEN, target: null },
    { slug: 'local_gone', ingressToken: GONE_TOKEN, target: { host: '127.0.0.1', port: await freePort() } },
  ];
  s.supervisor.deps.apps = fakeApps(apps);
  const core = (await s.supervisor.tokens.rotateCore(s.supervisor.deps.context())).token;
  const session = (await s.json('POST', '/ingress/session', { token: core, body: { user_id: USER.id } })).body.data.session as string;
  const anonymous = (await s.json('POST', '/ingress/session', { token: core })).body.data.session as string;
  return { upstream, s, session, anonymous, core };
}

/** A request with the session cookie (and no supervisor token unless given). */
function ingress(s: TestSupervisor, path: string, session: string | null, init: Omit<RequestInit, 'headers'> & { headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(session ? { Cookie: `theme=dark; ingress_session=${session}` } : {}), ...init.headers };
  return fetch(s.base + path, { ...init, headers, redirect: 'manual' });
}

t.test('refusals: no or wrong session 401, unknown token 503, app not running or unreachable 502, all text', async (t) => {
  const { s, session } = await setup(t);
  const expect = async (res: Response, status: number, what: string) => {
    t.equal(res.status, status, what);
    t.equal(await res.text(), `${status}: ${{ 401: 'Unauthorized', 503: 'Service Unavailable', 502: 'Bad Gateway' }[status]}`, `${what}: the text page`);
    t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  };
  await expect(await ingress(s, `/ingress/${TOKEN}/`, null), 401, 'no cookie');
  await expect(await ingress(s, `/ingress/${TOKEN}/`, 'a'.repeat(128)), 401, 'an unknown session');
  // a supervisor token is no session
  await expect(await ingress(s, `/ingress/${TOKEN}/`, null, { headers: { Authorization: `Bearer ${s.supervisor.adminToken}` } }), 401, 'a bearer token instead of the cookie');
  await expect(await ingress(s, `/ingress/${TOKEN}/x`, null, { method: 'POST', body: 'data' }), 401, 'a POST without a session');
  await expect(await ingress(s, '/ingress/no_such_token/', session), 503, 'unknown ingress token');
  await expect(await ingress(s, `/ingress/${DOWN_TOKEN}/`, session), 502, 'installed, not running');
  await expect(await ingress(s, `/ingress/${GONE_TOKEN}/`, session), 502, 'nothing listens on its port');
  // the API's own ingress routes are not the proxy's
  t.equal((await s.call('GET', '/ingress/session')).status, 405, 'GET /ingress/session is the API route, wrong method');
  t.equal((await ingress(s, `/ingress/${TOKEN}`, session)).status, 404, 'no path after the token: not the proxy');
  t.equal((await ingress(s, `/v2/ingress/${TOKEN}/`, session)).status, 404, '/v2 only when the v2 tree is served');
  t.equal((await ingress(s, `/ingress/${TOKEN}/a?file=../../etc/passwd`, session)).status, 400, 'the exploit filter applies');
});

t.test('the session cookie among others: a comma in another cookie\'s value, two Cookie headers', async (t) => {
  const { s, session, anonymous } = await setup(t);
  // a value may hold commas: one that looks like a cookie pair is still part of `note`
  const res = await ingress(s, `/ingress/${TOKEN}/echo`, null, { headers: { Cookie: `note=a,ingress_session=${anonymous}; ingress_session=${session}; theme=dark` } });
  t.equal(res.status, 200);
  t.equal((await res.json()).headers['x-remote-user-id'], USER.id, 'the ingress_session cookie read, not the text inside note');

  // a client may send its cookies in two headers: both are read, and the app gets them as one
  const split = await new Promise<{ status: number; seen: { headers: Record<string, string> } }>((ok, fail) => {
    const url = new URL(`${s.base}/ingress/${TOKEN}/echo`);
    const headers = ['Host', url.host, 'Cookie', 'theme=dark, light', 'Cookie', `ingress_session=${session}`];
    request(url, { headers }, (res) => {
      let body = '';
      res.on('data', (c) => (body += c));
      res.on('end', () => ok({ status: res.statusCode!, seen: JSON.parse(body) }));
    })
      .on('error', fail)
      .end();
  });
  t.equal(split.status, 200);
  t.equal(split.seen.headers['x-remote-user-id'], USER.id, 'the session in the second Cookie header');
  t.equal(split.seen.headers.cookie, `theme=dark, light; ingress_session=${session}`, 'one Cookie header upstream, the pairs joined with a semicolon');
});

t.test('HTTP: path and query, headers the app sees, bodies both ways, session extended', async (t) => {
  const { s, upstream, session, anonymous } = await setup(t);
  const before = s.supervisor.deps.ingress!.size;
  const startEnd = (await s.supervisor.deps.ingress!.validate(session, s.supervisor.deps.context()))!.expires;
  const res = await ingress(s, `/ingress/${TOKEN}/echo/some%20where/deep?b=2&a=%C3%A9&a=1`, session, {
    headers: {
      'X-Supervisor-Token': s.supervisor.adminToken,
      'X-Hassio-Key': s.supervisor.adminToken,
      'X-Remote-User-Id': 'spoofed',
      'X-Remote-User-Name': 'spoofed',
      'X-Remote-User-Display-Name': 'spoofed',
      'X-Custom': 'kept',
      'Accept-Language': 'de',
    },
  });
  t.equal(res.status, 200);
  const seen = await res.json();
  t.equal(seen.method, 'GET');
  t.equal(seen.url, '/echo/some%20where/deep?b=2&a=%C3%A9&a=1', 'path after the token and query string as sent');
  t.equal(seen.headers['x-remote-user-id'], USER.id, 'the session user');
  t.equal(seen.headers['x-remote-user-name'], USER.username);
  t.equal(seen.headers['x-remote-user-display-name'], USER.name);
  t.notOk('x-supervisor-token' in seen.headers, 'no supervisor token');
  t.notOk('x-hassio-key' in seen.headers, 'no legacy token');
  t.equal(seen.headers['x-custom'], 'kept');
  t.equal(seen.headers['accept-language'], 'de');
  t.match(seen.headers.cookie, /ingress_session=/, 'cookies go on, as the original passes them');
  t.equal(seen.headers['x-forwarded-for'], 'None, 127.0.0.1', 'no incoming X-Forwarded-For: the original writes None');

  const forwarded = await (await ingress(s, `/ingress/${TOKEN}/echo`, anonymous, { headers: { 'X-Forwarded-For': '10.1.2.3', 'X-Remote-User-Id': 'spoofed' } })).json();
  t.equal(forwarded.headers['x-forwarded-for'], '10.1.2.3, 127.0.0.1', 'the peer appended');
  t.notOk('x-remote-user-id' in forwarded.headers, 'a session without a user: no user headers, and the spoofed one is gone');

  const posted = await ingress(s, `/ingress/${TOKEN}/echo/post`, session, { method: 'POST', body: 'x=1&y=two', headers: { 'Content-Type': 'application/x-www-form-urlencoded' } });
  const p = await posted.json();
  t.same([p.method, p.body, p.headers['content-length'], p.headers['transfer-encoding']], ['POST', 'x=1&y=two', '9', undefined], 'a buffered body, with its length');
  t.equal(p.headers['content-type'], 'application/x-www-form-urlencoded');

  const put = await (await ingress(s, `/ingress/${TOKEN}/echo`, session, { method: 'PUT', body: JSON.stringify({ a: 1 }) })).json();
  t.same([put.method, put.body], ['PUT', '{"a":1}'], 'any method');
  const del = await (await ingress(s, `/ingress/${TOKEN}/echo`, session, { method: 'DELETE' })).json();
  t.equal(del.method, 'DELETE');
  t.equal(del.headers['transfer-encoding'], undefined, 'no body: none sent on');
  const emptyPost = await (await ingress(s, `/ingress/${STREAM_TOKEN}/echo`, session, { method: 'POST' })).json();
  t.same([emptyPost.body, emptyPost.headers['transfer-encoding']], ['', undefined], 'an empty POST stays empty, even to a streaming app');

  const tooBig = await ingress(s, `/ingress/${TOKEN}/echo`, session, { method: 'POST', body: Buffer.alloc(16 * 1024 * 1024 + 1, 'a') });
  t.equal(tooBig.status, 413, 'a buffered body past 16 MiB');

  // a streaming app gets the body as it comes, chunked
  const big = Buffer.alloc(3 * 1024 * 1024, 'z');
  const streamed = await new Promise<{ status: number; body: any }>((ok, fail) => {
    const req = request(`${s.base}/ingress/${STREAM_TOKEN}/echo/upload`, { method: 'POST', headers: { Cookie: `ingress_session=${session}` } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode!, body: JSON.parse(Buffer.concat(chunks).toString()) }));
    });
    req.on('error', fail);
    req.write(big.subarray(0, 1024 * 1024));
    setTimeout(() => req.end(big.subarray(1024 * 1024)), 50);
  });
  t.equal(streamed.status, 200);
  t.equal(streamed.body.headers['transfer-encoding'], 'chunked', 'streamed to an ingress_stream app');
  t.equal(streamed.body.body.length, big.length, 'every byte arrives');

  // every proxied request validated the session: its end moved each time
  const end = (await s.supervisor.deps.ingress!.validate(session, s.supervisor.deps.context()))!.expires;
  t.equal(end - startEnd, 8 * 15 * 60_000, 'each of the seven requests with the session extended it 15 minutes (and the check itself)');
  t.equal(s.supervisor.deps.ingress!.size, before);
  t.equal(upstream.seen.filter((x) => x.url.startsWith('/echo')).length, 7);
});

t.test('HTTP answers: status, content type, cookies, no body, large bodies streamed', async (t) => {
  const { s, session } = await setup(t);
  const teapot = await ingress(s, `/ingress/${TOKEN}/status/418`, session);
  t.equal(teapot.status, 418, 'the app status');
  t.equal(teapot.headers.get('x-app'), 'yes', 'the app headers');
  t.equal(await teapot.text(), 'status 418');
  const redirect = await ingress(s, `/ingress/${TOKEN}/status/302`, session);
  t.equal(redirect.status, 302, 'redirects are not followed');

  const typed = await ingress(s, `/ingress/${TOKEN}/typed`, session);
  t.equal(typed.headers.get('content-type'), 'text/html', 'the media type without its parameters');
  t.equal(await typed.text(), '<p>typed</p>');
  t.equal(typed.headers.get('content-length'), '12', 'a small answer is buffered');
  const untyped = await ingress(s, `/ingress/${TOKEN}/untyped`, session);
  t.equal(untyped.headers.get('content-type'), 'application/octet-stream', 'none sent: octet-stream');
  t.equal(await untyped.text(), 'raw');

  const cookies = await ingress(s, `/ingress/${TOKEN}/cookies`, session);
  t.same(cookies.headers.getSetCookie(), ['a=1; Path=/', 'b=2; Path=/'], 'each Set-Cookie line');

  const empty = await ingress(s, `/ingress/${TOKEN}/status/204`, session);
  t.equal(empty.status, 204);
  t.equal(await empty.text(), '');
  const head = await ingress(s, `/ingress/${TOKEN}/typed`, session, { method: 'HEAD' });
  t.equal(head.status, 200);
  t.equal(head.headers.get('content-type'), 'text/html', 'HEAD keeps the type');
  t.equal(await head.text(), '');

  const big = await ingress(s, `/ingress/${TOKEN}/big`, session);
  t.equal(big.status, 200);
  t.equal(big.headers.get('x-accel-buffering'), 'no', 'streamed');
  t.equal(big.headers.get('content-length'), null);
  const body = Buffer.from(await big.arrayBuffer());
  t.equal(body.length, BIG_SIZE, 'every byte');
  let wrong = -1;
  for (let i = 0; i < body.length; i++) if (body[i] !== bigByte(i)) {
    wrong = i;
    break;
  }
  t.equal(wrong, -1, 'in order');
});

/** Opens a WebSocket through the proxy; resolves when open, with what it got. */
function openSocket(url: string, options: { session?: string; protocols?: string[]; headers?: Record<string, string> }) {
  const ws = new WebSocket(url, options.protocols ?? [], { headers: { ...(options.session ? { Cookie: `ingress_session=${options.session}` } : {}), ...options.headers } });
  const messages: { data: Buffer; binary: boolean }[] = [];
  ws.on('message', (data, binary) => messages.push({ data: data as Buffer, binary }));
  const opened = new Promise<void>((ok, fail) => {
    ws.once('open', () => ok());
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c) => (text += c));
      res.on('end', () => fail(Object.assign(new Error(`refused ${res.statusCode}`), { status: res.statusCode, text })));
    });
    ws.once('error', fail);
  });
  const closed = new Promise<number>((ok) => ws.once('close', (code) => ok(code)));
  const next = async (count: number) => {
    for (let i = 0; i < 200 && messages.length < count; i++) await new Promise((r) => setTimeout(r, 10));
    return messages[count - 1];
  };
  return { ws, opened, closed, messages, next };
}

t.test('WebSocket: relayed both ways with the user headers, subprotocol echoed, close relayed', async (t) => {
  const { s, upstream, session } = await setup(t);
  const wsBase = s.base.replace(/^http/, 'ws');
  const refused = openSocket(`${wsBase}/ingress/${TOKEN}/socket`, {});
  const why = await refused.opened.then(() => undefined, (e) => e);
  t.equal(why?.status, 401, 'no session: 401 before any upgrade');
  t.equal(why?.text, '401: Unauthorized');
  const wrong = await openSocket(`${wsBase}/ingress/nobody/socket`, { session }).opened.then(() => undefined, (e) => e);
  t.equal(wrong?.status, 503, 'unknown token: 503');

  const c = openSocket(`${wsBase}/ingress/${TOKEN}/socket?x=1`, { session, protocols: ['chat', 'echo'], headers: { 'X-Remote-User-Name': 'spoofed' } });
  await c.opened;
  t.equal(c.ws.protocol, 'echo', 'the subprotocol the app chose');
  const seen = upstream.wsSeen.at(-1)!;
  t.equal(seen['x-remote-user-id'], USER.id);
  t.equal(seen['x-remote-user-name'], USER.username, 'the spoofed header replaced');
  t.equal(seen['sec-websocket-protocol'], 'chat,echo', 'offered subprotocols passed on, joined as the original (aiohttp) joins them');
  t.equal(seen['x-forwarded-for'], 'None, 127.0.0.1');
  c.ws.send('hello');
  t.same([(await c.next(1)).data.toString(), c.messages[0].binary], ['hello', false], 'text echoed');
  c.ws.send(Buffer.from([0, 1, 2, 255]), { binary: true });
  const bin = await c.next(2);
  t.same([[...bin.data], bin.binary], [[0, 1, 2, 255], true], 'binary echoed');
  const large = 'x'.repeat(1024 * 1024);
  c.ws.send(large);
  t.equal((await c.next(3)).data.toString().length, large.length, 'a 1 MiB message');
  // the app closes: the client is closed with its code
  c.ws.send('close:4001');
  t.equal(await c.closed, 4001, 'the app closing closes the client with its code');

  // the client closes: the app's socket is closed with the client's code
  const d = openSocket(`${wsBase}/ingress/${TOKEN}/socket`, { session, protocols: ['echo'] });
  await d.opened;
  d.ws.close(4002, 'bye');
  await d.closed;
  for (let i = 0; i < 100 && !upstream.wsClosed.includes(4002); i++) await new Promise((r) => setTimeout(r, 20));
  t.ok(upstream.wsClosed.includes(4002), 'the client closing closes the app side');

  const e = openSocket(`${wsBase}/ingress/${TOKEN}/socket`, { session });
  await e.opened;
  t.equal(e.ws.protocol, '', 'no subprotocol offered, none chosen');
  e.ws.send('drop');
  t.equal(await e.closed, 1006, 'the app dropping its connection drops the client');

  const refusedByApp = await openSocket(`${wsBase}/ingress/${TOKEN}/refuse`, { session }).opened.then(() => undefined, (err) => err);
  t.equal(refusedByApp?.status, 502, 'the app refusing the handshake: 502');
});
