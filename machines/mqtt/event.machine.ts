import { assign, setup } from 'xstate';

/** What an MQTT event entity starts from: its last event (restored), or none. */
export interface MqttEventInput {
  /** the time of the last event (epoch ms), or null */
  lastEvent: number | null;
  eventType: string | null;
  /** the last event's other keys */
  extra: Record<string, unknown>;
}

export interface MqttEventContext extends MqttEventInput {}

/** An event the state topic announced, with the time it came (machines read no clock). */
export type MqttEventEvent = { type: 'message'; time: number; eventType: string; extra: Record<string, unknown> };

/** An MQTT event entity: its state is the time of the last event, its attributes that event's type and data. */
export const mqttEventMachine = setup({
  types: {
    context: {} as MqttEventContext,
    events: {} as MqttEventEvent,
    input: {} as MqttEventInput,
  },
  actions: {
    take: assign(({ event }) => ({ lastEvent: event.time, eventType: event.eventType, extra: event.extra })),
  },
}).createMachine({
  id: 'mqtt_event',
  context: ({ input }) => ({ ...input }),
  initial: 'listening',
  states: {
    listening: {
      on: { message: { actions: 'take' } },
    },
  },
});
