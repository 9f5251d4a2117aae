import { mqttSwitchMachine } from '../../../machines/mqtt/switch.machine.ts';
import { oneOf, toBool, toStr } from '../schema.ts';
import { switchDomain } from '../../entities/platforms/switch.ts';
import { optional, orNull, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

export interface MqttSwitchConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  state_topic?: string;
  value_template?: string;
  payload_on: string;
  payload_off: string;
  state_on?: string;
  state_off?: string;
  optimistic: boolean;
  retain: boolean;
}

/** switch: commands on its command topic, its state from its state topic (or assumed, in optimistic mode). */
export const mqttSwitch: MqttPlatform<MqttSwitchConfig> = {
  domain: 'switch',
  defaultName: 'MQTT Switch',
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    value_template: optional(toTemplate),
    device_class: optional(orNull((v) => oneOf(v, ['outlet', 'switch']))),
    optimistic: optional(toBool, false),
    payload_on: optional(toStr, 'ON'),
    payload_off: optional(toStr, 'OFF'),
    state_on: optional(toStr),
    state_off: optional(toStr),
    retain: optional(toBool, false),
  },
  keptOnUpdate: ['on'],
  machine: mqttSwitchMachine,
  // only an optimistic switch restores its state: others hear it from their device
  input: (config, restored) => ({
    on: isOptimisticFor(config) && (restored?.state === 'on' || restored?.state === 'off') ? restored.state === 'on' : null,
    optimistic: isOptimisticFor(config),
  }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (m.payload === null) return undefined;
        const { config } = m;
        if (m.payload === (config.state_on ?? config.payload_on)) return { type: 'message', on: true };
        if (m.payload === (config.state_off ?? config.payload_off)) return { type: 'message', on: false };
        if (m.payload === PAYLOAD_NONE) return { type: 'message', on: null };
        return undefined;
      },
    },
  ],
  render: (snapshot, config) => {
    const on = snapshot.context.on as boolean | null;
    return { state: on === null ? null : on ? 'on' : 'off', assumed_state: isOptimisticFor(config) };
  },
  services: switchDomain.services,
};
