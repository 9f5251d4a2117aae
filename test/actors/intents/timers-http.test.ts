// The timer intents through POST /api/intent/handle, as a client sees them: the response
// bodies, the errors (Timer not found, invalid slots), the bus events over subscribe_events,
// and the area and floor a timer takes from the device that set it.
import t from 'tap';
import { api, onboard, startTestHearth } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';

t.test('timers over /api/intent/handle, with their bus events', async (t) => {
  const { base, hearth } = await startTestHearth(t);
  const { access_token } = await onboard(base);
  const call = api(base, access_token);
  const reg = hearth.registries;
  const floor = await reg.createFloor({ name: 'Ground' });
  const kitchen = await reg.createArea({ name: 'Kitchen', floor_id: floor.floor_id });
  const speaker = await reg.ensureDevice({ identifiers: [['virtual', 'speaker']], name: 'Speaker' });
  await reg.updateDevice(speaker.id, { area_id: kitchen.area_id });

  const ws = await authedClient(base, access_token);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'subscribe_events', event_type: 'intent_timer_started' });
  t.match(await ws.until((m) => m.id === 1 && m.type === 'result'), { success: true });
  ws.send({ id: 2, type: 'subscribe_events', event_type: 'intent_timer_cancelled' });
  t.match(await ws.until((m) => m.id === 2 && m.type === 'result'), { success: true });

  const start = await call('POST', '/api/intent/handle', { name: 'CoreStartTimer', data: { minutes: 2, name: 'Tea' }, device_id: speaker.id });
  t.equal(start.status, 200);
  t.same(start.json, { speech: {}, card: {}, language: 'en', response_type: 'action_done', data: { targets: [], success: [], failed: [] } });
  const started = await ws.until((m) => m.type === 'event' && m.id === 1);
  t.match(started.event, {
    event_type: 'intent_timer_started',
    origin: 'LOCAL',
    data: { name: 'Tea', seconds: 120, device_id: speaker.id, start_minutes: 2, is_active: true, area_id: kitchen.area_id, area_name: 'kitchen', floor_id: floor.floor_id, language: 'en' },
  });

  const status = await call('POST', '/api/intent/handle', { name: 'CoreTimerStatus', data: {}, device_id: speaker.id });
  t.equal(status.json.response_type, 'action_done');
  t.same(Object.keys(status.json), ['speech', 'card', 'language', 'response_type', 'speech_slots', 'data']);
  t.match(status.json.speech_slots.timers, [{ id: started.event.data.id, name: 'Tea', device_id: speaker.id, start_hours: 0, start_minutes: 2, start_seconds: 0, is_active: true }]);

  const missing = await call('POST', '/api/intent/handle', { name: 'CoreCancelTimer', data: { name: 'coffee' } });
  t.same(missing.json, { speech: { plain: { speech: 'Timer not found', extra_data: null } }, card: {}, language: 'en', response_type: 'error', data: { code: 'failed_to_handle' } });
  const invalid = await call('POST', '/api/intent/handle', { name: 'CoreStartTimer', data: { minutes: -3 } });
  t.same(invalid.json.speech, { plain: { speech: 'Received invalid slot info for CoreStartTimer', extra_data: null } });
  t.same(invalid.json.data, { code: 'failed_to_handle' });

  await call('POST', '/api/intent/handle', { name: 'CoreStartTimer', data: { seconds: 30 } });
  const two = await call('POST', '/api/intent/handle', { name: 'CoreCancelTimer', data: {} });
  t.same(two.json.speech, { plain: { speech: 'Multiple timers matched', extra_data: null } }, 'two timers, no device to prefer one');
  const byArea = await call('POST', '/api/intent/handle', { name: 'CoreCancelTimer', data: { area: 'kitchen' } });
  t.equal(byArea.json.response_type, 'action_done');
  const cancelled = await ws.until((m) => m.type === 'event' && m.id === 2);
  t.equal(cancelled.event.data.name, 'Tea');
  const all = await call('POST', '/api/intent/handle', { name: 'CoreCancelAllTimers', data: {} });
  t.same(all.json.speech_slots, { canceled: 1 });

  const kinds: string[] = [];
  for await (const r of hearth.log.readStreams('intent_timer/')) kinds.push(r.type);
  t.same(kinds.sort(), ['timer_cancelled', 'timer_cancelled', 'timer_started', 'timer_started']);
});
