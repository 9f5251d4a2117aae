// What an MQTT light publishes for turn_on and turn_off in each of the original's three schemas
// (mqtt/light/schema_basic.py, schema_json.py, schema_template.py), and what it then assumes in
// optimistic mode. Pure: a plan of publishes and a patch of the light's state.
import { hsvToRgb255, kelvinToMired, pyRound } from '../color.ts';
import type { LightState, LightShape } from './light-state.ts';
import { brightnessSupported, type LightKwargs } from './light-service.ts';
import { PyFloat } from './py-float.ts';
import { floatRepr } from '../python/float.ts';
import type { MqttPublishRequest } from './switch.machine.ts';

export { PyFloat };

/** The default schema: a topic per attribute. */
export interface BasicSpec extends LightShape {
  schema: 'basic';
  /** the state follows commands (no state topic, or optimistic: true) */
  optimistic: boolean;
  /** which options are set (command and state topics) */
  has: Record<string, boolean>;
  /** per attribute: commands set it (optimistic, or no state topic for it) */
  assume: Record<'brightness' | 'color_mode' | 'color_temp_kelvin' | 'effect' | 'hs_color' | 'rgb_color' | 'rgbw_color' | 'rgbww_color' | 'xy_color', boolean>;
  onCommandType: 'first' | 'last' | 'brightness';
  brightnessScale: number;
  whiteScale: number;
  colorTempKelvin: boolean;
}

/** The JSON schema: one JSON document each way. */
export interface JsonSpec extends LightShape {
  schema: 'json';
  optimistic: boolean;
  /** supported_color_modes was given: the light names its colour mode (else the original guesses one) */
  configuredModes: boolean;
  brightness: boolean;
  brightnessScale: number;
  whiteScale: number;
  colorTempKelvin: boolean;
  flashTimeShort: number;
  flashTimeLong: number;
}

/** The template schema: command templates render a payload from the call's values. */
export interface TemplateSpec extends LightShape {
  schema: 'template';
  optimistic: boolean;
  brightnessTemplate: boolean;
  colorTempKelvin: boolean;
  /** the one colour mode of a light with one, else null (hs or color_temp, by what it holds) */
  fixedMode: string | null;
}

export type LightSpec = BasicSpec | JsonSpec | TemplateSpec;

export interface LightPlan {
  publishes: MqttPublishRequest[];
  patch: Partial<LightState>;
}

/** The original's json_dumps (orjson): compact, floats as Python writes them. */
export function pyJson(value: unknown): string {
  if (value instanceof PyFloat) return floatRepr(value.n);
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return `[${value.map(pyJson).join(',')}]`;
  if (typeof value === 'object') return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${pyJson(v)}`).join(',')}}`;
  return JSON.stringify(value);
}

const publish = (topic: string, value: string | number | null, template?: string, variables?: Record<string, unknown>): MqttPublishRequest => ({
  type: 'publish',
  topic,
  value,
  ...(template ? { template } : {}),
  ...(variables ? { variables } : {}),
});

// ---- default schema ----

