import { miredToKelvin, pyRound } from '../../../machines/color.ts';
import type { JsonSpec } from '../../../machines/mqtt/light-commands.ts';
import { LIGHT_EFFECT, LIGHT_FLASH, LIGHT_TRANSITION, VALID_COLOR_MODES, brightnessSupported } from '../../../machines/mqtt/light-service.ts';
import { filterColorModes, type LightState } from '../../../machines/mqtt/light-state.ts';
import { listOf, optional, type Fields } from '../schema.ts';
import { kelvinRange, lastLight, lightInput, lightPlatform, restoredAttribute, STATE_KEY, toScale, type MqttLightCommonConfig } from './light-shared.ts';
import { isOptimisticFor } from './optimistic.ts';
import { isDict, parseJsonObject } from './state-payloads.ts';
import type { ReadMessage } from './types.ts';
import { InvalidValue, toBool, toPositiveInt } from '../schema.ts';

export interface MqttJsonLightConfig extends MqttLightCommonConfig {
  brightness: boolean;
  brightness_scale: number;
  effect: boolean;
  flash: boolean;
  flash_time_long: number;
  flash_time_short: number;
  supported_color_modes?: string[];
  transition: boolean;
  white_scale: number;
}

/** vol.In(VALID_COLOR_MODES) per item, vol.Unique(), valid_supported_color_modes. */
function toColorModes(value: unknown): string[] {
  const modes = listOf((v) => {
    if (typeof v !== 'string' || !VALID_COLOR_MODES.includes(v)) throw new InvalidValue(`value must be one of [${VALID_COLOR_MODES.map((m) => `<ColorMode.${m.toUpperCase()}: '${m}'>`).join(', ')}]`);
    return v;
  })(value);
  if (new Set(modes).size !== modes.length) throw new InvalidValue(`contains duplicate items: ${JSON.stringify(modes)}`);
  const set = new Set(modes);
  const colour = modes.some((m) => ['hs', 'xy', 'rgb', 'rgbw', 'rgbww'].includes(m));
  if (!set.size || (set.has('white') && !colour) || (set.has('onoff') && set.size > 1) || (set.has('brightness') && set.size > 1)) {
    throw new InvalidValue('Invalid supported_color_modes');
  }
  return modes;
}

/** The JSON schema's own options (schema_json.py). */
const FIELDS: Fields = {
  brightness: optional(toBool, false),
  brightness_scale: optional(toScale, 255),
  effect: optional(toBool, false),
  flash: optional(toBool, true),
  flash_time_long: optional(toPositiveInt, 10),
  flash_time_short: optional(toPositiveInt, 2),
  supported_color_modes: optional(toColorModes),
  transition: optional(toBool, true),
  white_scale: optional(toScale, 255),
  // removed in the original's 2025.3: taken and ignored
  color_mode: optional((v) => v),
  color_temp: optional((v) => v),
  hs: optional((v) => v),
  rgb: optional((v) => v),
  xy: optional((v) => v),
};

/** What the JSON schema makes of a config: supported_color_modes as given, brightness alone, or on/off. */
export function jsonSpec(c: MqttJsonLightConfig): JsonSpec {
  const configured = c.supported_color_modes !== undefined && c.supported_color_modes.length > 0;
  const modes = configured ? filterColorModes(c.supported_color_modes!) : c.brightness ? ['brightness'] : ['onoff'];
  return {
    schema: 'json',
    modes: configured ? c.supported_color_modes! : modes,
    configuredModes: configured,
    features: (c.effect ? LIGHT_EFFECT : 0) | (c.flash ? LIGHT_FLASH : 0) | (c.transition ? LIGHT_TRANSITION : 0),
    effectList: c.effect_list ?? null,
    ...kelvinRange(c),
    optimistic: isOptimisticFor(c),
    brightness: c.brightness,
    brightnessScale: c.brightness_scale,
    whiteScale: c.white_scale,
    colorTempKelvin: c.color_temp_kelvin,
    flashTimeShort: c.flash_time_short,
    flashTimeLong: c.flash_time_long,
  };
}

/** Python's int() of a JSON value: a whole number from a number or numeric text. */
function pyInt(v: unknown): number {
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^\s*[+-]?\d+\s*$/.test(v)) return Number(v);
  throw new TypeError('int');
}

/** Python's float() of a JSON value. */
function pyFloat(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && v.trim() !== '' && !Number.isNaN(Number(v))) return Number(v);
  throw new TypeError('float');
}

