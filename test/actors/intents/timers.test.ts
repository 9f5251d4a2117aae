// The timer intents as test_timers.py has them: start/cancel/increase/decrease/pause/unpause/
// status, name/area/start-time selection, device/area/floor preference, `Timer not found`,
// `Multiple timers matched`, the rounding table; every change a record on intent_timer/<id>
// and a bus event. A manual clock moves time; finishDue() is what a timer's wait calls.
import t, { type Test } from 'tap';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import type { EventLog, EventRecord } from '../../../store/types.ts';
import { manualClock, sequentialIds } from '../../../actors/clock.ts';
import { replayArea } from '../../../actors/restore.ts';
import { IntentRegistry } from '../../../actors/intents/registry.ts';
import { IntentHandleError, InvalidSlotInfo } from '../../../actors/intents/errors.ts';
import type { Intent } from '../../../actors/intents/types.ts';
import { TimerManager, registerTimerIntents, roundTime, type TimerPlaces, type TimerCommandHook } from '../../../actors/intents/timers/index.ts';

const T0 = Date.UTC(2026, 0, 1, 12);

// a home: kitchen and living room on the ground floor, study upstairs
const AREAS = {
  kitchen: { area_id: 'kitchen', name: 'Kitchen', floor_id: 'ground' },
  living_room: { area_id: 'living_room', name: 'Living Room', floor_id: 'ground' },
  study: { area_id: 'study', name: 'Study', floor_id: 'upstairs' },
};
const DEVICES: Record<string, { area_id: string | null }> = {
  kitchen_1: { area_id: 'kitchen' },
  kitchen_2: { area_id: 'kitchen' },
  living: { area_id: 'living_room' },
  study: { area_id: 'study' },
  nowhere: { area_id: null },
};
const places: TimerPlaces = { getDevice: (id) => DEVICES[id], getArea: (id) => AREAS[id as keyof typeof AREAS] };

type Slots = Record<string, unknown>;

async function harness(t: Test, hook?: TimerCommandHook) {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-timers-'));
  const log: EventLog = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  const records: EventRecord[] = [];
  log.onCommit((batch) => records.push(...batch));
  const clock = manualClock(T0);
  const lines: string[] = [];
  // the wait is the manual clock's: tests call finishDue() after moving it
  const timers = new TimerManager({ log, clock, ids: sequentialIds(), places, schedule: () => () => {}, logLine: (l) => lines.push(l) });
  timers.setCommandHook(hook);
  const registry = new IntentRegistry();
  registerTimerIntents(registry, timers, places);
  let n = 0;
  const handle = async (intentType: string, slots: Slots = {}, deviceId: string | null = null, extra: Partial<Intent> = {}) => {
    const response = await registry.handle({
      platform: 'test',
      intentType,
      slots: Object.fromEntries(Object.entries(slots).map(([k, v]) => [k, { value: v }])),
      textInput: null,
      context: { id: `ctx${++n}`, parent_id: null, user_id: null },
      language: 'en',
      assistant: null,
      deviceId,
      satelliteId: null,
      conversationAgentId: null,
      ...extra,
    });
    return response.asDict() as any;
  };
  const status = async (slots: Slots = {}, deviceId: string | null = null) => (await handle('CoreTimerStatus', slots, deviceId)).speech_slots.timers as any[];
  const fails = async (intentType: string, slots: Slots, deviceId: string | null, message: string, key?: string) => {
    const err = await handle(intentType, slots, deviceId).then(
      () => undefined,
      (e) => e,
    );
    t.type(err, IntentHandleError, `${intentType} ${JSON.stringify(slots)} fails`);
    t.equal(err?.message, message);
    if (key) t.equal(err?.responseKey, key);
  };
  return { log, records, clock, timers, registry, handle, status, fails, lines };
}

const ofStream = (records: EventRecord[], prefix: string) => records.filter((r) => r.stream.startsWith(prefix));

