import { assign, emit, enqueueActions, setup } from 'xstate';
import type { MqttPublishRequest } from './switch.machine.ts';

/** HumidifierEntityFeature.MODES. */
export const HUMIDIFIER_MODES = 1;

/** What an MQTT humidifier shows: null is unknown. */
export interface MqttHumidifierState {
  on: boolean | null;
  target: number | null;
  current: number | null;
  mode: string | null;
  action: string | null;
}

export interface MqttHumidifierSpec {
  entityId: string;
  optimistic: boolean;
  optimisticTarget: boolean;
  optimisticMode: boolean;
  minHumidity: number;
  maxHumidity: number;
  modes: string[];
}

export interface MqttHumidifierInput {
  spec: MqttHumidifierSpec;
  humidifier?: MqttHumidifierState;
}

export interface MqttHumidifierContext {
  spec: MqttHumidifierSpec;
  humidifier: MqttHumidifierState;
}

export type MqttHumidifierEvent =
  | { type: 'message'; patch: Partial<MqttHumidifierState> }
  | { type: 'turn_on' }
  | { type: 'turn_off' }
  | { type: 'toggle' }
  | { type: 'set_humidity'; humidity: number }
  | { type: 'set_mode'; mode: string };

export type MqttHumidifierEmitted = MqttPublishRequest | { type: 'rejected'; message: string; code: 'service_validation_error' };

/**
 * An MQTT humidifier (or dehumidifier): on or off, a target humidity within its range, a mode of
 * its list, the current humidity and what it is doing, each from its own topic. Commands publish
 * through their own command templates; in optimistic mode they set what it shows.
 */
export const mqttHumidifierMachine = setup({
  types: {
    context: {} as MqttHumidifierContext,
    events: {} as MqttHumidifierEvent,
    input: {} as MqttHumidifierInput,
    emitted: {} as MqttHumidifierEmitted,
  },
  actions: {
    take: assign(({ context, event }) => (event.type === 'message' ? { humidifier: { ...context.humidifier, ...event.patch } } : {})),
    rejectHumidity: emit(({ context, event }) => ({
      type: 'rejected' as const,
      code: 'service_validation_error' as const,
      message: `Provided humidity ${(event as { humidity: number }).humidity} is not valid. Accepted range is ${context.spec.minHumidity} to ${context.spec.maxHumidity}`,
    })),
    command: enqueueActions(({ context, event, enqueue }) => {
      const { spec } = context;
      const h = { ...context.humidifier };
      const power = (on: boolean) => {
        enqueue.emit({ type: 'publish', topic: 'command_topic', payload: on ? 'payload_on' : 'payload_off', template: 'command_template' });
        if (spec.optimistic) h.on = on;
      };
      switch (event.type) {
        case 'turn_on':
          power(true);
          break;
        case 'turn_off':
          power(false);
          break;
        case 'toggle':
          power(context.humidifier.on !== true);
          break;
        case 'set_humidity':
          enqueue.emit({ type: 'publish', topic: 'target_humidity_command_topic', value: event.humidity, template: 'target_humidity_command_template' });
          if (spec.optimisticTarget) h.target = event.humidity;
          break;
        case 'set_mode':
          // a mode it does not list is only logged by the original's MQTT humidifier
          if (!spec.modes.includes(event.mode)) return;
          enqueue.emit({ type: 'publish', topic: 'mode_command_topic', value: event.mode, template: 'mode_command_template' });
          if (spec.optimisticMode) h.mode = event.mode;
          break;
      }
      enqueue.assign({ humidifier: h });
    }),
  },
  guards: {
    humidityOutOfRange: ({ context, event }) => event.type === 'set_humidity' && (event.humidity < context.spec.minHumidity || event.humidity > context.spec.maxHumidity),
  },
}).createMachine({
  id: 'mqtt_humidifier',
  context: ({ input }) => ({ spec: input.spec, humidifier: input.humidifier ?? { on: null, target: null, current: null, mode: null, action: null } }),
  initial: 'running',
  states: {
    running: {
      on: {
        message: { actions: 'take' },
        turn_on: { actions: 'command' },
        turn_off: { actions: 'command' },
        toggle: { actions: 'command' },
        set_humidity: [{ guard: 'humidityOutOfRange', actions: 'rejectHumidity' }, { actions: 'command' }],
        set_mode: { actions: 'command' },
      },
    },
  },
});
