import {
  CLIMATE_FAN_MODE, CLIMATE_PRESET_MODE, CLIMATE_SWING_MODE, CLIMATE_TARGET_HUMIDITY, CLIMATE_TARGET_TEMPERATURE, CLIMATE_TARGET_TEMPERATURE_RANGE,
  CLIMATE_TURN_OFF, CLIMATE_TURN_ON, HVAC_MODES, type HvacMode,
} from '../../../machines/climate.machine.ts';
import { pyRound } from '../../../machines/color.ts';
import { mqttClimateMachine, type MqttClimateSpec, type MqttClimateState } from '../../../machines/mqtt/climate.machine.ts';
import { climateDomain } from '../../entities/platforms/climate.ts';
import { listOf, optional, toTemplate, type Fields } from '../schema.ts';
import { validPublishTopic, validSubscribeTopic } from '../topics.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { patchMessage } from './state-payloads.ts';
import { partTopicFields } from './topic-fields.ts';
import type { MqttEntityConfig, MqttPlatform, PlatformSubscription, ReadMessage } from './types.ts';
import { InvalidValue, oneOf, toBool, toFloat, toStr } from '../schema.ts';
import { parseFloatText } from '../../../machines/python/float.ts';

export interface MqttClimateConfig extends MqttEntityConfig {
  modes: HvacMode[];
  fan_modes: string[];
  swing_modes: string[];
  preset_modes: string[];
  optimistic: boolean;
  retain: boolean;
  payload_on: string;
  payload_off: string;
  precision?: number;
  temp_step: number;
  initial?: number;
  min_temp?: number;
  max_temp?: number;
  min_humidity: number;
  max_humidity: number;
  temperature_unit?: 'C' | 'F';
}

/** HVACAction. */
const ACTIONS = ['cooling', 'defrosting', 'drying', 'fan', 'heating', 'idle', 'off', 'preheating'];

/** The original's DEFAULT_CLIMATE_INITIAL_TEMPERATURE (°C), DEFAULT_MIN_TEMP and DEFAULT_MAX_TEMP. */
const INITIAL_C = 21;
const MIN_C = 7;
const MAX_C = 35;

/** cv.positive_float. */
function toPositiveFloat(value: unknown): number {
  const n = toFloat(value);
  if (n < 0) throw new InvalidValue('value must be at least 0');
  return n;
}

/** PRECISION_TENTHS, PRECISION_HALVES or PRECISION_WHOLE. */
function toPrecision(value: unknown): number {
  const n = toFloat(value);
  if (n !== 0.1 && n !== 0.5 && n !== 1) throw new InvalidValue('value must be one of [0.1, 0.5, 1.0]');
  return n;
}

/** cv.temperature_unit: C or F. */
function toTemperatureUnit(value: unknown): 'C' | 'F' {
  const text = toStr(value).toUpperCase();
  if (text === 'C' || text === '°C') return 'C';
  if (text === 'F' || text === '°F') return 'F';
  throw new InvalidValue('invalid temperature unit (expected C or F)');
}

const FIELDS: Fields = {
  action_topic: optional(validSubscribeTopic),
  action_template: optional(toTemplate),
  current_humidity_topic: optional(validSubscribeTopic),
  current_humidity_template: optional(toTemplate),
  current_temperature_topic: optional(validSubscribeTopic),
  current_temperature_template: optional(toTemplate),
  ...partTopicFields('fan_mode', { stateTemplate: 'state' }),
  fan_modes: optional(listOf(toStr), () => ['auto', 'low', 'medium', 'high']),
  ...partTopicFields('target_humidity', { stateTemplate: 'state' }),
  min_humidity: optional(toPositiveFloat, 30),
  max_humidity: optional(toPositiveFloat, 99),
  ...partTopicFields('mode', { stateTemplate: 'state' }),
  modes: optional(listOf((v) => oneOf(v, HVAC_MODES)), () => ['auto', 'off', 'cool', 'heat', 'dry', 'fan_only']),
  optimistic: optional(toBool, false),
  payload_on: optional(toStr, 'ON'),
  payload_off: optional(toStr, 'OFF'),
  power_command_topic: optional(validPublishTopic),
  power_command_template: optional(toTemplate),
  precision: optional(toPrecision),
  retain: optional(toBool, false),
  preset_mode_command_topic: optional(validPublishTopic),
  preset_mode_command_template: optional(toTemplate),
  preset_mode_state_topic: optional(validSubscribeTopic),
  preset_mode_value_template: optional(toTemplate),
  preset_modes: optional(listOf(toStr), () => []),
  ...partTopicFields('swing_mode', { stateTemplate: 'state' }),
  swing_modes: optional(listOf(toStr), () => ['on', 'off']),
  initial: optional(toFloat),
  min_temp: optional(toFloat),
  max_temp: optional(toFloat),
  temp_step: optional(toFloat, 1),
  ...partTopicFields('temperature', { stateTemplate: 'state' }),
  ...partTopicFields('temperature_high', { stateTemplate: 'state' }),
  ...partTopicFields('temperature_low', { stateTemplate: 'state' }),
  temperature_unit: optional(toTemperatureUnit),
  value_template: optional(toTemplate),
};

