import { FAN_DIRECTION, FAN_OSCILLATE, FAN_PRESET_MODE, FAN_SET_SPEED, FAN_TURN_OFF, FAN_TURN_ON } from '../../../machines/fan.machine.ts';
import { rangedToPercentage } from '../../../machines/mqtt/cover.machine.ts';
import { mqttFanMachine, type MqttFanSpec, type MqttFanState } from '../../../machines/mqtt/fan.machine.ts';
import { fanDomain } from '../../entities/platforms/fan.ts';
import { listOf, optional, required, toTemplate } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { isEmptyPayload, onOffStateSubscription, patchMessage } from './state-payloads.ts';
import { partTopicFields } from './topic-fields.ts';
import { isOptimisticFor } from './optimistic.ts';
import type { MqttEntityConfig, MqttPlatform } from './types.ts';
import { toBool, toPositiveInt, toStr } from '../schema.ts';
import { parseIntText } from '../../../machines/python/float.ts';

export interface MqttFanConfig extends MqttEntityConfig {
  command_topic: string;
  command_template?: string;
  state_topic?: string;
  state_value_template?: string;
  optimistic: boolean;
  retain: boolean;
  payload_on: string;
  payload_off: string;
  percentage_command_topic?: string;
  percentage_state_topic?: string;
  preset_mode_command_topic?: string;
  preset_mode_state_topic?: string;
  preset_modes: string[];
  oscillation_command_topic?: string;
  oscillation_state_topic?: string;
  direction_command_topic?: string;
  direction_state_topic?: string;
  speed_range_min: number;
  speed_range_max: number;
  payload_reset_percentage: string;
  payload_reset_preset_mode: string;
  payload_oscillation_on: string;
  payload_oscillation_off: string;
}

/** What a fan can do: turn on and off always; a speed, preset modes, oscillation and direction with their command topics. */
function fanFeatures(c: MqttFanConfig): number {
  let f = FAN_TURN_ON | FAN_TURN_OFF;
  if (c.oscillation_command_topic !== undefined) f |= FAN_OSCILLATE;
  if (c.direction_command_topic !== undefined) f |= FAN_DIRECTION;
  if (c.percentage_command_topic !== undefined) f |= FAN_SET_SPEED;
  if (c.preset_mode_command_topic !== undefined) f |= FAN_PRESET_MODE;
  return f;
}

function fanSpec(c: MqttFanConfig): MqttFanSpec {
  return {
    optimistic: isOptimisticFor(c),
    optimisticPercentage: isOptimisticFor(c, 'percentage_state_topic'),
    optimisticPresetMode: isOptimisticFor(c, 'preset_mode_state_topic'),
    optimisticOscillation: isOptimisticFor(c, 'oscillation_state_topic'),
    optimisticDirection: isOptimisticFor(c, 'direction_state_topic'),
    speedRange: [c.speed_range_min, c.speed_range_max],
    speedCount: c.percentage_command_topic !== undefined ? Math.min(c.speed_range_max - c.speed_range_min + 1, 100) : 100,
    presetModes: c.preset_mode_command_topic !== undefined ? c.preset_modes : [],
  };
}

const message = patchMessage<MqttFanState>;

