import { assign, emit, setup } from 'xstate';
import { isoformat } from './python/isoformat.ts';

/** What a timer starts from: configured, or restored from its last state. */
export interface TimerInput {
  entityId: string;
  /** the configured duration (ms) */
  duration: number;
  /** the duration the timer last ran with (ms); the configured one unless restored */
  running: number;
  rest: 'idle' | 'active' | 'paused';
  /** a paused timer's remaining time (ms) */
  remaining: number | null;
  /** an active timer's end (epoch ms) */
  end: number | null;
  /** when the machine starts (epoch ms) */
  now: number;
}

export interface TimerContext extends TimerInput {
  /** the time of the event that last (re)entered `active`: the delay runs from there */
  at: number;
}

export type TimerEvent =
  | { type: 'start'; time: number; duration?: number }
  | { type: 'pause'; time: number }
  | { type: 'cancel'; time: number }
  | { type: 'finish'; time: number }
  | { type: 'change'; time: number; duration: number };

export type TimerEmitted =
  | { type: 'bus_event'; event_type: string; data: Record<string, unknown> }
  | { type: 'rejected'; code: 'home_assistant_error'; message: string };

/** The original's times: utcnow().replace(microsecond=0). */
const wholeSecond = (ms: number) => Math.floor(ms / 1000) * 1000;

const timeOf = (event: TimerEvent | { type: string }) => ('time' in event && typeof event.time === 'number' ? event.time : undefined);

/** Why the original's change refuses, if it does. */
function changeProblem(context: TimerContext, event: TimerEvent, running: boolean): string | undefined {
  if (event.type !== 'change') return undefined;
  if (!running) return `Timer ${context.entityId} is not running, only active timers can be changed`;
  if (context.remaining !== null && context.remaining !== 0 && context.remaining + event.duration > context.running) return `Not possible to change timer ${context.entityId} beyond duration`;
  if (context.remaining !== null && context.remaining !== 0 && context.remaining + event.duration < 0) return `Not possible to change timer ${context.entityId} to negative time remaining`;
  return undefined;
}

/**
 * A timer: idle, active, paused. Its end is a time (whole seconds, as the original keeps it);
 * an active timer finishes by an xstate delay to that end. Each change announces the
 * original's bus event (timer.started, restarted, paused, cancelled, finished, changed).
 */
export const timerMachine = setup({
  types: {
    context: {} as TimerContext,
    events: {} as TimerEvent,
    emitted: {} as TimerEmitted,
    input: {} as TimerInput,
  },
  delays: {
    untilEnd: ({ context }) => Math.max(0, (context.end ?? context.at) - context.at),
  },
  actions: {
    // the original's async_start: a duration given replaces the running one; else what remained
    begin: assign(({ context, event }) => {
      const time = timeOf(event) ?? context.now;
      const asked = event.type === 'start' ? event.duration : undefined;
      let { remaining, running } = context;
      if (asked) remaining = running = asked;
      else if (!remaining) remaining = running;
      return { remaining, running, end: wholeSecond(time) + remaining, at: time };
    }),
    hold: assign(({ context, event }) => ({ remaining: (context.end ?? 0) - wholeSecond(timeOf(event) ?? context.now), end: null })),
    shift: assign(({ context, event }) => {
      if (event.type !== 'change') return {};
      const end = (context.end ?? 0) + event.duration;
      return { end, remaining: end - wholeSecond(event.time), at: event.time };
    }),
    clear: assign(({ context }) => ({ end: null, remaining: null, running: context.duration })),
    announce: emit(({ context }, params: { event_type: string }) => ({ type: 'bus_event' as const, event_type: params.event_type, data: { entity_id: context.entityId } })),
    announceFinished: emit(({ context }) => ({
      type: 'bus_event' as const,
      event_type: 'timer.finished',
      data: { entity_id: context.entityId, finished_at: isoformat(context.end ?? context.now) },
    })),
    rejectChange: emit(({ context, event }, params: { running: boolean }) => ({
      type: 'rejected' as const,
      code: 'home_assistant_error' as const,
      message: changeProblem(context, event, params.running) ?? '',
    })),
  },
  guards: {
    restoredActive: ({ context }) => context.rest === 'active' && context.end !== null,
    restoredRunning: ({ context }) => context.rest === 'active' && context.end !== null && context.end > wholeSecond(context.now),
    restoredPaused: ({ context }) => context.rest === 'paused' && context.remaining !== null,
    changeRefused: ({ context, event }, params: { running: boolean }) => changeProblem(context, event, params.running) !== undefined,
  },
}).createMachine({
  id: 'timer',
  context: ({ input }) => ({ ...input, at: input.now }),
  initial: 'restoring',
  states: {
    restoring: {
      always: [
        // the original restores what remained and starts again, so the end stays the same
        { guard: 'restoredRunning', target: 'active', actions: assign(({ context }) => ({ remaining: (context.end ?? 0) - wholeSecond(context.now), at: context.now })) },
        { guard: 'restoredActive', target: 'idle', actions: ['announceFinished', 'clear'] },
        { guard: 'restoredPaused', target: 'paused' },
        { target: 'idle', actions: 'clear' },
      ],
    },
    idle: {
      on: {
        start: { target: 'active', actions: ['begin', { type: 'announce', params: { event_type: 'timer.started' } }] },
        cancel: { actions: ['clear', { type: 'announce', params: { event_type: 'timer.cancelled' } }] },
        change: { actions: { type: 'rejectChange', params: { running: false } } },
      },
    },
    active: {
      after: {
        untilEnd: { target: 'idle', actions: ['announceFinished', 'clear'] },
      },
      on: {
        start: { target: 'active', reenter: true, actions: ['begin', { type: 'announce', params: { event_type: 'timer.restarted' } }] },
        pause: { target: 'paused', actions: ['hold', { type: 'announce', params: { event_type: 'timer.paused' } }] },
        cancel: { target: 'idle', actions: ['clear', { type: 'announce', params: { event_type: 'timer.cancelled' } }] },
        finish: { target: 'idle', actions: ['announceFinished', 'clear'] },
        change: [
          { guard: { type: 'changeRefused', params: { running: true } }, actions: { type: 'rejectChange', params: { running: true } } },
          { target: 'active', reenter: true, actions: ['shift', { type: 'announce', params: { event_type: 'timer.changed' } }] },
        ],
      },
    },
    paused: {
      on: {
        start: { target: 'active', actions: ['begin', { type: 'announce', params: { event_type: 'timer.restarted' } }] },
        cancel: { target: 'idle', actions: ['clear', { type: 'announce', params: { event_type: 'timer.cancelled' } }] },
        change: { actions: { type: 'rejectChange', params: { running: false } } },
      },
    },
  },
});
