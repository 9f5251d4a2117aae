// The auth helper (supervisor-wire §4.13) against a real Hearth core process the supervisor runs:
// an app with auth_api checks the onboarded owner's password as Basic, JSON and form; the 401
// variants; the cache deciding while the core is down; /auth/list and /auth/reset through the
// core. And the core's side: one system user "Supervisor" however often the core starts.
import t from 'tap';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { withFixtureApps } from '../../../helpers/fixture-apps.ts';
import { startSupervisedCore, coreRefreshToken, onboard } from '../../../helpers/supervised-core.ts';
import { authedClient } from '../../../helpers/ws.ts';
import { freePort } from '../../../helpers/ports.ts';
import { eventually } from '../../../helpers/wait.ts';

const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };
const REALM = 'Basic realm="Home Assistant Authentication"';
const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

t.test('/auth, /auth/list, /auth/reset against the core\'s users', async (t) => {
  const corePort = await freePort();
  const sup = await startTestSupervisor(t, { coreUrl: `http://127.0.0.1:${corePort}` });
  const { tokens } = await withFixtureApps(sup.supervisor, [
    { slug: 'local_web', auth_api: true },
    { slug: 'local_noauth' },
  ]);
  const core = await startSupervisedCore(t, sup, corePort);
  const owner = await onboard(core.base, OWNER);
  const app = tokens.local_web;
  // the app's token goes in X-Supervisor-Token: Authorization carries the user's credentials
  const auth = (headers: Record<string, string>, body?: string, method = 'POST') => fetch(`${sup.base}/auth`, { method, headers: { 'X-Supervisor-Token': app, ...headers }, body });
  const read = async (res: Response) => ({ status: res.status, www: res.headers.get('www-authenticate'), body: await res.text() });

  const okBody = JSON.stringify({ result: 'ok', data: {} });
  t.same(await read(await auth({ 'Content-Type': 'application/json' }, JSON.stringify({ username: 'owner', password: OWNER.password }))), { status: 200, www: null, body: okBody }, 'JSON with `username`');
  t.same(await read(await auth({ 'Content-Type': 'application/json' }, JSON.stringify({ user: 'owner', password: OWNER.password }))), { status: 200, www: null, body: okBody }, 'JSON with `user`');
  t.same(await read(await auth({ 'Content-Type': 'application/x-www-form-urlencoded' }, new URLSearchParams({ username: 'owner', password: OWNER.password }).toString())), { status: 200, www: null, body: okBody }, 'form');
  t.same(await read(await auth({ Authorization: basic('owner', OWNER.password) }, undefined, 'GET')), { status: 200, www: null, body: okBody }, 'Basic on GET');

  t.same(await read(await auth({ 'Content-Type': 'application/json' }, JSON.stringify({ username: 'owner', password: 'wrong' }))), { status: 401, www: null, body: '401: Unauthorized' }, 'wrong password (JSON): text 401 without WWW-Authenticate');
  t.same(await read(await auth({ 'Content-Type': 'application/x-www-form-urlencoded' }, 'username=nobody&password=x')), { status: 401, www: null, body: '401: Unauthorized' }, 'unknown user (form)');
  t.same(await read(await auth({ Authorization: basic('owner', 'wrong') })), { status: 401, www: REALM, body: '401: Unauthorized' }, 'wrong password (Basic): with WWW-Authenticate');
  t.same(await read(await auth({ Authorization: 'Bearer abc' })), { status: 401, www: REALM, body: '401: Unauthorized' }, 'a Bearer header is no Basic');
  t.same(await read(await auth({ 'Content-Type': 'text/plain' }, 'owner')), { status: 401, www: REALM, body: '401: Unauthorized' }, 'another content type');
  t.same(await read(await auth({})), { status: 401, www: REALM, body: '401: Unauthorized' }, 'nothing given');
  const nonString = { status: 401, www: REALM, body: JSON.stringify({ result: 'error', message: 'Username and password must be strings', error_key: 'auth_invalid_non_string_value_error' }) };
  t.same(await read(await auth({ 'Content-Type': 'application/json' }, JSON.stringify({ username: 'owner', password: null }))), nonString, 'null password: JSON 401');
  t.same(await read(await auth({ 'Content-Type': 'application/json' }, '{}')), nonString, 'an empty object');
  t.same(await read(await auth({ 'Content-Type': 'application/json' }, '{"username":')), { status: 400, www: null, body: JSON.stringify({ result: 'error', message: 'Invalid json' }) }, 'malformed JSON');

  const refused = JSON.stringify({ result: 'error', message: "Can't use Home Assistant auth!" });
  const noAuthApi = await fetch(`${sup.base}/auth`, { method: 'POST', headers: { 'X-Supervisor-Token': tokens.local_noauth, 'Content-Type': 'application/json' }, body: JSON.stringify({ username: 'owner', password: OWNER.password }) });
  t.same([noAuthApi.status, await noAuthApi.text()], [403, refused], 'an app without auth_api');
  t.same([(await sup.call('POST', '/auth', { body: {} })).status], [403], 'the operator is no app');

  // the users
  t.same((await sup.json('GET', '/auth/list')).body, {
    result: 'ok',
    data: { users: [{ username: 'owner', name: 'Owner', is_owner: true, is_active: true, local_only: false, group_ids: ['system-admin'] }] },
  }, 'the core\'s users with a username (the system user Supervisor has none)');

  // a password reset through the core
  t.same(await sup.json('POST', '/auth/reset', { body: { username: 'nobody', password: 'x' } }), {
    status: 400,
    body: { result: 'error', message: "Username 'nobody' does not exist. Check list of users using 'ha auth list'.", error_key: 'auth_password_reset_error', extra_fields: { user: 'nobody', auth_list_command: 'ha auth list' } },
  });
  t.equal((await sup.json('POST', '/auth/reset', { body: { username: 'owner' } })).status, 400, 'the password is required');
  t.same((await sup.json('POST', '/auth/reset', { body: { username: 'owner', password: 'a new password' } })).body, { result: 'ok', data: {} });
  const login = await fetch(`${core.base}/auth/login_flow`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_id: 'http://127.0.0.1/', handler: ['core', null], redirect_uri: 'http://127.0.0.1/' }) });
  const flow = (await login.json()) as { flow_id: string };
  const step = await fetch(`${core.base}/auth/login_flow/${flow.flow_id}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ client_id: 'http://127.0.0.1/', username: 'owner', password: 'a new password' }) });
  t.match(await step.json(), { type: 'create_entry' }, 'the core takes the new password');
  t.equal((await auth({ Authorization: basic('owner', OWNER.password) })).status, 200, 'the old password, cached: answered from the cache while the core is asked behind it');
  await sup.supervisor.deps.authHelper!.settled();
  t.equal((await auth({ Authorization: basic('owner', OWNER.password) })).status, 401, 'the background check has dropped it');
  t.same((await sup.json('DELETE', '/auth/cache')).body, { result: 'ok', data: {} }, 'the cache cleared');
  t.equal((await auth({ Authorization: basic('owner', OWNER.password) })).status, 401, 'the old password is refused');
  t.equal((await auth({ Authorization: basic('owner', 'a new password') })).status, 200, 'the new one is taken (and cached)');

  // the core down: the cache decides
  await sup.supervisor.deps.authHelper!.settled();
  await core.stop();
  t.equal((await auth({ Authorization: basic('owner', 'a new password') })).status, 200, 'a cached password, the core down');
  t.equal((await auth({ Authorization: basic('owner', 'other') })).status, 401, 'anything else, the core down');
  t.same(await sup.json('GET', '/auth/list'), { status: 500, body: { result: 'error', message: "Can't request listing users on Home Assistant. Check Supervisor logs for details", error_key: 'auth_list_users_error' } }, 'no core: the list fails');

  // the core again, on the same data: the same system user, the same token handed over
  const handed = coreRefreshToken(sup);
  await sup.supervisor.settings.section('core', { refresh_token: null as string | null }).set({ refresh_token: null }, { id: 'x', parent_id: null, user_id: null });
  const again = await startSupervisedCore(t, sup, corePort, core.dataDir);
  t.equal(coreRefreshToken(sup), handed, 'a restarted core hands over the same refresh token');
  const relogin = await fetch(`${again.base}/auth/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: owner.refresh_token, client_id: 'http://127.0.0.1/' }).toString() });
  const access = ((await relogin.json()) as { access_token: string }).access_token;
  const ws = await authedClient(again.base, access);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'config/auth/list' });
  const users = (await ws.until((m) => m.id === 1)).result as any[];
  t.match(users.filter((u) => u.system_generated), [{ name: 'Supervisor', username: null, is_owner: false, is_active: true, group_ids: ['system-admin'] }], 'one system user Supervisor, an admin');
  t.equal(users.filter((u) => u.system_generated).length, 1);
  t.equal((await eventually('the supervisor reaches the core again', async () => (await sup.json('GET', '/auth/list')).status === 200 || undefined)), true);
});

