// The container lifecycle with a pretend engine: given a container (its policy, where it stands),
// when commands and deaths come in, then the machine's state and the effects it asked for, in order.
import t from 'tap';
import { createActor, fromCallback, fromPromise, waitFor, type EventObject, type SnapshotFrom } from 'xstate';
import { containerMachine, WATCHDOG_ATTEMPTS, type AttemptInput, type ContainerEvent, type ContainerPolicy, type ContainerPresence, type CrashReport, type EffectInput, type GiveUpReason } from '../../machines/container.machine.ts';

const CORE: ContainerPolicy = { cleanExitIsCrash: false, staysWantedWhenDown: true, newContainerEachStart: false };
const APP: ContainerPolicy = { cleanExitIsCrash: true, staysWantedWhenDown: false, newContainerEachStart: true };

type Step = 'inspect' | 'prepare' | 'create' | 'start' | 'restart' | 'waitHealthy' | 'stop' | 'remove';
type Snapshot = SnapshotFrom<typeof containerMachine>;

/** A pretend engine and supervisor around one machine; every effect asked for is written to `effects`. */
function given(policy: ContainerPolicy, presence: ContainerPresence, options: { watchdog?: boolean; worthRetrying?: boolean; heldTurns?: boolean } = {}) {
  const world = {
    presence,
    effects: [] as string[],
    /** effects that fail, with the error they throw, each once per entry */
    failures: [] as Array<{ step: Step; error: Error }>,
    /** an effect that waits until released */
    held: null as { step: Step; release?: () => void } | null,
    /** turns waiting while an operation holds the queue */
    waitingTurns: [] as Array<() => void>,
  };
  const moves: Partial<Record<Step, () => void>> = {
    create: () => (world.presence = 'stopped'),
    start: () => (world.presence = 'running'),
    restart: () => (world.presence = 'running'),
    stop: () => (world.presence = 'stopped'),
    remove: () => (world.presence = 'absent'),
  };
  const engineStep = (step: Step) =>
    fromPromise<void, EffectInput>(async () => {
      world.effects.push(step);
      const failure = world.failures.findIndex((f) => f.step === step);
      if (failure >= 0) throw world.failures.splice(failure, 1)[0].error;
      if (world.held?.step === step) await new Promise<void>((release) => (world.held!.release = release));
      moves[step]?.();
    });
  const machine = containerMachine.provide({
    actors: {
      inspectContainer: fromPromise<ContainerPresence, EffectInput>(async () => {
        world.effects.push('inspect');
        return world.presence;
      }),
      prepareStart: fromPromise<unknown, EffectInput>(async () => {
        world.effects.push('prepare');
        return 'binds';
      }),
      createContainer: engineStep('create'),
      startContainer: engineStep('start'),
      restartContainer: engineStep('restart'),
      waitHealthy: engineStep('waitHealthy'),
      stopContainer: engineStep('stop'),
      removeContainer: engineStep('remove'),
      takeTurn: fromCallback<EventObject, void>(({ sendBack }) => {
        if (options.heldTurns) world.waitingTurns.push(() => sendBack({ type: 'turn.taken' }));
        else sendBack({ type: 'turn.taken' });
      }),
      reportCrash: fromPromise<CrashReport, { exitCode: number }>(async ({ input }) => {
        world.effects.push(`crash ${input.exitCode}`);
        return { request: 'watchdog', watchdog: options.watchdog ?? true };
      }),
      trackRecovery: fromCallback<EventObject, { request: unknown }>(() => {
        world.effects.push('recovery begun');
        return () => world.effects.push('recovery ended');
      }),
      reportRestart: fromPromise<void, AttemptInput>(async ({ input }) => {
        world.effects.push(`restarted ${input.attempt}`);
      }),
      reportFailedAttempt: fromPromise<boolean, AttemptInput & { error: unknown }>(async ({ input }) => {
        world.effects.push(`attempt ${input.attempt} failed: ${(input.error as Error).message}`);
        return options.worthRetrying ?? true;
      }),
      reportGiveUp: fromPromise<void, { request: unknown; reason: GiveUpReason }>(async ({ input }) => {
        world.effects.push(`gave up: ${input.reason}`);
      }),
    },
    delays: { retryPause: 1 },
  });
  const actor = createActor(machine, { input: policy }).start();
  const state = () => actor.getSnapshot();
  return {
    world,
    actor,
    state,
    /** sends `event`, then waits until the machine is where `until` says (default: settled and the watchdog idle) */
    async when(event: ContainerEvent, until: (s: Snapshot) => boolean = idle) {
      world.effects = [];
      actor.send(event);
      return waitFor(actor, until, { timeout: 2000 });
    },
  };
}

