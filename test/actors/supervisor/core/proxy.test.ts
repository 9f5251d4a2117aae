// The core's API for apps through the supervisor (supervisor-wire §4.21), against a real Hearth
// core: REST and the event stream relayed with the supervisor's own token, the WebSocket API
// behind the supervisor's auth phase, and the refusals (no homeassistant_api, the blacklist,
// the supervisor's own command families, a core that is down).
import t from 'tap';
import { supervisorWithCore } from '../../../helpers/backups.ts';
import { withFixtureApps, enableV2 } from '../../../helpers/fixture-apps.ts';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { onboard } from '../../../helpers/hearth.ts';
import { rawClient } from '../../../helpers/ws.ts';

const { sup, core } = await supervisorWithCore(t, { startCore: true });
const { tokens } = await withFixtureApps(sup.supervisor, [
  { slug: 'local_api', homeassistant_api: true },
  { slug: 'local_plain', homeassistant_api: false },
]);
const call = (method: string, path: string, init: { token?: string; headers?: Record<string, string>; body?: string } = {}) =>
  fetch(`${sup.base}${path}`, {
    method,
    headers: { ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}), ...init.headers },
    ...(init.body === undefined ? {} : { body: init.body }),
  });

t.test('REST: relayed to the core\'s /api/ with the supervisor\'s token; the body, the query and the answer as the core gives them', async (t) => {
  const root = await call('GET', '/core/api/', { token: tokens.local_api });
  t.equal(root.status, 200);
  t.same(await root.json(), { message: 'API running.' });
  t.equal(root.headers.get('content-type'), 'application/json');

  const written = await call('POST', '/core/api/states/sensor.through_proxy', {
    token: tokens.local_api,
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ state: '21.5', attributes: { unit_of_measurement: '°C' } }),
  });
  t.equal(written.status, 201, 'created, as the core answers');
  t.match(await written.json(), { entity_id: 'sensor.through_proxy', state: '21.5', attributes: { unit_of_measurement: '°C' } });
  // the write is the core's: read back directly from it with a token of its own users
  const owner = await onboard(core().base);
  const direct = await fetch(`${core().base}/api/states/sensor.through_proxy`, { headers: { Authorization: `Bearer ${owner.access_token}` } });
  t.equal((await direct.json()).state, '21.5', 'the state is in the core');

  const viaHeader = await call('GET', '/core/api/states/sensor.through_proxy', { headers: { 'X-Ha-Access': tokens.local_api } });
  t.equal(viaHeader.status, 200, 'X-Ha-Access carries the token too');
  t.equal((await viaHeader.json()).state, '21.5');
  const legacy = await call('GET', '/homeassistant/api/states/sensor.through_proxy', { token: tokens.local_api });
  t.equal(legacy.status, 200, 'the legacy prefix');
  t.equal((await call('DELETE', '/homeassistant/api/states/sensor.through_proxy', { token: tokens.local_api })).status, 405, 'which has no DELETE');
  const missing = await call('GET', '/core/api/states/sensor.nowhere', { token: tokens.local_api });
  t.equal(missing.status, 404, 'the core\'s own 404 comes back');
  const removed = await call('DELETE', '/core/api/states/sensor.through_proxy', { token: tokens.local_api });
  t.equal(removed.status, 200);
  t.equal((await call('GET', '/core/api/states/sensor.through_proxy', { token: tokens.local_api })).status, 404, 'and the delete reached the core');
  const history = await call('GET', '/core/api/history/period?filter_entity_id=sensor.through_proxy&minimal_response', { token: tokens.local_api });
  t.equal(history.status, 200, 'the query string is passed on');
});

t.test('refusals: no homeassistant_api, unknown or missing token, the blacklist', async (t) => {
  for (const [label, init] of [
    ['an app without homeassistant_api', { token: tokens.local_plain }],
    ['an unknown token', { token: 'f'.repeat(112) }],
    ['no token', {}],
  ] as const) {
    const res = await call('GET', '/core/api/states', init);
    t.equal(res.status, 401, label);
    t.equal(await res.text(), '401: Unauthorized');
  }
  const blacklisted = await call('GET', '/core/api/hassio/app/entrypoint.js', { token: tokens.local_api });
  t.equal(blacklisted.status, 403, 'the core\'s hassio paths are never reached this way');
  t.equal((await call('POST', '/core/api/hassio_auth', { token: tokens.local_api })).status, 403);
  t.equal((await sup.json('GET', '/core/info')).status, 200, 'the supervisor\'s own /core routes are still its own');
});