/** The colour of a message naming its colour mode, or undefined when it is refused (logged). */
function readColor(values: Record<string, any>, spec: JsonSpec, m: ReadMessage<MqttJsonLightConfig>): Partial<LightState> | undefined {
  const mode = values.color_mode;
  if (!spec.modes.includes(mode)) {
    m.warn(`Invalid color mode '${mode}' received for entity ${m.entityId}`);
    return undefined;
  }
  try {
    const color = () => {
      if (!isDict(values.color)) throw new TypeError('color');
      return values.color;
    };
    switch (mode) {
      case 'color_temp': {
        if (!('color_temp' in values)) throw new TypeError('color_temp');
        const ct = values.color_temp;
        if (typeof ct !== 'number') throw new TypeError('color_temp');
        return { color_mode: 'color_temp', kelvin: spec.colorTempKelvin ? ct : miredToKelvin(ct) };
      }
      case 'hs': {
        const c = color();
        return { color_mode: 'hs', hs: [pyFloat(c.h), pyFloat(c.s)] };
      }
      case 'rgb': {
        const c = color();
        return { color_mode: 'rgb', rgb: [pyInt(c.r), pyInt(c.g), pyInt(c.b)] };
      }
      case 'rgbw': {
        const c = color();
        return { color_mode: 'rgbw', rgbw: [pyInt(c.r), pyInt(c.g), pyInt(c.b), pyInt(c.w)] };
      }
      case 'rgbww': {
        const c = color();
        return { color_mode: 'rgbww', rgbww: [pyInt(c.r), pyInt(c.g), pyInt(c.b), pyInt(c.c), pyInt(c.w)] };
      }
      case 'white':
        return { color_mode: 'white' };
      case 'xy': {
        const c = color();
        return { color_mode: 'xy', xy: [pyFloat(c.x), pyFloat(c.y)] };
      }
      default:
        return {};
    }
  } catch {
    m.warn(`Invalid or incomplete color value '${m.raw}' received for entity ${m.entityId}`);
    return undefined;
  }
}

/** light with the JSON schema: `{"state": "ON", "brightness": ..., "color_mode": ..., "color": {...}}` each way. */
export const mqttJsonLight = lightPlatform<MqttJsonLightConfig>('MQTT JSON Light', FIELDS, jsonSpec, {
  input: (config, restored, _now, entityId) => {
    const spec = jsonSpec(config);
    return lightInput(spec, entityId, (light) => {
      const last = lastLight(restored);
      if (!spec.optimistic || !last) return;
      light.on = last.state === 'on';
      for (const attribute of ['brightness', 'color_mode', 'color_temp_kelvin', 'effect', 'hs_color', 'rgb_color', 'rgbw_color', 'rgbww_color', 'xy_color']) {
        if (Object.hasOwn(last.attributes, attribute)) (light as unknown as Record<string, unknown>)[STATE_KEY[attribute]] = restoredAttribute(attribute, last.attributes[attribute]);
      }
    });
  },
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      read(m) {
        const values = parseJsonObject(m.raw);
        if (values === undefined) {
          m.warn(`Unable to parse JSON ${m.entityId}: '${m.raw}'`);
          return undefined;
        }
        // the original reads `state` first: a message without one changes nothing
        if (!('state' in values)) {
          m.warn(`Message without a state for ${m.entityId} on ${m.topic}: '${m.raw}'`);
          return undefined;
        }
        const spec = jsonSpec(m.config);
        const patch: Partial<LightState> = {};
        if (values.state === 'ON') patch.on = true;
        else if (values.state === 'OFF') patch.on = false;
        else if (values.state === null) patch.on = null;
        if ('color_mode' in values) Object.assign(patch, readColor(values, spec, m) ?? {});
        if (brightnessSupported(spec.modes) && 'brightness' in values) {
          const b = values.brightness;
          // zero (or nothing) is ignored; anything but a number is refused
          if (!b) {
            // nothing to take
          } else if (typeof b === 'number') {
            patch.brightness = Math.max(1, pyRound((b * 255) / m.config.brightness_scale));
          } else {
            m.warn(`Invalid brightness value '${typeof b === 'string' ? b : JSON.stringify(b)}' received for entity ${m.entityId}`);
          }
        }
        // the original takes `effect` whenever the light has any feature
        if (spec.features && 'effect' in values) patch.effect = values.effect;
        return { type: 'message', patch };
      },
    },
  ],
});
