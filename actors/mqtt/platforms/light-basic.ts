import { miredToKelvin, pyRound, rgbwToRgb, rgbwwToRgb, type RGBW, type RGBWW } from '../../../machines/color.ts';
import type { BasicSpec } from '../../../machines/mqtt/light-commands.ts';
import { LIGHT_EFFECT, VALID_COLOR_MODES } from '../../../machines/mqtt/light-service.ts';
import type { LightState } from '../../../machines/mqtt/light-state.ts';
import { optional, toTemplate, type Fields } from '../schema.ts';
import { validPublishTopic } from '../topics.ts';
import { kelvinRange, lastLight, lightInput, lightPlatform, restoredAttribute, STATE_KEY, toScale, type MqttLightCommonConfig } from './light-shared.ts';
import { isEmptyPayload, onOffStateSubscription, patchMessage } from './state-payloads.ts';
import { partTopicFields } from './topic-fields.ts';
import type { PlatformSubscription, ReadMessage } from './types.ts';
import { oneOf, toStr } from '../schema.ts';
import { parseFloatText, parseIntText } from '../../../machines/python/float.ts';

export interface MqttBasicLightConfig extends MqttLightCommonConfig {
  on_command_type: 'first' | 'last' | 'brightness';
  payload_on: string;
  payload_off: string;
  brightness_scale: number;
  white_scale: number;
  [option: string]: unknown;
}

/** The default schema's own options (schema_basic.py). */
const FIELDS: Fields = {
  ...partTopicFields('brightness'),
  brightness_scale: optional(toScale, 255),
  ...partTopicFields('color_mode', { command: false }),
  ...partTopicFields('color_temp'),
  ...partTopicFields('effect'),
  ...partTopicFields('hs'),
  ...partTopicFields('rgb'),
  ...partTopicFields('rgbw'),
  ...partTopicFields('rgbww'),
  ...partTopicFields('xy'),
  on_command_type: optional((v) => oneOf(v, ['first', 'last', 'brightness'] as const), 'last'),
  payload_on: optional(toStr, 'ON'),
  payload_off: optional(toStr, 'OFF'),
  state_value_template: optional(toTemplate),
  white_command_topic: optional(validPublishTopic),
  white_scale: optional(toScale, 255),
};
// the white channel has a command topic only
delete FIELDS.white_command_template;

const HAS_KEYS = [
  'brightness_command_topic', 'brightness_state_topic', 'color_mode_state_topic', 'color_temp_command_topic', 'color_temp_state_topic', 'effect_command_topic',
  'effect_state_topic', 'hs_command_topic', 'hs_state_topic', 'rgb_command_topic', 'rgb_state_topic', 'rgbw_command_topic', 'rgbw_state_topic',
  'rgbww_command_topic', 'rgbww_state_topic', 'state_topic', 'white_command_topic', 'xy_command_topic', 'xy_state_topic',
];

/** What the default schema makes of a config: colour modes from its command topics, what it assumes. */
export function basicSpec(c: MqttBasicLightConfig): BasicSpec {
  const has = Object.fromEntries(HAS_KEYS.map((k) => [k, c[k] !== undefined])) as Record<string, boolean>;
  const o = c.optimistic;
  const modes: string[] = [];
  for (const [topic, mode] of [['color_temp', 'color_temp'], ['hs', 'hs'], ['rgb', 'rgb'], ['rgbw', 'rgbw'], ['rgbww', 'rgbww'], ['white', 'white'], ['xy', 'xy']]) {
    if (has[`${topic}_command_topic`]) modes.push(mode);
  }
  if (!modes.length) modes.push(has.brightness_command_topic ? 'brightness' : 'onoff');
  return {
    schema: 'basic',
    modes,
    features: has.effect_command_topic ? LIGHT_EFFECT : 0,
    effectList: c.effect_list ?? null,
    ...kelvinRange(c),
    optimistic: o || !has.state_topic,
    has,
    assume: {
      color_mode: o || !has.color_mode_state_topic,
      rgb_color: o || !has.rgb_state_topic,
      rgbw_color: o || !has.rgbw_state_topic,
      rgbww_color: o || !has.rgbww_state_topic,
      brightness: o || (has.brightness_command_topic && !has.brightness_state_topic) || (!has.brightness_command_topic && !has.rgb_state_topic),
      color_temp_kelvin: o || !has.color_temp_state_topic,
      effect: o || !has.effect_state_topic,
      hs_color: o || !has.hs_state_topic,
      xy_color: o || !has.xy_state_topic,
    },
    onCommandType: c.on_command_type,
    brightnessScale: c.brightness_scale,
    whiteScale: c.white_scale,
    colorTempKelvin: c.color_temp_kelvin,
  };
}

