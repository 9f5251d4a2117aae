import { miredToKelvin, rgbToHs } from '../../../machines/color.ts';
import type { TemplateSpec } from '../../../machines/mqtt/light-commands.ts';
import { LIGHT_EFFECT, LIGHT_FLASH, LIGHT_TRANSITION } from '../../../machines/mqtt/light-service.ts';
import { filterColorModes, type LightState } from '../../../machines/mqtt/light-state.ts';
import { optional, required, toTemplate, type Fields } from '../schema.ts';
import { kelvinRange, lastLight, lightInput, lightPlatform, restoredAttribute, type MqttLightCommonConfig } from './light-shared.ts';
import { PAYLOAD_NONE } from './sensor.ts';
import { parseIntText } from '../../../machines/python/float.ts';

export interface MqttTemplateLightConfig extends MqttLightCommonConfig {
  command_on_template: string;
  command_off_template: string;
  state_template?: string;
  brightness_template?: string;
  color_temp_template?: string;
  red_template?: string;
  green_template?: string;
  blue_template?: string;
  effect_template?: string;
}

/** The template schema's own options (schema_template.py). */
const FIELDS: Fields = {
  blue_template: optional(toTemplate),
  brightness_template: optional(toTemplate),
  color_temp_template: optional(toTemplate),
  command_off_template: required(toTemplate),
  command_on_template: required(toTemplate),
  effect_template: optional(toTemplate),
  green_template: optional(toTemplate),
  red_template: optional(toTemplate),
  state_template: optional(toTemplate),
};

const hasRgb = (c: MqttTemplateLightConfig) => c.red_template !== undefined && c.green_template !== undefined && c.blue_template !== undefined;

/** What the template schema makes of a config: colour modes from the templates it has. */
export function templateSpec(c: MqttTemplateLightConfig): TemplateSpec {
  const modes = ['onoff'];
  if (c.brightness_template !== undefined) modes.push('brightness');
  if (c.color_temp_template !== undefined) modes.push('color_temp');
  if (hasRgb(c)) modes.push('hs');
  const supported = filterColorModes(modes);
  return {
    schema: 'template',
    modes: supported,
    features: LIGHT_FLASH | LIGHT_TRANSITION | (c.effect_list !== undefined ? LIGHT_EFFECT : 0),
    effectList: c.effect_list ?? null,
    ...kelvinRange(c),
    optimistic: c.optimistic || c.state_topic === undefined || c.state_template === undefined,
    brightnessTemplate: c.brightness_template !== undefined,
    colorTempKelvin: c.color_temp_kelvin,
    fixedMode: supported.length === 1 ? supported[0] : null,
  };
}

/** light with the template schema: command templates render what is sent, templates read each attribute of a state message. */
export const mqttTemplateLight = lightPlatform<MqttTemplateLightConfig>('MQTT Template Light', FIELDS, templateSpec, {
  input: (config, restored, _now, entityId) => {
    const spec = templateSpec(config);
    return lightInput(spec, entityId, (light) => {
      const last = lastLight(restored);
      if (!spec.optimistic || !last) return;
      light.on = last.state === 'on';
      const a = last.attributes;
      if (a.brightness) light.brightness = restoredAttribute('brightness', a.brightness) as number | null;
      if (a.hs_color) {
        light.hs = restoredAttribute('hs_color', a.hs_color) as LightState['hs'];
        if (spec.fixedMode === null) light.color_mode = light.hs ? 'hs' : 'color_temp';
      }
      if (a.color_temp_kelvin) light.kelvin = restoredAttribute('color_temp_kelvin', a.color_temp_kelvin) as number | null;
      if (a.effect) light.effect = a.effect;
    });
  },
  subscriptions: () => [
    {
      topicKey: 'state_topic',
      read(m) {
        const c = m.config;
        const spec = templateSpec(c);
        // a template left out is the payload itself
        const value = (key: string) => {
          const out = m.render(key);
          return out === undefined ? m.raw : out;
        };
        const patch: Partial<LightState> = {};
        const state = value('state_template');
        if (!state) {
          // empty: nothing
        } else if (state === 'on') patch.on = true;
        else if (state === 'off') patch.on = false;
        else if (state === PAYLOAD_NONE) patch.on = null;
        else m.warn(`Invalid state value '${state}' received from ${m.topic}`);

        if (c.brightness_template !== undefined) {
          const text = value('brightness_template');
          if (text) {
            const n = parseIntText(text);
            if (n === undefined) m.warn(`Invalid brightness value '${text}' received from ${m.topic}`);
            else if (n) patch.brightness = n;
          }
        }
        if (c.color_temp_template !== undefined) {
          const text = value('color_temp_template');
          if (text) {
            const n = parseIntText(text);
            if (c.color_temp_kelvin) {
              if (n === undefined) m.warn(`Invalid color temperature value '${text}' received from ${m.topic}`);
              else patch.kelvin = n;
            } else if (text === PAYLOAD_NONE) patch.kelvin = null;
            else if (n === undefined) m.warn(`Invalid color temperature value '${text}' received from ${m.topic}`);
            else patch.kelvin = miredToKelvin(n);
          }
        }
        if (hasRgb(c)) {
          const [r, g, b] = ['red_template', 'green_template', 'blue_template'].map(value);
          if (!r || !g || !b) {
            // an empty channel: nothing
          } else if (r === PAYLOAD_NONE && g === PAYLOAD_NONE && b === PAYLOAD_NONE) {
            patch.hs = null;
            if (spec.fixedMode === null) patch.color_mode = 'color_temp';
          } else {
            const rgb = [r, g, b].map((part) => parseIntText(part));
            if (rgb.some((n) => n === undefined)) m.warn(`Invalid color value received from ${m.topic}`);
            else {
              patch.hs = rgbToHs(...(rgb as [number, number, number]));
              if (spec.fixedMode === null) patch.color_mode = 'hs';
            }
          }
        }
        if (c.effect_template !== undefined) {
          const text = value('effect_template');
          if (text) {
            if (c.effect_list && c.effect_list.includes(text)) patch.effect = text;
            else m.warn(`Unsupported effect value '${text}' received from ${m.topic}`);
          }
        }
        return { type: 'message', patch };
      },
    },
  ],
});
