import t from 'tap';
import { openStream } from '../helpers/sse.ts';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';

t.test('/api/stream', async (t) => {
  const { base } = await startTestHearth(t, { streamPingMs: 300 });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);

  t.test('needs a token', async (t) => {
    const res = await fetch(`${base}/api/stream`);
    t.equal(res.status, 401);
  });

  t.test('ping at once, events as data lines, ping after silence', async (t) => {
    const s = openStream(base, tokens.access_token);
    await s.ready;
    t.equal(s.status, 200);
    t.match(s.contentType, /^text\/event-stream/);
    await s.waitLines(1);
    t.equal(s.lines[0], 'data: ping');
    await rest('POST', '/api/states/sensor.sse', { state: 'a' });
    await s.waitLines(2);
    const event = JSON.parse(s.lines[1].slice('data: '.length));
    t.equal(event.event_type, 'state_changed');
    t.equal(event.data.new_state.state, 'a');
    await s.waitLines(3);
    t.equal(s.lines[2], 'data: ping', 'a ping after the quiet interval');
    s.close();
  });

  t.test('restrict', async (t) => {
    const s = openStream(base, tokens.access_token, '?restrict=my_event');
    await s.ready;
    await s.waitLines(1);
    await rest('POST', '/api/states/sensor.sse', { state: 'b' });
    await rest('POST', '/api/events/my_event', { n: 1 });
    const lines = await s.waitLines(2);
    const event = JSON.parse(lines[1].slice(6));
    t.equal(event.event_type, 'my_event', 'state_changed was filtered out');
    t.same(event.data, { n: 1 });
    t.equal(event.origin, 'REMOTE');
    s.close();
  });
});
