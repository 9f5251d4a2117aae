import { assign, emit, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';

/** What an MQTT button starts from: the time of its last press (restored), or null. */
export interface MqttButtonInput {
  lastPressed: number | null;
}

export interface MqttButtonContext extends MqttButtonInput {}

/** A press, with its time (machines read no clock). */
export type MqttButtonEvent = { type: 'press'; time: number };

/** An MQTT button: a press publishes payload_press; its state is the time of the last press. */
export const mqttButtonMachine = setup({
  types: {
    context: {} as MqttButtonContext,
    events: {} as MqttButtonEvent,
    input: {} as MqttButtonInput,
    emitted: {} as MqttPublishRequest,
  },
  actions: {
    publishPress: emit({ type: 'publish', topic: 'command_topic', payload: 'payload_press', template: 'command_template' } as const),
    notePress: assign({ lastPressed: ({ event }) => event.time }),
  },
}).createMachine({
  id: 'mqtt_button',
  context: ({ input }) => ({ ...input }),
  initial: 'ready',
  states: {
    ready: {
      on: { press: { actions: ['publishPress', 'notePress'] } },
    },
  },
});
