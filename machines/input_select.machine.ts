import { assertEvent, assign, emit, not, setup } from 'xstate';
import { pyRepr } from './python/repr.ts';

/** An input_select item of configuration.yaml, validated (options unique and non-empty, initial among them). */
export interface InputSelectConfig {
  name?: string;
  options: string[];
  initial?: string;
  icon?: string;
}

/** What the machine starts from: its config and its option (initial, else restored, else the first). */
export interface InputSelectInput {
  entityId: string;
  config: InputSelectConfig;
  current: string;
}

export interface InputSelectContext {
  entityId: string;
  config: InputSelectConfig;
  /** the options shown; set_options replaces them until the next reload */
  options: string[];
  /** the selected option; after a reload it may no longer be one of the options (state `unknown`) */
  current: string | null;
}

export type InputSelectEvent =
  | { type: 'select_option'; option: string }
  | { type: 'select_next'; cycle: boolean }
  | { type: 'select_previous'; cycle: boolean }
  | { type: 'select_first' }
  | { type: 'select_last' }
  | { type: 'set_options'; options: string[] }
  | { type: 'configure'; config: InputSelectConfig };

export type InputSelectEmitted = { type: 'rejected'; message: string; code: 'home_assistant_error' };

function offsetIndex(context: InputSelectContext, offset: number, cycle: boolean): string {
  const { options, current } = context;
  // an option that is no longer offered counts as the first one
  const index = current !== null && options.includes(current) ? options.indexOf(current) : 0;
  let next = index + offset;
  if (cycle) next = ((next % options.length) + options.length) % options.length;
  else next = Math.min(Math.max(next, 0), options.length - 1);
  return options[next];
}

/** One option out of a list, chosen by the user or stepped through. */
export const inputSelectMachine = setup({
  types: {
    context: {} as InputSelectContext,
    events: {} as InputSelectEvent,
    emitted: {} as InputSelectEmitted,
    input: {} as InputSelectInput,
  },
  actions: {
    selectOption: assign({
      current: ({ event }) => {
        assertEvent(event, 'select_option');
        return event.option;
      },
    }),
    selectFirst: assign({ current: ({ context }) => context.options[0] }),
    selectLast: assign({ current: ({ context }) => context.options[context.options.length - 1] }),
    // with nothing selected, the next one is the first and the previous one the last
    selectNext: assign({
      current: ({ context, event }) => {
        assertEvent(event, 'select_next');
        return context.current === null ? context.options[0] : offsetIndex(context, 1, event.cycle);
      },
    }),
    selectPrevious: assign({
      current: ({ context, event }) => {
        assertEvent(event, 'select_previous');
        return context.current === null ? context.options[context.options.length - 1] : offsetIndex(context, -1, event.cycle);
      },
    }),
    // the selection survives when it is still offered, else the first new option is selected
    setOptions: assign(({ context, event }) => {
      assertEvent(event, 'set_options');
      const current = context.current !== null && event.options.includes(context.current) ? context.current : event.options[0];
      return { options: event.options, current };
    }),
    rejectOption: emit(({ context, event }) => {
      assertEvent(event, 'select_option');
      return {
        type: 'rejected' as const,
        code: 'home_assistant_error' as const,
        message: `Invalid option: ${event.option} (possible options: ${context.options.join(', ')})`,
      };
    }),
    rejectDuplicates: emit(({ event }) => {
      assertEvent(event, 'set_options');
      return { type: 'rejected' as const, code: 'home_assistant_error' as const, message: `Duplicated options: ${pyRepr(event.options)}` };
    }),
    // a reload offers the configured options again and keeps the selection, even one no longer offered
    applyConfig: assign(({ event }) => {
      assertEvent(event, 'configure');
      return { config: event.config, options: event.config.options };
    }),
  },
  guards: {
    isOption: ({ context, event }) => {
      assertEvent(event, 'select_option');
      return context.options.includes(event.option);
    },
    uniqueOptions: ({ event }) => {
      assertEvent(event, 'set_options');
      return new Set(event.options).size === event.options.length;
    },
  },
}).createMachine({
  id: 'input_select',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, options: input.config.options, current: input.current }),
  initial: 'active',
  states: {
    active: {
      on: {
        select_option: [{ guard: 'isOption', actions: 'selectOption' }, { actions: 'rejectOption' }],
        select_next: { actions: 'selectNext' },
        select_previous: { actions: 'selectPrevious' },
        select_first: { actions: 'selectFirst' },
        select_last: { actions: 'selectLast' },
        set_options: [{ guard: not('uniqueOptions'), actions: 'rejectDuplicates' }, { actions: 'setOptions' }],
        configure: { actions: 'applyConfig' },
      },
    },
  },
});