t.test('the event stream is streamed, unbuffered', async (t) => {
  const controller = new AbortController();
  const res = await fetch(`${sup.base}/core/api/stream`, { headers: { Authorization: `Bearer ${tokens.local_api}` }, signal: controller.signal });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/event-stream/);
  t.equal(res.headers.get('x-accel-buffering'), 'no');
  const reader = res.body!.getReader();
  let seen = '';
  const wanted = (async () => {
    while (!seen.includes('sensor.streamed')) {
      const { value, done } = await reader.read();
      if (done) break;
      seen += Buffer.from(value).toString('utf8');
    }
  })();
  await call('POST', '/core/api/states/sensor.streamed', { token: tokens.local_api, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ state: 'on' }) });
  await Promise.race([wanted, new Promise((_, no) => setTimeout(() => no(new Error('no event in time')), 10_000))]);
  t.match(seen, /"entity_id":"sensor\.streamed"/, 'a state change arrives while the stream is open');
  controller.abort();
});

const proxySocket = (path: string) => rawClient(sup.base, path);

t.test('WebSocket: the supervisor\'s auth phase, then the core\'s API; the supervisor\'s command families refused', async (t) => {
  for (const path of ['/core/websocket', '/core/api/websocket', '/homeassistant/websocket']) {
    const c = await proxySocket(path);
    t.match(await c.next(10_000), { type: 'auth_required', ha_version: /^\d+\.\d+/ }, `${path}: auth_required first`);
    c.send({ type: 'auth', access_token: tokens.local_api });
    t.match(await c.next(10_000), { type: 'auth_ok', ha_version: /^\d+\.\d+/ });
    c.send({ id: 1, type: 'get_states' });
    const states = await c.next(10_000);
    t.match(states, { id: 1, type: 'result', success: true }, 'get_states answered by the core');
    t.ok(states.result.some((s: any) => s.entity_id === 'sensor.streamed'));
    c.ws.close();
    await c.closed;
  }

  const c = await proxySocket('/core/websocket');
  await c.next(10_000);
  c.send({ type: 'auth', api_password: tokens.local_api });
  t.equal((await c.next(10_000)).type, 'auth_ok', 'api_password is accepted as well');
  c.send({ id: 2, type: 'supervisor/api', endpoint: '/backups', method: 'get' });
  t.same(await c.next(10_000), { id: 2, type: 'result', success: false, error: { code: 'unauthorized', message: 'Unauthorized' } });
  c.send({ id: 3, type: 'hassio/update/addon' });
  t.same(await c.next(10_000), { id: 3, type: 'result', success: false, error: { code: 'unauthorized', message: 'Unauthorized' } });
  c.send({ id: 4, type: 'subscribe_events', event_type: 'state_changed' });
  t.match(await c.next(10_000), { id: 4, type: 'result', success: true }, 'the connection is still usable');
  await call('POST', '/core/api/states/sensor.over_ws', { token: tokens.local_api, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ state: 'seen' }) });
  const event = await c.next(10_000);
  t.match(event, { id: 4, type: 'event', event: { event_type: 'state_changed', data: { entity_id: 'sensor.over_ws', new_state: { state: 'seen' } } } }, 'events come through');
  c.ws.close();
  await c.closed;

  for (const [label, auth] of [
    ['an app without homeassistant_api', { type: 'auth', access_token: tokens.local_plain }],
    ['an unknown token', { type: 'auth', access_token: 'nope' }],
  ] as const) {
    const bad = await proxySocket('/core/websocket');
    await bad.next(10_000);
    bad.send(auth);
    t.same(await bad.next(10_000), { type: 'auth_invalid', message: 'Invalid access' }, label);
    await bad.closed;
  }
});