const idle = (s: Snapshot) => s.matches({ settled: 'running' }) || s.matches({ settled: 'stopped' }) || s.matches({ settled: 'failed' });
const died = (exitCode: number, at = 0): ContainerEvent => ({ type: 'died', exitCode, at });
const BRING_UP_EXISTING = ['inspect', 'prepare', 'start', 'waitHealthy'];

t.test('start: a missing container is made, started and waited for; a running one is left as it is', async (t) => {
  const container = given(CORE, 'absent');
  const started = await container.when({ type: 'start', request: 'r1' });
  t.same(started.value, { settled: 'running' });
  t.same(container.world.effects, ['inspect', 'prepare', 'create', 'start', 'waitHealthy']);
  t.equal(started.context.outcome, 'created');
  t.equal(started.context.request, 'r1', 'the request reaches the effects');

  const again = await container.when({ type: 'start' });
  t.same(container.world.effects, ['inspect'], 'nothing else asked of the engine');
  t.equal(again.context.outcome, 'alreadyRunning');

  const stopped = await container.when({ type: 'stop' });
  t.same(stopped.value, { settled: 'stopped' });
  t.same(container.world.effects, ['inspect', 'stop']);
  t.equal(stopped.context.outcome, 'stopped');
  t.equal((await container.when({ type: 'start' })).context.outcome, 'started', 'the existing container started again');
  t.same(container.world.effects, BRING_UP_EXISTING);
});

t.test('start of an app: its container is made anew every time', async (t) => {
  const app = given(APP, 'running');
  const started = await app.when({ type: 'start' });
  t.same(app.world.effects, ['inspect', 'prepare', 'remove', 'create', 'start', 'waitHealthy']);
  t.equal(started.context.outcome, 'created');
  t.equal(started.context.preparation, 'binds', 'what prepare answered goes to create');
});

t.test('restart: an existing container is restarted, a missing one made', async (t) => {
  const container = given(CORE, 'running');
  t.equal((await container.when({ type: 'restart' })).context.outcome, 'restarted');
  t.same(container.world.effects, ['inspect', 'prepare', 'restart', 'waitHealthy']);
  container.world.presence = 'absent';
  t.equal((await container.when({ type: 'restart' })).context.outcome, 'created');
});

t.test('create and remove: made without starting it; removed and no longer wanted', async (t) => {
  const container = given(CORE, 'absent');
  const created = await container.when({ type: 'create' });
  t.same(created.value, { settled: 'stopped' });
  t.same(container.world.effects, ['prepare', 'create']);
  await container.when({ type: 'start' });
  const removed = await container.when({ type: 'remove' });
  t.same(removed.value, { settled: 'stopped' });
  t.same(container.world.effects, ['remove']);
  t.equal(removed.context.outcome, 'removed');
  t.notOk(removed.hasTag('wanted'));
  await container.when(died(137), (s) => s.matches({ settled: 'stopped' }));
  t.same(container.world.effects, [], 'a death of a container not wanted is no crash');
});

t.test('a stop of a stopped container does nothing; a failed stop reaches the caller', async (t) => {
  const container = given(CORE, 'stopped');
  t.equal((await container.when({ type: 'stop' })).context.outcome, 'alreadyStopped');
  t.same(container.world.effects, ['inspect']);
  container.world.presence = 'running';
  container.world.failures.push({ step: 'stop', error: new Error('engine gone') });
  const failed = await container.when({ type: 'stop' });
  t.same(failed.value, { settled: 'stopped' });
  t.equal((failed.context.error as Error).message, 'engine gone');
});

t.test('die: the watchdog starts the same container again and reports it', async (t) => {
  const container = given(CORE, 'absent');
  await container.when({ type: 'start' });
  container.world.presence = 'stopped';
  const back = await container.when(died(137), (s) => s.matches({ settled: 'running' }) && container.world.effects.includes('recovery ended'));
  t.same(container.world.effects, ['inspect', 'crash 137', 'recovery begun', ...BRING_UP_EXISTING, 'restarted 1', 'recovery ended']);
  t.same(back.context.crashes, [0]);
  t.equal(back.context.request, 'watchdog', 'the crash report says what the restart works with');
});

t.test('die: an app is made anew by its watchdog', async (t) => {
  const app = given(APP, 'absent');
  await app.when({ type: 'start' });
  app.world.presence = 'stopped';
  await app.when(died(1), (s) => s.matches({ settled: 'running' }) && app.world.effects.includes('recovery ended'));
  t.same(app.world.effects, ['inspect', 'crash 1', 'recovery begun', 'inspect', 'prepare', 'remove', 'create', 'start', 'waitHealthy', 'restarted 1', 'recovery ended']);
});