/** fan: on and off, a percentage of its speed range, preset modes, oscillation and direction, each on its own topics. */
export const mqttFan: MqttPlatform<MqttFanConfig> = {
  domain: 'fan',
  defaultName: 'MQTT Fan',
  fields: {
    command_topic: required(validPublishTopic),
    command_template: optional(toTemplate),
    state_topic: optional(validSubscribeTopic),
    state_value_template: optional(toTemplate),
    value_template: optional(toTemplate),
    optimistic: optional(toBool, false),
    retain: optional(toBool, false),
    ...partTopicFields('direction'),
    ...partTopicFields('oscillation'),
    ...partTopicFields('percentage'),
    ...partTopicFields('preset_mode'),
    preset_modes: optional(listOf(toStr), () => []),
    speed_range_min: optional(toPositiveInt, 1),
    speed_range_max: optional(toPositiveInt, 100),
    payload_reset_percentage: optional(toStr, 'None'),
    payload_reset_preset_mode: optional(toStr, 'None'),
    payload_off: optional(toStr, 'OFF'),
    payload_on: optional(toStr, 'ON'),
    payload_oscillation_off: optional(toStr, 'oscillate_off'),
    payload_oscillation_on: optional(toStr, 'oscillate_on'),
  },
  refine(c) {
    // vol.Inclusive(preset_mode_command_topic, preset_modes)
    const hasModes = c.preset_modes.length > 0;
    if ((c.preset_mode_command_topic !== undefined) !== hasModes) return "some but not all values in the same group of inclusion 'preset_modes' @ data[<preset_modes>]";
    if (c.speed_range_min === 0) return 'speed_range_min must be > 0';
    if (c.speed_range_min >= c.speed_range_max) return 'speed_range_max must be > speed_range_min';
    if (c.preset_modes.includes(c.payload_reset_preset_mode)) return 'preset_modes must not contain payload_reset_preset_mode';
    return undefined;
  },
  machine: mqttFanMachine,
  // the original's MQTT fan restores nothing: it waits for its device (or its commands)
  input: (config) => ({
    spec: fanSpec(config),
    fan: { on: null, percentage: null, preset_mode: null, oscillating: config.oscillation_state_topic !== undefined ? false : null, direction: null },
  }),
  subscriptions: () => [
    onOffStateSubscription(),
    {
      topicKey: 'percentage_state_topic',
      templateKey: 'percentage_value_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        if (m.payload === m.config.payload_reset_percentage) return message({ percentage: null });
        const value = parseIntText(m.payload!);
        const percentage = value === undefined ? undefined : rangedToPercentage([m.config.speed_range_min, m.config.speed_range_max], value);
        if (percentage === undefined || percentage < 0 || percentage > 100) {
          m.warn(`'${m.raw}' received on topic ${m.topic}. '${m.payload}' is not a valid speed within the speed range`);
          return undefined;
        }
        return message({ percentage });
      },
    },
    {
      topicKey: 'preset_mode_state_topic',
      templateKey: 'preset_mode_value_template',
      read(m) {
        if (m.payload === null) return undefined;
        if (m.payload === m.config.payload_reset_preset_mode) return message({ preset_mode: null });
        if (m.payload === '') return undefined;
        const modes = fanSpec(m.config).presetModes;
        if (!modes.includes(m.payload)) {
          m.warn(`'${m.raw}' received on topic ${m.topic}. '${m.payload}' is not a valid preset mode`);
          return undefined;
        }
        return message({ preset_mode: m.payload });
      },
    },
    {
      topicKey: 'oscillation_state_topic',
      templateKey: 'oscillation_value_template',
      read(m) {
        if (isEmptyPayload(m)) return undefined;
        if (m.payload === m.config.payload_oscillation_on) return message({ oscillating: true });
        if (m.payload === m.config.payload_oscillation_off) return message({ oscillating: false });
        return undefined;
      },
    },
    {
      topicKey: 'direction_state_topic',
      templateKey: 'direction_value_template',
      read: (m) => (isEmptyPayload(m) ? undefined : message({ direction: m.payload })),
    },
  ],
  render: (snapshot, config) => {
    const { spec, fan } = snapshot.context as { spec: MqttFanSpec; fan: MqttFanState };
    const features = fanFeatures(config);
    const capabilities: Record<string, unknown> = {};
    const speedOrPreset = (features & (FAN_SET_SPEED | FAN_PRESET_MODE)) !== 0;
    if (speedOrPreset) capabilities.preset_modes = spec.presetModes;
    const attributes: Record<string, unknown> = {};
    if (features & FAN_DIRECTION) attributes.direction = fan.direction;
    if (features & FAN_OSCILLATE) attributes.oscillating = fan.oscillating;
    if (features & FAN_SET_SPEED) {
      attributes.percentage = fan.percentage;
      attributes.percentage_step = 100 / spec.speedCount;
    }
    if (speedOrPreset) attributes.preset_mode = fan.preset_mode;
    return { state: fan.on === null ? null : fan.on ? 'on' : 'off', capabilities, attributes, assumed_state: spec.optimistic, supported_features: features };
  },
  services: fanDomain.services,
  keptOnUpdate: ['fan'],
  blockedAttributes: ['direction', 'oscillating', 'percentage_step', 'percentage', 'preset_mode', 'preset_modes'],
  registryInfo: (config) => {
    const features = fanFeatures(config);
    return {
      capabilities: features & (FAN_SET_SPEED | FAN_PRESET_MODE) ? { preset_modes: fanSpec(config).presetModes } : null,
      supported_features: features,
    };
  },
};
