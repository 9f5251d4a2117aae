import { assign, setup } from 'xstate';

/** What an MQTT sensor starts from. */
export interface MqttSensorInput {
  /** the restored value (only with expire_after, while it has not expired), else null: unknown */
  value: string | null;
  lastReset: string | null;
  /** expire_after in ms, or null when values never expire */
  expireAfterMs: number | null;
  /** how long a restored value stays valid; 0 when nothing was restored */
  remainingMs: number;
}

export interface MqttSensorContext extends MqttSensorInput {}

/**
 * A state message as the platform read it: `value` undefined leaves the value as it is (a
 * payload the sensor ignores still proves the device alive), null is unknown.
 */
export type MqttSensorEvent = { type: 'message'; value?: string | null; lastReset?: string };

/**
 * An MQTT sensor: the last value its state topic gave. With expire_after, a value is `fresh` for
 * that long after the last message (any message, even one ignored), then `expired` (the entity is
 * unavailable) until the next one.
 */
export const mqttSensorMachine = setup({
  types: {
    context: {} as MqttSensorContext,
    events: {} as MqttSensorEvent,
    input: {} as MqttSensorInput,
  },
  actions: {
    take: assign(({ context, event }) => ({
      value: event.value === undefined ? context.value : event.value,
      lastReset: event.lastReset ?? context.lastReset,
    })),
  },
  delays: {
    expiry: ({ context }) => context.expireAfterMs ?? 0,
    remaining: ({ context }) => context.remainingMs,
  },
  guards: {
    neverExpires: ({ context }) => context.expireAfterMs === null,
    restored: ({ context }) => context.remainingMs > 0,
  },
}).createMachine({
  id: 'mqtt_sensor',
  context: ({ input }) => ({ ...input }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'neverExpires', target: 'live' }, { guard: 'restored', target: 'restored' }, { target: 'expired' }],
    },
    live: {
      on: { message: { actions: 'take' } },
    },
    restored: {
      after: { remaining: 'expired' },
      on: { message: { target: 'fresh', actions: 'take' } },
    },
    fresh: {
      after: { expiry: 'expired' },
      on: { message: { target: 'fresh', reenter: true, actions: 'take' } },
    },
    expired: {
      on: { message: { target: 'fresh', actions: 'take' } },
    },
  },
});
