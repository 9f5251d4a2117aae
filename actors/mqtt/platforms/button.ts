import { mqttButtonMachine } from '../../../machines/mqtt/button.machine.ts';
import { isoformat } from '../../../machines/python/isoformat.ts';
import { restoredTime } from './restore.ts';
import { oneOf, toBool, toStr } from '../schema.ts';
import { buttonDomain } from '../../entities/platforms/button.ts';
import { optional, orNull, required, toTemplate } from '../schema.ts';
import { validPublishTopic } from '../topics.ts';
import { BUTTON_NAMES } from './device-class-names.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

export interface MqttButtonConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  payload_press: string;
  retain: boolean;
}

/** button: a press publishes payload_press on its command topic; its state is the time of the last press. */
export const mqttButton: MqttPlatform<MqttButtonConfig> = {
  domain: 'button',
  defaultName: 'MQTT Button',
  deviceClassNames: BUTTON_NAMES,
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    device_class: optional(orNull((v) => oneOf(v, ['identify', 'restart', 'update']))),
    payload_press: optional(toStr, 'PRESS'),
    retain: optional(toBool, false),
  },
  keptOnUpdate: ['lastTriggered'],
  machine: mqttButtonMachine,
  // a button restores its last press, as the original's ButtonEntity does
  input: (_config, restored) => ({ lastTriggered: restoredTime(restored) }),
  subscriptions: () => [],
  render: (snapshot) => {
    const last = snapshot.context.lastTriggered as number | null;
    return { state: last === null ? null : isoformat(last) };
  },
  services: buttonDomain.services,
};
