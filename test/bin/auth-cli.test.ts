// `hearth auth` as a user runs it: the real command on a stopped Hearth's data directory.
import t from 'tap';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { dataDirWith, onboard, startTestHearth } from '../helpers/hearth.ts';
import { exchange, login } from '../actors/auth/harness.ts';
import { allRecords } from '../helpers/log-records.ts';

const BIN = fileURLToPath(new URL('../../bin/hearth.js', import.meta.url));
const OWNER_PASSWORD = 'correct horse battery';
const ALICE_PASSWORD = 'alice-first-secret-canary';
const ALICE_NEW_PASSWORD = 'alice-second-secret-canary';

function hearthAuth(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, 'auth', ...args], { env: { ...process.env, ...env } });
    let out = '';
    let err = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (err += c));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

t.test('list, add, validate and change_password on a stopped Hearth', async (t) => {
  // an onboarded Hearth, stopped
  const first = await startTestHearth(t);
  const dataDir = first.dataDir;
  await onboard(first.base);

  // while it runs, the log is locked: a clear message, no stack trace
  const running = await hearthAuth(['list', '--data', dataDir]);
  t.equal(running.code, 1, 'exit 1 while Hearth runs');
  t.match(running.err, /Hearth is running on .*\. Stop Hearth first/);
  t.notMatch(running.err + running.out, /\n\s+at /, 'no stack trace');
  await first.hearth.stop();

  const list = await hearthAuth(['list', '--data', dataDir]);
  t.equal(list.code, 0);
  t.equal(list.out, 'owner (name: Owner, owner)\n\nTotal users: 1\n');

  // add, with the data directory from the environment this time
  const added = await hearthAuth(['add', 'Alice', ALICE_PASSWORD, '--name', 'Alice Liddell'], { HEARTH_DATA: dataDir });
  t.equal(added.code, 0, added.err);
  t.equal(added.out, 'Auth created\n');
  const again = await hearthAuth(['add', ' alice ', 'whatever', '--data', dataDir]);
  t.equal(again.code, 1);
  t.equal(again.out, 'Username already exists!\n', 'usernames compare trimmed and lower-cased');
  const admin = await hearthAuth(['add', 'bob', 'bob-secret', '--admin', '--data', dataDir]);
  t.equal(admin.code, 0);
  t.equal((await hearthAuth(['list', '--data', dataDir])).out, 'owner (name: Owner, owner)\nalice (name: Alice Liddell)\nbob (admin)\n\nTotal users: 3\n');

  // validate: the original's lines; exit 0 when valid, 1 when not
  const valid = await hearthAuth(['validate', 'alice', ALICE_PASSWORD, '--data', dataDir]);
  t.same([valid.code, valid.out], [0, 'Auth valid\n']);
  const wrong = await hearthAuth(['validate', 'alice', 'nope', '--data', dataDir]);
  t.same([wrong.code, wrong.out], [1, 'Auth invalid\n']);
  const unknown = await hearthAuth(['validate', 'carol', ALICE_PASSWORD, '--data', dataDir]);
  t.same([unknown.code, unknown.out], [1, 'Auth invalid\n']);
  t.same((await hearthAuth(['validate', 'owner', OWNER_PASSWORD, '--data', dataDir])).out, 'Auth valid\n');

  // the added user logs in to the restarted Hearth, and is what the running system would have made
  const second = await startTestHearth(t, { dataDir });
  const entry = await login(second.base, 'alice', ALICE_PASSWORD);
  t.equal(entry.json.type, 'create_entry', 'alice logs in');
  t.equal((await exchange(second.base, entry.json.result)).status, 200);
  const records = await allRecords(second.hearth.log);
  const created = records.find((r) => r.type === 'user_created' && (r.data as any).name === 'Alice Liddell')!;
  t.match(created.data, { is_owner: false, is_active: true, system_generated: false, group_ids: ['system-users'] });
  t.equal(created.context.user_id, null);
  const credential = records.find((r) => r.type === 'credential_added' && (r.data as any).data.username === 'alice')!;
  t.equal(credential.stream, created.stream);
  t.match((credential.data as any).password_hash, /^scrypt\$/);
  t.match(records.find((r) => r.type === 'user_created' && (r.data as any).name === 'bob')!.data, { group_ids: ['system-admin'] });
  t.notOk(JSON.stringify(records).includes(ALICE_PASSWORD), 'no password in the log');
  // onboarding is left as it was
  t.same((await (await fetch(`${second.base}/api/onboarding`)).json()).find((s: any) => s.step === 'user'), { step: 'user', done: true });
  await second.hearth.stop();

  // change_password: the old password fails from then on, the new one works
  const changed = await hearthAuth(['change_password', 'ALICE', ALICE_NEW_PASSWORD, '--data', dataDir]);
  t.same([changed.code, changed.out], [0, 'Password changed\n']);
  const missing = await hearthAuth(['change_password', 'carol', ALICE_NEW_PASSWORD, '--data', dataDir]);
  t.same([missing.code, missing.out], [1, 'User not found\n']);
  t.same((await hearthAuth(['validate', 'alice', ALICE_PASSWORD, '--data', dataDir])).out, 'Auth invalid\n');
  t.same((await hearthAuth(['validate', 'alice', ALICE_NEW_PASSWORD, '--data', dataDir])).out, 'Auth valid\n');

  const third = await startTestHearth(t, { dataDir });
  const old = await login(third.base, 'alice', ALICE_PASSWORD);
  t.same(old.json.errors, { base: 'invalid_auth' }, 'the old password fails');
  const fresh = await login(third.base, 'alice', ALICE_NEW_PASSWORD);
  t.equal(fresh.json.type, 'create_entry', 'the new password works');
  t.equal((await login(third.base, 'owner', OWNER_PASSWORD)).json.type, 'create_entry', 'the owner is untouched');
  const changes = (await allRecords(third.hearth.log)).filter((r) => r.type === 'password_changed');
  t.equal(changes.length, 1);
  t.equal((changes[0].data as any).credential_id, (credential.data as any).id);

  for (const run of [list, added, again, valid, wrong, changed, missing]) {
    t.notOk((run.out + run.err).includes(ALICE_PASSWORD) || (run.out + run.err).includes(ALICE_NEW_PASSWORD), 'passwords are never printed');
  }
});

