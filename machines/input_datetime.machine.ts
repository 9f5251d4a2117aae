import { assertEvent, assign, emit, setup } from 'xstate';
import type { WallTime } from './wall-time.ts';

/** The value: a wall-clock date and time (the original's naive datetime in the configured zone). */
export type DateTimeValue = WallTime;

/** An input_datetime item of configuration.yaml, validated (a date, a time or both). */
export interface InputDatetimeConfig {
  name?: string;
  has_date: boolean;
  has_time: boolean;
  icon?: string;
  initial?: string;
}

/** What the machine starts from: its config and its value (initial, else restored, else today at midnight). */
export interface InputDatetimeInput {
  entityId: string;
  config: InputDatetimeConfig;
  value: DateTimeValue;
}

export interface InputDatetimeContext {
  entityId: string;
  config: InputDatetimeConfig;
  value: DateTimeValue;
}

type DatePart = Pick<DateTimeValue, 'year' | 'month' | 'day'>;
type TimePart = Pick<DateTimeValue, 'hour' | 'minute' | 'second'>;

export type InputDatetimeEvent =
  /** the parts a call names; a datetime or timestamp arrives as both, already on the zone's wall clock */
  | { type: 'set_datetime'; date?: DatePart; time?: TimePart }
  | { type: 'configure'; config: InputDatetimeConfig };

export type InputDatetimeEmitted = { type: 'rejected'; message: string; code: 'invalid_format' };

/** The parts of a call this item keeps: a date only if it has a date, a time only if it has a time. */
function kept(context: InputDatetimeContext, event: { date?: DatePart; time?: TimePart }) {
  return { date: context.config.has_date ? event.date : undefined, time: context.config.has_time ? event.time : undefined };
}

/** A date and/or a time the user picks. A reload changes what it shows, never its value. */
export const inputDatetimeMachine = setup({
  types: {
    context: {} as InputDatetimeContext,
    events: {} as InputDatetimeEvent,
    emitted: {} as InputDatetimeEmitted,
    input: {} as InputDatetimeInput,
  },
  actions: {
    setParts: assign({
      value: ({ context, event }) => {
        assertEvent(event, 'set_datetime');
        const { date, time } = kept(context, event);
        return { ...context.value, ...date, ...time };
      },
    }),
    rejectNothing: emit({ type: 'rejected' as const, code: 'invalid_format' as const, message: 'Nothing to set' }),
    applyConfig: assign({
      config: ({ event }) => {
        assertEvent(event, 'configure');
        return event.config;
      },
    }),
  },
  guards: {
    somethingToSet: ({ context, event }) => {
      assertEvent(event, 'set_datetime');
      const { date, time } = kept(context, event);
      return date !== undefined || time !== undefined;
    },
  },
}).createMachine({
  id: 'input_datetime',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, value: input.value }),
  initial: 'active',
  states: {
    active: {
      on: {
        set_datetime: [{ guard: 'somethingToSet', actions: 'setParts' }, { actions: 'rejectNothing' }],
        configure: { actions: 'applyConfig' },
      },
    },
  },
});
