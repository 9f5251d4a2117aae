// Ingress sessions over a real supervisor: made and checked by the core only, extended by each
// check, expired after 15 minutes on the supervisor's clock, kept across a restart.
import t from 'tap';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { manualClock } from '../../../../actors/clock.ts';
import { INGRESS_SESSION_PREFIX } from '../../../../actors/supervisor/ingress/sessions.ts';
import { fakeApps } from '../../../helpers/ingress-apps.ts';

const ctx = { id: 'x', parent_id: null, user_id: null };
const MINUTE = 60_000;
const USERS = { u1: { id: 'u1', username: 'ada', name: 'Ada Lovelace' } };
const lookupIngressUser = async (id: string) => USERS[id as keyof typeof USERS];

t.test('sessions: core only, 128 hex, validated and extended, expired after 15 minutes, kept across a restart', async (t) => {
  const dataDir = await supervisorDataDir();
  const clock = manualClock(Date.parse('2026-11-24T08:00:00Z'));
  const s = await startTestSupervisor(t, { dataDir, clock, lookupIngressUser });
  const core = (await s.supervisor.tokens.rotateCore(ctx)).token;

  // refused for everyone but the core, the operator and an admin app included: the original's text 401
  const admin = (await s.supervisor.tokens.issue({ name: 'a', kind: 'app', role: 'admin' }, ctx)).token;
  for (const token of [s.supervisor.adminToken, admin]) {
    const res = await s.call('POST', '/ingress/session', { token, body: {} });
    t.equal(res.status, 401);
    t.equal(await res.text(), '401: Unauthorized');
    t.equal((await s.call('POST', '/ingress/validate_session', { token, body: { session: 'x' } })).status, 401);
  }
  t.equal((await s.call('POST', '/ingress/session', { token: null })).status, 401, 'no token: 401');

  const made = await s.json('POST', '/ingress/session', { token: core });
  t.equal(made.status, 200);
  t.equal(made.body.result, 'ok');
  const session: string = made.body.data.session;
  t.match(session, /^[0-9a-f]{128}$/, 'a session is 128 hex characters');

  const check = (value: unknown) => s.call('POST', '/ingress/validate_session', { token: core, body: { session: value } });
  let res = await check(session);
  t.equal(res.status, 200);
  t.same(await res.json(), { result: 'ok', data: {} });

  res = await check('f'.repeat(128));
  t.equal(res.status, 401, 'an unknown session: text 401');
  t.equal(await res.text(), '401: Unauthorized');
  t.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
  t.same(await (await s.call('POST', '/ingress/validate_session', { token: core, body: {} })).json(), { result: 'error', message: "required key not provided @ data['session']. Got None" });
  t.same(await (await s.call('POST', '/ingress/validate_session', { token: core, body: { session: 5 } })).json(), { result: 'error', message: "expected str @ data['session']. Got 5" });
  t.same(await (await s.call('POST', '/ingress/session', { token: core, body: { user_id: ['x'] } })).json(), { result: 'error', message: `expected str @ data['user_id']. Got ["x"]` });

  // made at 08:00 (ends 08:15), checked once (ends 08:30): at 08:29 still good, twice more ends 09:00
  clock.advance(29 * MINUTE);
  t.equal((await check(session)).status, 200, 'the check moved the end 15 minutes past the previous end');
  // extensions are written together: one record for both checks, with the end they reached
  await s.supervisor.deps.ingress!.flush();
  clock.advance(30 * MINUTE); // 08:59, the end is 08:45 now
  t.equal((await check(session)).status, 401, 'past its end: refused');
  t.equal((await check(session)).status, 401, 'and purged');

  // no token is kept in clear; the expiry is a record
  const records = [];
  for await (const r of s.supervisor.log.readStreams(INGRESS_SESSION_PREFIX)) records.push(r);
  t.same(records.map((r) => r.type), ['ingress_session_created', 'ingress_session_extended', 'ingress_session_expired']);
  t.equal((records[1].data as { expires: number }).expires - (records[0].data as { created: number }).created, 45 * MINUTE, 'made, then two checks: 45 minutes');
  t.notOk(JSON.stringify(records).includes(session), 'the session token is not in the log');

  // checks at the same moment each count, as the original's do
  const busy = (await s.json('POST', '/ingress/session', { token: core })).body.data.session;
  const ends = await Promise.all(Array.from({ length: 10 }, () => s.supervisor.deps.ingress!.validate(busy, ctx)));
  t.equal(Math.max(...ends.map((e) => e!.expires)) - clock.now(), 11 * 15 * MINUTE, 'ten checks at once: ten extensions');
  // extended, not yet written: written as the supervisor stops, so the end survives a restart
  const kept = (await s.json('POST', '/ingress/session', { token: core })).body.data.session;
  for (let i = 0; i < 3; i++) t.equal((await check(kept)).status, 200);

  // a session for a user: kept with the user, across a restart
  const forUser = (await s.json('POST', '/ingress/session', { token: core, body: { user_id: 'u1' } })).body.data.session;
  const forNobody = (await s.json('POST', '/ingress/session', { token: core, body: { user_id: 'nobody' } })).body.data.session;
  const stale = (await s.json('POST', '/ingress/session', { token: core })).body.data.session;
  await s.supervisor.stop();
  clock.advance(10 * MINUTE);
  const again = await startTestSupervisor(t, { dataDir, clock, lookupIngressUser });
  const core2 = again.supervisor.tokens.ofKind('core')!.token;
  const check2 = (value: string) => again.call('POST', '/ingress/validate_session', { token: core2, body: { session: value } });
  t.equal((await check2(forUser)).status, 200, 'a session survives a restart');
  clock.advance(40 * MINUTE); // 50 minutes after `kept` was made; its three checks moved its end to 60
  t.equal((await check2(kept)).status, 200, 'its extensions too (written at stop)');
  clock.advance(-40 * MINUTE);
  t.same(await again.supervisor.deps.ingress!.validate(forUser, ctx).then((v) => v?.user), USERS.u1, 'with its user');
  t.same(await again.supervisor.deps.ingress!.validate(forNobody, ctx).then((v) => v?.user), null, 'an unknown user id: no user');
  clock.advance(6 * MINUTE); // 16 minutes after it was made, never checked
  t.equal((await check2(stale)).status, 401, 'a session never checked ends 15 minutes after it was made');
});

