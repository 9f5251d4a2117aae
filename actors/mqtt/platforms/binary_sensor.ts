import { mqttBinarySensorMachine } from '../../../machines/mqtt/binary_sensor.machine.ts';
import { oneOf, toBool, toPositiveInt, toStr } from '../schema.ts';
import { BINARY_SENSOR_DEVICE_CLASSES } from '../../entities/platforms/sensor.ts';
import { optional, orNull, required, toTemplate } from '../schema.ts';
import { validSubscribeTopic } from '../topics.ts';
import { BINARY_SENSOR_NAMES } from './device-class-names.ts';
import { expiryInput } from './restore.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { hasNonBlankPayload } from './state-payloads.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

export interface MqttBinarySensorConfig extends MqttEntityConfig {
  state_topic: string;
  value_template?: string;
  payload_on: string;
  payload_off: string;
  off_delay?: number;
  expire_after?: number;
  force_update: boolean;
}

/** binary_sensor: on or off as its state topic says (payload_on / payload_off), with off_delay and expire_after. */
export const mqttBinarySensor: MqttPlatform<MqttBinarySensorConfig> = {
  domain: 'binary_sensor',
  defaultName: 'MQTT Binary sensor',
  deviceClassNames: BINARY_SENSOR_NAMES,
  fields: {
    state_topic: required(validSubscribeTopic),
    value_template: optional(toTemplate),
    device_class: optional(orNull((v) => oneOf(v, BINARY_SENSOR_DEVICE_CLASSES))),
    expire_after: optional(toPositiveInt),
    force_update: optional(toBool, false),
    off_delay: optional(toPositiveInt),
    payload_off: optional(toStr, 'OFF'),
    payload_on: optional(toStr, 'ON'),
  },
  keptOnUpdate: ['on'],
  repeatIsNoop: (config) => config.expire_after === undefined && config.off_delay === undefined && !config.force_update,
  machine: mqttBinarySensorMachine,
  input: (config, restored, now) => {
    const { kept, expireAfterMs, remainingMs } = expiryInput(restored, config.expire_after, now);
    return { on: kept ? kept.state === 'on' : null, expireAfterMs, offDelayMs: config.off_delay ? config.off_delay * 1000 : null, remainingMs };
  },
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        // the device is alive even when the template failed or its output is empty (expire_after)
        if (!hasNonBlankPayload(m)) return { type: 'message' };
        if (m.payload === m.config.payload_on) return { type: 'message', on: true };
        if (m.payload === m.config.payload_off) return { type: 'message', on: false };
        if (m.payload === PAYLOAD_NONE) return { type: 'message', on: null };
        const template = m.config.value_template !== undefined ? `, template output: '${m.payload}', with value template '${m.config.value_template}'` : '';
        m.warn(`No matching payload found for entity: ${m.entityId} with state topic: ${m.topic}. Payload: '${m.raw}'${template}`);
        return { type: 'message' };
      },
    },
  ],
  render: (snapshot, config) => {
    const on = snapshot.context.on as boolean | null;
    const expired = (snapshot.value as { expiry: string }).expiry === 'expired';
    return { state: on === null ? null : on ? 'on' : 'off', available: !expired, force_update: config.force_update };
  },
  services: [],
};
