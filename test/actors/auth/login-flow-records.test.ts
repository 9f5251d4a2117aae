import t from 'tap';
import { manualClock, randomIds } from '../../../actors/clock.ts';
import { FLOW_TTL_MS, LoginFlows, MAX_OPEN_FLOWS, type FlowInfo, type FlowProvider } from '../../../actors/auth/login-flows.ts';
import type { EventRecord } from '../../../store/types.ts';
import { CLIENT_ID, OWNER, REDIRECT_URI, call, exchange, login, onboardOwner, postForm, startAuthServer, tempDir } from './harness.ts';
import { allRecords } from '../../helpers/log-records.ts';

const startFlow = (base: string, body: Record<string, unknown> = {}) =>
  call(base, 'POST', '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_uri: REDIRECT_URI, ...body });

const flowRecords = (records: EventRecord[]) => records.filter((r) => r.stream.startsWith('auth/login_flow/'));

t.test('opening login flows adds nothing to the log; finished ones are logged and their logins survive a restart', async (t) => {
  const dataDir = await tempDir();
  const first = await startAuthServer(t, { dataDir });
  const onboarded = (await exchange(first.base, await onboardOwner(first.base))).json;
  const seqBefore = first.log.lastSeq();
  const countBefore = (await allRecords(first.log)).length;

  // what a client can do without signing in: open flows, abandon them, drop them, send junk
  const opened: string[] = [];
  for (let round = 0; round < 10; round++) {
    const replies = await Promise.all(Array.from({ length: 20 }, () => startFlow(first.base)));
    for (const res of replies) {
      t.equal(res.status, 200);
      opened.push(res.json.flow_id);
    }
  }
  t.equal(opened.length, 200);
  for (const flowId of opened.slice(0, 50)) t.equal((await call(first.base, 'DELETE', `/auth/login_flow/${flowId}`)).status, 200);
  for (const flowId of opened.slice(50, 60)) {
    t.equal((await call(first.base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, username: 'a' })).status, 400);
  }
  t.equal(first.log.lastSeq(), seqBefore, '200 flows opened, 50 dropped, 10 sent junk: no seq used');
  t.equal((await allRecords(first.log)).length, countBefore, 'and no record added');

  // a failed password check is a finished attempt: one record, with the username but no password
  const failed = await login(first.base, OWNER.username, 'not-the-password-3c1d');
  t.same(failed.json.errors, { base: 'invalid_auth' });
  let records = flowRecords(await allRecords(first.log));
  t.equal(records.length, 1, 'one record for the failed login');
  t.match(records[0].data, {
    type: 'form',
    errors: { base: 'invalid_auth' },
    username: OWNER.username,
    client_id: CLIENT_ID,
    redirect_uri: REDIRECT_URI,
    flow_type: 'authorize',
    ip_address: '127.0.0.1',
  });

  // a login: one record, and the code it yields is exchangeable
  const done = await login(first.base, OWNER.username, OWNER.password);
  t.equal(done.json.type, 'create_entry');
  records = flowRecords(await allRecords(first.log));
  t.equal(records.length, 2, 'one more record for the login');
  t.match(records[1], {
    stream: `auth/login_flow/${done.json.flow_id}`,
    type: 'login_flow_step',
    data: { type: 'create_entry', credential_id: /^[0-9a-f]{32}$/, client_id: CLIENT_ID, redirect_uri: REDIRECT_URI, ip_address: '127.0.0.1' },
  });
  t.notOk(JSON.stringify(records).includes('not-the-password'), 'no password in any flow record');
  t.notOk(JSON.stringify(records).includes(OWNER.password));
  const tokens = (await exchange(first.base, done.json.result)).json;
  t.type(tokens.refresh_token, 'string', 'the code of the finished flow is exchanged');

  // the second life restores from the log alone
  await first.close();
  const second = await startAuthServer(t, { dataDir });
  for (const [name, refresh] of [['onboarding', onboarded.refresh_token], ['login', tokens.refresh_token]]) {
    const res = await postForm(second.base, '/auth/token', { grant_type: 'refresh_token', refresh_token: refresh, client_id: CLIENT_ID });
    t.equal(res.status, 200, `the ${name} refresh token works after the restart`);
  }
  const again = await login(second.base, OWNER.username, OWNER.password);
  t.equal(again.json.type, 'create_entry', 'the password logs in after the restart');
  t.equal((await exchange(second.base, again.json.result)).status, 200);
  t.equal(flowRecords(await allRecords(second.log)).length, 3);
  t.equal((await call(second.base, 'POST', `/auth/login_flow/${opened[100]}`, { client_id: CLIENT_ID, username: 'a', password: 'b' })).status, 404, 'a flow opened before the restart is gone');
});

