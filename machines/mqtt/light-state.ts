// What an MQTT light holds and how it shows it: the original's LightEntity state attributes
// (capabilities, then state attributes, colours converted from the light's colour mode).
import { hsToRgb, hsToXy, kelvinToHs, pyRound, rgbToHs, rgbToXy, rgbwToRgb, rgbwwToRgb, xyToHs, xyToRgb, type HS, type RGB, type RGBW, type RGBWW, type XY } from '../color.ts';
import { BRIGHTNESS_MODES, LIGHT_EFFECT, brightnessSupported, colorSupported } from './light-service.ts';

/** The light's attributes as its device last said (or as assumed): null is unknown. */
export interface LightState {
  on: boolean | null;
  brightness: number | null;
  /** null: the light names none (the original then guesses one from what it has) */
  color_mode: string | null;
  hs: HS | null;
  rgb: RGB | null;
  rgbw: RGBW | null;
  rgbww: RGBWW | null;
  xy: XY | null;
  kelvin: number | null;
  effect: unknown;
}

export const EMPTY_LIGHT: LightState = { on: null, brightness: null, color_mode: null, hs: null, rgb: null, rgbw: null, rgbww: null, xy: null, kelvin: null, effect: null };

/** What every schema's light is built to do. */
export interface LightShape {
  /** the supported colour modes (the original's sorted list is shown) */
  modes: string[];
  features: number;
  effectList: string[] | null;
  minKelvin: number;
  maxKelvin: number;
}

/** The original's _light_internal_color_mode: the light's own, else a guess from what it holds. */
export function effectiveColorMode(s: LightState, shape: LightShape): string {
  if (s.color_mode !== null) return s.color_mode;
  const has = (m: string) => shape.modes.includes(m);
  if (has('hs') && s.hs !== null) return 'hs';
  if (has('color_temp') && s.kelvin !== null) return 'color_temp';
  if (has('brightness') && s.brightness !== null) return 'brightness';
  if (has('onoff')) return 'onoff';
  return 'unknown';
}

/** _light_internal_convert_color: the colour attributes of a colour mode. */
function colorAttributes(mode: string, s: LightState, shape: LightShape): Record<string, unknown> {
  const ints = (list: number[]) => list.map(Math.trunc);
  if (mode === 'hs' && s.hs) {
    const [h, sat] = s.hs;
    return { hs_color: [pyRound(h, 3), pyRound(sat, 3)], rgb_color: hsToRgb(h, sat), xy_color: hsToXy(h, sat) };
  }
  if (mode === 'xy' && s.xy) {
    const [x, y] = s.xy;
    return { hs_color: xyToHs(x, y), rgb_color: xyToRgb(x, y), xy_color: [pyRound(x, 6), pyRound(y, 6)] };
  }
  if (mode === 'rgb' && s.rgb) return { hs_color: rgbToHs(...s.rgb), rgb_color: ints(s.rgb), xy_color: rgbToXy(...s.rgb) };
  if (mode === 'rgbw' && s.rgbw) {
    const rgb = rgbwToRgb(s.rgbw);
    return { hs_color: rgbToHs(...rgb), rgb_color: ints(rgb), rgbw_color: ints(s.rgbw), xy_color: rgbToXy(...rgb) };
  }
  if (mode === 'rgbww' && s.rgbww) {
    const rgb = rgbwwToRgb(s.rgbww, shape.minKelvin, shape.maxKelvin);
    return { hs_color: rgbToHs(...rgb), rgb_color: ints(rgb), rgbww_color: ints(s.rgbww), xy_color: rgbToXy(...rgb) };
  }
  if (mode === 'color_temp' && s.kelvin) {
    const [h, sat] = kelvinToHs(s.kelvin);
    return { hs_color: [pyRound(h, 3), pyRound(sat, 3)], rgb_color: hsToRgb(h, sat), xy_color: hsToXy(h, sat) };
  }
  return {};
}

/** The light's capability attributes (shown even while unavailable; the registry's capabilities). */
export function lightCapabilities(shape: LightShape): Record<string, unknown> {
  const a: Record<string, unknown> = {};
  if (shape.modes.includes('color_temp')) {
    a.min_color_temp_kelvin = shape.minKelvin;
    a.max_color_temp_kelvin = shape.maxKelvin;
  }
  if (shape.features & LIGHT_EFFECT) a.effect_list = shape.effectList;
  a.supported_color_modes = [...shape.modes].sort();
  return a;
}

/** The light's state attributes, in the original's order. */
export function lightAttributes(s: LightState, shape: LightShape): Record<string, unknown> {
  const on = s.on === true;
  const mode = on ? effectiveColorMode(s, shape) : null;
  const modes = shape.modes;
  const a: Record<string, unknown> = {};
  if (shape.features & LIGHT_EFFECT) a.effect = on ? s.effect : null;
  a.color_mode = mode;
  if (brightnessSupported(modes)) a.brightness = mode !== null && BRIGHTNESS_MODES.includes(mode) ? s.brightness : null;
  if (modes.includes('color_temp')) a.color_temp_kelvin = mode === 'color_temp' ? s.kelvin : null;
  if (colorSupported(modes) || modes.includes('color_temp')) {
    a.hs_color = null;
    a.rgb_color = null;
    if (modes.includes('rgbw')) a.rgbw_color = null;
    if (modes.includes('rgbww')) a.rgbww_color = null;
    a.xy_color = null;
    if (mode !== null) Object.assign(a, colorAttributes(mode, s, shape));
  }
  return a;
}

/** The keys JSON attributes may not set on a light (MQTT_LIGHT_ATTRIBUTES_BLOCKED). */
export const LIGHT_ATTRIBUTES_BLOCKED = [
  'color_mode', 'brightness', 'color_temp', 'color_temp_kelvin', 'effect', 'effect_list', 'hs_color', 'max_color_temp_kelvin', 'max_mireds',
  'min_color_temp_kelvin', 'min_mireds', 'rgb_color', 'rgbw_color', 'rgbww_color', 'supported_color_modes', 'xy_color',
];

/** The original's valid_supported_color_modes after filter_supported_color_modes: onoff and brightness stand alone. */
export function filterColorModes(modes: Iterable<string>): string[] {
  const set = new Set(modes);
  if (set.has('onoff') && set.size > 1) set.delete('onoff');
  if (set.has('brightness') && set.size > 1) set.delete('brightness');
  return [...set];
}
