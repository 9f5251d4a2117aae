import { bringingUp } from './container-bring-up.ts';
import { containerSetup, effectInput, outputOf } from './container-setup.ts';

/**
 * The container lifecycle's watchdog (container.machine.ts), states of `settled`: a death of a
 * container the supervisor wants running is judged once no operation runs, reported, and repaired
 * with up to 5 attempts 10 s apart, within a budget of 10 restarts in 30 minutes. A command takes
 * over from it at any point.
 */

/** Once the actor side stopped following the engine, the watchdog's work ends. */
const leaveWhenUnwatched = { unwatch: { target: '#container.settled.down', actions: 'stopWatching' } } as const;

/** A death: after the operation in flight, is the container still down? */
const judging = containerSetup.createStateConfig({
  tags: 'wanted',
  entry: 'takePendingDeath',
  invoke: { src: 'takeTurn' },
  initial: 'waitingTurn',
  on: leaveWhenUnwatched,
  states: {
    waitingTurn: { on: { 'turn.taken': 'inspecting' } },
    inspecting: {
      invoke: {
        src: 'inspectContainer',
        input: effectInput,
        onDone: [{ guard: { type: 'isRunning', params: outputOf }, target: '#container.settled.running' }, { target: '#container.settled.crashed' }],
        // nothing known: it stays wanted, and the next death is judged again
        onError: '#container.settled.running',
      },
    },
  },
});

/** A crash judged: reported; the watchdog repairs it unless it is off or over its budget. */
const crashed = containerSetup.createStateConfig({
  tags: 'wanted',
  on: leaveWhenUnwatched,
  invoke: {
    src: 'reportCrash',
    input: ({ context }) => ({ exitCode: context.death!.exitCode }),
    onDone: [
      { guard: { type: 'watchdogOff', params: outputOf }, target: 'down' },
      { guard: 'overBudget', target: 'overBudget', actions: [{ type: 'useRecoveryRequest', params: outputOf }, 'noteCrash'] },
      { target: 'recovering', actions: [{ type: 'useRecoveryRequest', params: outputOf }, 'noteCrash'] },
    ],
    onError: 'down',
  },
});

/** More than 10 restarts in 30 minutes: no more. */
const overBudget = containerSetup.createStateConfig({
  tags: 'wanted',
  on: leaveWhenUnwatched,
  invoke: { src: 'reportGiveUp', input: ({ context }) => ({ request: context.request, reason: 'rate' as const }), onDone: 'down', onError: 'down' },
});

/** The watchdog's attempts at bringing the container back, one crash's worth, each in its turn in the queue. */
const recovering = containerSetup.createStateConfig({
  tags: 'wanted',
  on: leaveWhenUnwatched,
  invoke: { src: 'trackRecovery', input: ({ context }) => ({ request: context.request }) },
  initial: 'attempting',
  states: {
    attempting: {
      entry: 'beginAttempt',
      invoke: { src: 'takeTurn' },
      initial: 'waitingTurn',
      states: {
        waitingTurn: { on: { 'turn.taken': 'bringingUp' } },
        bringingUp: {
          ...bringingUp,
          onDone: [
            // started meanwhile by someone else: nothing to repair, nothing to report
            { guard: 'foundUp', target: '#container.settled.running' },
            { guard: 'foundGone', target: '#container.settled.recovering.givingUp', actions: { type: 'giveUpFor', params: 'removed' } },
            { guard: 'broughtUp', target: 'reportingRestart' },
            { target: 'reportingFailure' },
          ],
        },
        reportingRestart: {
          invoke: {
            src: 'reportRestart',
            input: ({ context }) => ({ request: context.request, attempt: context.attempt, exitCode: context.death!.exitCode }),
            onDone: '#container.settled.running',
            onError: '#container.settled.running',
          },
        },
        reportingFailure: {
          invoke: {
            src: 'reportFailedAttempt',
            input: ({ context }) => ({ request: context.request, attempt: context.attempt, exitCode: context.death!.exitCode, error: context.error }),
            onDone: [
              { guard: { type: 'notWorthRetrying', params: outputOf }, target: '#container.settled.recovering.givingUp', actions: { type: 'giveUpFor', params: 'attempts' } },
              { target: '#container.settled.recovering.pausing' },
            ],
            onError: '#container.settled.recovering.pausing',
          },
        },
      },
    },
    pausing: {
      after: {
        retryPause: [{ guard: 'attemptsLeft', target: 'attempting' }, { target: 'givingUp', actions: { type: 'giveUpFor', params: 'attempts' } }],
      },
    },
    givingUp: {
      invoke: {
        src: 'reportGiveUp',
        input: ({ context }) => ({ request: context.request, reason: context.giveUpReason! }),
        onDone: '#container.settled.down',
        onError: '#container.settled.down',
      },
    },
  },
});

export const watchdogStates = { judging, crashed, overBudget, recovering };
