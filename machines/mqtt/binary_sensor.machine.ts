import { assign, setup } from 'xstate';

/** What an MQTT binary sensor starts from. */
export interface MqttBinarySensorInput {
  /** the restored state (only with expire_after, while it has not expired), else null: unknown */
  on: boolean | null;
  expireAfterMs: number | null;
  /** off_delay in ms, or null */
  offDelayMs: number | null;
  /** how long a restored state stays valid; 0 when nothing was restored */
  remainingMs: number;
}

export interface MqttBinarySensorContext extends MqttBinarySensorInput {}

/** A state message: `on` undefined when the payload matched neither payload_on nor payload_off. */
export type MqttBinarySensorEvent = { type: 'message'; on?: boolean | null };

/**
 * An MQTT binary sensor. Two regions: `expiry` (as the sensor's: unavailable once expire_after
 * passed without a message) and `delay` (off_delay: an `on` goes `off` by itself after the delay,
 * unless another message came first).
 */
export const mqttBinarySensorMachine = setup({
  types: {
    context: {} as MqttBinarySensorContext,
    events: {} as MqttBinarySensorEvent,
    input: {} as MqttBinarySensorInput,
  },
  actions: {
    take: assign(({ context, event }) => ({ on: event.on === undefined ? context.on : event.on })),
    turnOff: assign({ on: false }),
  },
  delays: {
    expiry: ({ context }) => context.expireAfterMs ?? 0,
    remaining: ({ context }) => context.remainingMs,
    offDelay: ({ context }) => context.offDelayMs ?? 0,
  },
  guards: {
    neverExpires: ({ context }) => context.expireAfterMs === null,
    restored: ({ context }) => context.remainingMs > 0,
    turnsOnWithDelay: ({ context, event }) => context.offDelayMs !== null && event.on === true,
    matched: ({ event }) => event.on !== undefined,
  },
}).createMachine({
  id: 'mqtt_binary_sensor',
  context: ({ input }) => ({ ...input }),
  type: 'parallel',
  states: {
    expiry: {
      initial: 'starting',
      states: {
        starting: {
          always: [{ guard: 'neverExpires', target: 'live' }, { guard: 'restored', target: 'restored' }, { target: 'expired' }],
        },
        live: {},
        restored: { after: { remaining: 'expired' }, on: { message: 'fresh' } },
        fresh: { after: { expiry: 'expired' }, on: { message: { target: 'fresh', reenter: true } } },
        expired: { on: { message: 'fresh' } },
      },
    },
    // the value lives here: a matched payload is taken and (re)arms or cancels the off delay
    delay: {
      initial: 'idle',
      states: {
        idle: {
          on: {
            message: [
              { guard: 'turnsOnWithDelay', target: 'counting', actions: 'take' },
              { guard: 'matched', actions: 'take' },
            ],
          },
        },
        counting: {
          after: { offDelay: { target: 'idle', actions: 'turnOff' } },
          on: {
            message: [
              { guard: 'turnsOnWithDelay', target: 'counting', reenter: true, actions: 'take' },
              { guard: 'matched', target: 'idle', actions: 'take' },
            ],
          },
        },
      },
    },
  },
});