t.test('start, status, increase, decrease to 0 and finish: records and bus events', async (t) => {
  const h = await harness(t);
  const started = await h.handle('CoreStartTimer', { minutes: 5, name: 'Pizza' }, 'kitchen_1');
  t.same(started, { speech: {}, card: {}, language: 'en', response_type: 'action_done', data: { targets: [], success: [], failed: [] } });

  const [rec] = ofStream(h.records, 'intent_timer/');
  t.equal(rec.type, 'timer_started');
  t.equal(rec.context.id, 'ctx1', 'the intent context is the record context');
  t.equal(rec.origin, undefined, 'a timer record is not itself a bus event');
  const id = rec.data.id;
  t.match(id, /^[0-9A-HJKMNP-TV-Z]{26}$/, 'a ULID');
  t.equal(rec.stream, `intent_timer/${id}`);
  t.same(Object.keys(rec.data), ['id', 'name', 'seconds', 'device_id', 'start_hours', 'start_minutes', 'start_seconds', 'created_at', 'updated_at', 'language', 'is_active', 'area_id', 'area_name', 'floor_id', 'conversation_command', 'conversation_agent_id', 'created_seconds']);
  t.match(rec.data, { name: 'Pizza', seconds: 300, device_id: 'kitchen_1', start_hours: null, start_minutes: 5, start_seconds: null, created_at: T0, updated_at: T0, language: 'en', is_active: true, area_id: 'kitchen', area_name: 'kitchen', floor_id: 'ground' });
  const startedEvent = h.records.find((r) => r.type === 'intent_timer_started')!;
  t.equal(startedEvent.origin, 'LOCAL');
  t.equal(startedEvent.seq, rec.seq + 1, 'the bus event follows its record in one batch');
  t.same(startedEvent.data, rec.data);

  h.clock.advance(70_900);
  t.same(await h.status({}, 'kitchen_1'), [
    {
      id,
      name: 'Pizza',
      device_id: 'kitchen_1',
      language: 'en',
      start_hours: 0,
      start_minutes: 5,
      start_seconds: 0,
      is_active: true,
      hours_left: 0,
      minutes_left: 3,
      seconds_left: 50,
      rounded_hours_left: 0,
      rounded_minutes_left: 4,
      rounded_seconds_left: 0,
      total_seconds_left: 230,
    },
  ]);
  t.equal((await h.handle('CoreTimerStatus')).response_type, 'action_done', 'status answers action_done as the original');

  await h.handle('CoreIncreaseTimer', { minutes: 1, name: 'pizza ' });
  const upd = ofStream(h.records, 'intent_timer/').at(-1)!;
  t.equal(upd.type, 'timer_updated');
  t.match(upd.data, { seconds: 290, updated_at: T0 + 70_900, created_seconds: 300 });
  t.ok(h.records.some((r) => r.type === 'intent_timer_updated'), 'increase fires intent_timer_updated');
  t.same((await h.status())[0].total_seconds_left, 290);
  t.same(await h.timers.finishDue(), [], 'nothing is due yet');

  await h.handle('CoreDecreaseTimer', { hours: 1 });
  const dec = ofStream(h.records, 'intent_timer/').at(-1)!;
  t.match(dec.data, { seconds: 0, is_active: true }, 'decrease clamps at 0');
  const finished = await h.timers.finishDue();
  t.equal(finished.length, 1);
  const fin = ofStream(h.records, 'intent_timer/').at(-1)!;
  t.equal(fin.type, 'timer_finished');
  t.match(fin.data, { id, seconds: 0, is_active: false });
  const finEvent = h.records.find((r) => r.type === 'intent_timer_finished')!;
  t.equal(finEvent.origin, 'LOCAL');
  t.match(finEvent.data, { id, name: 'Pizza', device_id: 'kitchen_1', area_id: 'kitchen' });
  t.same(await h.status(), [], 'a finished timer is gone');
  await h.fails('CoreCancelTimer', {}, null, 'Timer not found', 'timer_not_found');
});

t.test('a timer finishes when the clock reaches its end, not before; pause stops it, unpause resumes', async (t) => {
  const h = await harness(t);
  await h.handle('CoreStartTimer', { seconds: 30 }, 'study');
  h.clock.advance(29_999);
  t.same(await h.timers.finishDue(), []);
  await h.handle('CorePauseTimer', {}, 'study');
  t.equal(ofStream(h.records, 'intent_timer/').at(-1)!.type, 'timer_paused');
  t.match(ofStream(h.records, 'intent_timer/').at(-1)!.data, { seconds: 1, is_active: false });
  await h.fails('CorePauseTimer', {}, 'study', 'Timer not found', 'timer_not_found');
  const [info] = h.timers.list();
  const before = h.records.length;
  await h.timers.pause(info.id);
  t.equal(h.records.length, before, 'pausing a paused timer writes nothing');
  h.clock.advance(60_000);
  t.same(await h.timers.finishDue(), [], 'a paused timer does not finish');
  t.same((await h.status())[0].is_active, false);
  await h.handle('CoreUnpauseTimer', {}, 'study');
  t.equal(ofStream(h.records, 'intent_timer/').at(-1)!.type, 'timer_unpaused');
  await h.timers.unpause(info.id);
  t.equal(ofStream(h.records, 'intent_timer/').at(-1)!.type, 'timer_unpaused', 'unpausing a running timer writes nothing');
  t.equal(h.records.filter((r) => r.type === 'timer_unpaused').length, 1);
  await h.fails('CoreUnpauseTimer', {}, 'study', 'Timer not found', 'timer_not_found');
  h.clock.advance(1000);
  const [done] = await h.timers.finishDue();
  t.equal(done.id, info.id);
  t.equal(h.records.filter((r) => r.type === 'intent_timer_updated').length, 2, 'pause and unpause each fire intent_timer_updated');
});

