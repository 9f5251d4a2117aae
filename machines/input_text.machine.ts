import { assertEvent, assign, emit, not, setup } from 'xstate';

/** An input_text item of configuration.yaml, validated (min <= max, initial's length within them). */
export interface InputTextConfig {
  name?: string;
  min: number;
  max: number;
  initial?: string;
  icon?: string;
  unit_of_measurement?: string;
  /** a regular expression the whole value must match */
  pattern?: string;
  mode: 'text' | 'password';
}

/** What the machine starts from: its config and its value (initial, else restored; null is unknown). */
export interface InputTextInput {
  entityId: string;
  config: InputTextConfig;
  value: string | null;
}

export interface InputTextContext {
  entityId: string;
  config: InputTextConfig;
  value: string | null;
}

export type InputTextEvent = { type: 'set_value'; value: string } | { type: 'configure'; config: InputTextConfig };

export type InputTextEmitted = { type: 'rejected'; message: string; code: 'service_validation_error' };

/** Length as Python counts it: code points, not UTF-16 units. */
export function textLength(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Whether the whole text matches the pattern (as an HTML `pattern` attribute matches it). */
export function matchesPattern(text: string, pattern: string): boolean {
  return new RegExp(`^(?:${pattern})$`, 'u').test(text);
}

/** A text the user types, kept within its length limits and pattern. */
export const inputTextMachine = setup({
  types: {
    context: {} as InputTextContext,
    events: {} as InputTextEvent,
    emitted: {} as InputTextEmitted,
    input: {} as InputTextInput,
  },
  actions: {
    setValue: assign({
      value: ({ event }) => {
        assertEvent(event, 'set_value');
        return event.value;
      },
    }),
    // The original only logs a warning here and leaves the state as it was; the call itself succeeds.
    rejectLength: emit(({ context, event }) => {
      assertEvent(event, 'set_value');
      return {
        type: 'rejected' as const,
        code: 'service_validation_error' as const,
        message: `Invalid value: ${event.value} (length range ${context.config.min} - ${context.config.max})`,
      };
    }),
    // The original does not check the pattern on the server at all (only its frontend does).
    rejectPattern: emit(({ context, event }) => {
      assertEvent(event, 'set_value');
      return {
        type: 'rejected' as const,
        code: 'service_validation_error' as const,
        message: `Invalid value: ${event.value} (does not match pattern ${context.config.pattern})`,
      };
    }),
    // a reload keeps the value as it is, even when it no longer fits the new limits
    applyConfig: assign({
      config: ({ event }) => {
        assertEvent(event, 'configure');
        return event.config;
      },
    }),
  },
  guards: {
    lengthInRange: ({ context, event }) => {
      assertEvent(event, 'set_value');
      const length = textLength(event.value);
      return length >= context.config.min && length <= context.config.max;
    },
    matchesPattern: ({ context, event }) => {
      assertEvent(event, 'set_value');
      return context.config.pattern === undefined || matchesPattern(event.value, context.config.pattern);
    },
  },
}).createMachine({
  id: 'input_text',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, value: input.value }),
  initial: 'active',
  states: {
    active: {
      on: {
        set_value: [
          { guard: not('lengthInRange'), actions: 'rejectLength' },
          { guard: not('matchesPattern'), actions: 'rejectPattern' },
          { actions: 'setValue' },
        ],
        configure: { actions: 'applyConfig' },
      },
    },
  },
});
