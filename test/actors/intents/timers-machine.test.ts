// The voice timer statechart: active/paused/finished/cancelled, time left from the events'
// times, increase/decrease clamped at 0, pause and unpause idempotent.
import t from 'tap';
import { createActor } from 'xstate';
import { intentTimerMachine, secondsLeftAt, timerEnd } from '../../../machines/intent-timer.machine.ts';

const T0 = Date.UTC(2026, 0, 1);
const start = (seconds: number, isActive = true) => createActor(intentTimerMachine, { input: { seconds, updatedAt: T0, isActive } }).start();

t.test('an active timer counts down from its start; its end is start + seconds', async (t) => {
  const a = start(300);
  const s = a.getSnapshot();
  t.equal(s.value, 'active');
  t.equal(timerEnd(s.context), T0 + 300_000);
  t.equal(secondsLeftAt(s.context, true, T0 + 70_900), 230, 'whole seconds run are subtracted (70.9 s counts as 70)');
  t.equal(secondsLeftAt(s.context, true, T0 + 400_000), 0, 'never below 0');
});

t.test('pause holds the seconds left; unpause counts on from its own time', async (t) => {
  const a = start(300);
  a.send({ type: 'pause', time: T0 + 100_000 });
  t.equal(a.getSnapshot().value, 'paused');
  t.equal(a.getSnapshot().context.seconds, 200);
  t.equal(secondsLeftAt(a.getSnapshot().context, false, T0 + 900_000), 200, 'a paused timer does not count');
  const before = a.getSnapshot().context;
  a.send({ type: 'pause', time: T0 + 150_000 });
  t.same(a.getSnapshot().context, before, 'pausing a paused timer changes nothing');
  a.send({ type: 'unpause', time: T0 + 500_000 });
  t.equal(a.getSnapshot().value, 'active');
  t.equal(timerEnd(a.getSnapshot().context), T0 + 700_000);
  const running = a.getSnapshot().context;
  a.send({ type: 'unpause', time: T0 + 600_000 });
  t.same(a.getSnapshot().context, running, 'unpausing a running timer changes nothing');
  a.send({ type: 'finish', time: T0 + 700_000 });
  t.equal(a.getSnapshot().value, 'finished');
  t.equal(a.getSnapshot().status, 'done');
});

t.test('adding time counts from what is left; removing clamps at 0; created seconds only rise', async (t) => {
  const a = start(60);
  a.send({ type: 'add', time: T0 + 10_000, seconds: 120 });
  t.equal(a.getSnapshot().context.seconds, 170);
  t.equal(a.getSnapshot().context.createdSeconds, 170);
  t.equal(a.getSnapshot().context.updatedAt, T0 + 10_000);
  a.send({ type: 'add', time: T0 + 20_000, seconds: -1000 });
  t.equal(a.getSnapshot().context.seconds, 0);
  t.equal(a.getSnapshot().context.createdSeconds, 170);
  t.equal(timerEnd(a.getSnapshot().context), T0 + 20_000, 'ends at once');
  const p = start(60, false);
  t.equal(p.getSnapshot().value, 'paused', 'a timer restored paused starts paused');
  p.send({ type: 'add', time: T0 + 99_000, seconds: -30 });
  t.equal(p.getSnapshot().context.seconds, 30, 'a paused timer loses from what it holds');
  p.send({ type: 'finish', time: T0 + 200_000 });
  t.equal(p.getSnapshot().value, 'paused', 'a paused timer cannot finish');
  p.send({ type: 'cancel', time: T0 + 200_000 });
  t.equal(p.getSnapshot().value, 'cancelled');
  t.equal(p.getSnapshot().context.seconds, 0);
});