t.test('die: a clean exit is the core\'s own stop, an app\'s crash', async (t) => {
  const core = given(CORE, 'absent');
  await core.when({ type: 'start' });
  core.world.effects = [];
  core.actor.send(died(0));
  t.same(core.state().value, { settled: 'running' });
  t.same(core.world.effects, [], 'nothing judged');
  const app = given(APP, 'absent');
  await app.when({ type: 'start' });
  app.world.presence = 'stopped';
  await app.when(died(0), (s) => app.world.effects.includes('recovery ended'));
  t.match(app.world.effects, ['inspect', 'crash 0']);
});

t.test('die: a container found running again when judged was no crash', async (t) => {
  const container = given(CORE, 'absent');
  await container.when({ type: 'start' });
  const judged = await container.when(died(143), idle);
  t.same(judged.value, { settled: 'running' });
  t.same(container.world.effects, ['inspect']);
});

t.test(`die: after ${WATCHDOG_ATTEMPTS} failed restarts the watchdog gives up`, async (t) => {
  const core = given(CORE, 'absent');
  await core.when({ type: 'start' });
  core.world.presence = 'stopped';
  for (let i = 0; i < WATCHDOG_ATTEMPTS; i++) core.world.failures.push({ step: 'start', error: new Error(`refused ${i + 1}`) });
  const down = await core.when(died(3), (s) => s.matches({ settled: 'failed' }));
  const attempt = (n: number) => ['inspect', 'prepare', 'start', `attempt ${n} failed: refused ${n}`];
  t.same(core.world.effects, ['inspect', 'crash 3', 'recovery begun', ...attempt(1), ...attempt(2), ...attempt(3), ...attempt(4), ...attempt(5), 'gave up: attempts', 'recovery ended']);
  t.ok(down.hasTag('wanted'), 'the core stays wanted: a later death is judged');

  const app = given(APP, 'absent');
  await app.when({ type: 'start' });
  app.world.presence = 'stopped';
  for (let i = 0; i < WATCHDOG_ATTEMPTS; i++) app.world.failures.push({ step: 'create', error: new Error('no image') });
  t.same((await app.when(died(3), (s) => s.matches({ settled: 'stopped' }))).value, { settled: 'stopped' }, 'an app is left stopped');
});

t.test('die: an attempt not worth repeating ends the watchdog at once (an app\'s port conflict)', async (t) => {
  const app = given(APP, 'absent', { worthRetrying: false });
  await app.when({ type: 'start' });
  app.world.presence = 'stopped';
  app.world.failures.push({ step: 'start', error: new Error('port in use') });
  await app.when(died(1), (s) => s.matches({ settled: 'stopped' }));
  t.same(app.world.effects.slice(-3), ['attempt 1 failed: port in use', 'gave up: attempts', 'recovery ended']);
});

t.test('die: a container removed behind the supervisor\'s back is not made again (core), but is (apps)', async (t) => {
  const core = given(CORE, 'absent');
  await core.when({ type: 'start' });
  core.world.presence = 'absent';
  await core.when(died(137), (s) => s.matches({ settled: 'failed' }));
  t.same(core.world.effects, ['inspect', 'crash 137', 'recovery begun', 'inspect', 'gave up: removed', 'recovery ended']);
  const app = given(APP, 'absent');
  await app.when({ type: 'start' });
  app.world.presence = 'absent';
  await app.when(died(137), (s) => s.matches({ settled: 'running' }) && app.world.effects.includes('recovery ended'));
  t.same(app.world.effects.slice(3), ['inspect', 'prepare', 'remove', 'create', 'start', 'waitHealthy', 'restarted 1', 'recovery ended']);
});

t.test('die: with the watchdog off the crash is reported and nothing restarted', async (t) => {
  const core = given(CORE, 'absent', { watchdog: false });
  await core.when({ type: 'start' });
  core.world.presence = 'stopped';
  t.same((await core.when(died(137), (s) => s.matches({ settled: 'failed' }))).value, { settled: 'failed' });
  t.same(core.world.effects, ['inspect', 'crash 137']);
  const app = given(APP, 'absent', { watchdog: false });
  await app.when({ type: 'start' });
  app.world.presence = 'stopped';
  t.same((await app.when(died(137), (s) => s.matches({ settled: 'stopped' }))).value, { settled: 'stopped' });
});

