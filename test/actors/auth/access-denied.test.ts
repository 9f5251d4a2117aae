// The token endpoint's 403 access_denied rows and the login flow's "Login blocked" answers, for
// a deactivated user and a local-only user coming from afar, against a real Hearth.
import t from 'tap';
import { CLIENT_ID, onboard, startTestHearth } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';

const REDIRECT_URI = `${CLIENT_ID}?auth_callback=1`;
const REMOTE = { 'X-Forwarded-For': '8.8.4.4' };
const LOCAL = { 'X-Forwarded-For': '192.168.1.20' };

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

async function post(base: string, path: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, json: await res.json() };
}

async function token(base: string, fields: Record<string, string>, headers: Record<string, string>) {
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams({ client_id: CLIENT_ID, ...fields }).toString(),
  });
  return { status: res.status, json: await res.json().catch(() => undefined), cache: res.headers.get('cache-control') };
}

/** A login flow up to its last answer: the create_entry, or what refused it. */
async function loginStep(base: string, username: string, password: string, headers: Record<string, string>) {
  const start = await post(base, '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_uri: REDIRECT_URI }, headers);
  return post(base, `/auth/login_flow/${start.json.flow_id}`, { client_id: CLIENT_ID, username, password }, headers);
}

t.test('a deactivated user and a local-only user from afar are refused with the original answers', async (t) => {
  const h = await startTestHearth(t, { config: 'http:\n  use_x_forwarded_for: true\n  trusted_proxies: 127.0.0.1/32\n' });
  const owner = await onboard(h.base);
  const c = await authedClient(h.base, owner.access_token);
  const made = async (name: string, username: string, localOnly: boolean) => {
    const user = (await ask(c, { type: 'config/auth/create', name, group_ids: ['system-users'], local_only: localOnly })).result.user;
    await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: user.id, username, password: `${username}-pass` });
    return user;
  };
  const sam = await made('Sam', 'sam', false);
  await made('Homebody', 'homebody', true);

  // Sam logs in, then is deactivated: a refresh is access_denied, as is a code issued before
  const step = await loginStep(h.base, 'sam', 'sam-pass', LOCAL);
  t.equal(step.json.type, 'create_entry');
  const pending = await loginStep(h.base, 'sam', 'sam-pass', LOCAL);
  const tokens = await token(h.base, { grant_type: 'authorization_code', code: step.json.result }, LOCAL);
  t.equal(tokens.status, 200);
  t.equal((await ask(c, { type: 'config/auth/update', user_id: sam.id, is_active: false })).success, true);
  const refresh = await token(h.base, { grant_type: 'refresh_token', refresh_token: tokens.json.refresh_token }, LOCAL);
  t.same(refresh.json, { error: 'access_denied', error_description: 'User is not active' });
  t.equal(refresh.status, 403);
  t.equal(refresh.cache, 'no-store', 'errors are not cached either');
  const late = await token(h.base, { grant_type: 'authorization_code', code: pending.json.result }, LOCAL);
  t.same([late.status, late.json], [403, { error: 'access_denied', error_description: 'User is not active' }], 'a code from before the deactivation');
  t.same(await loginStep(h.base, 'sam', 'sam-pass', LOCAL), { status: 403, json: { message: 'Login blocked: User is not active' } });

  // a local-only user: fine from the home network, refused from the internet
  t.same(await loginStep(h.base, 'homebody', 'homebody-pass', REMOTE), { status: 403, json: { message: 'Login blocked: User cannot authenticate remotely' } });
  const home = await loginStep(h.base, 'homebody', 'homebody-pass', LOCAL);
  const homeTokens = await token(h.base, { grant_type: 'authorization_code', code: home.json.result }, LOCAL);
  t.equal(homeTokens.status, 200);
  const away = await token(h.base, { grant_type: 'refresh_token', refresh_token: homeTokens.json.refresh_token }, REMOTE);
  t.same([away.status, away.json], [403, { error: 'access_denied', error_description: 'User cannot authenticate remotely' }]);
  t.equal((await token(h.base, { grant_type: 'refresh_token', refresh_token: homeTokens.json.refresh_token }, LOCAL)).status, 200, 'back home it works');
  c.ws.close();
});