t.test('cancel removes a timer; cancel all counts, optionally by area', async (t) => {
  const h = await harness(t);
  await h.handle('CoreStartTimer', { minutes: 1 }, 'kitchen_1');
  await h.handle('CoreStartTimer', { minutes: 2 }, 'kitchen_2');
  await h.handle('CoreStartTimer', { minutes: 3 }, 'living');
  await h.handle('CoreStartTimer', { minutes: 4 }, 'study');
  await h.handle('CoreCancelTimer', { start_minutes: 4 });
  t.equal(ofStream(h.records, 'intent_timer/').at(-1)!.type, 'timer_cancelled');
  t.match(ofStream(h.records, 'intent_timer/').at(-1)!.data, { start_minutes: 4, seconds: 0, is_active: false });
  t.ok(h.records.some((r) => r.type === 'intent_timer_cancelled'));
  const kitchen = await h.handle('CoreCancelAllTimers', { area: ' KITCHEN' });
  t.same(kitchen.speech_slots, { canceled: 2, area: ' KITCHEN' });
  t.equal(h.timers.list().length, 1);
  const all = await h.handle('CoreCancelAllTimers');
  t.same(all.speech_slots, { canceled: 1 });
  t.equal(all.response_type, 'action_done');
  t.same(await h.status(), []);
  t.same((await h.handle('CoreCancelAllTimers')).speech_slots, { canceled: 0 });
});

t.test('selection: name, then area, then start time; device, area, floor preference', async (t) => {
  const h = await harness(t);
  await h.handle('CoreStartTimer', { minutes: 5, name: 'Pizza' }, 'kitchen_1');
  await h.handle('CoreStartTimer', { minutes: 5, name: 'Pizza' }, 'study');
  await h.handle('CoreStartTimer', { minutes: 10 }, 'kitchen_2');
  await h.handle('CoreStartTimer', { hours: 1, minutes: 5 }, 'living');
  const [pizzaKitchen, pizzaStudy, tenKitchen, hourLiving] = h.timers.list();

  // several pizzas: a device elsewhere cannot tell
  await h.fails('CoreCancelTimer', { name: 'pizza' }, 'nowhere', 'Multiple timers matched', 'multiple_timers_matched');
  await h.fails('CoreCancelTimer', { name: 'pizza' }, null, 'Multiple timers matched', 'multiple_timers_matched');
  await h.fails('CoreCancelTimer', { name: 'soup' }, 'kitchen_1', 'Timer not found', 'timer_not_found');
  await h.fails('CoreCancelTimer', { area: 'garage' }, 'kitchen_1', 'Timer not found', 'timer_not_found');
  // name + area
  await h.handle('CorePauseTimer', { name: 'Pizza', area: 'study' });
  t.equal(h.timers.get(pizzaStudy.id)!.is_active, false);
  await h.handle('CoreUnpauseTimer', { name: 'Pizza' });
  t.equal(h.timers.get(pizzaStudy.id)!.is_active, true, 'only one pizza was paused: unpause takes it');
  // start time: all three parts compared, missing ones null
  await h.fails('CoreIncreaseTimer', { seconds: 1, start_minutes: 5, start_hours: 0 }, null, 'Timer not found', 'timer_not_found');
  await h.handle('CoreIncreaseTimer', { seconds: 1, start_minutes: 10 });
  t.equal(h.timers.get(tenKitchen.id)!.seconds, 601);
  await h.handle('CoreIncreaseTimer', { seconds: 1, start_hours: 1, start_minutes: 5 });
  t.equal(h.timers.get(hourLiving.id)!.seconds, 3901);
  // the device's own timer first
  await h.handle('CoreDecreaseTimer', { seconds: 10, name: 'pizza' }, 'study');
  t.equal(h.timers.get(pizzaStudy.id)!.seconds, 290);
  // no own timer: the one in the device's area
  await h.handle('CoreDecreaseTimer', { seconds: 10, name: 'pizza' }, 'kitchen_2');
  t.equal(h.timers.get(pizzaKitchen.id)!.seconds, 290);
  // none of the device's own or in its area: the one on its floor
  await h.handle('CoreDecreaseTimer', { seconds: 10, name: 'pizza' }, 'living');
  t.equal(h.timers.get(pizzaKitchen.id)!.seconds, 280);
  // two kitchen timers on the living room's floor: nothing nearer tells them apart
  await h.fails('CoreDecreaseTimer', { seconds: 10, area: 'kitchen' }, 'living', 'Multiple timers matched', 'multiple_timers_matched');
  await h.handle('CoreCancelTimer', {}, 'kitchen_1');
  t.equal(h.timers.get(pizzaKitchen.id), undefined, 'no filter: the device own timer');
  await h.handle('CoreCancelTimer', { name: 'pizza' }, 'living');
  t.equal(h.timers.get(pizzaStudy.id), undefined, 'one pizza left: taken at once');
  // two left (kitchen_2 10 min, living 1 h 5 min); a study device (upstairs) sees neither nearer
  await h.fails('CoreCancelTimer', {}, 'study', 'Multiple timers matched', 'multiple_timers_matched');
  await h.handle('CoreCancelTimer', {}, 'living');
  t.same(h.timers.list().map((x) => x.id), [tenKitchen.id]);
  await h.handle('CoreCancelTimer', {});
  t.same(h.timers.list(), [], 'a single timer with no filter is it');
});