t.test('a failed login with huge fields writes a small record', async (t) => {
  const { base, log } = await startAuthServer(t);
  await onboardOwner(base);
  const huge = 'u'.repeat(200_000);
  const res = await startFlow(base, { redirect_uri: 'http://127.0.0.1/?' + 'r'.repeat(200_000) });
  t.equal((await call(base, 'POST', `/auth/login_flow/${res.json.flow_id}`, { client_id: CLIENT_ID, username: huge, password: 'x' })).json.errors.base, 'invalid_auth');
  const [record] = flowRecords(await allRecords(log));
  t.ok(JSON.stringify(record).length < 2000, 'the record holds clipped fields');
});

interface Flows {
  flows: LoginFlows;
  clock: ReturnType<typeof manualClock>;
  said: string[];
}

function loginFlows(maxOpenFlows?: number): Flows {
  const clock = manualClock(Date.UTC(2025, 0, 2));
  const said: string[] = [];
  const flows = new LoginFlows({
    clock,
    ids: randomIds(),
    verifyMfaCode: async () => false,
    log: (line) => said.push(line),
    maxOpenFlows,
  });
  return { flows, clock, said };
}

const provider: FlowProvider = {
  name: 'Test',
  open: () => ({ kind: 'form', schema: [{ type: 'string', name: 'username', required: true }, { type: 'string', name: 'password', required: true }] }),
  check: async ({ username }) => (username === 'u' ? { credentialId: 'c', userId: 'u1', mfaModules: [] } : null),
};

/** Starts a flow and returns its id (each starts with the init form). */
async function opened(flows: LoginFlows): Promise<string> {
  const outcome = await flows.start(info, provider);
  if (outcome.kind !== 'form') throw new Error(`expected a form, got ${outcome.kind}`);
  return outcome.flow.flowId;
}

const info: Omit<FlowInfo, 'flowId' | 'createdAt'> = {
  handler: ['core', null],
  clientId: CLIENT_ID,
  redirectUri: REDIRECT_URI,
  ip: '10.0.0.1',
  flowType: 'authorize',
  credentialOnly: false,
};

t.test('an abandoned login flow expires after ten minutes', async (t) => {
  const { flows, clock } = loginFlows();
  t.equal(FLOW_TTL_MS, 10 * 60 * 1000);
  const a = (await opened(flows));
  clock.advance(FLOW_TTL_MS - 1);
  const b = (await opened(flows));
  t.ok(flows.get(a), 'still there just before it expires');
  clock.advance(1);
  t.same(await flows.step(a, { username: 'u', password: 'p' }, info.ip), { kind: 'unknown_flow' }, 'expired: a submission finds no flow');
  t.equal(flows.get(a), undefined);
  t.equal(flows.abort(a), false);
  t.match(await flows.step(b, { username: 'u', password: 'p' }, info.ip), { kind: 'finished' }, 'the younger flow still works');
  clock.advance(FLOW_TTL_MS);
  await flows.start(info, provider);
  t.equal(flows.size, 1, 'starting a flow drops the expired ones');
});

t.test('past the cap the oldest open flows are dropped, with a line that says so', async (t) => {
  const { flows, said } = loginFlows(5);
  const ids = [] as string[];
  for (let i = 0; i < 8; i++) ids.push((await opened(flows)));
  t.equal(flows.size, 5);
  for (const id of ids.slice(0, 3)) t.equal(flows.get(id), undefined, 'an oldest flow was dropped');
  for (const id of ids.slice(3)) t.ok(flows.get(id));
  t.match(await flows.step(ids[7], { username: 'u', password: 'p' }, info.ip), { kind: 'finished' });
  t.equal(said.length, 1, 'one line, not one per dropped flow');
  t.match(said[0], /more than 5 open; dropped 1 unfinished, oldest first/);
});

t.test('a flow pushed out while its password is checked answers as an unknown flow', async (t) => {
  const { flows } = loginFlows(1);
  const a = (await opened(flows));
  const checking = flows.step(a, { username: 'u', password: 'p' }, info.ip);
  await flows.start(info, provider);
  t.same(await checking, { kind: 'unknown_flow' });
});

t.test('100,000 opened flows keep at most the cap in memory', async (t) => {
  const { flows, said } = loginFlows();
  for (let i = 0; i < 100_000; i++) await flows.start(info, provider);
  t.equal(flows.size, MAX_OPEN_FLOWS);
  t.ok(said.length >= 1 && said.length <= 2, 'the drops are reported, briefly');
});
