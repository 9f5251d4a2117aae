import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { rawClient, authedClient } from '../helpers/ws.ts';

t.test('WebSocket API', async (t) => {
  const { base } = await startTestHearth(t);
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);

  t.test('handshake', async (t) => {
    const c = await rawClient(base);
    const first = await c.next();
    t.equal(first.type, 'auth_required');
    t.match(first.ha_version, /^\d{4}\.\d+\.\d+$/);
    c.send({ type: 'auth', access_token: tokens.access_token });
    const ok = await c.next();
    t.same(ok, { type: 'auth_ok', ha_version: first.ha_version });
    c.ws.close();
  });

  t.test('wrong token', async (t) => {
    const c = await rawClient(base);
    await c.next();
    c.send({ type: 'auth', access_token: 'nope' });
    t.same(await c.next(), { type: 'auth_invalid', message: 'Invalid access token or password' });
    await c.closed;
  });

  t.test('an api_password (a retired scheme) is well formed and never valid', async (t) => {
    const c = await rawClient(base);
    await c.next();
    c.send({ type: 'auth', api_password: 'anything' });
    t.same(await c.next(), { type: 'auth_invalid', message: 'Invalid access token or password' });
    await c.closed;
    const after = await rawClient(base);
    t.equal((await after.next()).type, 'auth_required', 'the server still serves');
    after.ws.close();
  });

  t.test('command before auth', async (t) => {
    const c = await rawClient(base);
    await c.next();
    c.send({ id: 1, type: 'get_states' });
    const m = await c.next();
    t.equal(m.type, 'auth_invalid');
    t.match(m.message, /^Auth message incorrectly formatted: /);
    await c.closed;
  });

  t.test('invalid JSON during auth closes without a message', async (t) => {
    const c = await rawClient(base);
    await c.next();
    c.send('{nope');
    await c.closed;
    t.equal(c.frames.length, 1, 'only auth_required was sent');
  });

  t.test('message and id rules', async (t) => {
    const c = await authedClient(base, tokens.access_token);
    c.send({ id: 5, type: 'ping' });
    t.same(await c.next(), { id: 5, type: 'pong' });
    c.send({ id: 5, type: 'ping' });
    t.same(await c.next(), { id: 5, type: 'result', success: false, error: { code: 'id_reuse', message: 'Identifier values have to increase.' } });
    c.send({ id: 6, type: 'no_such_thing' });
    t.same(await c.next(), { id: 6, type: 'result', success: false, error: { code: 'unknown_command', message: 'Unknown command.' } });
    c.send({ id: 6, type: 'ping' });
    t.same(await c.next(), { id: 6, type: 'pong' }, 'an unknown command does not use up its id');
    c.send({ type: 'ping' });
    t.same(await c.next(), { id: 0, type: 'result', success: false, error: { code: 'invalid_format', message: 'Message incorrectly formatted.' } });
    c.send([1, 2]);
    const [m1, m2] = [await c.next(), await c.next()];
    t.same([m1.error.code, m2.error.code], ['invalid_format', 'invalid_format'], 'each message of an array is answered');
    c.send({ id: 7, type: 'call_service', domain: 'core' });
    const invalid = await c.next();
    t.equal(invalid.error.code, 'invalid_format');
    t.match(invalid.error.message, /required key not provided @ data\['service'\]/);
    c.send({ id: 8, type: 'get_states', extra: 1 });
    const extra = await c.next();
    t.match(extra.error.message, /extra keys not allowed @ data\['extra'\]/);
    c.ws.close();
  });

  t.test('states, config, services, current user', async (t) => {
    await rest('POST', '/api/states/light.kitchen', { state: 'off', attributes: { friendly_name: 'Kitchen' } });
    const c = await authedClient(base, tokens.access_token);
    c.send({ id: 1, type: 'get_states' });
    const states = await c.next();
    t.equal(states.success, true);
    t.same(states.result.find((s: any) => s.entity_id === 'light.kitchen').attributes, { friendly_name: 'Kitchen' });
    c.send({ id: 2, type: 'get_config' });
    t.equal((await c.next()).result.state, 'RUNNING');
    c.send({ id: 3, type: 'get_services' });
    t.ok((await c.next()).result.core.turn_on);
    c.send({ id: 4, type: 'auth/current_user' });
    const user = (await c.next()).result;
    t.equal(user.name, 'Owner');
    t.equal(user.is_owner, true);
    t.equal(user.is_admin, true);
    t.same(user.credentials, [{ auth_provider_type: 'core', auth_provider_id: null }]);
    c.ws.close();
  });

  t.test('subscribe_events, unsubscribe_events, fire_event', async (t) => {
    const c = await authedClient(base, tokens.access_token);
    c.send({ id: 1, type: 'subscribe_events', event_type: 'test_event' });
    t.same(await c.next(), { id: 1, type: 'result', success: true, result: null });
    c.send({ id: 2, type: 'fire_event', event_type: 'test_event', event_data: { hello: 'world' } });
    const [a, b] = [await c.next(), await c.next()];
    const event = [a, b].find((m) => m.type === 'event');
    const result = [a, b].find((m) => m.type === 'result');
    t.equal(event.id, 1);
    t.equal(event.event.event_type, 'test_event');
    t.same(event.event.data, { hello: 'world' });
    t.equal(event.event.origin, 'LOCAL');
    t.same(Object.keys(event.event), ['event_type', 'data', 'origin', 'time_fired', 'context']);
    t.same(result.result.context, event.event.context);
    c.send({ id: 3, type: 'unsubscribe_events', subscription: 1 });
    t.same(await c.next(), { id: 3, type: 'result', success: true, result: null });
    c.send({ id: 4, type: 'unsubscribe_events', subscription: 1 });
    t.same((await c.next()).error, { code: 'not_found', message: 'Subscription not found.' });

    c.send({ id: 5, type: 'subscribe_events', event_type: 'state_changed' });
    await c.next();
    await rest('POST', '/api/states/sensor.ws', { state: '1' });
    const changed = await c.until((m) => m.type === 'event');
    t.equal(changed.event.data.entity_id, 'sensor.ws');
    t.equal(changed.event.data.old_state, null);
    t.equal(changed.event.data.new_state.state, '1');
    c.ws.close();
  });

  t.test('subscribe_entities: snapshot, then compressed diffs', async (t) => {
    await rest('POST', '/api/states/light.diff', { state: 'off', attributes: { a: 1, b: 2 } });
    const c = await authedClient(base, tokens.access_token);
    c.send({ id: 1, type: 'subscribe_entities', entity_ids: ['light.diff', 'light.later'] });
    t.same(await c.next(), { id: 1, type: 'result', success: true, result: null });
    const snap = await c.next();
    t.same(Object.keys(snap.event.a), ['light.diff']);
    const s = snap.event.a['light.diff'];
    t.equal(s.s, 'off');
    t.same(s.a, { a: 1, b: 2 });
    t.type(s.lc, 'number');
    t.notOk('lu' in s, 'lu is left out while equal to lc');
    t.same(Object.keys(s.c), ['id', 'parent_id', 'user_id'], 'context with a user is an object');

    await rest('POST', '/api/states/light.diff', { state: 'on', attributes: { a: 1, c: 3 } });
    const change = (await c.next()).event.c['light.diff'];
    t.equal(change['+'].s, 'on');
    t.type(change['+'].lc, 'number');
    t.notOk('lu' in change['+']);
    t.same(change['+'].a, { c: 3 });
    t.same(change['-'], { a: ['b'] });
    t.type(change['+'].c, 'string', 'same user: only the new context id');

    await rest('POST', '/api/states/light.diff', { state: 'on', attributes: { a: 2, c: 3 } });
    const attrOnly = (await c.next()).event.c['light.diff'];
    t.notOk('s' in attrOnly['+']);
    t.notOk('lc' in attrOnly['+']);
    t.type(attrOnly['+'].lu, 'number');

    await rest('POST', '/api/states/light.later', { state: 'on' });
    t.ok((await c.next()).event.a['light.later'], 'a new entity arrives as an add');
    await rest('DELETE', '/api/states/light.later');
    t.same((await c.next()).event, { r: ['light.later'] });
    await rest('POST', '/api/states/sensor.unrelated', { state: '1' });
    await rest('POST', '/api/states/light.diff', { state: 'off', attributes: { a: 2, c: 3 } });
    const next = await c.next();
    t.ok(next.event.c['light.diff'], 'entities outside the filter are not sent');
    c.ws.close();
  });

  t.test('call_service and coalesced frames', async (t) => {
    const c = await authedClient(base, tokens.access_token);
    c.send({ id: 1, type: 'supported_features', features: { coalesce_messages: 1 } });
    t.same(await c.next(), { id: 1, type: 'result', success: true, result: null });
    c.send({ id: 2, type: 'call_service', domain: 'core', service: 'set_location', service_data: { latitude: 1, longitude: 2 } });
    const r = await c.next();
    t.equal(r.success, true);
    t.same(Object.keys(r.result), ['context']);
    c.send({ id: 3, type: 'call_service', domain: 'nope', service: 'x' });
    const missing = await c.next();
    t.same(missing.error, {
      code: 'not_found',
      message: 'Service nope.x not found.',
      translation_key: 'service_not_found',
      translation_placeholders: { domain: 'nope', service: 'x' },
      translation_domain: 'core',
    });
    c.send([
      { id: 4, type: 'ping' },
      { id: 5, type: 'ping' },
    ]);
    t.same([await c.next(), await c.next()], [{ id: 4, type: 'pong' }, { id: 5, type: 'pong' }]);
    t.ok(c.frames.some((f) => f.startsWith('[')), 'queued messages went out as one array frame');
    c.ws.close();
  });

  t.test('a revoked refresh token closes its sockets', async (t) => {
    const extra = await onboardAnotherToken(base, tokens.refresh_token);
    const c = await authedClient(base, extra);
    await fetch(`${base}/auth/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `token=${tokens.refresh_token}` });
    await c.closed;
    t.pass('closed');
  });
});

/** A new access token from the same refresh token. */
async function onboardAnotherToken(base: string, refreshToken: string): Promise<string> {
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'http://127.0.0.1/' }).toString(),
  });
  return ((await res.json()) as any).access_token;
}