t.test('a user lookup that fails leaves the session without a user; the lookup can be set later', async (t) => {
  const s = await startTestSupervisor(t, { lookupIngressUser: async () => {
    throw new Error('core unreachable');
  } });
  const core = (await s.supervisor.tokens.rotateCore(ctx)).token;
  const made = await s.json('POST', '/ingress/session', { token: core, body: { user_id: 'u1' } });
  t.equal(made.status, 200);
  t.same((await s.supervisor.deps.ingress!.validate(made.body.data.session, ctx))?.user, null);
  s.supervisor.deps.ingress!.lookupUser = lookupIngressUser;
  const later = await s.json('POST', '/ingress/session', { token: core, body: { user_id: 12 } });
  t.same((await s.supervisor.deps.ingress!.validate(later.body.data.session, ctx))?.user, null, 'an id coerced to a string, unknown');
  const known = await s.json('POST', '/ingress/session', { token: core, body: { user_id: 'u1' } });
  t.same((await s.supervisor.deps.ingress!.validate(known.body.data.session, ctx))?.user, USERS.u1);
});

t.test('sessions expired while the supervisor was down are purged at start', async (t) => {
  const dataDir = await supervisorDataDir();
  const clock = manualClock(Date.parse('2026-11-24T08:00:00Z'));
  const s = await startTestSupervisor(t, { dataDir, clock });
  const core = (await s.supervisor.tokens.rotateCore(ctx)).token;
  await s.json('POST', '/ingress/session', { token: core });
  await s.json('POST', '/ingress/session', { token: core });
  t.equal(s.supervisor.deps.ingress!.size, 2);
  await s.supervisor.stop();
  clock.advance(20 * MINUTE);
  const again = await startTestSupervisor(t, { dataDir, clock });
  t.equal(again.supervisor.deps.ingress!.size, 0, 'none is kept');
  const types = [];
  for await (const r of again.supervisor.log.readStreams(INGRESS_SESSION_PREFIX, { latest: true })) types.push(r.type);
  t.same(types, ['ingress_session_expired', 'ingress_session_expired']);
});

t.test('panels: each installed app with ingress, its title, icon, admin flag and whether shown, on both trees', async (t) => {
  const dataDir = await supervisorDataDir();
  const first = await startTestSupervisor(t, { dataDir });
  t.same((await first.json('GET', '/ingress/panels')).body, { result: 'ok', data: { panels: {} } }, 'no apps yet');
  await first.supervisor.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).set({ feature_flags: { supervisor_v2_api: true } }, ctx);
  await first.supervisor.stop();
  const s = await startTestSupervisor(t, { dataDir });
  s.supervisor.deps.apps = fakeApps([
    { slug: 'local_web', ingressToken: 'a', target: null, name: 'Web' },
    { slug: 'local_files', ingressToken: 'b', target: null, name: 'Files', panel: { title: 'File editor', icon: 'mdi:file', admin: false, enable: true } },
    { slug: 'local_plain', ingressToken: 'c', target: null, ingress: false },
  ]);
  const expected = {
    panels: {
      local_web: { title: 'Web', icon: 'mdi:puzzle', admin: true, enable: false },
      local_files: { title: 'File editor', icon: 'mdi:file', admin: false, enable: true },
    },
  };
  t.same((await s.json('GET', '/ingress/panels')).body, { result: 'ok', data: expected });
  t.same((await s.json('GET', '/v2/ingress/panels')).body, { result: 'ok', data: expected });
  const manager = (await s.supervisor.tokens.issue({ name: 'm', kind: 'app', role: 'manager' }, ctx)).token;
  t.equal((await s.call('GET', '/ingress/panels', { token: manager })).status, 200, 'a manager may read them');
  const reader = (await s.supervisor.tokens.issue({ name: 'd', kind: 'app', role: 'default' }, ctx)).token;
  t.equal((await s.call('GET', '/ingress/panels', { token: reader })).status, 403);
});
