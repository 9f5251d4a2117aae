// The user-administration WebSocket commands (config/auth/*, config/auth_provider/homeassistant/*)
// as a client sees them, against a real Hearth.
import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { exchange, login } from './harness.ts';

const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };
const FIELDS = ['id', 'username', 'name', 'is_owner', 'is_active', 'local_only', 'system_generated', 'group_ids', 'credentials'];
const UNAUTHORIZED = { code: 'unauthorized', message: 'Unauthorized' };

let nextId = 1;
/** Sends a command and waits for its answer. */
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

const status = async (base: string, token: string) => (await api(base, token)('GET', '/api/')).status;

/** Logs in through the login flow and exchanges the code; undefined when the login is refused. */
async function tokensOf(base: string, username: string, password: string) {
  const step = await login(base, username, password);
  if (step.json?.type !== 'create_entry') return undefined;
  return (await exchange(base, step.json.result)).json as { access_token?: string; refresh_token?: string; error?: string };
}

t.test('user administration', async (t) => {
  const { base, dataDir } = await startTestHearth(t);
  const own = await onboard(base, OWNER);
  const c = await authedClient(base, own.access_token);

  // config/auth/list: the owner, with the original's fields in its order
  let list = await ask(c, { type: 'config/auth/list' });
  t.equal(list.success, true);
  t.equal(list.result.length, 1);
  t.same(Object.keys(list.result[0]), FIELDS, 'the original fields in its order');
  const owner = list.result[0];
  t.match(owner, {
    username: 'owner',
    name: 'Owner',
    is_owner: true,
    is_active: true,
    local_only: false,
    system_generated: false,
    group_ids: ['system-admin'],
    credentials: [{ type: 'core' }],
  });

  // config/auth/create, then a core credential for it
  const created = await ask(c, { type: 'config/auth/create', name: 'Kid', group_ids: ['system-users'] });
  t.equal(created.success, true);
  const kid = created.result.user;
  t.same(Object.keys(kid), FIELDS);
  t.match(kid, { username: null, name: 'Kid', is_owner: false, is_active: true, local_only: false, system_generated: false, group_ids: ['system-users'], credentials: [] });
  const plain = await ask(c, { type: 'config/auth/create', name: 'Plain', local_only: true });
  t.match(plain.result.user, { group_ids: [], local_only: true }, 'no groups unless given');
  const badGroup = await ask(c, { type: 'config/auth/create', name: 'X', group_ids: ['system-nope'] });
  t.same(badGroup.error, { code: 'unknown_error', message: 'Unknown error' }, 'an unknown group');
  t.equal((await ask(c, { type: 'config/auth/create' })).error.code, 'invalid_format', 'name is required');

  let r = await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: kid.id, username: 'kid', password: 'kid-pass-1' });
  t.equal(r.success, true);
  t.equal(r.result, null);
  r = await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: plain.result.user.id, username: ' KID ', password: 'x' });
  t.same(r.error, { code: 'username_exists', message: 'Username already exists' });
  r = await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: 'nobody', username: 'n', password: 'x' });
  t.same(r.error, { code: 'not_found', message: 'User not found' });
  list = await ask(c, { type: 'config/auth/list' });
  t.same(list.result.map((u: any) => u.name), ['Owner', 'Kid', 'Plain'], 'creation order');
  t.match(list.result[1], { username: 'kid', credentials: [{ type: 'core' }] });

  // the new user logs in through the login flow
  let kidTokens = await tokensOf(base, 'kid', 'kid-pass-1');
  t.ok(kidTokens?.access_token, 'the created user can log in');
  t.equal(await status(base, kidTokens!.access_token!), 200);

  // a non-admin gets the original's error for admin commands
  let k = await authedClient(base, kidTokens!.access_token!);
  for (const msg of [
    { type: 'config/auth/list' },
    { type: 'config/auth/create', name: 'Evil' },
    { type: 'config/auth/update', user_id: kid.id, group_ids: ['system-admin'] },
    { type: 'config/auth/delete', user_id: owner.id },
    { type: 'config/auth_provider/homeassistant/create', user_id: kid.id, username: 'evil', password: 'x' },
    { type: 'config/auth_provider/homeassistant/delete', username: 'owner' },
    { type: 'config/auth_provider/homeassistant/admin_change_password', user_id: owner.id, password: 'x' },
  ]) {
    t.same((await ask(k, msg)).error, UNAUTHORIZED, `${msg.type} is admin only`);
  }

  // change own password
  r = await ask(k, { type: 'config/auth_provider/homeassistant/change_password', current_password: 'wrong', new_password: 'kid-pass-2' });
  t.same(r.error, { code: 'invalid_current_password', message: 'Invalid current password' });
  r = await ask(k, { type: 'config/auth_provider/homeassistant/change_password', current_password: 'kid-pass-1', new_password: 'kid-pass-2' });
  t.equal(r.success, true);
  t.equal(r.result, null);
  t.equal(await tokensOf(base, 'kid', 'kid-pass-1'), undefined, 'the old password no longer works');
  t.ok((await tokensOf(base, 'kid', 'kid-pass-2'))?.access_token, 'the new one does');

  // update: promoted to admin, then the kid may list
  r = await ask(c, { type: 'config/auth/update', user_id: kid.id, name: 'Kiddo', group_ids: ['system-admin'], local_only: false });
  t.equal(r.success, true);
  t.same(Object.keys(r.result.user), FIELDS);
  t.match(r.result.user, { id: kid.id, name: 'Kiddo', group_ids: ['system-admin'], is_active: true });
  t.equal((await ask(k, { type: 'config/auth/list' })).success, true, 'a promotion applies to an open connection');
  // an admin that is not the owner may not change another's password
  t.same((await ask(k, { type: 'config/auth_provider/homeassistant/admin_change_password', user_id: owner.id, password: 'x' })).error, UNAUTHORIZED);
  r = await ask(c, { type: 'config/auth/update', user_id: kid.id, group_ids: ['system-users'] });
  t.match(r.result.user, { name: 'Kiddo', group_ids: ['system-users'] }, 'absent fields stay');
  t.same((await ask(k, { type: 'config/auth/list' })).error, UNAUTHORIZED, 'a demotion applies at once');

  // the owner is refused the way the original refuses it
  r = await ask(c, { type: 'config/auth/update', user_id: owner.id, is_active: false });
  t.same(r.error, { code: 'cannot_deactivate_owner', message: 'Unable to deactivate owner.' });
  r = await ask(c, { type: 'config/auth/delete', user_id: owner.id });
  t.same(r.error, { code: 'no_delete_self', message: 'Unable to delete your own account' });
  r = await ask(c, { type: 'config/auth/update', user_id: 'nobody', name: 'x' });
  t.same(r.error, { code: 'not_found', message: 'User not found' });

  // deactivation: its token is refused, and it cannot log in
  r = await ask(c, { type: 'config/auth/update', user_id: kid.id, is_active: false });
  t.match(r.result.user, { is_active: false });
  t.equal(await status(base, kidTokens!.access_token!), 401, 'a deactivated user\'s token is refused');
  const refused = await login(base, 'kid', 'kid-pass-2');
  t.not(refused.json?.type, 'create_entry', 'a deactivated user cannot log in');
  r = await ask(c, { type: 'config/auth/update', user_id: kid.id, is_active: true });
  t.match(r.result.user, { is_active: true });
  t.equal(await status(base, kidTokens!.access_token!), 200, 'reactivated, the token works again');

  // admin change password (the owner)
  r = await ask(c, { type: 'config/auth_provider/homeassistant/admin_change_password', user_id: kid.id, password: 'reset-pass' });
  t.equal(r.success, true);
  t.equal(r.result, null);
  t.equal(await tokensOf(base, 'kid', 'kid-pass-2'), undefined);
  kidTokens = await tokensOf(base, 'kid', 'reset-pass');
  t.ok(kidTokens?.access_token, 'the reset password works');
  r = await ask(c, { type: 'config/auth_provider/homeassistant/admin_change_password', user_id: plain.result.user.id, password: 'x' });
  t.same(r.error, { code: 'credentials_not_found', message: 'Credentials not found' });
  r = await ask(c, { type: 'config/auth_provider/homeassistant/admin_change_password', user_id: 'nobody', password: 'x' });
  t.same(r.error, { code: 'user_not_found', message: 'User not found' });

  // a credential removed by username, and created again
  r = await ask(c, { type: 'config/auth_provider/homeassistant/delete', username: 'kid' });
  t.equal(r.result, null);
  t.equal(await tokensOf(base, 'kid', 'reset-pass'), undefined, 'no login without the credential');
  r = await ask(c, { type: 'config/auth_provider/homeassistant/delete', username: 'kid' });
  t.same(r.error, { code: 'auth_not_found', message: 'Given username was not found.' });
  list = await ask(c, { type: 'config/auth/list' });
  t.match(list.result[1], { username: null, credentials: [] });
  await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: kid.id, username: 'kid', password: 'again-pass' });
  kidTokens = await tokensOf(base, 'kid', 'again-pass');
  t.ok(kidTokens?.access_token);

  // delete: its tokens fail at once, its open connection closes, it cannot log in
  k.ws.close();
  k = await authedClient(base, kidTokens!.access_token!);
  r = await ask(c, { type: 'config/auth/delete', user_id: kid.id });
  t.equal(r.success, true);
  t.equal(r.result, null);
  t.equal(await status(base, kidTokens!.access_token!), 401, 'its access token fails at once');
  await k.closed;
  t.pass('its connection closed');
  t.equal(await tokensOf(base, 'kid', 'again-pass'), undefined, 'it cannot log in');
  r = await ask(c, { type: 'config/auth/delete', user_id: kid.id });
  t.same(r.error, { code: 'not_found', message: 'User not found' });
  list = await ask(c, { type: 'config/auth/list' });
  t.same(list.result.map((u: any) => u.name), ['Owner', 'Plain']);

  // the owner's own password
  r = await ask(c, { type: 'config/auth_provider/homeassistant/change_password', current_password: OWNER.password, new_password: 'owner-new-pass' });
  t.equal(r.success, true);
  r = await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: plain.result.user.id, username: 'plain', password: 'plain-pass' });
  t.equal(r.success, true);
  const before = (await ask(c, { type: 'config/auth/list' })).result;
  c.ws.close();

  // no plain password is ever written
  const files: string[] = [];
  const walk = async (dir: string): Promise<void> => {
    for (const e of await readdir(dir, { withFileTypes: true })) {
      if (e.isDirectory()) await walk(join(dir, e.name));
      else if (e.isFile()) files.push(join(dir, e.name));
    }
  };
  await walk(dataDir);
  for (const secret of ['kid-pass-1', 'kid-pass-2', 'reset-pass', 'again-pass', 'owner-new-pass', 'plain-pass']) {
    let found = false;
    for (const f of files) if ((await readFile(f)).includes(secret)) found = true;
    t.notOk(found, `${secret} is not on disk`);
  }

  t.equal(before.length, 2);
});

