// The log explorer's commands on a real Hearth: the home at a past moment, pages of records with
// filters, following a state change back to its service call, user and token, admin only, and
// clear errors for bad input.
import t from 'tap';
import { manualClock } from '../../../actors/clock.ts';
import { startTestHearth, onboard, api, CLIENT_ID } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { userToken } from '../../helpers/ws-sorting.ts';

const CONFIG = 'input_boolean:\n  porch:\n    name: Porch\n';
const T0 = Math.floor(Date.now() / 1000) * 1000;
const S = 1000;
const iso = (seconds: number) => new Date(T0 + seconds * S).toISOString();

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

const stateOf = (states: any[], id: string) => states.find((s) => s.entity_id === id);

t.test('the log explorer', async (t) => {
  const clock = manualClock(T0, 0.001);
  const h = await startTestHearth(t, { config: CONFIG, clock });
  const tokens = await onboard(h.base);
  const owner = api(h.base, tokens.access_token);
  const ws = await authedClient(h.base, tokens.access_token);
  t.teardown(() => ws.ws.close());

  // 10 s: a sensor and the porch toggled on; 20 s: a new sensor, the porch off by a service call
  // over REST; 30 s: the first sensor removed
  clock.set(T0 + 10 * S);
  t.equal((await owner('POST', '/api/states/sensor.temp', { state: '20', attributes: { unit: '°C' } })).status, 201);
  const on = await owner('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.porch' });
  t.equal(on.status, 200);
  clock.set(T0 + 20 * S);
  t.equal((await owner('POST', '/api/states/sensor.later', { state: 'new' })).status, 201);
  const off = await owner('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.porch' });
  t.equal(off.status, 200);
  clock.set(T0 + 30 * S);
  t.equal((await owner('DELETE', '/api/states/sensor.temp')).status, 200);
  clock.set(T0 + 40 * S);

  t.test('hearth/state_at: the home before, between and after the changes', async (t) => {
    const before = await ask(ws, { type: 'hearth/state_at', time: iso(5) });
    t.equal(before.success, true);
    t.notOk(stateOf(before.result.states, 'sensor.temp'), 'no sensor before it was written');
    t.notOk(stateOf(before.result.states, 'sensor.later'));

    const at15 = await ask(ws, { type: 'hearth/state_at', time: iso(15) });
    t.equal(stateOf(at15.result.states, 'sensor.temp')?.state, '20');
    t.same(stateOf(at15.result.states, 'sensor.temp')?.attributes, { unit: '°C' });
    t.equal(stateOf(at15.result.states, 'input_boolean.porch')?.state, 'on');
    t.notOk(stateOf(at15.result.states, 'sensor.later'), 'an entity made later is not there yet');
    t.match(stateOf(at15.result.states, 'sensor.temp').last_changed, /^\d{4}-\d\d-\d\dT.*\+00:00$/, 'the wire form of a state');
    t.ok(at15.result.seq > before.result.seq, 'the seq of the last record at or before the moment');

    const at25 = await ask(ws, { type: 'hearth/state_at', time: iso(25) });
    t.equal(stateOf(at25.result.states, 'input_boolean.porch')?.state, 'off');
    t.equal(stateOf(at25.result.states, 'sensor.later')?.state, 'new');
    t.equal(stateOf(at25.result.states, 'sensor.temp')?.state, '20', 'still there before its removal');

    const at35 = await ask(ws, { type: 'hearth/state_at', time: iso(35) });
    t.notOk(stateOf(at35.result.states, 'sensor.temp'), 'a removed entity is gone');
    t.equal(stateOf(at35.result.states, 'sensor.later')?.state, 'new');
    const now = await owner('GET', '/api/states');
    t.same(
      at35.result.states.map((s: any) => s.entity_id),
      now.json.map((s: any) => s.entity_id).sort(),
      'after the last change: the entities GET /api/states has',
    );
    t.same(stateOf(at35.result.states, 'input_boolean.porch'), now.json.find((s: any) => s.entity_id === 'input_boolean.porch'), 'the same state object');
  });

  t.test('hearth/log: filters and paging', async (t) => {
    const all = await ask(ws, { type: 'hearth/log', limit: 1000 });
    t.equal(all.success, true);
    const seqs = all.result.records.map((r: any) => r.seq);
    t.same(seqs, [...seqs].sort((a, b) => a - b), 'in seq order');
    t.equal(all.result.more, false);

    const changes = await ask(ws, { type: 'hearth/log', entity_id: 'input_boolean.porch', event_type: 'state_changed' });
    t.same(
      changes.result.records.map((r: any) => r.data.new_state?.state),
      ['off', 'on', 'off'],
      'the porch: made off, turned on, toggled off',
    );
    const calls = await ask(ws, { type: 'hearth/log', entity_id: 'input_boolean.porch', event_type: 'call_service' });
    t.same(calls.result.records.map((r: any) => r.data.service), ['turn_on', 'toggle'], 'calls aimed at the entity');

    const window = await ask(ws, { type: 'hearth/log', start_time: iso(15), end_time: iso(25), event_type: 'state_changed' });
    t.same(window.result.records.map((r: any) => r.stream).sort(), ['entity/input_boolean.porch', 'entity/sensor.later']);

    const mine = await ask(ws, { type: 'hearth/log', user_id: on.json[0].context.user_id, event_type: 'state_changed' });
    t.ok(mine.result.records.length >= 4, 'the owner made the written states');

    // paging: three records at a time forward, then backward from the end
    const first = await ask(ws, { type: 'hearth/log', limit: 3 });
    t.equal(first.result.records.length, 3);
    t.equal(first.result.more, true);
    const second = await ask(ws, { type: 'hearth/log', limit: 3, after_seq: first.result.cursor });
    t.same(second.result.records.map((r: any) => r.seq), seqs.slice(3, 6));
    const last = await ask(ws, { type: 'hearth/log', limit: 2, before_seq: Number.MAX_SAFE_INTEGER });
    t.same(last.result.records.map((r: any) => r.seq), seqs.slice(-2), 'the two last, in seq order');
    const before = await ask(ws, { type: 'hearth/log', limit: 2, before_seq: last.result.cursor });
    t.same(before.result.records.map((r: any) => r.seq), seqs.slice(-4, -2));

    // secrets as replay prints them
    const auth = all.result.records.find((r: any) => r.type === 'refresh_token_created');
    t.ok(auth, 'a token record is in the log');
    t.equal(auth.data.token, '***');
    t.equal(auth.data.jwt_key, '***');
    t.notOk(JSON.stringify(all.result).includes(tokens.refresh_token), 'no secret anywhere');
  });

  t.test('hearth/context: from a state change to the call, the user and the token', async (t) => {
    const changes = await ask(ws, { type: 'hearth/log', entity_id: 'input_boolean.porch', event_type: 'state_changed', start_time: iso(15) });
    const change = changes.result.records[0];
    t.equal(change.data.new_state.state, 'off');
    t.notOk('token' in change.context, 'the record as replay prints it has no token in its context');
    const r = await ask(ws, { type: 'hearth/context', context_id: change.context.id });
    t.equal(r.success, true);
    const [link] = r.result.chain;
    t.equal(link.context.id, change.context.id);
    t.equal(link.cause.type, 'call_service', 'started by the service call');
    t.same(link.cause.data, { domain: 'input_boolean', service: 'toggle', service_data: { entity_id: 'input_boolean.porch' } });
    t.same(
      link.records.map((x: any) => x.type),
      ['call_service', 'state_changed'],
    );
    t.same(link.user, { id: change.context.user_id, name: 'Owner' });
    t.match(link.token, { client_id: CLIENT_ID, token_type: 'normal', revoked: false });
    const current = await ask(ws, { type: 'auth/refresh_tokens' });
    const mine = current.result.find((x: any) => x.is_current);
    t.equal(link.token.id, mine.id, "the token of the request: the owner's sign-in");

    const written = await ask(ws, { type: 'hearth/log', entity_id: 'sensor.later' });
    const byRest = await ask(ws, { type: 'hearth/context', context_id: written.result.records[0].context.id });
    t.equal(byRest.result.chain[0].cause.type, 'state_changed', 'a REST write starts its own context');
    t.equal(byRest.result.chain[0].token.id, mine.id);

    const unknown = await ask(ws, { type: 'hearth/context', context_id: '01ARZ3NDEKTSV4RRFFQ69G5FAV' });
    t.same(unknown.result.chain, [{ context: { id: '01ARZ3NDEKTSV4RRFFQ69G5FAV', parent_id: null, user_id: null }, cause: null, records: [], more: false, user: null, token: null }]);
  });

  t.test('the wire is unchanged: contexts carry no token', async (t) => {
    t.same(Object.keys(off.json[0].context), ['id', 'parent_id', 'user_id']);
    const states = await owner('GET', '/api/states/input_boolean.porch');
    t.same(Object.keys(states.json.context), ['id', 'parent_id', 'user_id']);
    const called = await ask(ws, { type: 'call_service', domain: 'input_boolean', service: 'toggle', target: { entity_id: 'input_boolean.porch' } });
    t.same(Object.keys(called.result.context), ['id', 'parent_id', 'user_id']);
    // a change after the explorer's first question is known to it
    const later = await ask(ws, { type: 'hearth/state_at', time: iso(50) });
    t.equal(stateOf(later.result.states, 'input_boolean.porch')?.state, 'on', 'toggled on again by the call just made');
    const earlier = await ask(ws, { type: 'hearth/state_at', time: iso(35) });
    t.equal(stateOf(earlier.result.states, 'input_boolean.porch')?.state, 'off', 'and still off before it');
  });

  t.test('bad input gets a clear error', async (t) => {
    const badTime = await ask(ws, { type: 'hearth/state_at', time: 'yesterday' });
    t.equal(badTime.error.code, 'invalid_format');
    t.match(badTime.error.message, /time/);
    const badStart = await ask(ws, { type: 'hearth/log', start_time: '2026-13-45' });
    t.match(badStart.error, { code: 'invalid_format', message: /start_time/ });
    const badLimit = await ask(ws, { type: 'hearth/log', limit: 5000 });
    t.match(badLimit.error, { code: 'invalid_format', message: /limit/ });
    const zero = await ask(ws, { type: 'hearth/log', limit: 0 });
    t.match(zero.error, { code: 'invalid_format', message: /limit/ });
    const reversed = await ask(ws, { type: 'hearth/log', start_time: iso(20), end_time: iso(10) });
    t.match(reversed.error, { code: 'invalid_format', message: /end_time/ });
    const noId = await ask(ws, { type: 'hearth/context' });
    t.equal(noId.error.code, 'invalid_format');
    const extra = await ask(ws, { type: 'hearth/log', colour: 'red' });
    t.equal(extra.error.code, 'invalid_format');
  });

  t.test('admin only', async (t) => {
    const userWs = await authedClient(h.base, await userToken(h.base, tokens.access_token));
    t.teardown(() => userWs.ws.close());
    for (const msg of [{ type: 'hearth/state_at', time: iso(15) }, { type: 'hearth/log' }, { type: 'hearth/context', context_id: 'x' }]) {
      const r = await ask(userWs, msg);
      t.match(r.error, { code: 'unauthorized' }, msg.type);
    }
  });
});
