import { Type } from '@sinclair/typebox';
import { FAN_DIRECTION, FAN_OSCILLATE, FAN_PRESET_MODE, FAN_SET_SPEED, FAN_TURN_OFF, FAN_TURN_ON, fanMachine, type FanConfig, type FanSettings } from '../../../machines/fan.machine.ts';
import { supportedFeatures, type EntryReader } from './config.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown } from './restore.ts';
import type { EntityState } from '../types.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal } from '../../voluptuous/schema.ts';

const DOMAIN = 'fan';

const FEATURES = { set_speed: FAN_SET_SPEED, oscillate: FAN_OSCILLATE, direction: FAN_DIRECTION, preset_mode: FAN_PRESET_MODE, turn_off: FAN_TURN_OFF, turn_on: FAN_TURN_ON };

/** Options of a virtual fan. */
export interface FanOptions {
  initial: boolean;
  config: FanConfig;
}

function parseOptions(entry: EntryReader): FanOptions {
  const presetModes = entry.optional('preset_modes', cv.stringList, []);
  const speedCount = entry.optional('speed_count', cv.coerceInt, 100);
  if (speedCount < 1 || speedCount > 100) throw entry.error('speed_count', 'value must be between 1 and 100');
  const all = FAN_SET_SPEED | FAN_OSCILLATE | FAN_DIRECTION | FAN_TURN_ON | FAN_TURN_OFF | (presetModes.length ? FAN_PRESET_MODE : 0);
  const features = entry.optional('supported_features', supportedFeatures(FEATURES), all);
  if (features & FAN_PRESET_MODE && presetModes.length === 0) throw entry.error('supported_features', 'preset_mode needs preset_modes');
  return { initial: entry.optional('initial', cv.boolean, false), config: { speed_count: speedCount, preset_modes: presetModes, features } };
}

function restoredSettings(last: EntityState | undefined, config: FanConfig): FanSettings {
  const s: FanSettings = { percentage: 0, preset_mode: null, oscillating: false, direction: 'forward', last_percentage: 100 };
  if (!last) return s;
  const a = last.attributes;
  if (last.state === 'on' && typeof a.percentage === 'number' && a.percentage > 0 && a.percentage <= 100) s.percentage = s.last_percentage = a.percentage;
  if (last.state === 'on' && typeof a.preset_mode === 'string' && config.preset_modes.includes(a.preset_mode)) s.preset_mode = a.preset_mode;
  if (typeof a.oscillating === 'boolean') s.oscillating = a.oscillating;
  if (a.direction === 'reverse') s.direction = 'reverse';
  return s;
}

const target = { entity: [{ domain: [DOMAIN] }] };
const percentage = Type.Number({ minimum: 0, maximum: 100 });
const field = (name: string, description: string, selector: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name, description, selector, ...extra });
const noData = Type.Object({}, { additionalProperties: false });

/** cv.boolean over what the schema let through, in the original's words. */
function booleanProblem(key: string) {
  return (data: Record<string, unknown>) => {
    try {
      cv.convert(cv.boolean, data[key]);
      return undefined;
    } catch (err) {
      if (err instanceof Refusal) return `${err.message} for dictionary value @ data['${key}']`;
      throw err;
    }
  };
}

