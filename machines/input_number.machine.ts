import { assertEvent, assign, emit, setup } from 'xstate';
import { floatFormat, floatRepr } from './python/float.ts';

/** An input_number item of configuration.yaml, validated (min < max, initial within them). */
export interface InputNumberConfig {
  name?: string;
  min: number;
  max: number;
  initial?: number;
  step: number;
  icon?: string;
  unit_of_measurement?: string;
  mode: 'box' | 'slider';
}

/** What the machine starts from: its config and its value (initial, else restored, else min). */
export interface InputNumberInput {
  entityId: string;
  config: InputNumberConfig;
  value: number;
}

export interface InputNumberContext {
  entityId: string;
  config: InputNumberConfig;
  value: number;
}

export type InputNumberEvent =
  | { type: 'set_value'; value: number }
  | { type: 'increment' }
  | { type: 'decrement' }
  | { type: 'configure'; config: InputNumberConfig };

export type InputNumberEmitted = { type: 'rejected'; message: string; code: 'invalid_format' };

/**
 * The state string the original gives a float state: `f"{value:.15}"` (15 significant digits,
 * so 2.4 + 1.2 shows as `3.6`; fixed notation keeps a `.0`).
 */
export const pyFloatState = (n: number): string => floatFormat(n, 15);

/** A numeric value the user sets with a slider or a box, kept within [min, max]. */
export const inputNumberMachine = setup({
  types: {
    context: {} as InputNumberContext,
    events: {} as InputNumberEvent,
    emitted: {} as InputNumberEmitted,
    input: {} as InputNumberInput,
  },
  actions: {
    setValue: assign({
      value: ({ event }) => {
        assertEvent(event, 'set_value');
        return event.value;
      },
    }),
    stepUp: assign({ value: ({ context }) => Math.min(context.value + context.config.step, context.config.max) }),
    stepDown: assign({ value: ({ context }) => Math.max(context.value - context.config.step, context.config.min) }),
    rejectOutOfRange: emit(({ context, event }) => {
      assertEvent(event, 'set_value');
      const { min, max } = context.config;
      return {
        type: 'rejected' as const,
        code: 'invalid_format' as const,
        message: `Invalid value for ${context.entityId}: ${floatRepr(event.value)} (range ${floatRepr(min)} - ${floatRepr(max)})`,
      };
    }),
    // a reload keeps the value, moved inside the new limits
    applyConfig: assign(({ event, context }) => {
      assertEvent(event, 'configure');
      const { min, max } = event.config;
      return { config: event.config, value: Math.max(Math.min(context.value, max), min) };
    }),
  },
  guards: {
    valueInRange: ({ context, event }) => {
      assertEvent(event, 'set_value');
      // NaN compares false both ways, so the original accepts it; the service schema keeps it out
      return !(event.value < context.config.min || event.value > context.config.max);
    },
  },
}).createMachine({
  id: 'input_number',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, value: input.value }),
  initial: 'active',
  states: {
    active: {
      on: {
        set_value: [{ guard: 'valueInRange', actions: 'setValue' }, { actions: 'rejectOutOfRange' }],
        increment: { actions: 'stepUp' },
        decrement: { actions: 'stepDown' },
        configure: { actions: 'applyConfig' },
      },
    },
  },
});
