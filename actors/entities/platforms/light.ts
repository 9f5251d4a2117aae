import { Type, type TSchema } from '@sinclair/typebox';
import { lightMachine, type LightConfig, type LightSettings } from '../../../machines/light.machine.ts';
import { LIGHT_EFFECT, LIGHT_FLASH, LIGHT_TRANSITION, brightnessSupported, colorSupported, usesBrightness, type ColorMode, type LightParams } from '../../../machines/light-params.ts';
import { hsToRgb, hsToXy, kelvinToHs, pyRound, rgbToHs, rgbToXy, xyToHs, xyToRgb } from '../../../machines/color.ts';
import { type EntryReader } from './config.ts';
import type { PlatformDomain, PlatformService } from './types.ts';
import { lastKnown } from './restore.ts';
import type { EntityState } from '../types.ts';
import * as cv from '../../voluptuous/cv.ts';
import { Refusal, refine } from '../../voluptuous/schema.ts';

const DOMAIN = 'light';
const MODES: ColorMode[] = ['onoff', 'brightness', 'color_temp', 'hs', 'xy', 'rgb'];
/** The original's DEFAULT_MIN_KELVIN and DEFAULT_MAX_KELVIN. */
const DEFAULT_MIN_KELVIN = 2000;
const DEFAULT_MAX_KELVIN = 6535;

/** Options of a virtual light. */
export interface LightOptions {
  initial: boolean;
  config: LightConfig;
}

/** The original's valid_supported_color_modes, over the modes a virtual light can have. */
const toColorModes = refine(cv.stringList, (list): ColorMode[] => {
  const modes = [...new Set(list)];
  for (const m of modes) {
    if (!(MODES as string[]).includes(m)) throw new Refusal(`color mode '${m}' is not one of ${MODES.join(', ')}`);
  }
  if (modes.length === 0) throw new Refusal('supported_color_modes must name at least one color mode');
  // the original's filter_supported_color_modes: onoff and brightness only stand alone, and a
  // colour mode implies brightness, so `[brightness, color_temp, hs]` means `[color_temp, hs]`
  const colour = modes.filter((m) => m !== 'onoff' && m !== 'brightness');
  if (colour.length) return colour as ColorMode[];
  return (modes.includes('brightness') ? ['brightness'] : ['onoff']) as ColorMode[];
});

function parseOptions(entry: EntryReader): LightOptions {
  const modes = entry.optional('supported_color_modes', toColorModes, ['brightness'] as ColorMode[]);
  const effects = entry.optional('effect_list', cv.stringList, []);
  const min = entry.optional('min_color_temp_kelvin', cv.coerceInt, DEFAULT_MIN_KELVIN);
  const max = entry.optional('max_color_temp_kelvin', cv.coerceInt, DEFAULT_MAX_KELVIN);
  if (min <= 0 || min >= max) throw entry.error('min_color_temp_kelvin', `must be above 0 and below max_color_temp_kelvin (${max})`);
  return {
    initial: entry.optional('initial', cv.boolean, false),
    config: {
      supported_color_modes: modes,
      effect_list: effects,
      min_color_temp_kelvin: min,
      max_color_temp_kelvin: max,
      // a virtual light takes any transition and flash at once
      features: LIGHT_TRANSITION | LIGHT_FLASH | (effects.length ? LIGHT_EFFECT : 0),
    },
  };
}

function initialMode(modes: ColorMode[]): ColorMode {
  if (modes.includes('color_temp')) return 'color_temp';
  return [...modes].sort()[0];
}

function defaults(config: LightConfig): LightSettings {
  return {
    brightness: 255,
    color_mode: initialMode(config.supported_color_modes),
    hs_color: [0, 0],
    rgb_color: [255, 255, 255],
    xy_color: rgbToXy(255, 255, 255),
    color_temp_kelvin: Math.min(Math.max(4000, config.min_color_temp_kelvin), config.max_color_temp_kelvin),
    effect: null,
  };
}