function basicOn(spec: BasicSpec, s: LightState, kw: LightKwargs): LightPlan {
  const out: MqttPublishRequest[] = [];
  const patch: Partial<LightState> = {};
  const assume = (attribute: keyof BasicSpec['assume'], change: Partial<LightState>, mode?: string) => {
    if (!spec.assume[attribute]) return;
    if (mode && spec.assume.color_mode) patch.color_mode = mode;
    Object.assign(patch, change);
  };
  const args: LightKwargs = { ...kw };
  if (spec.onCommandType === 'first') out.push(publish('command_topic', null, undefined));
  else if (spec.onCommandType === 'brightness' && args.brightness === undefined && args.white === undefined) args.brightness = s.brightness || 255;

  const scale = (color: number[], brightness?: number) => {
    const level = brightness ?? (spec.has.brightness_command_topic ? 255 : args.brightness || s.brightness || 255);
    return color.map((c) => Math.trunc((c * level) / 255));
  };
  const rgbx = (color: number[], mode: 'rgb' | 'rgbw' | 'rgbww') => {
    const keys = ['red', 'green', 'blue', ...(mode === 'rgbw' ? ['white'] : mode === 'rgbww' ? ['cold_white', 'warm_white'] : [])];
    const variables = Object.fromEntries(keys.map((k, i) => [k, color[i]]));
    return publish(`${mode}_command_topic`, color.join(','), `${mode}_command_template`, variables);
  };

  if (args.hs_color && spec.has.hs_command_topic) {
    const [h, sat] = args.hs_color;
    out.push(publish('hs_command_topic', `${floatRepr(h)},${floatRepr(sat)}`, 'hs_command_template', { hue: new PyFloat(h), sat: new PyFloat(sat) }));
    assume('hs_color', { hs: args.hs_color }, 'hs');
  }
  if (args.rgb_color && spec.has.rgb_command_topic) {
    out.push(rgbx(scale(args.rgb_color), 'rgb'));
    assume('rgb_color', { rgb: args.rgb_color }, 'rgb');
  }
  if (args.rgbw_color && spec.has.rgbw_command_topic) {
    out.push(rgbx(scale(args.rgbw_color), 'rgbw'));
    assume('rgbw_color', { rgbw: args.rgbw_color }, 'rgbw');
  }
  if (args.rgbww_color && spec.has.rgbww_command_topic) {
    out.push(rgbx(scale(args.rgbww_color), 'rgbww'));
    assume('rgbww_color', { rgbww: args.rgbww_color }, 'rgbww');
  }
  if (args.xy_color && spec.has.xy_command_topic) {
    const [x, y] = args.xy_color;
    out.push(publish('xy_command_topic', `${floatRepr(x)},${floatRepr(y)}`, 'xy_command_template', { x: new PyFloat(x), y: new PyFloat(y) }));
    assume('xy_color', { xy: args.xy_color }, 'xy');
  }
  if (args.brightness !== undefined) {
    if (spec.has.brightness_command_topic) {
      const scaleTo = spec.brightnessScale;
      const device = Math.max(Math.min(pyRound((args.brightness / 255) * scaleTo), scaleTo), 1);
      out.push(publish('brightness_command_topic', device, 'brightness_command_template'));
      assume('brightness', { brightness: args.brightness });
    } else if (!args.rgb_color && spec.has.rgb_command_topic) {
      out.push(rgbx(scale(s.rgb ?? [255, 255, 255], args.brightness), 'rgb'));
      assume('brightness', { brightness: args.brightness });
    } else if (!args.rgbw_color && spec.has.rgbw_command_topic) {
      out.push(rgbx(scale(s.rgbw ?? [255, 255, 255, 255], args.brightness), 'rgbw'));
      assume('brightness', { brightness: args.brightness });
    } else if (!args.rgbww_color && spec.has.rgbww_command_topic) {
      out.push(rgbx(scale(s.rgbww ?? [255, 255, 255, 255, 255], args.brightness), 'rgbww'));
      assume('brightness', { brightness: args.brightness });
    }
  }
  if (args.color_temp_kelvin !== undefined && spec.has.color_temp_command_topic) {
    const value = spec.colorTempKelvin ? args.color_temp_kelvin : kelvinToMired(args.color_temp_kelvin);
    out.push(publish('color_temp_command_topic', value, 'color_temp_command_template'));
    assume('color_temp_kelvin', { kelvin: args.color_temp_kelvin }, 'color_temp');
  }
  if (args.effect !== undefined && spec.has.effect_command_topic && spec.effectList !== null && spec.effectList.includes(args.effect)) {
    out.push(publish('effect_command_topic', args.effect, 'effect_command_template'));
    assume('effect', { effect: args.effect });
  }
  if (args.white !== undefined && spec.has.white_command_topic) {
    const device = Math.min(pyRound((args.white / 255) * spec.whiteScale), spec.whiteScale);
    out.push(publish('white_command_topic', device));
    assume('brightness', { brightness: args.white }, 'white');
  }
  if (spec.onCommandType === 'last') out.push(publish('command_topic', null));
  if (spec.optimistic) patch.on = true;
  // the command topic carries payload_on: the option's value, not a literal
  return { publishes: out.map((p) => (p.topic === 'command_topic' ? { type: 'publish', topic: 'command_topic', payload: 'payload_on' } : p)), patch };
}

// ---- JSON schema ----

function flashAndTransition(spec: JsonSpec, message: Record<string, unknown>, kw: LightKwargs): void {
  if (kw.transition !== undefined) message.transition = new PyFloat(kw.transition);
  if (kw.flash === 'long') message.flash = spec.flashTimeLong;
  else if (kw.flash === 'short') message.flash = spec.flashTimeShort;
}