t.test('status lists the same area first, then the same floor', async (t) => {
  const h = await harness(t);
  await h.handle('CoreStartTimer', { minutes: 1 }, 'study');
  await h.handle('CoreStartTimer', { minutes: 2 }, 'living');
  await h.handle('CoreStartTimer', { minutes: 3 }, 'kitchen_1');
  await h.handle('CoreStartTimer', { minutes: 4, name: 'tea' });
  const order = async (deviceId: string | null, slots: Slots = {}) => (await h.status(slots, deviceId)).map((x) => x.start_minutes);
  t.same(await order('kitchen_2'), [3, 2, 1, 4]);
  t.same(await order('study'), [1, 2, 3, 4]);
  t.same(await order(null), [1, 2, 3, 4]);
  t.same(await order('living', { name: 'TEA' }), [4]);
  t.same(await order('living', { area: 'Kitchen' }), [3]);
  t.same(await order('living', { start_minutes: 2 }), [2]);
  t.same(await order('living', { name: 'coffee' }), []);
  const [tea] = await h.status({ name: 'tea' });
  t.equal(tea.device_id, '', 'no device: ""');
  t.equal(tea.name, 'tea');
});

t.test('the rounding table', async (t) => {
  const cases: Array<[[number, number, number], [number, number, number]]> = [
    [[1, 50, 30], [2, 0, 0]],
    [[1, 46, 0], [2, 0, 0]],
    [[1, 45, 59], [1, 30, 0]],
    [[1, 15, 0], [1, 30, 0]],
    [[1, 14, 59], [1, 0, 0]],
    [[1, 25, 30], [1, 30, 0]],
    [[0, 1, 50], [0, 2, 0]],
    [[0, 1, 46], [0, 2, 0]],
    [[0, 1, 45], [0, 1, 30]],
    [[0, 1, 15], [0, 1, 30]],
    [[0, 1, 14], [0, 1, 0]],
    [[0, 0, 55], [0, 1, 0]],
    [[0, 0, 51], [0, 1, 0]],
    [[0, 0, 50], [0, 0, 50]],
    [[0, 0, 25], [0, 0, 20]],
    [[0, 0, 10], [0, 0, 10]],
    [[0, 0, 9], [0, 0, 9]],
    [[0, 0, 0], [0, 0, 0]],
  ];
  for (const [given, want] of cases) t.same(roundTime(...given), want, given.join(':'));
  // and through CoreTimerStatus
  const h = await harness(t);
  await h.handle('CoreStartTimer', { hours: 1, minutes: 50, seconds: 30 }, 'study');
  const [s] = await h.status();
  t.match(s, { hours_left: 1, minutes_left: 50, seconds_left: 30, rounded_hours_left: 2, rounded_minutes_left: 0, rounded_seconds_left: 0, total_seconds_left: 6630, start_hours: 1, start_minutes: 50, start_seconds: 30 });
});

