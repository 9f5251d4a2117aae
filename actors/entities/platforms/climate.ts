import { Type } from '@sinclair/typebox';
import {
  CLIMATE_FAN_MODE,
  CLIMATE_PRESET_MODE,
  CLIMATE_SWING_MODE,
  CLIMATE_TARGET_HUMIDITY,
  CLIMATE_TARGET_TEMPERATURE,
  CLIMATE_TARGET_TEMPERATURE_RANGE,
  CLIMATE_TURN_OFF,
  CLIMATE_TURN_ON,
  HVAC_MODES,
  climateMachine,
  type ClimateConfig,
  type ClimateSettings,
  type HvacMode,
} from '../../../machines/climate.machine.ts';
import { pyRound } from '../../../machines/color.ts';
import { supportedFeatures, type EntryReader } from './config.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown, numberAttribute, stringAttribute } from './restore.ts';
import * as cv from '../../voluptuous/cv.ts';
import { refine } from '../../voluptuous/schema.ts';

const DOMAIN = 'climate';

const FEATURES = {
  target_temperature: CLIMATE_TARGET_TEMPERATURE,
  target_temperature_range: CLIMATE_TARGET_TEMPERATURE_RANGE,
  target_humidity: CLIMATE_TARGET_HUMIDITY,
  fan_mode: CLIMATE_FAN_MODE,
  preset_mode: CLIMATE_PRESET_MODE,
  swing_mode: CLIMATE_SWING_MODE,
  turn_off: CLIMATE_TURN_OFF,
  turn_on: CLIMATE_TURN_ON,
};

/** Options of a virtual thermostat. */
export interface ClimateOptions {
  config: ClimateConfig;
  initial: ClimateSettings;
  current_temperature: number | null;
  current_humidity: number | null;
}

const HVAC_MODE = cv.oneOf(HVAC_MODES);
const toModes = refine(cv.stringList, (list) => list.map((m) => cv.convert(HVAC_MODE, m)));
const optionalFloat = cv.maybe(cv.coerceFloat);

function parseOptions(entry: EntryReader): ClimateOptions {
  const hvacModes = entry.optional('hvac_modes', toModes, ['off', 'heat'] as HvacMode[]);
  if (hvacModes.length === 0) throw entry.error('hvac_modes', 'length of value must be at least 1');
  const fanModes = entry.optional('fan_modes', cv.stringList, []);
  const presetModes = entry.optional('preset_modes', cv.stringList, []);
  const swingModes = entry.optional('swing_modes', cv.stringList, []);
  const humidity = entry.optional('target_humidity', optionalFloat, null);
  const defaults =
    CLIMATE_TARGET_TEMPERATURE |
    (hvacModes.includes('heat_cool') ? CLIMATE_TARGET_TEMPERATURE_RANGE : 0) |
    (humidity !== null ? CLIMATE_TARGET_HUMIDITY : 0) |
    (fanModes.length ? CLIMATE_FAN_MODE : 0) |
    (presetModes.length ? CLIMATE_PRESET_MODE : 0) |
    (swingModes.length ? CLIMATE_SWING_MODE : 0) |
    (hvacModes.includes('off') && hvacModes.length > 1 ? CLIMATE_TURN_OFF | CLIMATE_TURN_ON : 0);
  const features = entry.optional('supported_features', supportedFeatures(FEATURES), defaults);
  const minTemp = entry.optional('min_temp', cv.coerceFloat, 7);
  const maxTemp = entry.optional('max_temp', cv.coerceFloat, 35);
  if (minTemp >= maxTemp) throw entry.error('min_temp', `must be below max_temp (${maxTemp})`);
  const initialMode = entry.optional('initial', HVAC_MODE, hvacModes[0]);
  if (!hvacModes.includes(initialMode)) throw entry.error('initial', `must be one of hvac_modes (${hvacModes.join(', ')})`);
  const firstOf = (list: string[], key: string) => {
    const value = entry.optional(key, cv.string, list[0] ?? '');
    if (list.length && !list.includes(value)) throw entry.error(key, `must be one of ${list.join(', ')}`);
    return list.length ? value : null;
  };
  return {
    config: {
      features,
      hvac_modes: hvacModes,
      min_temp: minTemp,
      max_temp: maxTemp,
      target_temp_step: entry.optional('target_temp_step', optionalFloat, null),
      min_humidity: 30,
      max_humidity: 99,
      fan_modes: fanModes,
      preset_modes: presetModes,
      swing_modes: swingModes,
    },
    initial: {
      hvac_mode: initialMode,
      temperature: entry.optional('target_temperature', optionalFloat, 20),
      target_temp_high: entry.optional('target_temp_high', optionalFloat, 24),
      target_temp_low: entry.optional('target_temp_low', optionalFloat, 18),
      humidity,
      fan_mode: firstOf(fanModes, 'fan_mode'),
      preset_mode: firstOf(presetModes, 'preset_mode'),
      swing_mode: firstOf(swingModes, 'swing_mode'),
    },
    current_temperature: entry.optional('current_temperature', optionalFloat, null),
    current_humidity: entry.optional('current_humidity', optionalFloat, null),
  };
}