function jsonOn(spec: JsonSpec, kw: LightKwargs): LightPlan {
  const message: Record<string, unknown> = { state: 'ON' };
  const patch: Partial<LightState> = {};
  const args: LightKwargs = { ...kw };
  const supports = (m: string) => spec.modes.includes(m);
  const scale = (color: number[]) => {
    let level = 255;
    if (!spec.brightness) {
      level = args.brightness ?? 255;
      // the original pops the brightness: a scaled colour carries it instead
      delete args.brightness;
    }
    return color.map((c) => pyRound((c / 255) * level));
  };
  if (args.hs_color && supports('hs')) {
    const [h, s] = args.hs_color;
    message.color = { h: new PyFloat(h), s: new PyFloat(s) };
    Object.assign(patch, { color_mode: 'hs', hs: args.hs_color });
  }
  if (args.rgb_color && supports('rgb')) {
    const [r, g, b] = scale(args.rgb_color);
    message.color = { r, g, b };
    Object.assign(patch, { color_mode: 'rgb', rgb: [r, g, b] });
  }
  if (args.rgbw_color && supports('rgbw')) {
    const [r, g, b, w] = scale(args.rgbw_color);
    message.color = { r, g, b, w };
    Object.assign(patch, { color_mode: 'rgbw', rgbw: [r, g, b, w] });
  }
  if (args.rgbww_color && supports('rgbww')) {
    const [r, g, b, c, w] = scale(args.rgbww_color);
    message.color = { r, g, b, c, w };
    Object.assign(patch, { color_mode: 'rgbww', rgbww: [r, g, b, c, w] });
  }
  if (args.xy_color && supports('xy')) {
    const [x, y] = args.xy_color;
    message.color = { x: new PyFloat(x), y: new PyFloat(y) };
    Object.assign(patch, { color_mode: 'xy', xy: args.xy_color });
  }
  flashAndTransition(spec, message, args);
  if (args.brightness !== undefined && brightnessSupported(spec.modes)) {
    message.brightness = Math.max(pyRound((args.brightness * spec.brightnessScale) / 255), 1);
    patch.brightness = args.brightness;
  }
  if (args.color_temp_kelvin !== undefined) {
    message.color_temp = spec.colorTempKelvin ? args.color_temp_kelvin : kelvinToMired(args.color_temp_kelvin);
    Object.assign(patch, { color_mode: 'color_temp', kelvin: args.color_temp_kelvin, hs: null });
  }
  if (args.effect !== undefined) {
    message.effect = args.effect;
    patch.effect = args.effect;
  }
  if (args.white !== undefined && supports('white')) {
    message.white = Math.max(Math.min(pyRound((args.white / 255) * spec.whiteScale), spec.whiteScale), 1);
    Object.assign(patch, { color_mode: 'white', brightness: args.white });
  }
  return { publishes: [publish('command_topic', pyJson(message))], patch: spec.optimistic ? { ...patch, on: true } : {} };
}

// ---- template schema ----

function templateOn(spec: TemplateSpec, s: LightState, kw: LightKwargs): LightPlan {
  const values: Record<string, unknown> = { state: true };
  const patch: Partial<LightState> = { on: true };
  if (kw.brightness !== undefined) {
    values.brightness = Math.trunc(kw.brightness);
    patch.brightness = kw.brightness;
  }
  if (kw.color_temp_kelvin !== undefined) {
    values.color_temp = spec.colorTempKelvin ? kw.color_temp_kelvin : kelvinToMired(kw.color_temp_kelvin);
    Object.assign(patch, { kelvin: kw.color_temp_kelvin, hs: null });
  }
  if (kw.hs_color) {
    const [h, sat] = kw.hs_color;
    const level = spec.brightnessTemplate ? 255 : (kw.brightness ?? s.brightness ?? 255);
    const [red, green, blue] = hsvToRgb255(h, sat, (level / 255) * 100);
    Object.assign(values, { red, green, blue, hue: new PyFloat(h), sat: new PyFloat(sat) });
    Object.assign(patch, { kelvin: null, hs: kw.hs_color });
  }
  if (kw.effect !== undefined) {
    values.effect = kw.effect;
    patch.effect = kw.effect;
  }
  if (kw.flash !== undefined) values.flash = kw.flash;
  if (kw.transition !== undefined) values.transition = new PyFloat(kw.transition);
  if (spec.fixedMode === null && ('hs' in patch || 'kelvin' in patch)) {
    const hs = 'hs' in patch ? patch.hs : s.hs;
    patch.color_mode = hs ? 'hs' : 'color_temp';
  }
  return { publishes: [publish('command_topic', null, 'command_on_template', values)], patch: spec.optimistic ? patch : {} };
}

/** What turn_on publishes and (optimistically) assumes. */
export function planOn(spec: LightSpec, s: LightState, kw: LightKwargs): LightPlan {
  if (spec.schema === 'basic') return basicOn(spec, s, kw);
  if (spec.schema === 'json') return jsonOn(spec, kw);
  return templateOn(spec, s, kw);
}

/** What turn_off publishes and (optimistically) assumes. */
export function planOff(spec: LightSpec, kw: LightKwargs): LightPlan {
  const patch: Partial<LightState> = spec.optimistic ? { on: false } : {};
  if (spec.schema === 'basic') return { publishes: [{ type: 'publish', topic: 'command_topic', payload: 'payload_off' }], patch };
  if (spec.schema === 'json') {
    const message: Record<string, unknown> = { state: 'OFF' };
    flashAndTransition(spec, message, kw);
    return { publishes: [publish('command_topic', pyJson(message))], patch };
  }
  const values: Record<string, unknown> = { state: false };
  if (kw.transition !== undefined) values.transition = new PyFloat(kw.transition);
  return { publishes: [publish('command_topic', null, 'command_off_template', values)], patch };
}
