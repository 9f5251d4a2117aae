import { Type } from '@sinclair/typebox';
import { pyRound } from '../../../machines/color.ts';
import { HUMIDIFIER_MODES, mqttHumidifierMachine, type MqttHumidifierSpec, type MqttHumidifierState } from '../../../machines/mqtt/humidifier.machine.ts';
import type { PlatformService } from '../../entities/platforms/types.ts';
import { listOf, optional, orNull, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { isEmptyPayload, onOffStateSubscription, patchMessage } from './state-payloads.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';
import { oneOf, toBool, toPositiveInt, toStr } from '../schema.ts';
import { parseFloatText } from '../../../machines/python/float.ts';

export interface MqttHumidifierConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  state_topic?: string;
  state_value_template?: string;
  optimistic: boolean;
  retain: boolean;
  payload_on: string;
  payload_off: string;
  target_humidity_command_topic: string;
  target_humidity_state_topic?: string;
  current_humidity_topic?: string;
  action_topic?: string;
  mode_command_topic?: string;
  mode_state_topic?: string;
  modes: string[];
  min_humidity: number;
  max_humidity: number;
  payload_reset_humidity: string;
  payload_reset_mode: string;
}

/** HumidifierAction. */
const ACTIONS = ['off', 'humidifying', 'dehumidifying', 'drying', 'idle'];

// ---- the humidifier domain's services (Hearth has no virtual humidifier to borrow them from) ----

const target = { entity: [{ domain: ['humidifier'] }] };
const noData = Type.Object({}, { additionalProperties: false });
const simple = (service: string, name: string, description: string): PlatformService => ({
  service,
  description: { name, description, fields: {}, target },
  schema: noData,
  toEvent: () => ({ type: service }),
});

export const HUMIDIFIER_SERVICES: PlatformService[] = [
  simple('turn_on', 'Turn on', 'Turns the humidifier on.'),
  simple('turn_off', 'Turn off', 'Turns the humidifier off.'),
  simple('toggle', 'Toggle', 'Toggles the humidifier on/off.'),
  {
    service: 'set_humidity',
    description: {
      name: 'Set humidity',
      description: 'Sets the target humidity.',
      fields: { humidity: { required: true, name: 'Humidity', description: 'Target humidity.', selector: { number: { min: 0, max: 100, unit_of_measurement: '%' } } } },
      target,
    },
    schema: Type.Object({ humidity: Type.Number({ minimum: 0, maximum: 100 }) }, { additionalProperties: false }),
    // vol.Coerce(int)
    toEvent: (d) => ({ type: 'set_humidity', humidity: Math.trunc(d.humidity) }),
  },
  {
    service: 'set_mode',
    description: {
      name: 'Set mode',
      description: 'Sets the humidifier operation mode.',
      fields: { mode: { required: true, name: 'Mode', description: 'Operation mode. For a list of possible modes, refer to the integration documentation.', example: 'away', selector: { text: null } } },
      target,
    },
    schema: Type.Object({ mode: Type.String() }, { additionalProperties: false }),
    requiredFeatures: [HUMIDIFIER_MODES],
    toEvent: (d) => ({ type: 'set_mode', mode: d.mode }),
  },
];

const features = (c: MqttHumidifierConfig) => (c.mode_command_topic !== undefined && c.modes.length ? HUMIDIFIER_MODES : 0);

function humidifierSpec(c: MqttHumidifierConfig, entityId: string): MqttHumidifierSpec {
  return {
    entityId,
    optimistic: isOptimisticFor(c),
    optimisticTarget: isOptimisticFor(c, 'target_humidity_state_topic'),
    optimisticMode: isOptimisticFor(c, 'mode_state_topic'),
    minHumidity: c.min_humidity,
    maxHumidity: c.max_humidity,
    modes: c.mode_command_topic !== undefined ? c.modes : [],
  };
}

const message = patchMessage<MqttHumidifierState>;