/** The original's display_temp at PRECISION_TENTHS. */
const shown = (t: number | null) => (t === null ? null : pyRound(t, 1));

/** heating or cooling while the room is off target, as a thermostat reports it; nothing when it cannot tell. */
function hvacAction(s: ClimateSettings, current: number | null): string | undefined {
  if (s.hvac_mode === 'off') return 'off';
  if (current === null || s.temperature === null) return undefined;
  if (s.hvac_mode === 'heat') return current < s.temperature ? 'heating' : 'idle';
  if (s.hvac_mode === 'cool') return current > s.temperature ? 'cooling' : 'idle';
  return undefined;
}

const target = { entity: [{ domain: [DOMAIN] }] };
const noData = Type.Object({}, { additionalProperties: false });
const hvacMode = Type.Union(HVAC_MODES.map((m) => Type.Literal(m)));
const field = (name: string, description: string, selector: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name, description, selector, ...extra });

function modeService(service: string, key: string, name: string, description: string, fieldName: string, feature: number): PlatformService {
  return {
    service,
    description: { name, description, fields: { [key]: field(fieldName, description.replace('Sets ', '').replace(/^./, (c) => c.toUpperCase()), { text: null }, { required: true }) }, target },
    schema: Type.Object({ [key]: Type.String() }, { additionalProperties: false }),
    requiredFeatures: [feature],
    toEvent: (d) => ({ type: service, [key]: d[key] }),
  };
}

/** cv.has_at_least_one_key and the vol.Inclusive group of set_temperature. */
function temperatureKeys(data: Record<string, unknown>): string | undefined {
  const has = (k: string) => data[k] !== undefined;
  if (!has('temperature') && !has('target_temp_high') && !has('target_temp_low')) return 'must contain at least one of temperature, target_temp_high, target_temp_low.';
  if (has('target_temp_high') !== has('target_temp_low')) return "some but not all values in the same group of inclusion 'temperature' @ data[<temperature>]";
  return undefined;
}

const services: PlatformService[] = [
  { service: 'turn_on', description: { name: 'Turn on', description: 'Turns climate device on.', fields: {}, target }, schema: noData, requiredFeatures: [CLIMATE_TURN_ON], toEvent: () => ({ type: 'turn_on' }) },
  { service: 'turn_off', description: { name: 'Turn off', description: 'Turns climate device off.', fields: {}, target }, schema: noData, requiredFeatures: [CLIMATE_TURN_OFF], toEvent: () => ({ type: 'turn_off' }) },
  { service: 'toggle', description: { name: 'Toggle', description: 'Toggles climate device, from on to off, or off to on.', fields: {}, target }, schema: noData, requiredFeatures: [CLIMATE_TURN_OFF, CLIMATE_TURN_ON], toEvent: () => ({ type: 'toggle' }) },
  {
    service: 'set_hvac_mode',
    description: { name: 'Set HVAC mode', description: 'Sets HVAC operation mode.', fields: { hvac_mode: field('HVAC mode', 'HVAC operation mode.', { state: { hide_states: ['unavailable', 'unknown'] } }) }, target },
    schema: Type.Object({ hvac_mode: hvacMode }, { additionalProperties: false }),
    toEvent: (d) => ({ type: 'set_hvac_mode', hvac_mode: d.hvac_mode }),
  },
  {
    service: 'set_temperature',
    description: {
      name: 'Set target temperature',
      description: 'Sets the temperature setpoint.',
      fields: {
        temperature: field('Target temperature', 'The temperature setpoint.', { number: { min: 0, max: 250, step: 0.1, mode: 'box' } }),
        target_temp_high: field('Upper target temperature', 'The max temperature setpoint.', { number: { min: 0, max: 250, step: 0.1, mode: 'box' } }),
        target_temp_low: field('Lower target temperature', 'The min temperature setpoint.', { number: { min: 0, max: 250, step: 0.1, mode: 'box' } }),
        hvac_mode: field('HVAC mode', 'HVAC operation mode.', { select: { options: [...HVAC_MODES] } }),
      },
      target,
    },
    schema: Type.Object(
      { temperature: Type.Optional(Type.Number()), target_temp_high: Type.Optional(Type.Number()), target_temp_low: Type.Optional(Type.Number()), hvac_mode: Type.Optional(hvacMode) },
      { additionalProperties: false },
    ),
    requiredFeatures: [CLIMATE_TARGET_TEMPERATURE, CLIMATE_TARGET_TEMPERATURE_RANGE],
    refine: temperatureKeys,
    toEvent: (d) => ({ type: 'set_temperature', ...d }),
  },
  {
    service: 'set_humidity',
    description: { name: 'Set target humidity', description: 'Sets target humidity.', fields: { humidity: field('Humidity', 'Target humidity.', { number: { min: 30, max: 99, unit_of_measurement: '%' } }, { required: true }) }, target },
    schema: Type.Object({ humidity: Type.Number() }, { additionalProperties: false }),
    requiredFeatures: [CLIMATE_TARGET_HUMIDITY],
    toEvent: (d) => ({ type: 'set_humidity', humidity: Math.trunc(d.humidity) }),
  },
  modeService('set_fan_mode', 'fan_mode', 'Set fan mode', 'Sets fan operation mode.', 'Fan mode', CLIMATE_FAN_MODE),
  modeService('set_preset_mode', 'preset_mode', 'Set preset mode', 'Sets preset mode.', 'Preset mode', CLIMATE_PRESET_MODE),
  modeService('set_swing_mode', 'swing_mode', 'Set swing mode', 'Sets swing operation mode.', 'Swing mode', CLIMATE_SWING_MODE),
];

