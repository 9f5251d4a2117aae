import t from 'tap';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLIENT_ID, OWNER, call, exchange, getWith, login, onboardOwner, postForm, startAuthServer, tempDir } from './harness.ts';
import { allRecords } from '../../helpers/log-records.ts';

const WRONG_PASSWORD = 'wrong-password-canary-7f3a';

async function rawFiles(dir: string): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) parts.push(await readFile(join(entry.parentPath ?? (entry as any).path, entry.name)));
  }
  return Buffer.concat(parts);
}

t.test('a restart keeps logins working and the log holds every auth transition', async (t) => {
  const dataDir = await tempDir();

  // first life: onboarding, a failed and a good login, a revocation
  const first = await startAuthServer(t, { dataDir });
  const a = (await exchange(first.base, await onboardOwner(first.base))).json;
  t.same((await login(first.base, OWNER.username, WRONG_PASSWORD)).json.errors, { base: 'invalid_auth' });
  const b = (await exchange(first.base, (await login(first.base, OWNER.username, OWNER.password)).json.result)).json;
  t.equal((await postForm(first.base, '/auth/revoke', { token: b.refresh_token })).status, 200);
  t.equal((await call(first.base, 'POST', '/api/onboarding/core_config', undefined, a.access_token)).status, 200);

  const records = await allRecords(first.log);
  t.ok(records.length > 0);
  t.ok(records.every((r) => r.origin === undefined), 'auth records never reach bus subscribers');
  t.ok(records.every((r) => r.stream.startsWith('auth/') || r.stream.startsWith('authpub/')), 'auth/, and authpub/ for read replicas');
  const types = new Set(records.map((r) => r.type));
  for (const type of [
    'user_created',
    'credential_added',
    'onboarding_step_done',
    'refresh_token_created',
    'refresh_token_used',
    'refresh_token_revoked',
    'login_flow_step',
  ]) {
    t.ok(types.has(type), `a ${type} record`);
  }
  const credential = records.find((r) => r.type === 'credential_added')!;
  t.match(credential.stream, /^auth\/user\/[0-9a-f]{32}$/);
  t.match(credential.data, { auth_provider_type: 'core', data: { username: OWNER.username }, password_hash: /^scrypt\$/ });
  const created = records.find((r) => r.type === 'refresh_token_created')!;
  t.match(created.stream, /^auth\/refresh_token\/[0-9a-f]{32}$/);
  t.match(created.data, { token: /^[0-9a-f]{128}$/, jwt_key: /^[0-9a-f]{128}$/, client_id: CLIENT_ID, token_type: 'normal' });
  const steps = records.filter((r) => r.type === 'login_flow_step');
  t.ok(steps.some((r) => r.data.errors?.base === 'invalid_auth' && r.data.username === OWNER.username), 'failed logins are logged with the username');
  t.ok(steps.some((r) => r.data.type === 'create_entry'));
  const everything = JSON.stringify(records);
  t.notOk(everything.includes(OWNER.password), 'no plaintext password in any record');
  t.notOk(everything.includes(WRONG_PASSWORD), 'nor a mistyped one');
  t.notOk(/"password"/.test(everything), 'no field named password');

  await first.close();
  const raw = await rawFiles(join(dataDir, 'log'));
  t.ok(raw.includes('refresh_token_created'), 'the raw files are searchable (control)');
  t.notOk(raw.includes(OWNER.password), 'the password is nowhere in the LevelDB files');
  t.notOk(raw.includes(WRONG_PASSWORD));

  // second life: restored from the log alone
  const second = await startAuthServer(t, { dataDir });
  const authOnly = records.filter((r) => r.stream.startsWith('auth/'));
  t.ok(second.replayed >= authOnly.length - steps.length, 'the auth records were replayed');
  t.equal((await getWith(second.base, '/api/test/whoami', `Bearer ${a.access_token}`)).status, 200, 'an access token from before the restart');
  let res = await postForm(second.base, '/auth/token', { grant_type: 'refresh_token', refresh_token: a.refresh_token, client_id: CLIENT_ID });
  t.equal(res.status, 200, 'the old refresh token still mints access tokens');
  t.equal((await getWith(second.base, '/api/test/whoami', `Bearer ${res.json.access_token}`)).status, 200);
  res = await postForm(second.base, '/auth/token', { grant_type: 'refresh_token', refresh_token: b.refresh_token, client_id: CLIENT_ID });
  t.equal(res.text, '{"error":"invalid_grant"}', 'a revoked token stays revoked');
  t.equal((await getWith(second.base, '/api/test/whoami', `Bearer ${b.access_token}`)).status, 401);
  res = await login(second.base, OWNER.username, OWNER.password);
  t.equal(res.json.type, 'create_entry', 'the password still logs in');
  t.equal((await call(second.base, 'GET', '/auth/providers')).status, 200, 'onboarding progress survived');
  t.equal((await call(second.base, 'POST', '/api/onboarding/users', { ...OWNER, client_id: CLIENT_ID, language: 'en' })).status, 403);
  t.same(
    (await call(second.base, 'GET', '/api/onboarding')).json.map((s: { done: boolean }) => s.done),
    [true, true, false, false],
  );
  const whoBefore = (await getWith(second.base, '/api/test/whoami', `Bearer ${a.access_token}`)).json;
  t.same(second.auth.currentUser(whoBefore.userId)?.is_owner, true);

  // snapshot, then more writes: the third life restores from the snapshot plus the tail
  const area = second.auth.area;
  await second.log.saveSnapshot(area.name, { seq: second.log.lastSeq(), version: area.snapshotVersion, time: Date.now(), data: area.snapshot() });
  const c = (await exchange(second.base, (await login(second.base, OWNER.username, OWNER.password)).json.result)).json;
  await second.close();

  const third = await startAuthServer(t, { dataDir });
  t.ok(third.replayed > 0 && third.replayed < 10, `only the tail was replayed (${third.replayed} records)`);
  t.same(third.auth.area.snapshot(), second.auth.area.snapshot(), 'the restored state equals the state before the restart');
  for (const [name, tokens] of [['a', a], ['c', c]] as const) {
    res = await postForm(third.base, '/auth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT_ID });
    t.equal(res.status, 200, `refresh token ${name} after snapshot + tail`);
  }
  t.equal((await getWith(third.base, '/api/test/whoami', `Bearer ${c.access_token}`)).status, 200);
  res = await postForm(third.base, '/auth/token', { grant_type: 'refresh_token', refresh_token: b.refresh_token, client_id: CLIENT_ID });
  t.equal(res.text, '{"error":"invalid_grant"}');
  t.equal((await login(third.base, OWNER.username, OWNER.password)).json.type, 'create_entry');
});
