// The refresh-token WebSocket commands as a client sees them, against a real Hearth.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { exchange, login } from './harness.ts';

const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{6})?\+00:00$/;
const FIELDS = ['id', 'client_id', 'client_name', 'client_icon', 'type', 'created_at', 'is_current', 'last_used_at', 'last_used_ip', 'auth_provider_type', 'expire_at'];

/** Sends a command and waits for its answer. */
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  c.send(msg);
  return c.until((m) => m.id === msg.id && m.type === 'result');
}

function claims(jwt: string): { iss: string; iat: number; exp: number } {
  return JSON.parse(Buffer.from(jwt.split('.')[1], 'base64url').toString());
}

const status = async (base: string, token: string) => (await api(base, token)('GET', '/api/')).status;

/** A second normal login of the owner (another refresh token). */
async function secondLogin(base: string) {
  const code = (await login(base, OWNER.username, OWNER.password)).json.result;
  return (await exchange(base, code)).json as { access_token: string; refresh_token: string };
}

t.test('refresh-token commands', async (t) => {
  const { base } = await startTestHearth(t);
  const own = await onboard(base, OWNER);
  const c = await authedClient(base, own.access_token);
  let id = 1;

  // auth/long_lived_access_token
  const created = await ask(c, { id: id++, type: 'auth/long_lived_access_token', client_name: 'GPS Logger', lifespan: 365 });
  t.equal(created.success, true);
  t.type(created.result, 'string', 'the result is the access token itself');
  const llat: string = created.result;
  const llClaims = claims(llat);
  t.equal(llClaims.exp - llClaims.iat, 365 * 86_400, 'its lifetime is lifespan days');
  t.equal(await status(base, llat), 200, 'it works as a Bearer token');

  const dup = await ask(c, { id: id++, type: 'auth/long_lived_access_token', client_name: 'GPS Logger', lifespan: 10 });
  t.same(dup, { id: dup.id, type: 'result', success: false, error: { code: 'unknown_error', message: 'Unknown error' } }, 'a taken client_name');

  const withIcon = await ask(c, { id: id++, type: 'auth/long_lived_access_token', client_name: 'Other', lifespan: 1, client_icon: 'mdi:car' });
  t.equal(withIcon.success, true);
  t.equal(claims(withIcon.result).exp - claims(withIcon.result).iat, 86_400);

  const bad = await ask(c, { id: id++, type: 'auth/long_lived_access_token', client_name: 'X' });
  t.equal(bad.error.code, 'invalid_format', 'lifespan is required');

  // auth/refresh_tokens
  let list = await ask(c, { id: id++, type: 'auth/refresh_tokens' });
  t.equal(list.success, true);
  t.equal(list.result.length, 3);
  for (const entry of list.result) t.same(Object.keys(entry), FIELDS, 'the original fields in its order');
  const [mine, ll, other] = list.result;
  t.match(mine, {
    id: own.access_token ? claims(own.access_token).iss : '',
    client_id: 'http://127.0.0.1/',
    client_name: null,
    client_icon: null,
    type: 'normal',
    created_at: ISO,
    is_current: true,
    last_used_at: ISO,
    last_used_ip: '127.0.0.1',
    auth_provider_type: 'core',
    expire_at: ISO,
  });
  t.match(ll, {
    id: llClaims.iss,
    client_id: null,
    client_name: 'GPS Logger',
    client_icon: null,
    type: 'long_lived_access_token',
    created_at: ISO,
    is_current: false,
    last_used_at: ISO,
    last_used_ip: null,
    auth_provider_type: null,
    expire_at: null,
  });
  t.match(other, { client_name: 'Other', client_icon: 'mdi:car', type: 'long_lived_access_token' });
  t.ok(Date.parse(mine.expire_at) - Date.parse(mine.last_used_at) === 90 * 86_400_000, 'a normal token expires 90 days after its last use');

  // auth/refresh_token_set_expiry
  let r = await ask(c, { id: id++, type: 'auth/refresh_token_set_expiry', refresh_token_id: ll.id, enable_expiry: true });
  t.same(r.result, {});
  list = await ask(c, { id: id++, type: 'auth/refresh_tokens' });
  const llExpiry = list.result.find((e: any) => e.id === ll.id).expire_at;
  t.equal(Date.parse(llExpiry), Date.parse(ll.last_used_at) + 90 * 86_400_000, 'expiry on: 90 days from its last use');
  r = await ask(c, { id: id++, type: 'auth/refresh_token_set_expiry', refresh_token_id: mine.id, enable_expiry: false });
  t.same(r.result, {});
  list = await ask(c, { id: id++, type: 'auth/refresh_tokens' });
  t.equal(list.result.find((e: any) => e.id === mine.id).expire_at, null, 'expiry off shows as null');
  r = await ask(c, { id: id++, type: 'auth/refresh_token_set_expiry', refresh_token_id: 'nope', enable_expiry: true });
  t.same(r.error, { code: 'invalid_token_id', message: 'Received invalid token' });

  // auth/delete_refresh_token
  r = await ask(c, { id: id++, type: 'auth/delete_refresh_token', refresh_token_id: ll.id });
  t.equal(r.success, true);
  t.same(r.result, {});
  t.equal(await status(base, llat), 401, 'its access token fails at once');
  r = await ask(c, { id: id++, type: 'auth/delete_refresh_token', refresh_token_id: ll.id });
  t.same(r.error, { code: 'invalid_token_id', message: 'Received invalid token' }, 'a deleted id');
  r = await ask(c, { id: id++, type: 'auth/delete_refresh_token', refresh_token_id: 'unknown' });
  t.same(r.error, { code: 'invalid_token_id', message: 'Received invalid token' }, 'an unknown id');
  list = await ask(c, { id: id++, type: 'auth/refresh_tokens' });
  t.notOk(list.result.some((e: any) => e.id === ll.id), 'gone from the list');

  // the name is free again once its token is gone
  r = await ask(c, { id: id++, type: 'auth/long_lived_access_token', client_name: 'GPS Logger', lifespan: 30 });
  t.equal(r.success, true);
  const llat2: string = r.result;

  // auth/delete_all_refresh_tokens, filtered by type, keeping the current one
  const second = await secondLogin(base);
  r = await ask(c, { id: id++, type: 'auth/delete_all_refresh_tokens', token_type: 'long_lived_access_token' });
  t.same(r.result, {});
  t.equal(await status(base, llat2), 401, 'long-lived tokens went');
  t.equal(await status(base, withIcon.result), 401);
  t.equal(await status(base, second.access_token), 200, 'a normal token stays');
  t.equal(await status(base, own.access_token), 200, 'the current (normal) token stays: its type was not asked for');

  r = await ask(c, { id: id++, type: 'auth/delete_all_refresh_tokens', delete_current_token: false });
  t.same(r.result, {});
  t.equal(await status(base, second.access_token), 401, 'the other normal token went');
  t.equal(await status(base, own.access_token), 200, 'delete_current_token false keeps the connection token');
  list = await ask(c, { id: id++, type: 'auth/refresh_tokens' });
  t.same(list.result.map((e: any) => e.id), [mine.id]);

  // everything, the current token too: the answer arrives, then the connection closes
  const third = await secondLogin(base);
  const c3 = await authedClient(base, third.access_token);
  r = await ask(c3, { id: 1, type: 'auth/delete_all_refresh_tokens' });
  t.same(r.result, {});
  await c3.closed;
  t.equal(await status(base, third.access_token), 401, 'the current token went too');
  t.equal(await status(base, own.access_token), 401, 'and all others');
  await c.closed;
});

