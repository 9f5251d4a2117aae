import { bringingUp } from './container-bring-up.ts';
import { containerSetup, effectInput, errorOf, outputOf } from './container-setup.ts';
import { watchdogStates } from './container-watchdog.ts';

export {
  WATCHDOG_ATTEMPTS,
  WATCHDOG_MAX_RESTARTS,
  WATCHDOG_WINDOW_MS,
  type AttemptInput,
  type ContainerContext,
  type ContainerEvent,
  type ContainerOutcome,
  type ContainerPolicy,
  type ContainerPresence,
  type CrashReport,
  type EffectInput,
  type GiveUpReason,
} from './container-setup.ts';

/**
 * One container the supervisor runs (the core, an app, a plugin): what the supervisor last asked
 * of it, the command in flight, and the watchdog that brings it back after a crash. Every touch
 * of the engine is a named actor the actor layer provides (inspect, prepare, create, start,
 * restart, wait healthy, stop, remove), and so is every report (a crash, a restart, giving up)
 * and the turn the watchdog takes in the container's queue of operations: the watchdog never
 * works while an operation runs, and an operation waits for a watchdog attempt.
 *
 * Commands come one at a time from the actor side, which waits for `settled` before sending the
 * next; a command sent while the watchdog is at work takes over from it. A death is judged only
 * once the command in flight settled and the queue is free, so a container an operation stops
 * or replaces on purpose is never taken for a crash.
 */

/** A wanted container's death, now or seen while the last command was in flight, is judged. */
const deathsJudged = {
  always: { guard: 'deathPending', target: 'judging' },
  on: { died: { guard: 'countsAsDeath', target: 'judging', actions: 'notePendingDeath' } },
} as const;
/** A command in flight: a death seen meanwhile is judged once it settled. */
const deathWhileBusy = { died: { guard: 'countsAsDeath', actions: 'notePendingDeath' } } as const;
/** A stop, remove or create that failed: not wanted running either way, the error goes to the caller. */
const settleWithError = { target: '#container.settled.stopped', actions: { type: 'noteError', params: errorOf } } as const;

export const containerMachine = containerSetup.createMachine({
  id: 'container',
  context: ({ input }) => ({
    policy: input,
    command: null,
    request: undefined,
    presence: null,
    preparation: undefined,
    outcome: null,
    error: null,
    watching: true,
    pendingDeath: null,
    death: null,
    crashes: [],
    attempt: 0,
    giveUpReason: null,
  }),
  initial: 'settled',
  on: { unwatch: { actions: 'stopWatching' } },
  states: {
    /** No command in flight: the actor side may send one. */
    settled: {
      initial: 'stopped',
      on: {
        start: { target: 'starting', actions: 'beginCommand' },
        restart: { target: 'starting', actions: 'beginCommand' },
        create: { target: 'creating', actions: 'beginCommand' },
        stop: { target: 'stopping', actions: 'beginCommand' },
        remove: { target: 'removing', actions: 'beginCommand' },
        adopt: '.running',
      },
      states: {
        /** not wanted: never started, stopped, removed, or (apps) down */
        stopped: { entry: 'forgetPendingDeath' },
        running: { tags: 'wanted', ...deathsJudged },
        /** wanted, but could not be brought up (or the watchdog left it) */
        failed: { tags: 'wanted', ...deathsJudged },
        down: {
          always: [{ guard: 'staysWantedWhenDown', target: 'failed' }, { target: 'stopped' }],
        },
        ...watchdogStates,
      },
    },
    starting: {
      tags: 'wanted',
      on: deathWhileBusy,
      ...bringingUp,
      onDone: [{ guard: 'broughtUp', target: '#container.settled.running' }, { target: '#container.settled.down' }],
    },
    creating: {
      on: deathWhileBusy,
      initial: 'preparing',
      states: {
        preparing: {
          invoke: { src: 'prepareStart', input: effectInput, onDone: { target: 'creatingContainer', actions: { type: 'notePreparation', params: outputOf } }, onError: settleWithError },
        },
        creatingContainer: {
          invoke: { src: 'createContainer', input: effectInput, onDone: { target: '#container.settled.stopped', actions: { type: 'noteOutcome', params: 'created' } }, onError: settleWithError },
        },
      },
    },
    stopping: {
      on: deathWhileBusy,
      initial: 'inspecting',
      states: {
        inspecting: {
          invoke: {
            src: 'inspectContainer',
            input: effectInput,
            onDone: [
              { guard: { type: 'isRunning', params: outputOf }, target: 'stoppingContainer' },
              { target: '#container.settled.stopped', actions: { type: 'noteOutcome', params: 'alreadyStopped' } },
            ],
            onError: settleWithError,
          },
        },
        stoppingContainer: {
          invoke: {
            src: 'stopContainer',
            input: effectInput,
            onDone: { target: '#container.settled.stopped', actions: { type: 'noteOutcome', params: 'stopped' } },
            onError: settleWithError,
          },
        },
      },
    },
    removing: {
      on: deathWhileBusy,
      invoke: {
        src: 'removeContainer',
        input: effectInput,
        onDone: { target: '#container.settled.stopped', actions: { type: 'noteOutcome', params: 'removed' } },
        onError: settleWithError,
      },
    },
  },
});