const services: PlatformService[] = [
  {
    service: 'turn_on',
    description: {
      name: 'Turn on',
      description: 'Turns fan on.',
      fields: {
        percentage: field('Percentage', 'Speed of the fan.', { number: { min: 0, max: 100, unit_of_measurement: '%' } }),
        preset_mode: field('Preset mode', 'Preset fan mode.', { text: null }, { example: 'auto' }),
      },
      target,
    },
    schema: Type.Object({ percentage: Type.Optional(percentage), preset_mode: Type.Optional(Type.String()) }, { additionalProperties: false }),
    requiredFeatures: [FAN_TURN_ON],
    toEvent: (d) => ({ type: 'turn_on', ...(d.percentage !== undefined ? { percentage: Math.trunc(d.percentage) } : {}), ...(d.preset_mode !== undefined ? { preset_mode: d.preset_mode } : {}) }),
  },
  { service: 'turn_off', description: { name: 'Turn off', description: 'Turns fan off.', fields: {}, target }, schema: noData, requiredFeatures: [FAN_TURN_OFF], toEvent: () => ({ type: 'turn_off' }) },
  { service: 'toggle', description: { name: 'Toggle', description: 'Toggles a fan on/off.', fields: {}, target }, schema: noData, requiredFeatures: [FAN_TURN_OFF, FAN_TURN_ON], toEvent: () => ({ type: 'toggle' }) },
  {
    service: 'increase_speed',
    description: { name: 'Increase speed', description: 'Increases the speed of a fan.', fields: { percentage_step: field('Increment', 'Percentage step by which the speed should be increased.', { number: { min: 0, max: 100, unit_of_measurement: '%' } }) }, target },
    schema: Type.Object({ percentage_step: Type.Optional(percentage) }, { additionalProperties: false }),
    requiredFeatures: [FAN_SET_SPEED],
    toEvent: (d) => ({ type: 'increase_speed', ...(d.percentage_step !== undefined ? { percentage_step: Math.trunc(d.percentage_step) } : {}) }),
  },
  {
    service: 'decrease_speed',
    description: { name: 'Decrease speed', description: 'Decreases the speed of a fan.', fields: { percentage_step: field('Decrement', 'Percentage step by which the speed should be decreased.', { number: { min: 0, max: 100, unit_of_measurement: '%' } }) }, target },
    schema: Type.Object({ percentage_step: Type.Optional(percentage) }, { additionalProperties: false }),
    requiredFeatures: [FAN_SET_SPEED],
    toEvent: (d) => ({ type: 'decrease_speed', ...(d.percentage_step !== undefined ? { percentage_step: Math.trunc(d.percentage_step) } : {}) }),
  },
  {
    service: 'oscillate',
    description: { name: 'Oscillate', description: 'Controls the oscillation of a fan.', fields: { oscillating: field('Oscillating', 'Turns oscillation on/off.', { boolean: null }, { required: true }) }, target },
    schema: Type.Object({ oscillating: Type.Union([Type.Boolean(), Type.Number(), Type.String()]) }, { additionalProperties: false }),
    requiredFeatures: [FAN_OSCILLATE],
    refine: booleanProblem('oscillating'),
    toEvent: (d) => ({ type: 'oscillate', oscillating: cv.convert(cv.boolean, d.oscillating) }),
  },
  {
    service: 'set_direction',
    description: { name: 'Set direction', description: 'Sets a fan\'s rotation direction.', fields: { direction: field('Direction', 'Direction of the fan rotation.', { select: { options: ['forward', 'reverse'] } }, { required: true }) }, target },
    schema: Type.Object({ direction: Type.Union([Type.Literal('forward'), Type.Literal('reverse')]) }, { additionalProperties: false }),
    requiredFeatures: [FAN_DIRECTION],
    toEvent: (d) => ({ type: 'set_direction', direction: d.direction }),
  },
  {
    service: 'set_percentage',
    description: { name: 'Set speed', description: 'Sets the speed of a fan.', fields: { percentage: field('Percentage', 'Speed of the fan.', { number: { min: 0, max: 100, unit_of_measurement: '%' } }, { required: true }) }, target },
    schema: Type.Object({ percentage }, { additionalProperties: false }),
    requiredFeatures: [FAN_SET_SPEED],
    toEvent: (d) => ({ type: 'set_percentage', percentage: Math.trunc(d.percentage) }),
  },
  {
    service: 'set_preset_mode',
    description: { name: 'Set preset mode', description: 'Sets preset fan mode.', fields: { preset_mode: field('Preset mode', 'Preset fan mode.', { text: null }, { required: true, example: 'auto' }) }, target },
    schema: Type.Object({ preset_mode: Type.String() }, { additionalProperties: false }),
    requiredFeatures: [FAN_SET_SPEED, FAN_PRESET_MODE],
    toEvent: (d) => ({ type: 'set_preset_mode', preset_mode: d.preset_mode }),
  },
];

/** fan: on or off, speed as a percentage, preset modes, oscillation and direction. */
export const fanDomain: PlatformDomain<FanOptions> = {
  domain: DOMAIN,
  optionKeys: ['initial', 'speed_count', 'preset_modes', 'supported_features'],
  parseOptions,
  supportedFeatures: (entry) => entry.options.config.features,
  machine: fanMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    const { config, initial } = entry.options;
    const settings = restoredSettings(last, config);
    const on = last ? last.state === 'on' : initial;
    if (on && settings.percentage === 0 && settings.preset_mode === null) settings.percentage = settings.last_percentage;
    return { entityId: entry.entityId, config, on, settings };
  },
  render: (snapshot, entry) => {
    const { features, speed_count, preset_modes } = entry.options.config;
    const s: FanSettings = snapshot.context.settings;
    const a: Record<string, unknown> = {};
    const speedOrPreset = (features & (FAN_SET_SPEED | FAN_PRESET_MODE)) !== 0;
    if (speedOrPreset) a.preset_modes = preset_modes.length ? preset_modes : null;
    if (features & FAN_DIRECTION) a.direction = s.direction;
    if (features & FAN_OSCILLATE) a.oscillating = s.oscillating;
    if (features & FAN_SET_SPEED) {
      a.percentage = s.percentage;
      a.percentage_step = 100 / speed_count;
    }
    if (speedOrPreset) a.preset_mode = s.preset_mode;
    return { state: snapshot.value === 'on' ? 'on' : 'off', attributes: a };
  },
  services,
};
