import { assign, emit, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';
import { floatRepr } from '../python/float.ts';
import { isOptimistic, publishAndAssumeIfOptimistic } from './optimistic-command.ts';
import { runningOnMessages } from './running-machine.ts';

/** What an MQTT number starts from. */
export interface MqttNumberInput {
  /** the value as its state shows it (`20`, `20.5`), restored only in optimistic mode; null: unknown */
  value: string | null;
  /** no state topic, or `optimistic: true`: a command sets the value itself */
  optimistic: boolean;
  min: number;
  max: number;
  entityId: string;
}

export interface MqttNumberContext extends MqttNumberInput {}

export type MqttNumberEvent =
  /** a state message as the platform read it: the value's text, or null (payload_reset) */
  | { type: 'message'; value: string | null }
  | { type: 'set_value'; value: number };

export type MqttNumberEmitted =
  | MqttPublishRequest
  | { type: 'rejected'; message: string; translation: { domain: string; key: string; placeholders: Record<string, string> } };

/** A value as the original shows it: an integral float becomes an int (`20`), others Python's float text. */
export function numberText(n: number): string {
  return Number.isInteger(n) ? String(n) : floatRepr(n);
}

/**
 * An MQTT number: its value comes from its state topic; set_value refuses a value outside
 * [min, max] with the original's words, else publishes it (an int when it is integral) through
 * the command template and, in optimistic mode, takes it at once.
 */
export const mqttNumberMachine = setup({
  types: {
    context: {} as MqttNumberContext,
    events: {} as MqttNumberEvent,
    input: {} as MqttNumberInput,
    emitted: {} as MqttNumberEmitted,
  },
  actions: {
    take: assign(({ event }) => ({ value: event.type === 'message' ? event.value : null })),
    refuse: emit(({ context, event }) => {
      const value = event.type === 'set_value' ? event.value : NaN;
      const placeholders = { value: floatRepr(value), entity_id: context.entityId, min_value: floatRepr(context.min), max_value: floatRepr(context.max) };
      return {
        type: 'rejected' as const,
        message: `Value ${placeholders.value} for ${placeholders.entity_id} is outside valid range ${placeholders.min_value} - ${placeholders.max_value}`,
        translation: { domain: 'number', key: 'out_of_range', placeholders },
      };
    }),
    publish: emit(({ event }) => ({ type: 'publish' as const, topic: 'command_topic', value: event.type === 'set_value' ? event.value : null, template: 'command_template' })),
    assume: assign(({ event }) => ({ value: event.type === 'set_value' ? numberText(event.value) : null })),
  },
  guards: {
    outOfRange: ({ context, event }) => event.type === 'set_value' && !(event.value >= context.min && event.value <= context.max),
    optimistic: isOptimistic,
  },
}).createMachine(
  runningOnMessages('mqtt_number', {
    set_value: [
      { guard: 'outOfRange', actions: 'refuse' },
      ...publishAndAssumeIfOptimistic('publish', 'assume'),
    ],
  }),
);
