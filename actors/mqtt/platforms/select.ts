import { mqttSelectMachine } from '../../../machines/mqtt/select.machine.ts';
import { toBool, toStr } from '../schema.ts';
import { selectServices } from '../../entities/platforms/select.ts';
import { listOf, optional, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { hasNonBlankPayload } from './state-payloads.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';
import { pyRepr } from '../../../machines/python/repr.ts';

export interface MqttSelectConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  state_topic?: string;
  value_template?: string;
  options: string[];
  optimistic: boolean;
  retain: boolean;
}

/** select: one of its options, from its state topic, chosen over its command topic. */
export const mqttSelect: MqttPlatform<MqttSelectConfig> = {
  domain: 'select',
  defaultName: 'MQTT Select',
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    value_template: optional(toTemplate),
    // cv.ensure_list (the select component shows them as strings)
    options: required(listOf(toStr)),
    optimistic: optional(toBool, false),
    retain: optional(toBool, false),
  },
  keptOnUpdate: ['current'],
  machine: mqttSelectMachine,
  // only an optimistic select restores its option: others hear it from their device
  input: (config, restored, _now, entityId) => ({
    current: isOptimisticFor(config) && restored ? restored.state : null,
    options: config.options,
    optimistic: isOptimisticFor(config),
    entityId,
  }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (!hasNonBlankPayload(m)) return undefined;
        if (m.payload.toLowerCase() === 'none') return { type: 'message', option: null };
        if (!m.config.options.includes(m.payload)) {
          m.warn(`Invalid option for ${m.entityId}: '${m.payload}' (valid options: ${pyRepr(m.config.options)})`);
          return undefined;
        }
        return { type: 'message', option: m.payload };
      },
    },
  ],
  render: (snapshot, config) => {
    const current = snapshot.context.current as string | null;
    // an option that is not (or no longer) among the options shows as unknown
    return { state: current !== null && config.options.includes(current) ? current : null, capabilities: { options: config.options }, assumed_state: isOptimisticFor(config) };
  },
  services: selectServices,
  blockedAttributes: ['options'],
  registryInfo: (config) => ({ capabilities: { options: config.options } }),
};