t.test('the watchdog budget: 10 restarts in 30 minutes, then it gives up; older crashes fall out', async (t) => {
  const core = given(CORE, 'absent');
  await core.when({ type: 'start' });
  const minute = 60_000;
  const crashAt = async (at: number) => {
    core.world.presence = 'stopped';
    await core.when(died(137, at), (s) => idle(s) && (core.world.effects.includes('recovery ended') || core.world.effects.includes('gave up: rate')));
  };
  for (let i = 0; i < 10; i++) {
    await crashAt(i * minute);
    t.ok(core.world.effects.includes('restarted 1'), `crash ${i + 1} restarted`);
  }
  await crashAt(10 * minute);
  t.same(core.world.effects, ['inspect', 'crash 137', 'gave up: rate'], 'the 11th within 30 minutes');
  t.same(core.state().value, { settled: 'failed' });
  await crashAt(40 * minute);
  t.ok(core.world.effects.includes('restarted 1'), 'the early crashes are out of the window');
});

t.test('stop while the watchdog is starting the container: the start is dropped, nothing reported', async (t) => {
  const core = given(CORE, 'absent');
  await core.when({ type: 'start' });
  core.world.presence = 'stopped';
  core.world.held = { step: 'waitHealthy' };
  await core.when(died(137), (s) => s.matches({ settled: { recovering: { attempting: { bringingUp: 'waitingHealthy' } } } }));
  const stopped = await core.when({ type: 'stop' });
  t.same(stopped.value, { settled: 'stopped' });
  t.same(core.world.effects, ['recovery ended', 'inspect', 'stop']);
  core.world.held.release?.();
  await new Promise((resolve) => setTimeout(resolve, 20));
  t.same(core.world.effects, ['recovery ended', 'inspect', 'stop'], 'no restart reported afterwards');
  t.same(core.state().value, { settled: 'stopped' });
});

t.test('stop during the pause between attempts ends the watchdog', async (t) => {
  const core = given(CORE, 'absent');
  await core.when({ type: 'start' });
  core.world.presence = 'stopped';
  core.world.failures.push({ step: 'start', error: new Error('refused') });
  await core.when(died(137), (s) => s.matches({ settled: { recovering: 'pausing' } }));
  await core.when({ type: 'stop' });
  t.same(core.world.effects, ['recovery ended', 'inspect']);
});

t.test('health wait timeout: the start fails with the wait\'s error; the core stays wanted, an app does not', async (t) => {
  const core = given(CORE, 'absent');
  core.world.failures.push({ step: 'waitHealthy', error: new Error('The core did not answer in time') });
  const failed = await core.when({ type: 'start' });
  t.same(failed.value, { settled: 'failed' });
  t.equal((failed.context.error as Error).message, 'The core did not answer in time');
  const app = given(APP, 'absent');
  app.world.failures.push({ step: 'waitHealthy', error: new Error('not healthy') });
  t.same((await app.when({ type: 'start' })).value, { settled: 'stopped' });
});

t.test('a death while a command runs is judged once it settled, after the queue', async (t) => {
  const core = given(CORE, 'stopped', { heldTurns: true });
  core.world.held = { step: 'waitHealthy' };
  await core.when({ type: 'start' }, (s) => s.matches({ starting: 'waitingHealthy' }));
  core.actor.send(died(3));
  t.same(core.state().value, { starting: 'waitingHealthy' }, 'the start goes on');
  core.world.presence = 'stopped';
  core.world.held.release?.();
  await waitFor(core.actor, (s) => s.matches({ settled: { judging: 'waitingTurn' } }));
  t.pass('judged only when the queue is free');
  // an operation holding the queue replaces the container meanwhile: the judgement is dropped
  const rebuilt = await core.when({ type: 'remove' });
  t.same(rebuilt.value, { settled: 'stopped' });
  t.equal(core.world.waitingTurns.length, 1);
  core.world.waitingTurns[0]();
  t.same(core.state().value, { settled: 'stopped' }, 'a turn taken after it was left changes nothing');
});

t.test('adopt and unwatch: a container found running is wanted; once unwatched, deaths are not judged', async (t) => {
  const core = given(CORE, 'running');
  core.actor.send({ type: 'adopt' });
  t.ok(core.state().hasTag('wanted'));
  core.actor.send({ type: 'unwatch' });
  core.actor.send(died(137));
  t.same(core.state().value, { settled: 'running' });
  t.same(core.world.effects, []);
});

t.test('unwatch while the watchdog pauses: it stops trying', async (t) => {
  const core = given(CORE, 'absent');
  await core.when({ type: 'start' });
  core.world.presence = 'stopped';
  core.world.failures.push({ step: 'start', error: new Error('refused') });
  await core.when(died(137), (s) => s.matches({ settled: { recovering: 'pausing' } }));
  const left = await core.when({ type: 'unwatch' });
  t.same(left.value, { settled: 'failed' });
  t.same(core.world.effects, ['recovery ended']);
});