const message = patchMessage<LightState>;

/** `a,b,c` as whole numbers (Python's int() of each part), or undefined. */
function ints(text: string): number[] | undefined {
  const out = text.split(',').map((part) => parseIntText(part));
  return out.every((n) => n !== undefined) ? (out as number[]) : undefined;
}

/** An RGB, RGBW or RGBWW payload: its colour, and the brightness it carries when no brightness topic says it. */
function rgbx(m: ReadMessage<MqttBasicLightConfig>, mode: 'rgb' | 'rgbw' | 'rgbww') {
  if (isEmptyPayload(m)) return undefined;
  let color = ints(m.payload!);
  const length = mode === 'rgb' ? 3 : mode === 'rgbw' ? 4 : 5;
  if (!color || color.length !== length) {
    m.warn(`Invalid ${mode} payload '${m.payload}' received on ${m.topic} for ${m.entityId}`);
    return undefined;
  }
  const spec = basicSpec(m.config);
  const patch: Partial<LightState> = {};
  if (spec.assume.color_mode) patch.color_mode = mode;
  if (!spec.has.brightness_state_topic) {
    const rgb = mode === 'rgb' ? color : mode === 'rgbw' ? rgbwToRgb(color as RGBW) : rgbwwToRgb(color as RGBWW, spec.minKelvin, spec.maxKelvin);
    const brightness = Math.max(...rgb);
    // a black colour says no brightness: only the colour mode is taken
    if (brightness === 0) return message(patch);
    patch.brightness = brightness;
    color = color.map((c) => Math.min(pyRound((c / brightness) * 255), 255));
  }
  patch[mode] = color as never;
  return message(patch);
}

/** `a,b` as two floats (Python's float() of each of at most three parts), or undefined. */
function pair(text: string): [number, number] | undefined {
  const parts = text.split(',');
  const head = parts.slice(0, 2);
  const rest = parts.slice(2).join(',');
  const values = [...head, ...(parts.length > 2 ? [rest] : [])].map((part) => parseFloatText(part) ?? NaN);
  return values.length === 2 && values.every((v) => !Number.isNaN(v)) ? (values as [number, number]) : undefined;
}

