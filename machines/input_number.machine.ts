import { assertEvent, assign, emit, setup } from 'xstate';

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

function digitsOf(n: number, precision?: number): { sign: string; digits: string; exp: number } {
  const text = precision === undefined ? Math.abs(n).toExponential() : Math.abs(n).toExponential(precision - 1);
  const [mantissa, exponent] = text.split('e');
  const digits = mantissa.replace('.', '').replace(/0+$/, '') || '0';
  return { sign: n < 0 || Object.is(n, -0) ? '-' : '', digits, exp: Number(exponent) };
}

function layout({ sign, digits, exp }: { sign: string; digits: string; exp: number }, scientific: boolean): string {
  if (scientific) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
  const whole = digits.length > exp + 1 ? digits.slice(0, exp + 1) : digits.padEnd(exp + 1, '0');
  return `${sign}${whole}.${digits.slice(exp + 1) || '0'}`;
}

function nonFinite(n: number): string | undefined {
  if (Number.isNaN(n)) return 'nan';
  if (!Number.isFinite(n)) return n > 0 ? 'inf' : '-inf';
  return undefined;
}

/** Python's repr() of a float: `50.0`, `0.1`, `1e-05`, `1e+16`. */
export function pyFloat(n: number): string {
  const special = nonFinite(n);
  if (special) return special;
  const parts = digitsOf(n);
  return layout(parts, parts.exp < -4 || parts.exp >= 16);
}

/**
 * The state string the original gives a float state: `f"{value:.15}"` (15 significant digits,
 * so 2.4 + 1.2 shows as `3.6`; fixed notation keeps a `.0`).
 */
export function pyFloatState(n: number): string {
  const special = nonFinite(n);
  if (special) return special;
  const parts = digitsOf(n, 15);
  return layout(parts, parts.exp < -4 || parts.exp >= 14);
}

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
        message: `Invalid value for ${context.entityId}: ${pyFloat(event.value)} (range ${pyFloat(min)} - ${pyFloat(max)})`,
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