const numbers = (value: unknown, length: number): number[] | undefined =>
  Array.isArray(value) && value.length === length && value.every((v) => typeof v === 'number' && Number.isFinite(v)) ? value : undefined;

/** The settings an on light showed, read back from its attributes; what it does not show keeps the defaults. */
function restoredSettings(config: LightConfig, last: EntityState | undefined): LightSettings {
  const settings = defaults(config);
  if (!last || last.state !== 'on') return settings;
  const a = last.attributes;
  if (typeof a.brightness === 'number' && a.brightness >= 0 && a.brightness <= 255) settings.brightness = a.brightness;
  if (typeof a.color_mode === 'string' && (config.supported_color_modes as string[]).includes(a.color_mode)) settings.color_mode = a.color_mode as ColorMode;
  settings.hs_color = (numbers(a.hs_color, 2) as LightSettings['hs_color']) ?? settings.hs_color;
  settings.rgb_color = (numbers(a.rgb_color, 3) as LightSettings['rgb_color']) ?? settings.rgb_color;
  settings.xy_color = (numbers(a.xy_color, 2) as LightSettings['xy_color']) ?? settings.xy_color;
  if (typeof a.color_temp_kelvin === 'number') settings.color_temp_kelvin = a.color_temp_kelvin;
  if (typeof a.effect === 'string' && config.effect_list.includes(a.effect)) settings.effect = a.effect;
  return settings;
}

/** hs_color, rgb_color and xy_color of a colour mode, as the original's _light_internal_convert_color. */
function colorAttributes(s: LightSettings): Record<string, unknown> {
  switch (s.color_mode) {
    case 'hs': {
      const [h, sat] = s.hs_color;
      return { hs_color: [pyRound(h, 3), pyRound(sat, 3)], rgb_color: hsToRgb(h, sat), xy_color: hsToXy(h, sat) };
    }
    case 'xy': {
      const [x, y] = s.xy_color;
      return { hs_color: xyToHs(x, y), rgb_color: xyToRgb(x, y), xy_color: [pyRound(x, 6), pyRound(y, 6)] };
    }
    case 'rgb':
      return { hs_color: rgbToHs(...s.rgb_color), rgb_color: s.rgb_color.map(Math.trunc), xy_color: rgbToXy(...s.rgb_color) };
    case 'color_temp': {
      const [h, sat] = kelvinToHs(s.color_temp_kelvin);
      return { hs_color: [pyRound(h, 3), pyRound(sat, 3)], rgb_color: hsToRgb(h, sat), xy_color: hsToXy(h, sat) };
    }
    default:
      return {};
  }
}

// ---- services ----

const target = { entity: [{ domain: [DOMAIN] }] };
const byte = Type.Number({ minimum: 0, maximum: 255 });
const unit = Type.Number({ minimum: 0, maximum: 1 });
const optional = (schema: TSchema) => Type.Optional(schema);

const TURN_ON_FIELDS = {
  transition: optional(Type.Number()),
  brightness: optional(Type.Number()),
  brightness_pct: optional(Type.Number({ minimum: 0, maximum: 100 })),
  brightness_step: optional(Type.Number()),
  brightness_step_pct: optional(Type.Number()),
  profile: optional(Type.String()),
  color_name: optional(Type.String()),
  color_temp_kelvin: optional(Type.Number({ minimum: 0 })),
  hs_color: optional(Type.Tuple([Type.Number({ minimum: 0, maximum: 360 }), Type.Number({ minimum: 0, maximum: 100 })])),
  rgb_color: optional(Type.Tuple([byte, byte, byte])),
  rgbw_color: optional(Type.Tuple([byte, byte, byte, byte])),
  rgbww_color: optional(Type.Tuple([byte, byte, byte, byte, byte])),
  xy_color: optional(Type.Tuple([unit, unit])),
  white: optional(Type.Union([Type.Literal(true), Type.Number()])),
  flash: optional(Type.Union([Type.Literal('short'), Type.Literal('long')])),
  effect: optional(Type.String()),
};
const TURN_ON = Type.Object(TURN_ON_FIELDS, { additionalProperties: false });
const TURN_OFF = Type.Object({ transition: TURN_ON_FIELDS.transition, flash: TURN_ON_FIELDS.flash }, { additionalProperties: false });

