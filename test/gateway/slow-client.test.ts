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
