// Failed logins and IP bans as the original's http/ban.py and http/forwarded.py have them,
// against a real instance on a real port.
import t from 'tap';
import { CLIENT_ID, onboard, startTestHearth } from '../../helpers/hearth.ts';
import { loadConfiguration } from '../../../actors/core/configuration.ts';
import { dataDirWith } from '../../helpers/hearth.ts';
import type { Hearth } from '../../../bin/instance.ts';

const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {}
  return { status: res.status, text, json, type: res.headers.get('content-type') };
}

/** One login attempt through the login flow; resolves to the step answer. */
async function tryLogin(base: string, password: string, headers: Record<string, string> = {}) {
  const start = await post(base, '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_uri: `${CLIENT_ID}?auth_callback=1` }, headers);
  if (start.status !== 200) return start;
  return post(base, `/auth/login_flow/${start.json.flow_id}`, { client_id: CLIENT_ID, username: OWNER.username, password }, headers);
}

async function records(hearth: Hearth, type: string) {
  const out: any[] = [];
  for await (const r of hearth.log.read({})) if (r.type === type) out.push(r);
  return out;
}

t.test('threshold 3: three wrong passwords ban the address; every route then answers 403', async (t) => {
  const h = await startTestHearth(t, { config: 'http:\n  login_attempts_threshold: 3\n' });
  await onboard(h.base, OWNER);
  for (let i = 0; i < 3; i++) {
    const res = await tryLogin(h.base, 'wrong');
    t.equal(res.status, 200, `attempt ${i + 1} is answered`);
    t.same(res.json.errors, { base: 'invalid_auth' });
  }
  for (const [method, path] of [['GET', '/api/'], ['GET', '/auth/providers'], ['GET', '/no/such/path'], ['POST', '/auth/login_flow']]) {
    const res = await fetch(`${h.base}${path}`, { method, body: method === 'POST' ? '{}' : undefined });
    t.equal(res.status, 403, `${method} ${path}`);
    t.equal(await res.text(), '403: Forbidden');
    t.match(res.headers.get('content-type'), /^text\/plain/);
  }
  await h.hearth.stop();

  // the ban survives a restart on the same data directory
  const again = await startTestHearth(t, { dataDir: h.dataDir });
  const res = await fetch(`${again.base}/api/`);
  t.equal(res.status, 403, 'still banned after a restart');
  t.equal(await res.text(), '403: Forbidden');
  const bans = await records(again.hearth, 'ip_banned');
  t.equal(bans.length, 1, 'one ban record');
  t.equal(bans[0].stream, 'auth/ip_ban');
  t.equal(bans[0].data.ip_address, '127.0.0.1');
  t.equal(bans[0].data.message, 'Too many login attempts from 127.0.0.1');
  const failures = await records(again.hearth, 'login_attempt_failed');
  t.equal(failures.length, 3, 'each failure is a record');
  t.equal(failures[0].data.ip_address, '127.0.0.1');
  t.equal(failures[0].data.title, 'Login attempt failed');
  t.match(failures[0].data.message, /^Login attempt or request with invalid authentication from .+ \(127\.0\.0\.1\)\. See the log for details\.$/);
  t.notOk(JSON.stringify(failures).includes('wrong'), 'no password in the records');
  t.ok(h.lines.some((l) => /^Login attempt or request with invalid authentication from .+ \(127\.0\.0\.1\)\. Requested URL: '\/auth\/login_flow\/[0-9a-f]+'\./.test(l)), 'the warning in the log');
  t.ok(h.lines.includes('Banned IP 127.0.0.1 for too many login attempts'));
});

t.test('a successful login before the threshold resets the count', async (t) => {
  const h = await startTestHearth(t, { config: 'http:\n  login_attempts_threshold: 3\n' });
  await onboard(h.base, OWNER);
  for (let round = 0; round < 3; round++) {
    t.same((await tryLogin(h.base, 'wrong')).json.errors, { base: 'invalid_auth' });
    t.same((await tryLogin(h.base, 'wrong')).json.errors, { base: 'invalid_auth' });
    const ok = await tryLogin(h.base, OWNER.password);
    t.equal(ok.json.type, 'create_entry', `round ${round + 1}: logged in`);
  }
  t.equal((await fetch(`${h.base}/api/`)).status, 401, 'six failures, never three in a row: not banned');
});

t.test('401 answers count too', async (t) => {
  const h = await startTestHearth(t, { config: 'http:\n  login_attempts_threshold: 2\n' });
  t.equal((await fetch(`${h.base}/api/`, { headers: { Authorization: 'Bearer nope' } })).status, 401);
  t.equal((await fetch(`${h.base}/api/`)).status, 401);
  t.equal((await fetch(`${h.base}/api/`)).status, 403);
});

t.test('the default threshold (-1) never bans; ip_ban_enabled false neither', async (t) => {
  for (const config of ['', 'http:\n  ip_ban_enabled: false\n  login_attempts_threshold: 1\n']) {
    const h = await startTestHearth(t, { config });
    await onboard(h.base, OWNER);
    // four: a fifth would make the next attempt wait (the throttle, tested below)
    for (let i = 0; i < 4; i++) t.same((await tryLogin(h.base, 'wrong')).json.errors, { base: 'invalid_auth' });
    t.equal((await fetch(`${h.base}/api/`)).status, 401, `not banned with ${JSON.stringify(config)}`);
    t.equal((await tryLogin(h.base, OWNER.password)).json.type, 'create_entry');
    await h.hearth.stop();
  }
});

t.test('X-Forwarded-For: 400 unless configured, honoured from a trusted proxy only', async (t) => {
  const plain = await startTestHearth(t, { config: 'http:\n  login_attempts_threshold: 1\n' });
  let res = await fetch(`${plain.base}/api/`, { headers: { 'X-Forwarded-For': '203.0.113.5' } });
  t.equal(res.status, 400, 'a forwarded request without use_x_forwarded_for');
  t.equal(await res.text(), '400: Bad Request');
  t.ok(plain.lines.some((l) => l.includes('A request from a reverse proxy was received from 127.0.0.1, but your HTTP integration is not set-up for reverse proxies')));

  const untrusted = await startTestHearth(t, { config: 'http:\n  use_x_forwarded_for: true\n  trusted_proxies: 10.0.0.0/8\n' });
  res = await fetch(`${untrusted.base}/api/`, { headers: { 'X-Forwarded-For': '203.0.113.5' } });
  t.equal(res.status, 400, 'from a peer that is no trusted proxy');
  t.equal(await res.text(), '400: Bad Request');
  t.ok(untrusted.lines.includes('Received X-Forwarded-For header from an untrusted proxy 127.0.0.1'));
  t.equal((await fetch(`${untrusted.base}/api/`)).status, 401, 'no header: as it is');

  const proxied = await startTestHearth(t, { config: 'http:\n  use_x_forwarded_for: true\n  trusted_proxies:\n    - 127.0.0.1\n  login_attempts_threshold: 1\n' });
  await onboard(proxied.base, OWNER);
  for (const bad of ['not-an-ip', '203.0.113.5,', '203.0.113.5, bogus']) {
    t.equal((await fetch(`${proxied.base}/api/`, { headers: { 'X-Forwarded-For': bad } })).status, 400, `malformed: ${bad}`);
  }
  t.equal((await fetch(`${proxied.base}/api/`, { headers: { 'X-Forwarded-For': '203.0.113.5', 'X-Forwarded-Proto': 'https,' } })).status, 400, 'empty proto element');
  t.equal((await fetch(`${proxied.base}/api/`, { headers: { 'X-Forwarded-For': '203.0.113.5', 'X-Forwarded-Proto': 'https, http' } })).status, 400, 'proto count');
  t.equal((await fetch(`${proxied.base}/api/`, { headers: { 'X-Forwarded-For': '203.0.113.5', 'X-Forwarded-Host': '' } })).status, 400, 'empty host');

  const fwd = { 'X-Forwarded-For': '198.51.100.7, 203.0.113.5, 127.0.0.1' };
  t.same((await tryLogin(proxied.base, 'wrong', fwd)).json.errors, { base: 'invalid_auth' });
  res = await fetch(`${proxied.base}/api/`, { headers: { 'X-Forwarded-For': '203.0.113.5' } });
  t.equal(res.status, 403, 'the forwarded client (right-most untrusted) is banned');
  t.equal(await res.text(), '403: Forbidden');
  t.equal((await fetch(`${proxied.base}/api/`, { headers: { 'X-Forwarded-For': '198.51.100.7' } })).status, 401, 'another client is not');
  t.equal((await fetch(`${proxied.base}/api/`)).status, 401, 'the proxy itself is not');
  // the records follow the answer (after a reverse lookup of the address)
  let failed: any[] = [];
  for (let i = 0; i < 50 && failed.length === 0; i++) {
    failed = (await records(proxied.hearth, 'login_attempt_failed')).filter((r) => r.data.path.startsWith('/auth/login_flow/'));
    if (failed.length === 0) await new Promise((ok) => setTimeout(ok, 20));
  }
  t.equal(failed[0]?.data.ip_address, '203.0.113.5', 'the failure is recorded under the forwarded address');
});

t.test('bad values are refused with the key named', async (t) => {
  const cases: [string, RegExp][] = [
    ['http:\n  login_attempts_threshold: -2\n', /http: login_attempts_threshold: expected a positive integer, or -1 to never ban \(got -2\)/],
    ['http:\n  login_attempts_threshold: many\n', /http: login_attempts_threshold: .*\(got "many"\)/],
    ['http:\n  ip_ban_enabled: perhaps\n', /http: ip_ban_enabled: invalid boolean value/],
    ['http:\n  use_x_forwarded_for: true\n', /http: trusted_proxies: some but not all values in the same group of inclusion 'proxy'/],
    ['http:\n  trusted_proxies: 127.0.0.1\n', /http: use_x_forwarded_for: some but not all values/],
    ['http:\n  use_x_forwarded_for: true\n  trusted_proxies: [192.168.1.1/24]\n', /http: trusted_proxies: invalid IP network: "192\.168\.1\.1\/24"/],
    ['http:\n  use_x_forwarded_for: true\n  trusted_proxies: [not.an.ip]\n', /http: trusted_proxies: invalid IP network/],
    ['http:\n  use_x_forwarded_for: yes please\n  trusted_proxies: [127.0.0.1]\n', /http: use_x_forwarded_for: invalid boolean value/],
  ];
  for (const [yaml, message] of cases) await t.rejects(startTestHearth(t, { config: yaml }), message, yaml);

  const ok = await loadConfiguration(await dataDirWith('http:\n  use_x_forwarded_for: "on"\n  trusted_proxies: [192.168.0.0/16, "::1", 10.0.0.0/255.0.0.0]\n  login_attempts_threshold: "5"\n'));
  t.same(
    { ...ok.http, cors_allowed_origins: undefined, server_port: undefined },
    { cors_allowed_origins: undefined, server_port: undefined, ip_ban_enabled: true, login_attempts_threshold: 5, use_x_forwarded_for: true, trusted_proxies: ['192.168.0.0/16', '::1/128', '10.0.0.0/8'] },
  );
  const defaults = await loadConfiguration(await dataDirWith());
  t.equal(defaults.http.ip_ban_enabled, true);
  t.equal(defaults.http.login_attempts_threshold, -1);
  t.equal(defaults.http.use_x_forwarded_for, false);
  t.same(defaults.http.trusted_proxies, []);
});

/** Opens a WebSocket and sends an auth message with `token`; resolves to the first answer after auth_required, or the HTTP status of a refused upgrade. */
async function wsAuth(base: string, token: string, headers: Record<string, string> = {}): Promise<{ type?: string; status?: number }> {
  const { default: WebSocket } = await import('ws');
  return new Promise((settle, fail) => {
    const ws = new WebSocket(`${base.replace('http', 'ws')}/api/websocket`, { headers });
    ws.on('unexpected-response', (_req, res) => settle({ status: res.statusCode }));
    ws.on('error', fail);
    ws.on('message', (raw) => {
      const msg = JSON.parse(raw.toString());
      if (msg.type === 'auth_required') return ws.send(JSON.stringify({ type: 'auth', access_token: token }));
      ws.close();
      settle(msg);
    });
  });
}

t.test('WebSocket: a refused auth message counts as a failed login; a banned address cannot upgrade', async (t) => {
  const h = await startTestHearth(t, { config: 'http:\n  use_x_forwarded_for: true\n  trusted_proxies: 127.0.0.1/32\n  login_attempts_threshold: 2\n' });
  const owner = await onboard(h.base, OWNER);
  const from = { 'X-Forwarded-For': '203.0.113.9' };
  t.match(await wsAuth(h.base, 'not-a-token', from), { type: 'auth_invalid' });
  t.match(await wsAuth(h.base, owner.access_token, from), { type: 'auth_ok' }, 'a good token resets the count');
  t.match(await wsAuth(h.base, 'not-a-token', from), { type: 'auth_invalid' });
  t.match(await wsAuth(h.base, 'still-not-a-token', from), { type: 'auth_invalid' });
  t.same(await wsAuth(h.base, owner.access_token, from), { status: 403 }, 'the second failure in a row banned the address: the upgrade is refused');
  t.equal((await fetch(`${h.base}/api/`, { headers: { Authorization: `Bearer ${owner.access_token}`, ...from } })).status, 403, 'and so is HTTP');
  t.match(await wsAuth(h.base, owner.access_token), { type: 'auth_ok' }, 'the proxy itself is not banned');
  t.same(await wsAuth(h.base, owner.access_token, { 'X-Forwarded-For': 'bogus' }), { status: 400 }, 'a malformed forwarded address is refused as on HTTP');
  let banned: any[] = [];
  for (let i = 0; i < 50 && banned.length === 0; i++) {
    banned = await records(h.hearth, 'ip_banned');
    if (banned.length === 0) await new Promise((ok) => setTimeout(ok, 20));
  }
  t.equal(banned[0]?.data.ip_address, '203.0.113.9');
});

t.test('a brute-force loop is throttled (429, Retry-After doubling) and then banned; the ban survives a restart', async (t) => {
  const h = await startTestHearth(t, { config: 'http:\n  login_attempts_threshold: 8\n' });
  await onboard(h.base, OWNER);
  for (let i = 0; i < 5; i++) t.same((await tryLogin(h.base, 'wrong')).json.errors, { base: 'invalid_auth' }, `free attempt ${i + 1}`);

  let res = await post(h.base, '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_uri: `${CLIENT_ID}?auth_callback=1` });
  t.equal(res.status, 429, 'the sixth attempt in a row must wait');
  const first = await fetch(`${h.base}/auth/login_flow`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: CLIENT_ID, handler: ['core', null], redirect_uri: `${CLIENT_ID}?auth_callback=1` }),
  });
  t.equal(first.headers.get('retry-after'), '1');
  t.same(await first.json(), { message: 'Too many failed login attempts; try again in 1 s' });
  // waiting out the Retry-After lets one more attempt through; failing it doubles the wait
  await new Promise((ok) => setTimeout(ok, 1100));
  t.same((await tryLogin(h.base, 'wrong')).json.errors, { base: 'invalid_auth' }, 'after the wait: tried, and wrong');
  res = await post(h.base, '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_uri: `${CLIENT_ID}?auth_callback=1` });
  t.equal(res.status, 403, 'the eighth failure (429s count) banned the address');
  t.equal(res.text, '403: Forbidden');

  await h.hearth.stop();
  const again = await startTestHearth(t, { dataDir: h.dataDir });
  t.equal((await fetch(`${again.base}/auth/providers`)).status, 403, 'still banned after a restart');
});