t.test('the administered users survive a restart', async (t) => {
  const first = await startTestHearth(t);
  const own = await onboard(first.base, OWNER);
  let c = await authedClient(first.base, own.access_token);
  const kid = (await ask(c, { type: 'config/auth/create', name: 'Kid', group_ids: ['system-users'] })).result.user;
  const gone = (await ask(c, { type: 'config/auth/create', name: 'Gone' })).result.user;
  await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: kid.id, username: 'kid', password: 'kid-pass-1' });
  await ask(c, { type: 'config/auth_provider/homeassistant/create', user_id: gone.id, username: 'gone', password: 'gone-pass' });
  const goneTokens = await tokensOf(first.base, 'gone', 'gone-pass');
  t.ok(goneTokens?.access_token);
  await ask(c, { type: 'config/auth/update', user_id: kid.id, name: 'Kiddo', is_active: false, local_only: true });
  await ask(c, { type: 'config/auth_provider/homeassistant/admin_change_password', user_id: kid.id, password: 'kid-pass-2' });
  await ask(c, { type: 'config/auth_provider/homeassistant/change_password', current_password: OWNER.password, new_password: 'owner-pass-2' });
  await ask(c, { type: 'config/auth/delete', user_id: gone.id });
  const before = (await ask(c, { type: 'config/auth/list' })).result;
  c.ws.close();
  await first.hearth.stop();

  const second = await startTestHearth(t, { dataDir: first.dataDir });
  c = await authedClient(second.base, own.access_token);
  const after = (await ask(c, { type: 'config/auth/list' })).result;
  t.same(after, before, 'the list is the same after the restart');
  t.match(after.find((u: any) => u.id === kid.id), { name: 'Kiddo', is_active: false, local_only: true, username: 'kid' });
  t.equal(await status(second.base, goneTokens!.access_token!), 401, 'a deleted user\'s token stays dead');
  t.equal(await tokensOf(second.base, 'gone', 'gone-pass'), undefined, 'a deleted user stays deleted');
  t.equal(await tokensOf(second.base, OWNER.username, OWNER.password), undefined, 'the old owner password is gone');
  t.ok((await tokensOf(second.base, OWNER.username, 'owner-pass-2'))?.access_token, 'the changed owner password works');
  await ask(c, { type: 'config/auth/update', user_id: kid.id, is_active: true });
  t.ok((await tokensOf(second.base, 'kid', 'kid-pass-2'))?.access_token, 'the reset password works after the restart');
  t.same((await ask(c, { type: 'config/auth/update', user_id: (after.find((u: any) => u.is_owner)).id, is_active: false })).error.code, 'cannot_deactivate_owner');
  c.ws.close();
});