t.test('only the supervisor\'s user may call the core\'s hassio_auth endpoints', async (t) => {
  const corePort = await freePort();
  const sup = await startTestSupervisor(t, { coreUrl: `http://127.0.0.1:${corePort}` });
  const core = await startSupervisedCore(t, sup, corePort);
  const owner = await onboard(core.base, OWNER);
  const post = (path: string, token: string | undefined, body: unknown) =>
    fetch(core.base + path, { method: 'POST', headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const login = { username: 'owner', password: OWNER.password, addon: 'local_web' };
  t.equal((await post('/api/hassio_auth', undefined, login)).status, 401, 'no token');
  t.equal((await post('/api/hassio_auth', owner.access_token, login)).status, 401, 'the owner is not the supervisor');
  t.equal((await post('/api/hassio_auth/password_reset', owner.access_token, { username: 'owner', password: 'x' })).status, 401);
  const api = sup.supervisor.deps.coreApi!;
  t.equal((await api.request('POST', '/api/hassio_auth', login)).status, 200, 'the supervisor, right password');
  t.equal((await api.request('POST', '/api/hassio_auth', { ...login, password: 'no' })).status, 404, 'wrong password: 404');
  t.equal((await api.request('POST', '/api/hassio_auth', { username: 'owner' })).status, 400, 'a body without the password');
  t.equal((await api.request('POST', '/api/hassio_auth/password_reset', { username: 'ghost', password: 'x' })).status, 404, 'reset of an unknown user');
});

t.test('the core answering its API but failing the check: 500 without extra_fields', async (t) => {
  const { AuthHelper } = await import('../../../../actors/supervisor/auth/auth-helper.ts');
  const { CoreApiError } = await import('../../../../actors/supervisor/core/api.ts');
  const sup = await startTestSupervisor(t);
  const { tokens } = await withFixtureApps(sup.supervisor, [{ slug: 'local_web', auth_api: true }]);
  // a core that is up for the probe, then fails the login request (a timeout, a dropped connection)
  sup.supervisor.deps.authHelper = new AuthHelper({
    file: `${sup.dataDir}/auth-failing.json`,
    core: { up: async () => true, request: async () => { throw new CoreApiError('timeout'); }, users: async () => [] },
    logger: sup.supervisor.logs.get('test'),
  });
  const res = await fetch(`${sup.base}/auth`, { method: 'POST', headers: { 'X-Supervisor-Token': tokens.local_web, Authorization: basic('owner', 'pw') } });
  t.same([res.status, await res.text()], [500, JSON.stringify({ result: 'error', message: 'Unable to validate authentication details with Home Assistant. Check Supervisor logs for details', error_key: 'auth_home_assistant_api_validation_error' })]);
});
