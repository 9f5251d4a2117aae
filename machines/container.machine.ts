import { assign, fromCallback, fromPromise, setup, type EventObject } from 'xstate';

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

/** A crashed container is restarted unless it crashed more than 10 times in the last 30 minutes (the original's limit). */
export const WATCHDOG_WINDOW_MS = 30 * 60_000;
export const WATCHDOG_MAX_RESTARTS = 10;
/** Starts the watchdog tries after one crash before it gives up. */
export const WATCHDOG_ATTEMPTS = 5;

/** Where the container stands on the engine. */
export type ContainerPresence = 'running' | 'stopped' | 'absent';

/** What the last command found or did. */
export type ContainerOutcome = 'alreadyRunning' | 'started' | 'created' | 'restarted' | 'gone' | 'stopped' | 'alreadyStopped' | 'removed';

export type GiveUpReason = 'rate' | 'attempts' | 'removed';

/** How one kind of container is run (fixed for its life). */
export interface ContainerPolicy {
  /** an exit with code 0 while meant to run is a crash (apps) or the container's own clean stop (core, plugins) */
  cleanExitIsCrash: boolean;
  /**
   * a container that could not be brought up (a failed start, a crash the watchdog leaves) is
   * still wanted, so a later death is judged (core, plugins); or it counts as stopped (apps)
   */
  staysWantedWhenDown: boolean;
  /** every start makes the container anew (apps); else an existing one is started again, and one removed behind the supervisor's back is not made again by the watchdog */
  newContainerEachStart: boolean;
}

interface Death {
  exitCode: number;
  /** epoch ms, from the caller's clock */
  at: number;
}

type Command = 'start' | 'restart' | 'recover' | 'create' | 'stop' | 'remove';

export interface ContainerContext {
  policy: ContainerPolicy;
  command: Command | null;
  /** what the caller passed with the command (or the crash report answered for the watchdog), handed to every effect */
  request: unknown;
  presence: ContainerPresence | null;
  /** what prepareStart answered, handed to createContainer */
  preparation: unknown;
  outcome: ContainerOutcome | null;
  /** why the last command or attempt failed, null when it did not */
  error: unknown;
  /** false once the actor side stopped following the engine: deaths are no longer judged */
  watching: boolean;
  /** a death seen while a command was in flight, judged once it settled */
  pendingDeath: Death | null;
  /** the death being judged or repaired */
  death: Death | null;
  /** times of the crashes within the window, oldest first */
  crashes: number[];
  attempt: number;
  giveUpReason: GiveUpReason | null;
}

export type ContainerEvent =
  | { type: 'start'; request?: unknown }
  | { type: 'restart'; request?: unknown }
  /** makes the container without starting it */
  | { type: 'create'; request?: unknown }
  | { type: 'stop' }
  | { type: 'remove' }
  /** found running (the supervisor started under it): it is wanted running */
  | { type: 'adopt' }
  | { type: 'died'; exitCode: number; at: number }
  | { type: 'unwatch' }
  /** from takeTurn: no operation runs now, and none starts until the turn is left */
  | { type: 'turn.taken' };

/** What every engine effect is given. */
export interface EffectInput {
  request: unknown;
  preparation: unknown;
}

/** What a crash report answers: the request the watchdog's effects get, and whether the watchdog is on. */
export interface CrashReport {
  request: unknown;
  watchdog: boolean;
}

export interface AttemptInput {
  request: unknown;
  attempt: number;
  exitCode: number;
}

function notProvided(name: string): never {
  throw new Error(`${name} was not provided`);
}

const engineEffect = (name: string) => fromPromise<void, EffectInput>(async () => notProvided(name));

/** The crashes still within the window at `at`. */
const crashesWithin = (crashes: number[], at: number) => crashes.filter((time) => at - time < WATCHDOG_WINDOW_MS);