t.test('on an install not yet onboarded, add refuses: onboarding makes the owner', async (t) => {
  const dataDir = await dataDirWith();
  const first = await startTestHearth(t, { dataDir });
  await first.hearth.stop();
  const run = await hearthAuth(['add', 'rescue', 'rescue-pw', '--data', dataDir]);
  t.equal(run.code, 1);
  t.match(run.err, /not onboarded yet/);
  t.equal((await hearthAuth(['list', '--data', dataDir])).out, '\nTotal users: 0\n', 'nobody was added');
  const second = await startTestHearth(t, { dataDir });
  const steps = await (await fetch(`${second.base}/api/onboarding`)).json();
  t.same(steps.find((s: any) => s.step === 'user'), { step: 'user', done: false });
});

t.test('bad usage prints the usage and exits 2; a missing data directory exits 1', async (t) => {
  const dataDir = await dataDirWith();
  for (const args of [[], ['frobnicate'], ['add', 'onlyuser'], ['list', 'extra'], ['list', '--bogus'], ['validate', 'a', 'b', '--admin'], ['add', 'a', '']]) {
    const run = await hearthAuth([...args, '--data', dataDir]);
    t.equal(run.code, 2, `exit 2 for ${JSON.stringify(args)}`);
    t.match(run.err, /usage:\n  hearth auth list/);
    t.notMatch(run.err, /\n\s+at /);
  }
  const help = await hearthAuth(['--help']);
  t.equal(help.code, 0);
  t.match(help.out, /onboarding state is left untouched/);
  const nowhere = await hearthAuth(['list', '--data', `${dataDir}/missing`]);
  t.equal(nowhere.code, 1);
  t.match(nowhere.err, /no data directory at .*missing/);
});

t.test('bans and unban: a banned address is let back in by hearth auth unban', async (t) => {
  const first = await startTestHearth(t, { config: 'http:\n  use_x_forwarded_for: true\n  trusted_proxies: 127.0.0.1/32\n  login_attempts_threshold: 1\n' });
  const dataDir = first.dataDir;
  await onboard(first.base);
  const from = { 'X-Forwarded-For': '203.0.113.77' };
  t.equal((await fetch(`${first.base}/api/`, { headers: from })).status, 401, 'one 401 ...');
  t.equal((await fetch(`${first.base}/api/`, { headers: from })).status, 403, '... bans at threshold 1');
  await first.hearth.stop();

  const listed = await hearthAuth(['bans', '--data', dataDir]);
  t.equal(listed.code, 0);
  t.match(listed.out, /^203\.0\.113\.77 \(banned \d{4}-\d\d-\d\dT[^)]+\)\n\nTotal banned: 1\n$/);
  t.match(await hearthAuth(['unban', '198.51.100.1', '--data', dataDir]), { code: 1, out: 'Not banned: 198.51.100.1\n' });
  t.match(await hearthAuth(['unban', 'nonsense', '--data', dataDir]), { code: 2, err: /not an IP address: "nonsense"/ });
  t.match(await hearthAuth(['unban', '--data', dataDir]), { code: 2, err: /unban takes one address/ });
  t.match(await hearthAuth(['unban', '203.0.113.77', '--data', dataDir]), { code: 0, out: 'Unbanned 203.0.113.77\n' });
  t.match(await hearthAuth(['bans', '--data', dataDir]), { code: 0, out: '\nTotal banned: 0\n' });

  const again = await startTestHearth(t, { dataDir });
  t.equal((await fetch(`${again.base}/api/`, { headers: from })).status, 401, 'let back in: 401, not 403');
  const records = await allRecords(again.hearth.log);
  t.ok(records.some((r: any) => r.type === 'ip_unbanned' && r.data.ip_address === '203.0.113.77'), 'the unban is a record in the log');
});