const has = (c: MqttClimateConfig, key: string) => c[key] !== undefined;

/** What a climate device can do: turn on and off always; each setpoint and mode with its topics. */
function climateFeatures(c: MqttClimateConfig): number {
  let f = CLIMATE_TURN_ON | CLIMATE_TURN_OFF;
  if (has(c, 'temperature_state_topic') || has(c, 'temperature_command_topic')) f |= CLIMATE_TARGET_TEMPERATURE;
  if (['temperature_low_state_topic', 'temperature_low_command_topic', 'temperature_high_state_topic', 'temperature_high_command_topic'].some((k) => has(c, k))) f |= CLIMATE_TARGET_TEMPERATURE_RANGE;
  if (has(c, 'target_humidity_command_topic')) f |= CLIMATE_TARGET_HUMIDITY;
  if (has(c, 'fan_mode_state_topic') || has(c, 'fan_mode_command_topic')) f |= CLIMATE_FAN_MODE;
  if (has(c, 'swing_mode_state_topic') || has(c, 'swing_mode_command_topic')) f |= CLIMATE_SWING_MODE;
  if (has(c, 'preset_mode_command_topic')) f |= CLIMATE_PRESET_MODE;
  return f;
}

const TOPICS = [
  'action_topic', 'current_humidity_topic', 'current_temperature_topic', 'fan_mode_command_topic', 'fan_mode_state_topic', 'target_humidity_command_topic',
  'target_humidity_state_topic', 'mode_command_topic', 'mode_state_topic', 'power_command_topic', 'preset_mode_command_topic', 'preset_mode_state_topic',
  'swing_mode_command_topic', 'swing_mode_state_topic', 'temperature_command_topic', 'temperature_high_command_topic', 'temperature_high_state_topic',
  'temperature_low_command_topic', 'temperature_low_state_topic', 'temperature_state_topic',
];

const fahrenheit = (c: MqttClimateConfig) => c.temperature_unit === 'F';
/** A °C value in the device's unit. */
const deviceTemp = (c: MqttClimateConfig, celsius: number) => (fahrenheit(c) ? celsius * 1.8 + 32 : celsius);

function climateSpec(c: MqttClimateConfig): MqttClimateSpec {
  const presets = has(c, 'preset_mode_command_topic') && c.preset_modes.length ? ['none', ...c.preset_modes] : [];
  return {
    optimistic: c.optimistic,
    has: Object.fromEntries(TOPICS.map((t) => [t, has(c, t)])),
    singleAndRange: c.modes.includes('heat_cool') && (c.modes.includes('heat') || c.modes.includes('cool')),
    hvacModes: c.modes,
    fanModes: c.fan_modes,
    presetModes: presets,
    swingModes: c.swing_modes,
    minTemp: c.min_temp ?? deviceTemp(c, MIN_C),
    maxTemp: c.max_temp ?? deviceTemp(c, MAX_C),
    minHumidity: c.min_humidity,
    maxHumidity: c.max_humidity,
    features: climateFeatures(c),
    fahrenheit: fahrenheit(c),
  };
}

/** The original's show_temp: the system's unit (°C), rounded to the precision. */
function showTemp(c: MqttClimateConfig, t: number | null): number | null {
  if (t === null) return null;
  const celsius = fahrenheit(c) ? (t - 32) / 1.8 : t;
  const precision = c.precision ?? 0.1;
  if (precision === 0.5) return pyRound(celsius * 2) / 2;
  if (precision === 0.1) return pyRound(celsius, 1);
  return pyRound(celsius);
}

/** A payload through its own template, else value_template, else as it came; null when a template failed. */
function rendered(m: ReadMessage<MqttClimateConfig>, key: string): string | null {
  const own = m.render(key);
  if (own !== undefined) return own;
  const shared = m.render('value_template');
  return shared === undefined ? m.raw : shared;
}

const message = patchMessage<MqttClimateState>;

