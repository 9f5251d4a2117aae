// The supervisor's client of the core (actors/supervisor/core/api.ts) against a real in-process
// core that a test supervisor runs: the refresh token handed over at the core's start is traded
// once per access-token lifetime (each trade is a `refresh_token_used` record in the core's log),
// REST and WebSocket calls go through, lookupUser finds a user.
import t from 'tap';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { startTestHearth, onboard } from '../../../helpers/hearth.ts';
import { coreRefreshToken } from '../../../helpers/supervised-core.ts';
import { CoreApi } from '../../../../actors/supervisor/core/api.ts';
import { eventually } from '../../../helpers/wait.ts';

t.test('token trades, REST, WebSocket command, lookupUser', async (t) => {
  const sup = await startTestSupervisor(t);
  const coreToken = (await sup.supervisor.tokens.rotateCore({ id: 'x', parent_id: null, user_id: null })).token;
  const core = await startTestHearth(t, { supervisor: { url: sup.base, token: coreToken } });
  const refreshToken = await eventually('the handover', () => coreRefreshToken(sup));
  const owner = await onboard(core.base);

  let now = Date.now();
  const api = new CoreApi({ url: async () => core.base, refreshToken: () => refreshToken, clock: { now: () => now } });
  const trades = async () => {
    let n = 0;
    for await (const r of core.hearth.log.readStreams('auth/refresh_token/')) if (r.type === 'refresh_token_used' && (r.data as any).last_used_ip !== undefined) n++;
    return n;
  };
  const before = await trades();
  t.equal((await api.request('GET', '/api/')).status, 200, 'REST with the traded token');
  await Promise.all([api.request('GET', '/api/config'), api.request('GET', '/api/'), api.up()]);
  t.equal(await trades(), before + 1, 'one trade for many requests, concurrent ones included');
  now += 1800 * 1000; // the access token's lifetime
  t.ok(await api.up());
  t.equal(await trades(), before + 2, 'a new trade once the token nears its end');

  const users = await api.users();
  const ownerEntry = users.find((u) => u.is_owner)!;
  t.match(ownerEntry, { username: 'owner', name: 'Owner', is_active: true });
  t.match(users.find((u) => u.system_generated), { name: 'Supervisor', group_ids: ['system-admin'] }, 'config/auth/list over the WebSocket');
  t.same(await api.lookupUser(ownerEntry.id), ownerEntry);
  t.equal(await api.lookupUser('nobody'), undefined);
  t.ok(owner.access_token);

  const refused = new CoreApi({ url: async () => core.base, refreshToken: () => 'not-a-token', clock: { now: () => now } });
  await t.rejects(refused.request('GET', '/api/'), { message: /refused the supervisor's refresh token/ }, 'a refresh token the core does not know');
  t.equal(await refused.up(), false);
  const none = new CoreApi({ url: async () => core.base, refreshToken: () => null, clock: { now: () => now } });
  await t.rejects(none.users(), { message: 'the core has not handed the supervisor a refresh token yet' });
});
