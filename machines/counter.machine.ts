import { assertEvent, assign, emit, setup } from 'xstate';

/** A counter item of configuration.yaml, validated. */
export interface CounterConfig {
  name?: string;
  icon?: string;
  initial: number;
  minimum: number | null;
  maximum: number | null;
  restore: boolean;
  step: number;
}

/** What the machine starts from: its config and its count (restored unless `restore: false`, else initial). */
export interface CounterInput {
  entityId: string;
  config: CounterConfig;
  value: number;
}

export interface CounterContext {
  entityId: string;
  config: CounterConfig;
  value: number;
}

export type CounterEvent =
  | { type: 'increment' }
  | { type: 'decrement' }
  | { type: 'reset' }
  | { type: 'set_value'; value: number }
  | { type: 'configure'; config: CounterConfig };

/** The original raises a plain ValueError here, which its WebSocket API answers as `unknown_error`. */
export type CounterEmitted = { type: 'rejected'; message: string; code: 'unknown_error' };

/** The value moved inside the configured minimum and maximum. */
export function clampCount(config: CounterConfig, value: number): number {
  let next = value;
  if (config.minimum !== null) next = Math.max(config.minimum, next);
  if (config.maximum !== null) next = Math.min(config.maximum, next);
  return next;
}

function setValueEvent(event: CounterEvent) {
  assertEvent(event, 'set_value');
  return event;
}

/** An integer that goes up and down by its step, within optional limits. */
export const counterMachine = setup({
  types: {
    context: {} as CounterContext,
    events: {} as CounterEvent,
    emitted: {} as CounterEmitted,
    input: {} as CounterInput,
  },
  actions: {
    countUp: assign({ value: ({ context }) => clampCount(context.config, context.value + context.config.step) }),
    countDown: assign({ value: ({ context }) => clampCount(context.config, context.value - context.config.step) }),
    reset: assign({ value: ({ context }) => clampCount(context.config, context.config.initial) }),
    setValue: assign({ value: ({ event }) => setValueEvent(event).value }),
    rejectAboveMaximum: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'unknown_error' as const,
      message: `Value ${setValueEvent(event).value} for ${context.entityId} exceeding the maximum value of ${context.config.maximum}`,
    })),
    rejectBelowMinimum: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'unknown_error' as const,
      message: `Value ${setValueEvent(event).value} for ${context.entityId} exceeding the minimum value of ${context.config.minimum}`,
    })),
    rejectOffStep: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'unknown_error' as const,
      message: `Value ${setValueEvent(event).value} for ${context.entityId} is not a multiple of the step size ${context.config.step}`,
    })),
    // a reload keeps the count, moved inside the new limits
    applyConfig: assign(({ context, event }) => {
      assertEvent(event, 'configure');
      return { config: event.config, value: clampCount(event.config, context.value) };
    }),
  },
  guards: {
    aboveMaximum: ({ context, event }) => context.config.maximum !== null && setValueEvent(event).value > context.config.maximum,
    belowMinimum: ({ context, event }) => context.config.minimum !== null && setValueEvent(event).value < context.config.minimum,
    // step 0 makes the original divide by zero; we skip the check instead
    offStep: ({ context, event }) => context.config.step !== 0 && setValueEvent(event).value % context.config.step !== 0,
  },
}).createMachine({
  id: 'counter',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, value: input.value }),
  initial: 'active',
  states: {
    active: {
      on: {
        increment: { actions: 'countUp' },
        decrement: { actions: 'countDown' },
        reset: { actions: 'reset' },
        set_value: [
          { guard: 'aboveMaximum', actions: 'rejectAboveMaximum' },
          { guard: 'belowMinimum', actions: 'rejectBelowMinimum' },
          { guard: 'offStep', actions: 'rejectOffStep' },
          { actions: 'setValue' },
        ],
        configure: { actions: 'applyConfig' },
      },
    },
  },
});
