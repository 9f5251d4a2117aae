import { assign, emit, raise, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';
import { isOptimistic, publishAndAssumeIfOptimistic } from './optimistic-command.ts';
import { runningOnMessages } from './running-machine.ts';

/** What an MQTT select starts from. */
export interface MqttSelectInput {
  /** the current option (restored only in optimistic mode), or null: unknown */
  current: string | null;
  options: string[];
  /** no state topic, or `optimistic: true`: a command sets the option itself */
  optimistic: boolean;
  entityId: string;
}

export interface MqttSelectContext extends MqttSelectInput {}

export type MqttSelectEvent =
  | { type: 'message'; option: string | null }
  | { type: 'select_option'; option: string }
  | { type: 'select_first' }
  | { type: 'select_last' }
  | { type: 'select_next'; cycle: boolean }
  | { type: 'select_previous'; cycle: boolean };

export type MqttSelectEmitted =
  | MqttPublishRequest
  | { type: 'rejected'; message: string; translation: { domain: string; key: string; placeholders: Record<string, string> } };

/** The option `offset` away from the current one (the first when there is none), cycling or stopping at the ends. */
function offsetOption(context: MqttSelectContext, offset: number, cycle: boolean): string {
  const { options, current } = context;
  const at = current !== null && options.includes(current) ? options.indexOf(current) : 0;
  let next = at + offset;
  if (cycle) next = ((next % options.length) + options.length) % options.length;
  else next = Math.max(0, Math.min(next, options.length - 1));
  return options[next];
}

/**
 * An MQTT select: its option comes from its state topic; select_option refuses an option not
 * among the options with the original's words, else publishes it through the command template
 * and, in optimistic mode, takes it at once. First, last, next and previous select an option
 * as select_option does.
 */
export const mqttSelectMachine = setup({
  types: {
    context: {} as MqttSelectContext,
    events: {} as MqttSelectEvent,
    input: {} as MqttSelectInput,
    emitted: {} as MqttSelectEmitted,
  },
  actions: {
    take: assign(({ event }) => ({ current: event.type === 'message' ? event.option : null })),
    refuse: emit(({ context, event }) => {
      const placeholders = { entity_id: context.entityId, option: event.type === 'select_option' ? event.option : '', options: context.options.join(', ') };
      return {
        type: 'rejected' as const,
        message: `Option ${placeholders.option} is not valid for entity ${placeholders.entity_id}, valid options are: ${placeholders.options}.`,
        translation: { domain: 'select', key: 'not_valid_option', placeholders },
      };
    }),
    publish: emit(({ event }) => ({ type: 'publish' as const, topic: 'command_topic', value: event.type === 'select_option' ? event.option : '', template: 'command_template' })),
    assume: assign(({ event }) => ({ current: event.type === 'select_option' ? event.option : null })),
    first: raise(({ context }) => ({ type: 'select_option' as const, option: context.options[0] })),
    last: raise(({ context }) => ({ type: 'select_option' as const, option: context.options[context.options.length - 1] })),
    next: raise(({ context, event }) => ({ type: 'select_option' as const, option: offsetOption(context, 1, event.type === 'select_next' ? event.cycle : true) })),
    previous: raise(({ context, event }) => ({ type: 'select_option' as const, option: offsetOption(context, -1, event.type === 'select_previous' ? event.cycle : true) })),
  },
  guards: {
    invalid: ({ context, event }) => event.type === 'select_option' && !context.options.includes(event.option),
    optimistic: isOptimistic,
  },
}).createMachine(
  runningOnMessages('mqtt_select', {
    select_option: [{ guard: 'invalid', actions: 'refuse' }, ...publishAndAssumeIfOptimistic('publish', 'assume')],
    select_first: { actions: 'first' },
    select_last: { actions: 'last' },
    select_next: { actions: 'next' },
    select_previous: { actions: 'previous' },
  }),
);
