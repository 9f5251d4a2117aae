import { mqttDeviceTrackerMachine, type MqttDeviceTrackerContext } from '../../../machines/mqtt/device_tracker.machine.ts';
import { InvalidValue, toStr } from '../schema.ts';
import { activeZone, zonesOf } from '../../mobile/location.ts';
import { optional, toTemplate } from '../schema.ts';
import { validSubscribeTopic } from '../topics.ts';
import { hasNonBlankPayload } from './state-payloads.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';

const SOURCE_TYPES = ['gps', 'router', 'bluetooth', 'bluetooth_le'] as const;

export interface MqttDeviceTrackerConfig extends MqttEntityConfig {
  state_topic?: string;
  value_template?: string;
  payload_home: string;
  payload_not_home: string;
  payload_reset: string;
  source_type: (typeof SOURCE_TYPES)[number];
}

/** vol.Coerce(SourceType). */
function toSourceType(value: unknown): MqttDeviceTrackerConfig['source_type'] {
  if (typeof value === 'string' && (SOURCE_TYPES as readonly string[]).includes(value)) return value as MqttDeviceTrackerConfig['source_type'];
  throw new InvalidValue(`expected SourceType or one of ${SOURCE_TYPES.map((s) => `'${s}'`).join(', ')}`);
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/**
 * device_tracker: where a device is, by name from its state topic (home, not_home, a zone's name)
 * or by position from its JSON attributes (latitude, longitude, gps_accuracy), placed among the
 * zones as the original's TrackerEntity places it.
 */
export const mqttDeviceTracker: MqttPlatform<MqttDeviceTrackerConfig> = {
  domain: 'device_tracker',
  defaultName: null,
  fields: {
    state_topic: optional(validSubscribeTopic),
    value_template: optional(toTemplate),
    payload_home: optional(toStr, 'home'),
    payload_not_home: optional(toStr, 'not_home'),
    payload_reset: optional(toStr, 'None'),
    source_type: optional(toSourceType, 'gps'),
  },
  refine(config) {
    if (config.state_topic === undefined && config.json_attributes_topic === undefined) {
      return `Invalid device tracker config, missing state_topic or json_attributes_topic, got: ${JSON.stringify(config)}`;
    }
    return undefined;
  },
  keptOnUpdate: ['locationName', 'latitude', 'longitude', 'accuracy'],
  machine: mqttDeviceTrackerMachine,
  input: () => ({ locationName: null, latitude: null, longitude: null, accuracy: 0 }),
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      templateKey: 'value_template',
      read(m) {
        if (!hasNonBlankPayload(m)) return undefined;
        const { config } = m;
        if (m.payload === config.payload_home) return { type: 'message', locationName: 'home' };
        if (m.payload === config.payload_not_home) return { type: 'message', locationName: 'not_home' };
        if (m.payload === config.payload_reset) return { type: 'message', locationName: null };
        // any other payload names the place (as it came, before the template)
        return { type: 'message', locationName: m.raw };
      },
    },
  ],
  readAttributes(attributes, config, warn) {
    const shown = Object.fromEntries(Object.entries(attributes).filter(([k]) => k !== 'latitude' && k !== 'longitude' && k !== 'gps_accuracy'));
    if (!('latitude' in attributes) && !('longitude' in attributes)) return { attributes: shown };
    const { latitude, longitude } = attributes;
    const valid = isNumber(latitude) && isNumber(longitude);
    if (!valid) {
      warn(`Extra state attributes received at ${config.json_attributes_template ?? 'None'} and template ${config.json_attributes_topic ?? 'None'} contain invalid or incomplete location info. Got ${JSON.stringify(attributes)}`);
    }
    let accuracy = 0;
    if ('gps_accuracy' in attributes) {
      if (isNumber(attributes.gps_accuracy)) accuracy = attributes.gps_accuracy;
      else {
        warn(
          `Extra state attributes received at ${config.json_attributes_template ?? 'None'} and template ${config.json_attributes_topic ?? 'None'} contain invalid GPS accuracy setting, gps_accuracy was set to 0 as the default. Got ${JSON.stringify(attributes)}`,
        );
      }
    }
    return { event: { type: 'position', latitude: valid ? latitude : null, longitude: valid ? longitude : null, accuracy }, attributes: shown };
  },
  render: (snapshot, config, env) => {
    const c = snapshot.context as MqttDeviceTrackerContext;
    let state: string | null = c.locationName;
    const located = c.latitude !== null && c.longitude !== null;
    if (state === null && located) {
      const zone = activeZone(zonesOf(env.states()), c.latitude!, c.longitude!, c.accuracy);
      state = !zone ? 'not_home' : zone.entity_id === 'zone.home' ? 'home' : zone.name;
    }
    const attributes: Record<string, unknown> = { source_type: config.source_type };
    if (located) Object.assign(attributes, { latitude: c.latitude, longitude: c.longitude, gps_accuracy: c.accuracy });
    return { state, attributes };
  },
  services: [],
};
