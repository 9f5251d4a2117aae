import { assign, emit, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';

/** What a stateless MQTT trigger (a button, a scene) starts from: the time it was last triggered (restored), or null. */
export interface MqttLastTriggeredInput {
  lastTriggered: number | null;
}

export interface MqttLastTriggeredContext extends MqttLastTriggeredInput {}

/** A press (button.press, scene.turn_on), with its time (machines read no clock). */
export type MqttLastTriggeredEvent = { type: 'press'; time: number };

/**
 * A stateless MQTT trigger: a press publishes `request` (a button's payload_press through its
 * command template, a scene's payload_on); its state is the time of the last press.
 */
export function mqttLastTriggeredMachine(id: string, request: MqttPublishRequest) {
  return setup({
    types: {
      context: {} as MqttLastTriggeredContext,
      events: {} as MqttLastTriggeredEvent,
      input: {} as MqttLastTriggeredInput,
      emitted: {} as MqttPublishRequest,
    },
    actions: {
      publish: emit(request),
      noteTime: assign({ lastTriggered: ({ event }) => event.time }),
    },
  }).createMachine({
    id,
    context: ({ input }) => ({ ...input }),
    initial: 'ready',
    states: {
      ready: {
        on: { press: { actions: ['publish', 'noteTime'] } },
      },
    },
  });
}