t.test('hostile clients: bad auth messages, a client gone mid-way, an oversized frame, odd methods and bodies; the proxy keeps serving', async (t) => {
  const notJson = await proxySocket('/core/websocket');
  await notJson.next(10_000);
  notJson.send('this is not json');
  t.ok(await notJson.closed, 'a message that is not JSON in the auth phase closes the socket');
  const binary = await proxySocket('/core/websocket');
  await binary.next(10_000);
  binary.ws.send(Buffer.from([1, 2, 3]));
  t.ok(await binary.closed, 'so does a binary one');

  const gone = await proxySocket('/core/websocket');
  await gone.next(10_000);
  gone.send({ type: 'auth', access_token: tokens.local_api });
  gone.ws.terminate();

  const big = await proxySocket('/core/websocket');
  await big.next(10_000);
  big.send({ type: 'auth', access_token: tokens.local_api });
  await big.next(10_000);
  big.ws.send('x'.repeat(5 * 1024 * 1024));
  t.ok(await big.closed, 'a message past 4 MiB closes the socket');

  t.equal((await call('PUT', '/core/api/states/sensor.x', { token: tokens.local_api, body: '{}' })).status, 405);
  t.equal((await call('PATCH', '/core/api/states/sensor.x', { token: tokens.local_api, body: '{}' })).status, 405);
  const huge = await call('POST', '/core/api/states/sensor.huge', { token: tokens.local_api, headers: { 'Content-Type': 'application/json' }, body: 'x'.repeat(17 * 1024 * 1024) }).catch(() => undefined);
  if (huge) t.equal(huge.status, 413, 'a body past 16 MiB is refused');
  const bad = await call('POST', '/core/api/states/sensor.bad', { token: tokens.local_api, headers: { 'Content-Type': 'application/json' }, body: '{"state":' });
  t.equal(bad.status, 400, 'the core\'s own refusal of broken JSON comes back');

  const after = await proxySocket('/core/websocket');
  await after.next(10_000);
  after.send({ type: 'auth', access_token: tokens.local_api });
  t.equal((await after.next(10_000)).type, 'auth_ok', 'still serving');
  after.send({ id: 1, type: 'ping' });
  t.match(await after.next(10_000), { id: 1, type: 'pong' });
  after.ws.close();
  t.equal((await call('GET', '/core/api/', { token: tokens.local_api })).status, 200);
});

t.test('a core that is down: 502', async (t) => {
  await core().stop();
  const res = await call('GET', '/core/api/states', { token: tokens.local_api });
  t.equal(res.status, 502);
  t.equal(await res.text(), '502: Bad Gateway');
});

t.test('v2: served only with the flag, behind the middleware\'s role rules as well as the proxy\'s own check', async (t) => {
  const dataDir = await supervisorDataDir();
  const first = await startTestSupervisor(t, { dataDir, coreUrl: 'http://127.0.0.1:9' });
  t.equal((await fetch(`${first.base}/v2/core/api/states`)).status, 404, 'no /v2 without the flag');
  await enableV2(first.supervisor);
  await first.supervisor.stop();
  const s = await startTestSupervisor(t, { dataDir, coreUrl: 'http://127.0.0.1:9' });
  const { tokens: v2 } = await withFixtureApps(s.supervisor, [{ slug: 'local_api', homeassistant_api: true }]);
  const context = { id: 'v2', parent_id: null, user_id: null };
  const manager = (await s.supervisor.tokens.issue({ name: 'local_api', kind: 'app', role: 'manager', slug: 'local_api' }, context)).token;
  const get = (token?: string) => fetch(`${s.base}/v2/core/api/states`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
  t.equal((await get()).status, 401, 'no token: the middleware\'s 401 (v2 exempts nothing here)');
  t.equal((await get(v2.local_api)).status, 403, 'the default role does not reach /core on v2');
  const through = await get(manager);
  t.equal(through.status, 502, 'a manager app with homeassistant_api gets past both: the core at port 9 does not answer');
  t.equal(await through.text(), '502: Bad Gateway');
});