/** climate: a thermostat whose state is its HVAC mode. */
export const climateDomain: PlatformDomain<ClimateOptions> = {
  domain: DOMAIN,
  optionKeys: [
    'initial', 'hvac_modes', 'min_temp', 'max_temp', 'target_temp_step', 'target_temperature', 'target_temp_high', 'target_temp_low',
    'target_humidity', 'current_temperature', 'current_humidity', 'fan_modes', 'fan_mode', 'preset_modes', 'preset_mode', 'swing_modes',
    'swing_mode', 'supported_features',
  ],
  parseOptions,
  supportedFeatures: (entry) => entry.options.config.features,
  machine: climateMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    const { config, initial } = entry.options;
    const s: ClimateSettings = { ...initial };
    if (last) {
      if ((config.hvac_modes as string[]).includes(last.state)) s.hvac_mode = last.state as HvacMode;
      s.temperature = numberAttribute(last, 'temperature') ?? s.temperature;
      s.target_temp_high = numberAttribute(last, 'target_temp_high') ?? s.target_temp_high;
      s.target_temp_low = numberAttribute(last, 'target_temp_low') ?? s.target_temp_low;
      s.humidity = numberAttribute(last, 'humidity') ?? s.humidity;
      const mode = (key: string, list: string[], fallback: string | null) => {
        const value = stringAttribute(last, key);
        return value !== undefined && list.includes(value) ? value : fallback;
      };
      s.fan_mode = mode('fan_mode', config.fan_modes, s.fan_mode);
      s.preset_mode = mode('preset_mode', config.preset_modes, s.preset_mode);
      s.swing_mode = mode('swing_mode', config.swing_modes, s.swing_mode);
    }
    return { config, settings: s };
  },
  render: (snapshot, entry) => {
    const { config, current_temperature, current_humidity } = entry.options;
    const s: ClimateSettings = snapshot.context.settings;
    const f = config.features;
    const a: Record<string, unknown> = { hvac_modes: config.hvac_modes, min_temp: shown(config.min_temp), max_temp: shown(config.max_temp) };
    if (config.target_temp_step) a.target_temp_step = config.target_temp_step;
    if (f & CLIMATE_TARGET_HUMIDITY) Object.assign(a, { min_humidity: config.min_humidity, max_humidity: config.max_humidity });
    if (f & CLIMATE_FAN_MODE) a.fan_modes = config.fan_modes;
    if (f & CLIMATE_PRESET_MODE) a.preset_modes = config.preset_modes;
    if (f & CLIMATE_SWING_MODE) a.swing_modes = config.swing_modes;
    a.current_temperature = shown(current_temperature);
    if (f & CLIMATE_TARGET_TEMPERATURE) a.temperature = shown(s.temperature);
    if (f & CLIMATE_TARGET_TEMPERATURE_RANGE) Object.assign(a, { target_temp_high: shown(s.target_temp_high), target_temp_low: shown(s.target_temp_low) });
    if (current_humidity !== null) a.current_humidity = current_humidity;
    if (f & CLIMATE_TARGET_HUMIDITY) a.humidity = s.humidity;
    if (f & CLIMATE_FAN_MODE) a.fan_mode = s.fan_mode;
    const action = hvacAction(s, current_temperature);
    if (action) a.hvac_action = action;
    if (f & CLIMATE_PRESET_MODE) a.preset_mode = s.preset_mode;
    if (f & CLIMATE_SWING_MODE) a.swing_mode = s.swing_mode;
    return { state: s.hvac_mode, attributes: a };
  },
  services,
};
