import { mqttSceneMachine } from '../../../machines/mqtt/scene.machine.ts';
import { isoformat } from '../../../machines/python/isoformat.ts';
import { restoredTime } from './restore.ts';
import { toBool, toStr } from '../schema.ts';
import { sceneDomain } from '../../entities/platforms/scene.ts';
import { optional, required } from '../schema.ts';
import { validPublishTopic } from '../topics.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

export interface MqttSceneConfig extends MqttEntityConfig {
  command_topic: string;
  payload_on: string;
  retain: boolean;
}

/** scene: activating it publishes payload_on on its command topic; its state is the time of the last activation. */
export const mqttScene: MqttPlatform<MqttSceneConfig> = {
  domain: 'scene',
  defaultName: 'MQTT Scene',
  fields: {
    command_topic: required(validPublishTopic),
    payload_on: optional(toStr, 'ON'),
    retain: optional(toBool, false),
  },
  keptOnUpdate: ['lastTriggered'],
  machine: mqttSceneMachine,
  // a scene restores its last activation, as the original's BaseScene does
  input: (_config, restored) => ({ lastTriggered: restoredTime(restored) }),
  subscriptions: () => [],
  render: (snapshot) => {
    const last = snapshot.context.lastTriggered as number | null;
    return { state: last === null ? null : isoformat(last) };
  },
  // scene.turn_on, as the virtual scenes have it
  services: sceneDomain.services,
};