t.test('slots: at least one of hours/minutes/seconds, each a non-negative int', async (t) => {
  const h = await harness(t);
  const invalid = async (intentType: string, slots: Slots) => {
    const err = await h.handle(intentType, slots).then(
      () => undefined,
      (e) => e,
    );
    t.type(err, InvalidSlotInfo, `${intentType} ${JSON.stringify(slots)}`);
    t.equal(err?.message, `Received invalid slot info for ${intentType}`);
  };
  await invalid('CoreStartTimer', {});
  await invalid('CoreStartTimer', { name: 'pizza' });
  await invalid('CoreStartTimer', { minutes: -1 });
  await invalid('CoreStartTimer', { minutes: 'five' });
  await invalid('CoreStartTimer', { minutes: 1, name: null });
  await invalid('CoreDecreaseTimer', {});
  await invalid('CoreCancelTimer', { start_minutes: -5 });
  t.equal(h.records.length, 0, 'nothing written');
  await h.handle('CoreStartTimer', { minutes: '2', seconds: 0 });
  t.match(h.timers.list()[0], { seconds: 120, start_minutes: 2, start_seconds: 0, start_hours: null, device_id: null, area_id: null }, 'a numeric string is an int');
  const before = h.records.length;
  await h.handle('CoreIncreaseTimer', { seconds: 0 });
  t.equal(h.records.length, before, 'adding 0 seconds changes nothing');
  t.equal((await h.handle('CoreIncreaseTimer', {})).response_type, 'action_done', 'increase asks no amount, as the original (decrease does)');
  t.equal(h.records.length, before, 'and adds nothing');
});

t.test('conversation_command: run through the hook when the timer finishes; such timers are never picked', async (t) => {
  const ran: Array<{ command: string; language: string; deviceId: string | null }> = [];
  const hook: TimerCommandHook = {
    run: async (command, options) => {
      ran.push({ command, language: options.language, deviceId: options.deviceId });
    },
    recognizes: async (command) => command !== 'fly me to the moon',
  };
  const h = await harness(t, hook);
  await h.fails('CoreStartTimer', { minutes: 1, conversation_command: ' fly me to the moon ' }, null, 'Intent not recognized: fly me to the moon', 'no_timer_command');
  await h.handle('CoreStartTimer', { minutes: 1, conversation_command: '  turn on the lights ' }, 'kitchen_1');
  t.match(h.timers.list()[0], { conversation_command: 'turn on the lights', area_id: 'kitchen' });
  await h.fails('CoreCancelTimer', {}, 'kitchen_1', 'Timer not found', 'timer_not_found');
  t.same((await h.handle('CoreCancelAllTimers')).speech_slots, { canceled: 0 });
  t.same(await h.status(), []);
  h.clock.advance(60_000);
  await h.timers.finishDue();
  t.same(ran, [{ command: 'turn on the lights', language: 'en', deviceId: 'kitchen_1' }]);
  t.match(h.records.find((r) => r.type === 'intent_timer_finished')!.data, { conversation_command: 'turn on the lights' });

  // no agent: the timer still finishes, and the log says why nothing ran
  const bare = await harness(t);
  await bare.handle('CoreStartTimer', { seconds: 1, conversation_command: 'turn on the lights' });
  bare.clock.advance(1000);
  t.equal((await bare.timers.finishDue()).length, 1);
  t.match(bare.lines.join('\n'), /no conversation agent runs commands/);
});

t.test('a manager rebuilt from the log alone (no snapshot) has the unfinished timers as they were', async (t) => {
  const h = await harness(t);
  await h.handle('CoreStartTimer', { minutes: 1, name: 'a' }, 'kitchen_1');
  await h.handle('CoreStartTimer', { minutes: 2, name: 'b' }, 'study');
  await h.handle('CoreStartTimer', { minutes: 3, name: 'c' });
  await h.handle('CorePauseTimer', { name: 'b' });
  await h.handle('CoreCancelTimer', { name: 'c' });
  h.clock.advance(30_000);
  const again = new TimerManager({ log: h.log, clock: h.clock, ids: sequentialIds('b'), places, schedule: () => () => {} });
  await replayArea(h.log, again.area);
  t.same(again.area.snapshot(), h.timers.list().map((x) => ({ ...x })), 'its snapshot before resuming is the last records');
  await again.resume();
  t.same(again.list(), h.timers.list());
  t.equal(again.secondsLeft(again.list()[0].id), 30);
  h.clock.advance(30_000);
  t.same((await again.finishDue()).map((x) => x.name), ['a']);
});
