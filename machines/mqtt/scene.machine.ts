import { assign, emit, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';

/** What an MQTT scene starts from: the time it was last activated (restored), or null. */
export interface MqttSceneInput {
  lastActivated: number | null;
}

export interface MqttSceneContext extends MqttSceneInput {}

/** scene.turn_on, with its time (machines read no clock). */
export type MqttSceneEvent = { type: 'press'; time: number };

/** An MQTT scene: activating it publishes payload_on; its state is the time of the last activation. */
export const mqttSceneMachine = setup({
  types: {
    context: {} as MqttSceneContext,
    events: {} as MqttSceneEvent,
    input: {} as MqttSceneInput,
    emitted: {} as MqttPublishRequest,
  },
  actions: {
    publishOn: emit({ type: 'publish', topic: 'command_topic', payload: 'payload_on' } as const),
    noteActivation: assign({ lastActivated: ({ event }) => event.time }),
  },
}).createMachine({
  id: 'mqtt_scene',
  context: ({ input }) => ({ ...input }),
  initial: 'ready',
  states: {
    ready: {
      on: { press: { actions: ['publishOn', 'noteActivation'] } },
    },
  },
});