const containerSetup = setup({
  types: {
    context: {} as ContainerContext,
    events: {} as ContainerEvent,
    input: {} as ContainerPolicy,
    tags: {} as 'wanted',
  },
  actors: {
    inspectContainer: fromPromise<ContainerPresence, EffectInput>(async () => notProvided('inspectContainer')),
    /** readies the host side of a start; its answer goes to createContainer */
    prepareStart: fromPromise<unknown, EffectInput>(async () => notProvided('prepareStart')),
    createContainer: engineEffect('createContainer'),
    startContainer: engineEffect('startContainer'),
    restartContainer: engineEffect('restartContainer'),
    waitHealthy: engineEffect('waitHealthy'),
    stopContainer: engineEffect('stopContainer'),
    /** stops the container when it runs and removes it; nothing when there is none */
    removeContainer: engineEffect('removeContainer'),
    /** waits for the queue of operations, sends `turn.taken`, holds the queue until stopped */
    takeTurn: fromCallback<EventObject, void>(() => notProvided('takeTurn')),
    reportCrash: fromPromise<CrashReport, { exitCode: number }>(async () => notProvided('reportCrash')),
    /** lives as long as the watchdog repairs one crash (the original's restart_after_problem job) */
    trackRecovery: fromCallback<EventObject, { request: unknown }>(() => notProvided('trackRecovery')),
    reportRestart: fromPromise<void, AttemptInput>(async () => notProvided('reportRestart')),
    /** answers whether another attempt is worth it */
    reportFailedAttempt: fromPromise<boolean, AttemptInput & { error: unknown }>(async () => notProvided('reportFailedAttempt')),
    reportGiveUp: fromPromise<void, { request: unknown; reason: GiveUpReason }>(async () => notProvided('reportGiveUp')),
  },
  delays: {
    /** between two of the watchdog's attempts (the original's 10 s) */
    retryPause: 10_000,
  },
  guards: {
    upAlready: ({ context }, presence: ContainerPresence) =>
      presence === 'running' && context.command !== 'restart' && !(context.policy.newContainerEachStart && context.command === 'start'),
    removedBehindBack: ({ context }, presence: ContainerPresence) => presence === 'absent' && context.command === 'recover' && !context.policy.newContainerEachStart,
    makesNewContainer: ({ context }) => context.policy.newContainerEachStart,
    containerAbsent: ({ context }) => context.presence === 'absent',
    restartsExisting: ({ context }) => context.command === 'restart',
    isRunning: (_, presence: ContainerPresence) => presence === 'running',
    broughtUp: ({ context }) => context.error === null,
    foundUp: ({ context }) => context.outcome === 'alreadyRunning',
    foundGone: ({ context }) => context.outcome === 'gone',
    countsAsDeath: ({ context, event }) => event.type === 'died' && context.watching && (event.exitCode !== 0 || context.policy.cleanExitIsCrash),
    deathPending: ({ context }) => context.pendingDeath !== null,
    watchdogOff: (_, report: CrashReport) => !report.watchdog,
    overBudget: ({ context }) => crashesWithin(context.crashes, context.death!.at).length + 1 > WATCHDOG_MAX_RESTARTS,
    attemptsLeft: ({ context }) => context.attempt < WATCHDOG_ATTEMPTS,
    notWorthRetrying: (_, worthIt: boolean) => !worthIt,
    staysWantedWhenDown: ({ context }) => context.policy.staysWantedWhenDown,
  },
  actions: {
    beginCommand: assign(({ event }) => ({
      command: event.type as Command,
      request: 'request' in event ? event.request : undefined,
      presence: null,
      preparation: undefined,
      outcome: null,
      error: null,
    })),
    beginAttempt: assign(({ context }) => ({
      command: 'recover' as const,
      presence: null,
      preparation: undefined,
      outcome: null,
      error: null,
      attempt: context.attempt + 1,
    })),
    notePresence: assign((_, presence: ContainerPresence) => ({ presence })),
    notePreparation: assign((_, preparation: unknown) => ({ preparation })),
    noteOutcome: assign((_, outcome: ContainerOutcome) => ({ outcome })),
    // a container made in this bring-up stays `created` once it is started too
    noteLaunched: assign(({ context }) => ({ outcome: context.outcome === 'created' ? ('created' as const) : ('started' as const) })),
    noteError: assign((_, error: unknown) => ({ error })),
    notePendingDeath: assign(({ event }) => (event.type === 'died' ? { pendingDeath: { exitCode: event.exitCode, at: event.at } } : {})),
    takePendingDeath: assign(({ context }) => ({ death: context.pendingDeath, pendingDeath: null })),
    forgetPendingDeath: assign({ pendingDeath: null }),
    noteCrash: assign(({ context }) => ({ crashes: [...crashesWithin(context.crashes, context.death!.at), context.death!.at] })),
    useRecoveryRequest: assign((_, report: CrashReport) => ({ request: report.request, attempt: 0 })),
    giveUpFor: assign((_, reason: GiveUpReason) => ({ giveUpReason: reason })),
    stopWatching: assign({ watching: false }),
  },
});

