// A WebSocket client that stops reading is dropped with a log line; the others get everything.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';

t.test('a client that falls too far behind is disconnected; the others never wait', async (t) => {
  const { base, lines } = await startTestHearth(t, { wsLimits: { maxBufferedBytes: 256 * 1024 } });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const slow = await authedClient(base, tokens.access_token);
  const fast = await authedClient(base, tokens.access_token);
  for (const c of [slow, fast]) {
    c.send({ id: 1, type: 'subscribe_events', event_type: 'state_changed' });
    t.equal((await c.next()).success, true);
  }
  // the slow client's socket stops reading: the server's buffer for it can only grow
  (slow.ws as any)._socket.pause();
  const pad = 'x'.repeat(64 * 1024);
  const writes = 200;
  for (let i = 0; i < writes; i++) await rest('POST', '/api/states/sensor.flood', { state: String(i), attributes: { pad } });
  let received = 0;
  while (received < writes) {
    const m = await fast.next(5000);
    if (m.type === 'event') received++;
  }
  t.equal(received, writes, 'the fast client received every change');
  t.ok(lines.some((l) => /unable to keep up/.test(l)), 'a log line says why the slow client was dropped');
  (slow.ws as any)._socket.resume();
  await slow.closed;
  t.pass('the slow client was disconnected');
  fast.ws.close();
});

t.test('one answer larger than the limit (all states of a large install) goes through', async (t) => {
  const { base, lines } = await startTestHearth(t, { wsLimits: { maxBufferedBytes: 256 * 1024 } });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);
  const pad = 'x'.repeat(2048);
  for (let i = 0; i < 400; i++) await rest('POST', `/api/states/sensor.big_${i}`, { state: String(i), attributes: { pad } });
  const c = await authedClient(base, tokens.access_token);
  c.send({ id: 1, type: 'get_states' });
  const states = await c.next(10_000);
  t.equal(states.success, true);
  // the 400 written and zone.home
  t.equal(states.result.length, 401, 'about 900 KiB in one message, over a 256 KiB limit');
  c.send({ id: 2, type: 'subscribe_entities' });
  t.equal((await c.next(10_000)).success, true);
  const snapshot = await c.next(10_000);
  t.equal(Object.keys(snapshot.event.a).length, 401, 'the subscribe_entities snapshot arrived whole');
  await rest('POST', '/api/states/sensor.big_0', { state: 'changed', attributes: { pad } });
  const change = await c.next(10_000);
  t.same(Object.keys(change.event.c), ['sensor.big_0'], 'and the changes after it');
  t.notOk(lines.some((l) => /unable to keep up/.test(l)), 'nobody was dropped');
  c.ws.close();
});