/** vol.Exclusive groups of the turn_on schema. */
const EXCLUSIVE: Record<string, string[]> = {
  brightness: ['brightness', 'brightness_pct', 'brightness_step', 'brightness_step_pct'],
  'Color descriptors': ['profile', 'color_name', 'color_temp_kelvin', 'hs_color', 'rgb_color', 'rgbw_color', 'rgbww_color', 'xy_color', 'white'],
};

function exclusive(data: Record<string, unknown>): string | undefined {
  for (const [group, keys] of Object.entries(EXCLUSIVE)) {
    if (keys.filter((k) => data[k] !== undefined).length > 1) return `two or more values in the same group of exclusion '${group}' @ data[<${group}>]`;
  }
  return undefined;
}

const clamp = (v: number, lo: number, hi: number) => Math.min(Math.max(v, lo), hi);
const ints = (list: number[]) => list.map(Math.trunc);

/** The original's coercions and clamps (vol.Coerce(int) truncates, vol.Clamp bounds). */
function turnOnParams(data: Record<string, any>): LightParams {
  const p: LightParams = { ...data };
  if (p.transition !== undefined) p.transition = clamp(p.transition, 0, 6553);
  if (p.brightness !== undefined) p.brightness = clamp(Math.trunc(p.brightness), 0, 255);
  if (p.brightness_step !== undefined) p.brightness_step = clamp(Math.trunc(p.brightness_step), -255, 255);
  if (p.brightness_step_pct !== undefined) p.brightness_step_pct = clamp(p.brightness_step_pct, -100, 100);
  if (p.color_temp_kelvin !== undefined) p.color_temp_kelvin = Math.trunc(p.color_temp_kelvin);
  if (p.rgb_color) p.rgb_color = ints(p.rgb_color) as LightParams['rgb_color'];
  if (p.rgbw_color) p.rgbw_color = ints(p.rgbw_color) as LightParams['rgbw_color'];
  if (p.rgbww_color) p.rgbww_color = ints(p.rgbww_color) as LightParams['rgbww_color'];
  if (typeof p.white === 'number') p.white = clamp(Math.trunc(p.white), 0, 255);
  return p;
}

const field = (name: string, description: string, selector: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ name, description, selector, ...extra });
const TURN_ON_DESCRIPTION_FIELDS = {
  transition: field('Transition', 'Duration it takes to get to next state.', { number: { min: 0, max: 300, unit_of_measurement: 'seconds' } }),
  rgb_color: field('Color', 'The color in RGB format. A list of three integers between 0 and 255 representing the values of red, green, and blue.', { color_rgb: null }, { example: '[255, 100, 100]' }),
  color_temp_kelvin: field('Color temperature', 'Color temperature in Kelvin.', { color_temp: { unit: 'kelvin', min: 2000, max: 6500 } }),
  brightness_pct: field('Brightness', 'Number indicating the percentage of full brightness, where 0 turns the light off, 1 is the minimum brightness, and 100 is the maximum brightness.', { number: { min: 0, max: 100, unit_of_measurement: '%' } }),
  brightness_step_pct: field('Brightness step', 'Change brightness by a percentage.', { number: { min: -100, max: 100, unit_of_measurement: '%' } }),
  effect: field('Effect', 'Light effect.', { text: null }),
  rgbw_color: field('RGBW-color', 'The color in RGBW format. A list of four integers between 0 and 255 representing the values of red, green, blue, and white.', { object: null }, { example: '[255, 100, 100, 50]' }),
  rgbww_color: field('RGBWW-color', 'The color in RGBWW format. A list of five integers between 0 and 255 representing the values of red, green, blue, cold white, and warm white.', { object: null }, { example: '[255, 100, 100, 50, 70]' }),
  color_name: field('Color name', 'A human-readable color name.', { color_name: null }),
  hs_color: field('Hue/Sat color', 'Color in hue/sat format. A list of two integers. Hue is 0-360 and Sat is 0-100.', { object: null }, { example: '[300, 70]' }),
  xy_color: field('XY-color', 'Color in XY-format. A list of two decimal numbers between 0 and 1.', { object: null }, { example: '[0.52, 0.43]' }),
  brightness: field('Brightness value', 'Number indicating brightness, where 0 turns the light off, 1 is the minimum brightness, and 255 is the maximum brightness.', { number: { min: 0, max: 255 } }),
  brightness_step: field('Brightness step value', 'Change brightness by an amount.', { number: { min: -225, max: 255 } }),
  white: field('White', 'Set the light to white mode.', { constant: { value: true, label: 'Enabled' } }),
  profile: field('Profile', 'Name of a light profile to use.', { text: null }, { example: 'relax' }),
  flash: field('Flash', 'Tell light to flash, can be either value short or long.', { select: { options: ['long', 'short'] } }),
};

