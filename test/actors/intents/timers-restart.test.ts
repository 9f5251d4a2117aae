// Timers survive a restart: one started before Hearth stops finishes after it starts again on
// the same data directory, when its time is up by the wall clock (the recorded finish time is
// compared with the recorded start + seconds); ones due while stopped finish at once; paused
// ones stay paused with the time they held.
import t from 'tap';
import { startTestHearth, onboard } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { IntentRegistry } from '../../../actors/intents/registry.ts';
import { registerTimerIntents } from '../../../actors/intents/timers/handlers.ts';
import type { Hearth } from '../../../bin/instance.ts';
import type { EventRecord } from '../../../store/types.ts';
import { collect } from '../../helpers/log-records.ts';

function intents(hearth: Hearth) {
  const registry = new IntentRegistry();
  registerTimerIntents(registry, hearth.intentTimers, hearth.registries);
  let n = 0;
  return async (intentType: string, slots: Record<string, unknown> = {}) =>
    (
      await registry.handle({
        platform: 'test',
        intentType,
        slots: Object.fromEntries(Object.entries(slots).map(([k, v]) => [k, { value: v }])),
        textInput: null,
        context: { id: `restart-ctx-${++n}`, parent_id: null, user_id: null },
        language: 'en',
        assistant: null,
        deviceId: null,
        satelliteId: null,
        conversationAgentId: null,
      })
    ).asDict() as any;
}

const streamOf = (hearth: Hearth, id: string) => collect(hearth.log.readStreams(`intent_timer/${id}`));

async function lastOfType(hearth: Hearth, type: string): Promise<EventRecord | undefined> {
  let found: EventRecord | undefined;
  for await (const r of hearth.log.read()) if (r.type === type) found = r;
  return found;
}

t.test('a timer started before a restart finishes at its time after it', async (t) => {
  const first = await startTestHearth(t);
  const { access_token } = await onboard(first.base);
  await intents(first.hearth)('CoreStartTimer', { seconds: 3, name: 'eggs' });
  const [timer] = first.hearth.intentTimers.list();
  await first.hearth.stop();

  const second = await startTestHearth(t, { dataDir: first.dataDir });
  const coreStarted = (await lastOfType(second.hearth, 'core_started'))!;
  t.match(second.hearth.intentTimers.list(), [{ id: timer.id, name: 'eggs', is_active: true }], 'restored active');
  const ws = await authedClient(second.base, access_token);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'subscribe_events', event_type: 'intent_timer_finished' });
  t.match(await ws.until((m) => m.id === 1 && m.type === 'result'), { success: true });
  // a slow start might see it finish before the subscription: then the log has it
  const early = await lastOfType(second.hearth, 'intent_timer_finished');
  const event = early ? { event_type: early.type, data: early.data } : (await ws.until((m) => m.type === 'event', 10_000)).event;
  t.equal(event.event_type, 'intent_timer_finished');
  t.match(event.data, { id: timer.id, name: 'eggs', seconds: 0, is_active: false, start_seconds: 3, language: 'en' });

  const records = await streamOf(second.hearth, timer.id);
  t.same(records.map((r) => r.type), ['timer_started', 'timer_finished']);
  const [started, finished] = records;
  t.ok(finished.seq > coreStarted.seq, 'finished after the restart');
  const due = started.data.updated_at + 3000;
  t.ok(finished.time >= due, `not before its end (${finished.time - due} ms after)`);
  t.ok(finished.time - due < 1000, `at about its end (${finished.time - due} ms after)`);
  t.same(second.hearth.intentTimers.list(), []);
});

t.test('after a restart: due timers finish at once, running ones count on from the wall clock, paused ones stay paused', async (t) => {
  const first = await startTestHearth(t);
  const ask = intents(first.hearth);
  await ask('CoreStartTimer', { seconds: 5, name: 'short' });
  await ask('CoreStartTimer', { hours: 1, name: 'long' });
  await ask('CoreStartTimer', { minutes: 10, name: 'held' });
  await ask('CorePauseTimer', { name: 'held' });
  const byName = Object.fromEntries(first.hearth.intentTimers.list().map((x) => [x.name, x]));
  const heldSeconds = byName.held.seconds;
  await first.hearth.stop();

  // the second start is a minute later by the clock
  const later = { now: () => Date.now() + 60_000 };
  const second = await startTestHearth(t, { dataDir: first.dataDir, clock: later });
  const coreStarted = (await lastOfType(second.hearth, 'core_started'))!;
  const short = await streamOf(second.hearth, byName.short.id);
  t.same(short.map((r) => r.type), ['timer_started', 'timer_finished'], 'the due timer finished during the start');
  t.ok(short[1].seq > coreStarted.seq);
  t.ok(short[1].time >= short[0].data.updated_at + 5000);
  const finishedEvent = (await lastOfType(second.hearth, 'intent_timer_finished'))!;
  t.equal(finishedEvent.data.id, byName.short.id);

  const status = (await intents(second.hearth)('CoreTimerStatus')).speech_slots.timers as any[];
  const long = status.find((s) => s.name === 'long');
  const held = status.find((s) => s.name === 'held');
  t.equal(status.length, 2);
  t.equal(long.is_active, true);
  t.ok(long.total_seconds_left <= 3540 && long.total_seconds_left >= 3500, `about 59 minutes left (${long.total_seconds_left})`);
  t.equal(held.is_active, false);
  t.equal(held.total_seconds_left, heldSeconds, 'paused time held');
  t.same(await streamOf(second.hearth, byName.long.id).then((r) => r.map((x) => x.type)), ['timer_started']);

  // and it can be changed after the restart
  await intents(second.hearth)('CoreUnpauseTimer', { name: 'held' });
  t.equal(second.hearth.intentTimers.get(byName.held.id)!.is_active, true);
});