/** humidifier: on and off, a target humidity in its range, modes, the current humidity and its action. */
export const mqttHumidifier: MqttPlatform<MqttHumidifierConfig> = {
  domain: 'humidifier',
  defaultName: 'MQTT Humidifier',
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    state_value_template: optional(toTemplate),
    value_template: optional(toTemplate),
    optimistic: optional(toBool, false),
    retain: optional(toBool, false),
    action_topic: optional(validSubscribeTopic),
    action_template: optional(toTemplate),
    current_humidity_topic: optional(validSubscribeTopic),
    current_humidity_template: optional(toTemplate),
    device_class: optional(orNull((v) => oneOf(v, ['humidifier', 'dehumidifier'])), 'humidifier'),
    modes: optional(listOf(toStr), () => []),
    mode_command_topic: optional(validPublishTopic),
    mode_command_template: optional(toTemplate),
    mode_state_topic: optional(validSubscribeTopic),
    mode_state_template: optional(toTemplate),
    payload_off: optional(toStr, 'OFF'),
    payload_on: optional(toStr, 'ON'),
    target_humidity_command_topic: required(validPublishTopic),
    target_humidity_command_template: optional(toTemplate),
    target_humidity_state_topic: optional(validSubscribeTopic),
    target_humidity_state_template: optional(toTemplate),
    max_humidity: optional(toPositiveInt, 100),
    min_humidity: optional(toPositiveInt, 0),
    payload_reset_humidity: optional(toStr, 'None'),
    payload_reset_mode: optional(toStr, 'None'),
  },
  refine(c) {
    // vol.Inclusive(modes, mode_command_topic)
    if ((c.mode_command_topic !== undefined) !== c.modes.length > 0) return "some but not all values in the same group of inclusion 'available_modes' @ data[<available_modes>]";
    if (c.min_humidity >= c.max_humidity) return 'target_humidity_max must be > target_humidity_min';
    if (c.max_humidity > 100) return 'max_humidity must be <= 100';
    if (c.modes.includes(c.payload_reset_mode)) return 'modes must not contain payload_reset_mode';
    return undefined;
  },
  machine: mqttHumidifierMachine,
  keptOnUpdate: ['humidifier'],
  input: (config, _restored, _now, entityId) => ({ spec: humidifierSpec(config, entityId) }),
  subscriptions: () => [
    onOffStateSubscription(),
    {
      topicKey: 'action_topic',
      templateKey: 'action_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        if (m.payload === PAYLOAD_NONE) return message({ action: null });
        if (!ACTIONS.includes(m.payload!)) {
          m.warn(`'${m.payload}' received on topic ${m.topic}. '${m.payload}' is not a valid action`);
          return undefined;
        }
        return message({ action: m.payload });
      },
    },
    {
      topicKey: 'current_humidity_topic',
      templateKey: 'current_humidity_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        if (m.payload === PAYLOAD_NONE) return message({ current: null });
        const n = (parseFloatText(m.payload!) ?? NaN);
        const value = Number.isNaN(n) ? undefined : pyRound(n);
        if (value === undefined || value < 0 || value > 100) {
          m.warn(`'${m.raw}' received on topic ${m.topic}. '${m.payload}' is not a valid humidity`);
          return undefined;
        }
        return message({ current: value });
      },
    },
    {
      topicKey: 'target_humidity_state_topic',
      templateKey: 'target_humidity_state_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        if (m.payload === m.config.payload_reset_humidity) return message({ target: null });
        const n = (parseFloatText(m.payload!) ?? NaN);
        const value = Number.isNaN(n) ? undefined : pyRound(n);
        if (value === undefined || value < m.config.min_humidity || value > m.config.max_humidity) {
          m.warn(`'${m.raw}' received on topic ${m.topic}. '${m.payload}' is not a valid target humidity`);
          return undefined;
        }
        return message({ target: value });
      },
    },
    {
      topicKey: 'mode_state_topic',
      templateKey: 'mode_state_template',
      read(m) {
        if (m.payload === null) return undefined;
        if (m.payload === m.config.payload_reset_mode) return message({ mode: null });
        if (m.payload === '') return undefined;
        if (!humidifierSpec(m.config, m.entityId).modes.includes(m.payload)) {
          m.warn(`'${m.raw}' received on topic ${m.topic}. '${m.payload}' is not a valid mode`);
          return undefined;
        }
        return message({ mode: m.payload });
      },
    },
  ],
  render: (snapshot, config) => {
    const { spec, humidifier: h } = snapshot.context as { spec: MqttHumidifierSpec; humidifier: MqttHumidifierState };
    const f = features(config);
    const capabilities: Record<string, unknown> = { min_humidity: spec.minHumidity, max_humidity: spec.maxHumidity };
    if (f & HUMIDIFIER_MODES) capabilities.available_modes = spec.modes;
    const attributes: Record<string, unknown> = {};
    if (h.action !== null) attributes.action = h.on ? h.action : 'off';
    if (h.current !== null) attributes.current_humidity = h.current;
    if (h.target !== null) attributes.humidity = h.target;
    if (f & HUMIDIFIER_MODES) attributes.mode = h.mode;
    return { state: h.on === null ? null : h.on ? 'on' : 'off', capabilities, attributes, assumed_state: spec.optimistic, supported_features: f };
  },
  services: HUMIDIFIER_SERVICES,
  blockedAttributes: ['humidity', 'max_humidity', 'min_humidity', 'mode', 'available_modes'],
  registryInfo: (config) => {
    const capabilities: Record<string, unknown> = { min_humidity: config.min_humidity, max_humidity: config.max_humidity };
    if (features(config) & HUMIDIFIER_MODES) capabilities.available_modes = config.modes;
    return { capabilities, supported_features: features(config) };
  },
};