/** _parse_float_payload: undefined ignores the message, null is None. */
function float(m: ReadMessage<MqttClimateConfig>, key: string): number | null | undefined {
  const payload = rendered(m, key);
  if (!payload) return undefined;
  if (payload === PAYLOAD_NONE) return null;
  const n = (parseFloatText(payload) ?? NaN);
  if (Number.isNaN(n)) {
    m.warn(`Could not parse ${key} from ${payload}`);
    return undefined;
  }
  return n;
}

function listed(topicKey: string, templateKey: string, attr: 'hvac_mode' | 'fan_mode' | 'swing_mode', list: 'modes' | 'fan_modes' | 'swing_modes'): PlatformSubscription<MqttClimateConfig> {
  return {
    topicKey,
    read(m) {
      const payload = rendered(m, templateKey);
      if (payload === null) return undefined;
      if (payload === PAYLOAD_NONE) return message({ [attr]: null });
      if (!(m.config[list] as string[]).includes(payload)) {
        m.warn(`Invalid ${list} mode: ${payload}`);
        return undefined;
      }
      return message({ [attr]: payload });
    },
  };
}

function setpoint(topicKey: string, templateKey: string, key: 'temperature' | 'target_temp_low' | 'target_temp_high'): PlatformSubscription<MqttClimateConfig> {
  return {
    topicKey,
    read(m) {
      const value = float(m, templateKey);
      return value === undefined ? undefined : { type: 'setpoint', key, value };
    },
  };
}