const effectInput = ({ context }: { context: ContainerContext }): EffectInput => ({ request: context.request, preparation: context.preparation });
const outputOf = <T>({ event }: { event: { output: T } }) => event.output;
const errorOf = ({ event }: { event: { error: unknown } }) => event.error;
const failed = { target: 'down', actions: { type: 'noteError', params: errorOf } } as const;
/** a stop, remove or create that failed: not wanted running either way, the error goes to the caller */
const settleWithError = { target: '#container.settled.stopped', actions: { type: 'noteError', params: errorOf } } as const;

/**
 * Bringing the container up, for a start, a restart and each watchdog attempt: it ends in `up`,
 * `gone` (the watchdog found no container to start) or `down` (with the error noted).
 */
const bringingUp = containerSetup.createStateConfig({
  initial: 'inspecting',
  states: {
    inspecting: {
      invoke: {
        src: 'inspectContainer',
        input: effectInput,
        onDone: [
          { guard: { type: 'upAlready', params: outputOf }, target: 'up', actions: { type: 'noteOutcome', params: 'alreadyRunning' } },
          { guard: { type: 'removedBehindBack', params: outputOf }, target: 'gone' },
          { target: 'preparing', actions: { type: 'notePresence', params: outputOf } },
        ],
        onError: failed,
      },
    },
    preparing: {
      invoke: {
        src: 'prepareStart',
        input: effectInput,
        onDone: [
          { guard: 'makesNewContainer', target: 'removingOld', actions: { type: 'notePreparation', params: outputOf } },
          { guard: 'containerAbsent', target: 'creating', actions: { type: 'notePreparation', params: outputOf } },
          { guard: 'restartsExisting', target: 'restartingContainer', actions: { type: 'notePreparation', params: outputOf } },
          { target: 'launching', actions: { type: 'notePreparation', params: outputOf } },
        ],
        onError: failed,
      },
    },
    removingOld: {
      invoke: { src: 'removeContainer', input: effectInput, onDone: 'creating', onError: failed },
    },
    creating: {
      invoke: { src: 'createContainer', input: effectInput, onDone: { target: 'launching', actions: { type: 'noteOutcome', params: 'created' } }, onError: failed },
    },
    launching: {
      invoke: { src: 'startContainer', input: effectInput, onDone: { target: 'waitingHealthy', actions: 'noteLaunched' }, onError: failed },
    },
    restartingContainer: {
      invoke: { src: 'restartContainer', input: effectInput, onDone: { target: 'waitingHealthy', actions: { type: 'noteOutcome', params: 'restarted' } }, onError: failed },
    },
    waitingHealthy: {
      invoke: { src: 'waitHealthy', input: effectInput, onDone: 'up', onError: failed },
    },
    up: { type: 'final' },
    gone: { type: 'final', entry: { type: 'noteOutcome', params: 'gone' } },
    down: { type: 'final' },
  },
});

/** The watchdog's states take their leave when the actor side stops following the engine. */
/** A command in flight: a death seen meanwhile is judged once it settled. */
const deathWhileBusy = { died: { guard: 'countsAsDeath', actions: 'notePendingDeath' } } as const;

const leaveWhenUnwatched = { unwatch: { target: '#container.settled.down', actions: 'stopWatching' } } as const;

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
        running: {
          tags: 'wanted',
          always: { guard: 'deathPending', target: 'judging' },
          on: { died: { guard: 'countsAsDeath', target: 'judging', actions: 'notePendingDeath' } },
        },
        /** wanted, but could not be brought up (or the watchdog left it) */
        failed: {
          tags: 'wanted',
          always: { guard: 'deathPending', target: 'judging' },
          on: { died: { guard: 'countsAsDeath', target: 'judging', actions: 'notePendingDeath' } },
        },
        down: {
          always: [{ guard: 'staysWantedWhenDown', target: 'failed' }, { target: 'stopped' }],
        },
        /** a death: after the operation in flight, is the container still down? */
        judging: {
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
        },
        crashed: {
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
        },
        overBudget: {
          tags: 'wanted',
          on: leaveWhenUnwatched,
          invoke: { src: 'reportGiveUp', input: ({ context }) => ({ request: context.request, reason: 'rate' as const }), onDone: 'down', onError: 'down' },
        },
        /** the watchdog's attempts at bringing the container back, one crash's worth */
        recovering: {
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
        },
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
