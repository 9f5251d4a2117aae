import { assign, emit, raise, setup } from 'xstate';
import type { PyFloat } from './py-float.ts';
import { runningOnMessages } from './running-machine.ts';
import { isOptimistic, publishAndAssumeIfOptimistic, toggleByTurningOffOrOn } from './optimistic-command.ts';

/** What an MQTT switch starts from. */
export interface MqttSwitchInput {
  /** restored only in optimistic mode (the original's RestoreEntity), else null: unknown */
  on: boolean | null;
  /** no state topic, or `optimistic: true`: a command sets the state itself */
  optimistic: boolean;
}

export interface MqttSwitchContext extends MqttSwitchInput {}

export type MqttSwitchEvent =
  | { type: 'message'; on: boolean | null }
  | { type: 'turn_on' }
  | { type: 'turn_off' }
  | { type: 'toggle' };

/**
 * What an MQTT machine asks to publish: the value of the option `payload` (or `value` itself)
 * sent through the command template the option `template` names, if set, to the topic the
 * option `topic` names.
 */
export interface MqttPublishRequest {
  type: 'publish';
  /** the option naming the topic */
  topic: string;
  /** the option whose value is sent */
  payload?: string;
  /** the value sent instead of an option's (a number's new value, a select's option) */
  value?: string | number | boolean | PyFloat | null;
  /** the option naming the command template, if any */
  template?: string;
  /** variables the command template sees besides `value` (a siren's tone, duration, volume) */
  variables?: Record<string, unknown>;
  /** without a template, the variables as JSON are sent (a siren's command) */
  json?: boolean;
  /** an empty or `None` payload is not sent */
  skipEmpty?: boolean;
}

/**
 * An MQTT switch: its state comes from its state topic; a command publishes payload_on or
 * payload_off and, in optimistic mode, takes the state at once. Toggle turns off what is on and
 * on anything else, as the original's ToggleEntity does.
 */
export const mqttSwitchMachine = setup({
  types: {
    context: {} as MqttSwitchContext,
    events: {} as MqttSwitchEvent,
    input: {} as MqttSwitchInput,
    emitted: {} as MqttPublishRequest,
  },
  actions: {
    take: assign(({ event }) => ({ on: event.type === 'message' ? event.on : null })),
    publishOn: emit({ type: 'publish', topic: 'command_topic', payload: 'payload_on', template: 'command_template' } as const),
    publishOff: emit({ type: 'publish', topic: 'command_topic', payload: 'payload_off', template: 'command_template' } as const),
    assumeOn: assign({ on: true }),
    assumeOff: assign({ on: false }),
    turnOffInstead: raise({ type: 'turn_off' } as const),
    turnOnInstead: raise({ type: 'turn_on' } as const),
  },
  guards: {
    optimistic: isOptimistic,
    isOn: ({ context }) => context.on === true,
  },
}).createMachine(
  runningOnMessages('mqtt_switch', {
    turn_on: publishAndAssumeIfOptimistic('publishOn', 'assumeOn'),
    turn_off: publishAndAssumeIfOptimistic('publishOff', 'assumeOff'),
    toggle: toggleByTurningOffOrOn(),
  }),
);
