import { assign, emit, setup } from 'xstate';
import { floatRepr } from './python/float.ts';

/** ClimateEntityFeature. */
export const CLIMATE_TARGET_TEMPERATURE = 1;
export const CLIMATE_TARGET_TEMPERATURE_RANGE = 2;
export const CLIMATE_TARGET_HUMIDITY = 4;
export const CLIMATE_FAN_MODE = 8;
export const CLIMATE_PRESET_MODE = 16;
export const CLIMATE_SWING_MODE = 32;
export const CLIMATE_TURN_OFF = 128;
export const CLIMATE_TURN_ON = 256;

/** HVACMode. */
export const HVAC_MODES = ['off', 'heat', 'cool', 'heat_cool', 'auto', 'dry', 'fan_only'] as const;
export type HvacMode = (typeof HVAC_MODES)[number];

export interface ClimateConfig {
  features: number;
  hvac_modes: HvacMode[];
  min_temp: number;
  max_temp: number;
  target_temp_step: number | null;
  min_humidity: number;
  max_humidity: number;
  fan_modes: string[];
  preset_modes: string[];
  swing_modes: string[];
}

/** What a thermostat is set to. */
export interface ClimateSettings {
  hvac_mode: HvacMode;
  temperature: number | null;
  target_temp_high: number | null;
  target_temp_low: number | null;
  humidity: number | null;
  fan_mode: string | null;
  preset_mode: string | null;
  swing_mode: string | null;
}

export interface ClimateInput {
  config: ClimateConfig;
  settings: ClimateSettings;
}

export type ClimateContext = ClimateInput;

export type ClimateEvent =
  | { type: 'turn_on' }
  | { type: 'turn_off' }
  | { type: 'toggle' }
  | { type: 'set_hvac_mode'; hvac_mode: HvacMode }
  | { type: 'set_temperature'; temperature?: number; target_temp_high?: number; target_temp_low?: number; hvac_mode?: HvacMode }
  | { type: 'set_humidity'; humidity: number }
  | { type: 'set_fan_mode'; fan_mode: string }
  | { type: 'set_preset_mode'; preset_mode: string }
  | { type: 'set_swing_mode'; swing_mode: string };

interface Problem {
  message: string;
  key: string;
  placeholders: Record<string, string>;
}

export type ClimateEmitted = {
  type: 'rejected';
  code: 'service_validation_error';
  message: string;
  translation: { domain: 'climate'; key: string; placeholders: Record<string, string> };
};

/** A refused climate service as the rejection the machine emits (a ServiceValidationError with its translation). */
export function climateRejection(problem: Problem): ClimateEmitted {
  return {
    type: 'rejected',
    code: 'service_validation_error',
    message: problem.message,
    translation: { domain: 'climate', key: problem.key, placeholders: problem.placeholders },
  };
}

/** The mode the original's turn_on picks: the other of two modes beside off, else heat_cool, heat or cool. */
export function turnOnMode(modes: readonly HvacMode[]): HvacMode | undefined {
  if (modes.length === 2 && modes.includes('off')) return modes.find((m) => m !== 'off');
  return (['heat_cool', 'heat', 'cool'] as const).find((m) => modes.includes(m));
}

const MODE_NAMES = { hvac: ['HVAC', 'HVAC'], fan: ['Fan', 'fan'], preset: ['Preset', 'preset'], swing: ['Swing', 'swing'] } as const;

/** The original's _valid_mode_or_raise. */
function modeProblem(kind: keyof typeof MODE_NAMES, mode: string, modes: readonly string[]): Problem | undefined {
  if (modes.includes(mode)) return undefined;
  const list = modes.join(', ');
  const [title, plural] = MODE_NAMES[kind];
  return { key: `not_valid_${kind}_mode`, placeholders: { mode, modes: list }, message: `${title} mode ${mode} is not valid. Valid ${plural} modes are: ${list}.` };
}

