import { assign, raise, setup } from 'xstate';

/** CoverEntityFeature. */
export const COVER_OPEN = 1;
export const COVER_CLOSE = 2;
export const COVER_SET_POSITION = 4;
export const COVER_STOP = 8;
export const COVER_OPEN_TILT = 16;
export const COVER_CLOSE_TILT = 32;
export const COVER_STOP_TILT = 64;
export const COVER_SET_TILT_POSITION = 128;

/** How far a travelling cover moves between two writes of its position (percent). */
export const COVER_STEP = 10;

export interface CoverConfig {
  features: number;
  /** seconds from closed to open; 0 moves at once */
  travel_seconds: number;
  tilt: boolean;
}

export interface CoverInput {
  config: CoverConfig;
  position: number;
  tilt: number;
}

export interface CoverContext extends CoverInput {
  /** where a moving cover is going */
  target: number;
  /** the original's _cover_is_last_toggle_direction_open */
  lastOpening: boolean;
}

export type CoverEvent =
  | { type: 'open_cover' }
  | { type: 'close_cover' }
  | { type: 'set_cover_position'; position: number }
  | { type: 'stop_cover' }
  | { type: 'toggle' }
  | { type: 'open_cover_tilt' }
  | { type: 'close_cover_tilt' }
  | { type: 'set_cover_tilt_position'; tilt_position: number }
  | { type: 'stop_cover_tilt' }
  | { type: 'toggle_cover_tilt' };

/** Where a move goes: open 100, close 0, or the position asked. */
function targetOf(context: CoverContext, event: CoverEvent): number {
  if (event.type === 'open_cover') return 100;
  if (event.type === 'set_cover_position') return event.position;
  return 0;
}

/** The position after one more step toward the target. */
function nextPosition(context: CoverContext): number {
  const { position, target } = context;
  return target > position ? Math.min(target, position + COVER_STEP) : Math.max(target, position - COVER_STEP);
}

/** open_cover, close_cover and set_cover_position alike: at once, or travelling up or down. */
const MOVE = [
  { guard: 'instant', target: '.idle', actions: 'jump' },
  { guard: 'upward', target: '.opening', reenter: true, actions: 'aim' },
  { target: '.closing', reenter: true, actions: 'aim' },
] as const;

/**
 * A cover: `idle` (shown open, or closed at position 0), `opening`, `closing`. With
 * `travel_seconds` a move takes its time: the position advances a step at a time (xstate delayed
 * transitions), a stop leaves it where it is, a new command while moving turns it around.
 * toggle is the original's: stop a moving cover (when it can stop), open a closed or closing
 * one, close a fully open or opening one, else the other way than it last went.
 */
export const coverMachine = setup({
  types: {
    context: {} as CoverContext,
    events: {} as CoverEvent,
    input: {} as CoverInput,
  },
  delays: {
    // the time the next step takes at the cover's speed
    step: ({ context }) => (context.config.travel_seconds * 1000 * Math.abs(nextPosition(context) - context.position)) / 100,
  },
  actions: {
    aim: assign(({ context, event }) => ({ target: targetOf(context, event) })),
    jump: assign(({ context, event }) => ({ position: targetOf(context, event), target: targetOf(context, event) })),
    advance: assign(({ context }) => ({ position: nextPosition(context) })),
    halt: assign(({ context }) => ({ target: context.position })),
    markOpening: assign({ lastOpening: true }),
    markClosing: assign({ lastOpening: false }),
    open: raise({ type: 'open_cover' }),
    close: raise({ type: 'close_cover' }),
    tiltOpen: assign({ tilt: 100 }),
    tiltClose: assign({ tilt: 0 }),
    tiltTo: assign({ tilt: ({ event }) => (event.type === 'set_cover_tilt_position' ? event.tilt_position : 0) }),
    tiltToggle: assign({ tilt: ({ context }) => (context.tilt === 0 ? 100 : 0) }),
  },
  guards: {
    instant: ({ context, event }) => context.config.travel_seconds === 0 || targetOf(context, event) === context.position,
    upward: ({ context, event }) => targetOf(context, event) > context.position,
    arrives: ({ context }) => nextPosition(context) === context.target,
    canStop: ({ context }) => (context.config.features & COVER_STOP) !== 0,
    restingToggleOpens: ({ context }) => context.position === 0 || (context.position !== 100 && !context.lastOpening),
  },
}).createMachine({
  id: 'cover',
  context: ({ input }) => ({ ...input, target: input.position, lastOpening: true }),
  initial: 'idle',
  on: {
    open_cover: [...MOVE],
    close_cover: [...MOVE],
    set_cover_position: [...MOVE],
    stop_cover: { target: '.idle', actions: 'halt' },
    open_cover_tilt: { actions: 'tiltOpen' },
    close_cover_tilt: { actions: 'tiltClose' },
    set_cover_tilt_position: { actions: 'tiltTo' },
    toggle_cover_tilt: { actions: 'tiltToggle' },
  },
  states: {
    idle: {
      on: {
        toggle: [{ guard: 'restingToggleOpens', actions: 'open' }, { actions: 'close' }],
      },
    },
    opening: {
      entry: 'markOpening',
      after: {
        step: [
          { guard: 'arrives', target: 'idle', actions: 'advance' },
          { target: 'opening', reenter: true, actions: 'advance' },
        ],
      },
      on: {
        toggle: [{ guard: 'canStop', target: 'idle', actions: 'halt' }, { actions: 'close' }],
      },
    },
    closing: {
      entry: 'markClosing',
      after: {
        step: [
          { guard: 'arrives', target: 'idle', actions: 'advance' },
          { target: 'closing', reenter: true, actions: 'advance' },
        ],
      },
      on: {
        toggle: [{ guard: 'canStop', target: 'idle', actions: 'halt' }, { actions: 'open' }],
      },
    },
  },
});
