import { assign, fromCallback, fromPromise, setup, type EventObject } from 'xstate';

/**
 * The container lifecycle's vocabulary (machines/container.machine.ts): its context and events,
 * the effects it asks for by name (each supplied by the actor layer with `.provide()`), its
 * guards and actions. The states are in container.machine.ts, container-bring-up.ts and
 * container-watchdog.ts.
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

export const containerSetup = setup({
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

export const effectInput = ({ context }: { context: ContainerContext }): EffectInput => ({ request: context.request, preparation: context.preparation });
export const outputOf = <T>({ event }: { event: { output: T } }) => event.output;
export const errorOf = ({ event }: { event: { error: unknown } }) => event.error;