/** What the original's set_temperature, set_humidity and the mode services refuse. */
export function climateProblem(context: ClimateContext, event: ClimateEvent): Problem | undefined {
  const { config } = context;
  switch (event.type) {
    case 'set_hvac_mode':
      return modeProblem('hvac', event.hvac_mode, config.hvac_modes);
    case 'set_fan_mode':
      return modeProblem('fan', event.fan_mode, config.fan_modes);
    case 'set_preset_mode':
      return modeProblem('preset', event.preset_mode, config.preset_modes);
    case 'set_swing_mode':
      return modeProblem('swing', event.swing_mode, config.swing_modes);
    case 'set_humidity':
      if (event.humidity < config.min_humidity || event.humidity > config.max_humidity) {
        const placeholders = { humidity: String(event.humidity), min_humidity: String(config.min_humidity), max_humidity: String(config.max_humidity) };
        return { key: 'humidity_out_of_range', placeholders, message: `Provided humidity ${placeholders.humidity} is not valid. Accepted range is ${placeholders.min_humidity} to ${placeholders.max_humidity}.` };
      }
      return undefined;
    case 'set_temperature': {
      if (event.temperature !== undefined && !(config.features & CLIMATE_TARGET_TEMPERATURE)) {
        return { key: 'missing_target_temperature_entity_feature', placeholders: {}, message: 'Set temperature action was used with the target temperature parameter but the entity does not support it.' };
      }
      if (event.target_temp_low !== undefined && !(config.features & CLIMATE_TARGET_TEMPERATURE_RANGE)) {
        return { key: 'missing_target_temperature_range_entity_feature', placeholders: {}, message: 'Set temperature action was used with the target temperature low/high parameter but the entity does not support it.' };
      }
      if (event.target_temp_low && event.target_temp_high && event.target_temp_low > event.target_temp_high) {
        return { key: 'low_temp_higher_than_high_temp', placeholders: {}, message: 'Target temperature low can not be higher than Target temperature high.' };
      }
      for (const t of [event.temperature, event.target_temp_high, event.target_temp_low]) {
        if (t !== undefined && (t < config.min_temp || t > config.max_temp)) {
          const placeholders = { check_temp: floatRepr(t), min_temp: String(config.min_temp), max_temp: String(config.max_temp) };
          return { key: 'temp_out_of_range', placeholders, message: `Provided temperature ${placeholders.check_temp} is not valid. Accepted range is ${placeholders.min_temp} to ${placeholders.max_temp}.` };
        }
      }
      return event.hvac_mode !== undefined ? modeProblem('hvac', event.hvac_mode, config.hvac_modes) : undefined;
    }
    default:
      return undefined;
  }
}

/** The settings after an accepted event. */
function applied(context: ClimateContext, event: ClimateEvent): ClimateSettings {
  const s = { ...context.settings };
  const modes = context.config.hvac_modes;
  switch (event.type) {
    case 'turn_on':
      s.hvac_mode = turnOnMode(modes) ?? s.hvac_mode;
      break;
    case 'turn_off':
      if (modes.includes('off')) s.hvac_mode = 'off';
      break;
    case 'toggle':
      s.hvac_mode = s.hvac_mode === 'off' ? (turnOnMode(modes) ?? s.hvac_mode) : modes.includes('off') ? 'off' : s.hvac_mode;
      break;
    case 'set_hvac_mode':
      s.hvac_mode = event.hvac_mode;
      break;
    case 'set_temperature':
      if (event.temperature !== undefined) s.temperature = event.temperature;
      if (event.target_temp_high !== undefined) s.target_temp_high = event.target_temp_high;
      if (event.target_temp_low !== undefined) s.target_temp_low = event.target_temp_low;
      if (event.hvac_mode !== undefined) s.hvac_mode = event.hvac_mode;
      break;
    case 'set_humidity':
      s.humidity = event.humidity;
      break;
    case 'set_fan_mode':
      s.fan_mode = event.fan_mode;
      break;
    case 'set_preset_mode':
      s.preset_mode = event.preset_mode;
      break;
    case 'set_swing_mode':
      s.swing_mode = event.swing_mode;
      break;
  }
  return s;
}

/** A setting the original checks first: refused with its reason, else applied. */
const CHECKED = [{ guard: 'refused', actions: 'reject' }, { actions: 'apply' }] as const;

/**
 * A thermostat: its HVAC mode (the state), target temperature or range, humidity, fan, preset
 * and swing modes; each service refused as the original refuses it.
 */
export const climateMachine = setup({
  types: {
    context: {} as ClimateContext,
    events: {} as ClimateEvent,
    emitted: {} as ClimateEmitted,
    input: {} as ClimateInput,
  },
  actions: {
    apply: assign(({ context, event }) => ({ settings: applied(context, event) })),
    reject: emit(({ context, event }) => climateRejection(climateProblem(context, event)!)),
  },
  guards: {
    refused: ({ context, event }) => climateProblem(context, event) !== undefined,
  },
}).createMachine({
  id: 'climate',
  context: ({ input }) => input,
  initial: 'active',
  states: {
    active: {
      on: {
        turn_on: { actions: 'apply' },
        turn_off: { actions: 'apply' },
        toggle: { actions: 'apply' },
        set_hvac_mode: [...CHECKED],
        set_temperature: [...CHECKED],
        set_humidity: [...CHECKED],
        set_fan_mode: [...CHECKED],
        set_preset_mode: [...CHECKED],
        set_swing_mode: [...CHECKED],
      },
    },
  },
});
