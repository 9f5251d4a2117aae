import { assign, setup } from 'xstate';

/**
 * A voice timer (CoreStartTimer): it counts `seconds` down from `updatedAt` while active, holds
 * them while paused, and ends finished or cancelled. Times are wall-clock epoch milliseconds
 * carried by each event, so the machine itself never reads a clock and never waits: whoever
 * runs it decides when the end has come (see `timerEnd`) and sends `finish`.
 */
export interface IntentTimerInput {
  /** seconds left at `updatedAt` */
  seconds: number;
  updatedAt: number;
  /** seconds it was created with, raised when time added goes beyond */
  createdSeconds?: number;
  /** false to start paused (a timer restored paused) */
  isActive?: boolean;
}

export interface IntentTimerContext {
  seconds: number;
  updatedAt: number;
  createdSeconds: number;
  /** whether it entered active (else paused) when it started */
  startActive: boolean;
}

export type IntentTimerEvent =
  | { type: 'pause'; time: number }
  | { type: 'unpause'; time: number }
  /** adds (negative: removes) seconds; the result is clamped at 0 */
  | { type: 'add'; time: number; seconds: number }
  | { type: 'cancel'; time: number }
  | { type: 'finish'; time: number };

/** Whole seconds left at `now`: the original truncates the seconds run so far. */
export function secondsLeftAt(context: IntentTimerContext, active: boolean, now: number): number {
  if (!active) return context.seconds;
  const run = Math.trunc((now - context.updatedAt) / 1000);
  return Math.max(0, context.seconds - run);
}

/** When an active timer's time is up (epoch ms). */
export function timerEnd(context: IntentTimerContext): number {
  return context.updatedAt + context.seconds * 1000;
}

export const intentTimerMachine = setup({
  types: {
    context: {} as IntentTimerContext,
    events: {} as IntentTimerEvent,
    input: {} as IntentTimerInput,
  },
  guards: {
    startsActive: ({ context }) => context.startActive,
    someTimeAdded: ({ event }) => event.type === 'add' && event.seconds !== 0,
  },
  actions: {
    // an active timer keeps what was left; a paused one already holds it
    holdLeft: assign(({ context, event }) => ({ seconds: secondsLeftAt(context, true, event.time), updatedAt: event.time })),
    resume: assign(({ event }) => ({ updatedAt: event.time })),
    addActive: assign(({ context, event }) => {
      const delta = event.type === 'add' ? event.seconds : 0;
      const seconds = Math.max(0, secondsLeftAt(context, true, event.time) + delta);
      return { seconds, updatedAt: event.time, createdSeconds: Math.max(context.createdSeconds, seconds) };
    }),
    addPaused: assign(({ context, event }) => {
      const delta = event.type === 'add' ? event.seconds : 0;
      const seconds = Math.max(0, context.seconds + delta);
      return { seconds, updatedAt: event.time, createdSeconds: Math.max(context.createdSeconds, seconds) };
    }),
    zero: assign(({ event }) => ({ seconds: 0, updatedAt: event.time })),
  },
}).createMachine({
  id: 'intentTimer',
  context: ({ input }) => ({
    seconds: input.seconds,
    updatedAt: input.updatedAt,
    createdSeconds: input.createdSeconds ?? input.seconds,
    startActive: input.isActive !== false,
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'startsActive', target: 'active' }, { target: 'paused' }],
    },
    active: {
      on: {
        pause: { target: 'paused', actions: 'holdLeft' },
        // already running: nothing changes
        unpause: {},
        add: { guard: 'someTimeAdded', actions: 'addActive' },
        cancel: { target: 'cancelled', actions: 'zero' },
        finish: { target: 'finished', actions: 'zero' },
      },
    },
    paused: {
      on: {
        // already paused: nothing changes
        pause: {},
        unpause: { target: 'active', actions: 'resume' },
        add: { guard: 'someTimeAdded', actions: 'addPaused' },
        cancel: { target: 'cancelled', actions: 'zero' },
      },
    },
    finished: { type: 'final' },
    cancelled: { type: 'final' },
  },
});

export type IntentTimerStatus = 'active' | 'paused' | 'finished' | 'cancelled';