function onService(service: 'turn_on' | 'toggle', name: string, description: string): PlatformService {
  return {
    service,
    description: { name, description, fields: TURN_ON_DESCRIPTION_FIELDS, target },
    schema: TURN_ON,
    refine: exclusive,
    toEvent: (data) => ({ type: service, params: turnOnParams(data) }),
  };
}

/** light: on or off; brightness, colour temperature and colour in the modes it supports; effects. */
export const lightDomain: PlatformDomain<LightOptions> = {
  domain: DOMAIN,
  optionKeys: ['initial', 'supported_color_modes', 'effect_list', 'min_color_temp_kelvin', 'max_color_temp_kelvin'],
  parseOptions,
  supportedFeatures: (entry) => entry.options.config.features,
  machine: lightMachine,
  input: (entry, restored) => {
    const last = lastKnown(restored);
    const { config } = entry.options;
    return { entityId: entry.entityId, config, on: last ? last.state === 'on' : entry.options.initial, settings: restoredSettings(config, last) };
  },
  render: (snapshot, entry) => {
    const config: LightConfig = entry.options.config;
    const s: LightSettings = snapshot.context.settings;
    const on = snapshot.value === 'on';
    const modes = config.supported_color_modes;
    const a: Record<string, unknown> = {};
    if (modes.includes('color_temp')) {
      a.min_color_temp_kelvin = config.min_color_temp_kelvin;
      a.max_color_temp_kelvin = config.max_color_temp_kelvin;
    }
    if (config.features & LIGHT_EFFECT) a.effect_list = config.effect_list;
    a.supported_color_modes = [...modes].sort();
    if (config.features & LIGHT_EFFECT) a.effect = on ? s.effect : null;
    a.color_mode = on ? s.color_mode : null;
    if (brightnessSupported(modes)) a.brightness = on && usesBrightness(s.color_mode) ? s.brightness : null;
    if (modes.includes('color_temp')) a.color_temp_kelvin = on && s.color_mode === 'color_temp' ? s.color_temp_kelvin : null;
    if (colorSupported(modes) || modes.includes('color_temp')) {
      Object.assign(a, { hs_color: null, rgb_color: null, xy_color: null });
      if (on) Object.assign(a, colorAttributes(s));
    }
    return { state: on ? 'on' : 'off', attributes: a };
  },
  services: [
    onService('turn_on', 'Turn on', 'Turns on one or more lights and adjusts their properties, even when they are turned on already.'),
    {
      service: 'turn_off',
      description: { name: 'Turn off', description: 'Turns off one or more lights.', fields: { transition: TURN_ON_DESCRIPTION_FIELDS.transition, flash: TURN_ON_DESCRIPTION_FIELDS.flash }, target },
      schema: TURN_OFF,
      toEvent: (data) => ({ type: 'turn_off', params: data }),
    },
    onService('toggle', 'Toggle', 'Toggles one or more lights, from on to off, or off to on, based on their current state.'),
  ],
};
