// Timers in a real Hearth: start, pause, change, cancel, finish and their bus events; a restart
// keeps the end time (or finishes a timer whose end passed while Hearth was down).
import t from 'tap';
import { setTimeout as sleep } from 'node:timers/promises';
import { virtualHome, restarted } from '../../helpers/platform.ts';
import { formatDuration, toTimePeriod } from '../../../actors/entities/platforms/timer.ts';

const CONFIG = `
timer:
  tea:
    name: Tea
    duration: '00:00:01'
    restore: true
  oven:
    duration: 30
    icon: mdi:stove
    restore: true
  plain:
`;

t.test('timer: durations as the original reads and shows them', async (t) => {
  t.equal(toTimePeriod('01:02:03'), 3_723_000);
  t.equal(toTimePeriod('00:05'), 300_000);
  t.equal(toTimePeriod('-00:00:10'), -10_000);
  t.equal(toTimePeriod(90), 90_000);
  t.equal(toTimePeriod('90'), 90_000);
  t.equal(toTimePeriod({ minutes: 1, seconds: 5 }), 65_000);
  t.throws(() => toTimePeriod('1:2:3:4'), /offset 1:2:3:4 should be format 'HH:MM', 'HH:MM:SS' or 'HH:MM:SS.F'/);
  t.equal(formatDuration(3_723_000), '1:02:03');
  t.equal(formatDuration(59_999), '0:00:59');
});

t.test('timer: services, attributes and bus events', async (t) => {
  const home = await virtualHome(t, CONFIG);
  t.same((await home.state('timer.tea')).attributes, { duration: '0:00:01', editable: false, restore: true, friendly_name: 'Tea' });
  const plain = await home.state('timer.plain');
  t.same([plain.state, plain.attributes], ['idle', { duration: '0:00:00', editable: false }], 'no name, no friendly_name');

  await home.call('timer', 'start', { entity_id: 'timer.tea' });
  const started = await home.event('timer.started');
  t.same(started.data, { entity_id: 'timer.tea' });
  const active = (await home.changed('timer.tea')).new_state;
  t.same([active.state, active.attributes.remaining], ['active', '0:00:01']);
  const finished = await home.event('timer.finished', 3000);
  t.same(finished.data, { entity_id: 'timer.tea', finished_at: active.attributes.finishes_at }, 'it runs out on its own');
  const idle = (await home.changed('timer.tea')).new_state;
  t.same([idle.state, idle.attributes], ['idle', { duration: '0:00:01', editable: false, restore: true, friendly_name: 'Tea' }]);

  await home.wsCall('timer', 'start', {}, { entity_id: 'timer.oven' });
  await home.event('timer.started');
  await home.call('timer', 'pause', { entity_id: 'timer.oven' });
  await home.event('timer.paused');
  const paused = await home.state('timer.oven');
  t.equal(paused.state, 'paused');
  t.match(paused.attributes.remaining, /^0:00:(29|30)$/);
  t.notOk('finishes_at' in paused.attributes);
  const notRunning = await home.wsCall('timer', 'change', { duration: 5 }, { entity_id: 'timer.oven' });
  t.same(notRunning.error, { code: 'home_assistant_error', message: 'Timer timer.oven is not running, only active timers can be changed' });
  await home.call('timer', 'start', { entity_id: 'timer.oven' });
  t.same((await home.event('timer.restarted')).data, { entity_id: 'timer.oven' });
  const beyond = await home.call('timer', 'change', { entity_id: 'timer.oven', duration: '00:00:10' });
  t.same([beyond.status, beyond.json.message], [400, 'Not possible to change timer timer.oven beyond duration']);
  const before = (await home.state('timer.oven')).attributes.finishes_at;
  await home.call('timer', 'change', { entity_id: 'timer.oven', duration: '-00:00:10' });
  await home.event('timer.changed');
  t.equal(Date.parse((await home.state('timer.oven')).attributes.finishes_at), Date.parse(before) - 10_000, 'ten seconds earlier');
  await home.call('timer', 'cancel', { entity_id: 'timer.oven' });
  await home.event('timer.cancelled');
  t.equal((await home.state('timer.oven')).state, 'idle');
  const bad = await home.wsCall('timer', 'start', { duration: 'soon' }, { entity_id: 'timer.oven' });
  t.same([bad.error.code, bad.error.message], ['invalid_format', "offset soon should be format 'HH:MM', 'HH:MM:SS' or 'HH:MM:SS.F' for dictionary value @ data['duration']"]);

  await home.call('timer', 'start', { entity_id: 'timer.oven', duration: 5 });
  await home.call('timer', 'finish', { entity_id: 'timer.oven' });
  t.same((await home.event('timer.finished')).data.entity_id, 'timer.oven', 'finish ends it early');
});

t.test('timer: a restart keeps the end; one that ran out meanwhile finishes', async (t) => {
  const home = await virtualHome(t, CONFIG);
  await home.call('timer', 'start', { entity_id: 'timer.oven' });
  await home.call('timer', 'start', { entity_id: 'timer.tea' });
  const oven = await home.state('timer.oven');
  const tea = await home.state('timer.tea');
  home.ws.ws.close();
  await home.hearth.stop();
  await sleep(Math.max(0, Date.parse(tea.attributes.finishes_at) - Date.now()) + 100);
  const again = await restarted(t, home);
  const after = await again.state('timer.oven');
  t.same([after.state, after.attributes.finishes_at], ['active', oven.attributes.finishes_at], 'the same end time');
  t.match(after.attributes.remaining, /^0:00:(2\d|30)$/, 'and what remains of it');
  t.equal((await again.state('timer.tea')).state, 'idle', 'a timer whose end passed is finished');
  const events: unknown[] = [];
  for await (const r of again.hearth.log.read()) if (r.type === 'timer.finished') events.push(r.data);
  t.same(events, [{ entity_id: 'timer.tea', finished_at: tea.attributes.finishes_at }], 'with its timer.finished');
});