t.test('an id the user has no token by is not found; options are typed', async (t) => {
  const { base } = await startTestHearth(t);
  const own = await onboard(base, OWNER);
  const c = await authedClient(base, own.access_token);
  const r = await ask(c, { id: 1, type: 'auth/delete_refresh_token', refresh_token_id: claims(own.access_token).iss + 'x' });
  t.same(r.error, { code: 'invalid_token_id', message: 'Received invalid token' });
  const bad = await ask(c, { id: 2, type: 'auth/delete_all_refresh_tokens', delete_current_token: 'no' });
  t.equal(bad.error.code, 'invalid_format');
  c.ws.close();
});

t.test('revocations and expiry settings survive a restart', async (t) => {
  const first = await startTestHearth(t);
  const own = await onboard(first.base, OWNER);
  let c = await authedClient(first.base, own.access_token);
  const kept = (await ask(c, { id: 1, type: 'auth/long_lived_access_token', client_name: 'kept', lifespan: 5 })).result;
  const gone = (await ask(c, { id: 2, type: 'auth/long_lived_access_token', client_name: 'gone', lifespan: 5 })).result;
  await ask(c, { id: 3, type: 'auth/delete_refresh_token', refresh_token_id: claims(gone).iss });
  await ask(c, { id: 4, type: 'auth/refresh_token_set_expiry', refresh_token_id: claims(kept).iss, enable_expiry: true });
  const before = (await ask(c, { id: 5, type: 'auth/refresh_tokens' })).result;
  c.ws.close();
  await first.hearth.stop();

  const second = await startTestHearth(t, { dataDir: first.dataDir });
  t.equal(await status(second.base, gone), 401, 'a deleted token stays deleted');
  t.equal(await status(second.base, kept), 200, 'a kept one still works');
  c = await authedClient(second.base, own.access_token);
  const after = (await ask(c, { id: 1, type: 'auth/refresh_tokens' })).result;
  t.same(after, before, 'the list is the same after the restart');
  t.notOk(after.some((e: any) => e.id === claims(gone).iss));
  t.match(after.find((e: any) => e.id === claims(kept).iss), { expire_at: ISO });
  const dup = await ask(c, { id: 2, type: 'auth/long_lived_access_token', client_name: 'kept', lifespan: 5 });
  t.equal(dup.error.code, 'unknown_error', 'the name is still taken');
  c.ws.close();
});