/** climate: an HVAC device whose state is its mode; temperatures, humidity and fan, swing and preset modes on their own topics. */
export const mqttClimate: MqttPlatform<MqttClimateConfig> = {
  domain: 'climate',
  defaultName: 'MQTT HVAC',
  fields: FIELDS,
  refine(c) {
    if (c.preset_modes.includes('none')) return "preset_modes must not include preset mode 'none'";
    if ((c.preset_mode_command_topic !== undefined) !== c.preset_modes.length > 0) return "some but not all values in the same group of inclusion 'preset_modes' @ data[<preset_modes>]";
    if (c.min_humidity >= c.max_humidity) return 'target_humidity_max must be > target_humidity_min';
    if (c.max_humidity > 100) return 'max_humidity must be <= 100';
    if (c.target_humidity_state_topic !== undefined && c.target_humidity_command_topic === undefined) return 'target_humidity_state_topic cannot be used without target_humidity_command_topic';
    return undefined;
  },
  machine: mqttClimateMachine,
  keptOnUpdate: ['climate'],
  // the original's MQTT climate restores nothing: what has no state topic starts from its defaults
  input: (c) => {
    const spec = climateSpec(c);
    const assumed = (topic: string) => c.optimistic || !has(c, topic);
    const initial = c.initial ?? deviceTemp(c, INITIAL_C);
    const climate: MqttClimateState = {
      hvac_mode: assumed('mode_state_topic') ? 'off' : null,
      hvac_action: null,
      current_temperature: null,
      temperature: assumed('temperature_state_topic') ? initial : null,
      target_temp_low: assumed('temperature_low_state_topic') ? initial : null,
      target_temp_high: assumed('temperature_high_state_topic') ? initial : null,
      current_humidity: null,
      humidity: null,
      fan_mode: assumed('fan_mode_state_topic') ? 'low' : null,
      swing_mode: assumed('swing_mode_state_topic') ? 'off' : null,
      preset_mode: has(c, 'preset_mode_command_topic') ? 'none' : null,
      parkedTemperature: null,
      parkedRange: [null, null],
    };
    return { spec, climate };
  },
  subscriptions: () => [
    {
      topicKey: 'action_topic',
      read(m) {
        const payload = rendered(m, 'action_template');
        if (!payload) return undefined;
        if (payload === PAYLOAD_NONE) return message({ hvac_action: null });
        if (!ACTIONS.includes(payload)) {
          m.warn(`Invalid [${ACTIONS.map((a) => `'${a}'`).join(', ')}] action: ${payload}`);
          return undefined;
        }
        return message({ hvac_action: payload });
      },
    },
    {
      topicKey: 'current_humidity_topic',
      read(m) {
        const value = float(m, 'current_humidity_template');
        return value === undefined ? undefined : message({ current_humidity: value });
      },
    },
    {
      topicKey: 'target_humidity_state_topic',
      read(m) {
        const value = float(m, 'target_humidity_state_template');
        return value === undefined ? undefined : message({ humidity: value });
      },
    },
    listed('mode_state_topic', 'mode_state_template', 'hvac_mode', 'modes'),
    listed('fan_mode_state_topic', 'fan_mode_state_template', 'fan_mode', 'fan_modes'),
    listed('swing_mode_state_topic', 'swing_mode_state_template', 'swing_mode', 'swing_modes'),
    {
      topicKey: 'preset_mode_state_topic',
      read(m) {
        const preset = rendered(m, 'preset_mode_value_template');
        if (preset === null) return undefined;
        if (preset === 'none' || preset === PAYLOAD_NONE) return message({ preset_mode: 'none' });
        if (!preset) return undefined;
        if (!climateSpec(m.config).presetModes.includes(preset)) {
          m.warn(`'${m.raw}' received on topic ${m.topic}. '${preset}' is not a valid preset mode`);
          return undefined;
        }
        return message({ preset_mode: preset });
      },
    },
    {
      topicKey: 'current_temperature_topic',
      read(m) {
        const value = float(m, 'current_temperature_template');
        return value === undefined ? undefined : message({ current_temperature: value });
      },
    },
    setpoint('temperature_state_topic', 'temperature_state_template', 'temperature'),
    setpoint('temperature_low_state_topic', 'temperature_low_state_template', 'target_temp_low'),
    setpoint('temperature_high_state_topic', 'temperature_high_state_template', 'target_temp_high'),
  ],
  render: (snapshot, c) => {
    const { spec, climate: s } = snapshot.context as { spec: MqttClimateSpec; climate: MqttClimateState };
    const f = spec.features;
    const capabilities: Record<string, unknown> = { hvac_modes: spec.hvacModes, min_temp: showTemp(c, spec.minTemp), max_temp: showTemp(c, spec.maxTemp) };
    if (c.temp_step) capabilities.target_temp_step = c.temp_step;
    if (f & CLIMATE_TARGET_HUMIDITY) Object.assign(capabilities, { min_humidity: spec.minHumidity, max_humidity: spec.maxHumidity });
    if (f & CLIMATE_FAN_MODE) capabilities.fan_modes = spec.fanModes;
    if (f & CLIMATE_PRESET_MODE) capabilities.preset_modes = spec.presetModes;
    if (f & CLIMATE_SWING_MODE) capabilities.swing_modes = spec.swingModes;
    const attributes: Record<string, unknown> = { current_temperature: showTemp(c, s.current_temperature) };
    if (f & CLIMATE_TARGET_TEMPERATURE) attributes.temperature = showTemp(c, s.temperature);
    if (f & CLIMATE_TARGET_TEMPERATURE_RANGE) Object.assign(attributes, { target_temp_high: showTemp(c, s.target_temp_high), target_temp_low: showTemp(c, s.target_temp_low) });
    if (s.current_humidity !== null) attributes.current_humidity = s.current_humidity;
    if (f & CLIMATE_TARGET_HUMIDITY) attributes.humidity = s.humidity;
    if (f & CLIMATE_FAN_MODE) attributes.fan_mode = s.fan_mode;
    if (s.hvac_action) attributes.hvac_action = s.hvac_action;
    if (f & CLIMATE_PRESET_MODE) attributes.preset_mode = s.preset_mode;
    if (f & CLIMATE_SWING_MODE) attributes.swing_mode = s.swing_mode;
    // the original's MQTT climate never says its state is assumed
    return { state: s.hvac_mode, capabilities, attributes, supported_features: f };
  },
  services: climateDomain.services,
  blockedAttributes: [
    'fan_modes', 'hvac_modes', 'max_humidity', 'max_temp', 'min_humidity', 'min_temp', 'preset_modes', 'swing_horizontal_modes', 'swing_modes', 'target_temp_step',
    'current_humidity', 'current_temperature', 'fan_mode', 'hvac_action', 'preset_mode', 'swing_horizontal_mode', 'swing_mode', 'humidity', 'temperature',
    'target_temp_high', 'target_temp_low',
  ],
  registryInfo: (c) => {
    const spec = climateSpec(c);
    const capabilities: Record<string, unknown> = { hvac_modes: spec.hvacModes, min_temp: showTemp(c, spec.minTemp), max_temp: showTemp(c, spec.maxTemp) };
    if (c.temp_step) capabilities.target_temp_step = c.temp_step;
    if (spec.features & CLIMATE_TARGET_HUMIDITY) Object.assign(capabilities, { min_humidity: spec.minHumidity, max_humidity: spec.maxHumidity });
    if (spec.features & CLIMATE_FAN_MODE) capabilities.fan_modes = spec.fanModes;
    if (spec.features & CLIMATE_PRESET_MODE) capabilities.preset_modes = spec.presetModes;
    if (spec.features & CLIMATE_SWING_MODE) capabilities.swing_modes = spec.swingModes;
    return { capabilities, supported_features: spec.features };
  },
};