const SUBSCRIPTIONS: PlatformSubscription<MqttBasicLightConfig>[] = [
  onOffStateSubscription(),
  {
    topicKey: 'brightness_state_topic',
    templateKey: 'brightness_value_template',
    read(m) {
      if (isEmptyPayload(m)) return undefined;
      const value = (parseFloatText(m.payload!) ?? NaN);
      if (Number.isNaN(value)) {
        m.warn(`could not convert string to float: '${m.payload}' (brightness of ${m.entityId} on ${m.topic})`);
        return undefined;
      }
      if (value === 0) return undefined;
      return message({ brightness: Math.min(pyRound((value / m.config.brightness_scale) * 255), 255) });
    },
  },
  { topicKey: 'rgb_state_topic', templateKey: 'rgb_value_template', read: (m) => rgbx(m, 'rgb') },
  { topicKey: 'rgbw_state_topic', templateKey: 'rgbw_value_template', read: (m) => rgbx(m, 'rgbw') },
  { topicKey: 'rgbww_state_topic', templateKey: 'rgbww_value_template', read: (m) => rgbx(m, 'rgbww') },
  {
    topicKey: 'color_mode_state_topic',
    templateKey: 'color_mode_value_template',
    read(m) {
      if (isEmptyPayload(m)) return undefined;
      if (!VALID_COLOR_MODES.includes(m.payload!) && m.payload !== 'unknown') {
        m.warn(`'${m.payload}' is not a valid ColorMode (${m.entityId} on ${m.topic})`);
        return undefined;
      }
      return message({ color_mode: m.payload });
    },
  },
  {
    topicKey: 'color_temp_state_topic',
    templateKey: 'color_temp_value_template',
    read(m) {
      if (isEmptyPayload(m)) return undefined;
      const value = parseIntText(m.payload!);
      if (value === undefined) {
        m.warn(`invalid literal for int() with base 10: '${m.payload}' (color temperature of ${m.entityId} on ${m.topic})`);
        return undefined;
      }
      const patch: Partial<LightState> = { kelvin: m.config.color_temp_kelvin ? value : miredToKelvin(value) };
      if (basicSpec(m.config).assume.color_mode) patch.color_mode = 'color_temp';
      return message(patch);
    },
  },
  {
    topicKey: 'effect_state_topic',
    templateKey: 'effect_value_template',
    read: (m) => (isEmptyPayload(m) ? undefined : message({ effect: m.payload })),
  },
  {
    topicKey: 'hs_state_topic',
    templateKey: 'hs_value_template',
    read(m) {
      if (isEmptyPayload(m)) return undefined;
      const hs = pair(m.payload!);
      if (!hs) {
        m.warn(`Failed to parse hs state update: '${m.payload}'`);
        return undefined;
      }
      return message({ hs, ...(basicSpec(m.config).assume.color_mode ? { color_mode: 'hs' } : {}) });
    },
  },
  {
    topicKey: 'xy_state_topic',
    templateKey: 'xy_value_template',
    read(m) {
      if (isEmptyPayload(m)) return undefined;
      const xy = pair(m.payload!);
      if (!xy) {
        m.warn(`could not convert string to float: '${m.payload}' (xy colour of ${m.entityId} on ${m.topic})`);
        return undefined;
      }
      return message({ xy, ...(basicSpec(m.config).assume.color_mode ? { color_mode: 'xy' } : {}) });
    },
  },
];

/** Restored attributes: each only when the light assumes it (the original's restore_state), and only when it was set. */
const RESTORED: Array<[string, keyof BasicSpec['assume']]> = [
  ['brightness', 'brightness'], ['rgb_color', 'rgb_color'], ['hs_color', 'rgb_color'], ['rgbw_color', 'rgbw_color'], ['rgbww_color', 'rgbww_color'],
  ['color_mode', 'color_mode'], ['color_temp_kelvin', 'color_temp_kelvin'], ['effect', 'effect'], ['hs_color', 'hs_color'], ['xy_color', 'xy_color'], ['hs_color', 'xy_color'],
];

/** light with the default schema: a topic per attribute, payload_on and payload_off on the command topic. */
export const mqttBasicLight = lightPlatform<MqttBasicLightConfig>('MQTT LightEntity', FIELDS, basicSpec, {
  input: (config, restored, _now, entityId) => {
    const spec = basicSpec(config);
    return lightInput(spec, entityId, (light) => {
      const last = lastLight(restored);
      if (!last) return;
      if (!spec.has.state_topic && spec.optimistic) light.on = last.state === 'on';
      for (const [attribute, condition] of RESTORED) {
        const value = last.attributes[attribute];
        if (!spec.assume[condition] || !value) continue;
        const taken = restoredAttribute(attribute, value);
        if (taken !== null) (light as unknown as Record<string, unknown>)[STATE_KEY[attribute]] = taken;
      }
    });
  },
  subscriptions: () => SUBSCRIPTIONS,
});
