// How the original's light services turn their data into a light's new settings: brightness
// steps and percentages, colour names, conversion of a colour to a mode the light supports,
// brightness 0 meaning off, and dropping what the light cannot do. Pure.
import { colorNameToRgb, rgbwToRgb, rgbwwToRgb, hsToRgb, hsToXy, kelvinToHs, kelvinToRgb, pyRound, rgbToHs, rgbToXy, xyToHs, xyToKelvin, xyToRgb, type HS, type RGB, type XY } from './color.ts';

export type ColorMode = 'onoff' | 'brightness' | 'color_temp' | 'hs' | 'xy' | 'rgb';

/** What a light is built to do (from its configuration). */
export interface LightConfig {
  supported_color_modes: ColorMode[];
  effect_list: string[];
  min_color_temp_kelvin: number;
  max_color_temp_kelvin: number;
  /** LightEntityFeature bits */
  features: number;
}

/** LightEntityFeature. */
export const LIGHT_EFFECT = 4;
export const LIGHT_FLASH = 8;
export const LIGHT_TRANSITION = 32;

/** The service data of turn_on / toggle after the schema (numbers coerced and clamped as the original's schema does). */
export interface LightParams {
  transition?: number;
  brightness?: number;
  brightness_pct?: number;
  brightness_step?: number;
  brightness_step_pct?: number;
  profile?: string;
  color_name?: string;
  color_temp_kelvin?: number;
  hs_color?: HS;
  rgb_color?: RGB;
  rgbw_color?: [number, number, number, number];
  rgbww_color?: [number, number, number, number, number];
  xy_color?: XY;
  white?: true | number;
  flash?: 'short' | 'long';
  effect?: string;
}

/** The light's settings that turn_on changes. */
export interface LightSettings {
  brightness: number;
  color_mode: ColorMode;
  hs_color: HS;
  rgb_color: RGB;
  xy_color: XY;
  color_temp_kelvin: number;
  effect: string | null;
}

const BRIGHTNESS_MODES: ColorMode[] = ['brightness', 'color_temp', 'hs', 'xy', 'rgb'];
const COLOR_MODES: ColorMode[] = ['hs', 'xy', 'rgb'];

export const brightnessSupported = (modes: ColorMode[]) => modes.some((m) => BRIGHTNESS_MODES.includes(m));
export const colorSupported = (modes: ColorMode[]) => modes.some((m) => COLOR_MODES.includes(m));
export const usesBrightness = (mode: ColorMode) => BRIGHTNESS_MODES.includes(mode);

/** A colour in the one mode of `modes` the original converts it to, or nothing when the light has no colour. */
function convertColor(p: LightParams, modes: ColorMode[], config: LightConfig): void {
  const has = (m: ColorMode) => modes.includes(m);
  if (p.hs_color && !has('hs')) {
    const hs = p.hs_color;
    delete p.hs_color;
    if (has('rgb')) p.rgb_color = hsToRgb(...hs);
    else if (has('xy')) p.xy_color = hsToXy(...hs);
    else if (has('color_temp')) p.color_temp_kelvin = xyToKelvin(...hsToXy(...hs));
  } else if (p.rgb_color && !has('rgb')) {
    const rgb = p.rgb_color;
    delete p.rgb_color;
    if (has('hs')) p.hs_color = rgbToHs(...rgb);
    else if (has('xy')) p.xy_color = rgbToXy(...rgb);
    else if (has('color_temp')) p.color_temp_kelvin = xyToKelvin(...rgbToXy(...rgb));
  } else if (p.xy_color && !has('xy')) {
    const xy = p.xy_color;
    delete p.xy_color;
    if (has('hs')) p.hs_color = xyToHs(...xy);
    else if (has('rgb')) p.rgb_color = xyToRgb(...xy);
    else if (has('color_temp')) p.color_temp_kelvin = xyToKelvin(...xy);
  } else if (p.rgbw_color || p.rgbww_color) {
    // no virtual light has a white channel: the colour goes to the light's colour mode
    const rgb = p.rgbw_color ? rgbwToRgb(p.rgbw_color) : rgbwwToRgb(p.rgbww_color!, config.min_color_temp_kelvin, config.max_color_temp_kelvin);
    delete p.rgbw_color;
    delete p.rgbww_color;
    if (has('rgb')) p.rgb_color = rgb;
    else if (has('hs')) p.hs_color = rgbToHs(...rgb);
    else if (has('xy')) p.xy_color = rgbToXy(...rgb);
    else if (has('color_temp')) p.color_temp_kelvin = xyToKelvin(...rgbToXy(...rgb));
  }
}

/**
 * turn_on's relative and named values made absolute, in `p` itself: a brightness step (from the
 * light's brightness when it is on, else 0) or percentage as a brightness, a colour name as an RGB
 * colour (white when unknown, as the original does with a warning); a profile dropped.
 */
export function resolveRelativeParams(p: LightParams, isOn: boolean, brightness: number | null): void {
  // profiles come from a light_profiles.csv Hearth does not read: a named one changes nothing
  delete p.profile;
  if (p.brightness_step !== undefined || p.brightness_step_pct !== undefined) {
    let next = isOn && brightness ? brightness : 0;
    next += p.brightness_step ?? pyRound((p.brightness_step_pct! / 100) * 255);
    delete p.brightness_step;
    delete p.brightness_step_pct;
    p.brightness = Math.max(0, Math.min(255, next));
  }
  if (p.color_name !== undefined) {
    p.rgb_color = colorNameToRgb(p.color_name) ?? [255, 255, 255];
    delete p.color_name;
  }
  if (p.brightness_pct !== undefined) {
    p.brightness = pyRound((255 * p.brightness_pct) / 100);
    delete p.brightness_pct;
  }
}

/**
 * What turn_on (or toggle of an off light) does to a light: `off` when it ends up turning the
 * light off (brightness 0), else the settings to apply. `isOn` and `current` are the light now.
 */
export function resolveTurnOn(config: LightConfig, current: LightSettings, isOn: boolean, data: LightParams): { off: true } | { off: false; settings: LightSettings } {
  const p: LightParams = { ...data };
  resolveRelativeParams(p, isOn, current.brightness);
  const modes = config.supported_color_modes;
  if (p.color_temp_kelvin !== undefined && !modes.includes('color_temp')) {
    const kelvin = p.color_temp_kelvin;
    delete p.color_temp_kelvin;
    if (colorSupported(modes)) p.hs_color = kelvinToHs(kelvin);
  }
  convertColor(p, modes, config);
  if (p.white === true) p.white = current.brightness;
  if (p.brightness === 0 || p.white === 0) return { off: true };

  const next: LightSettings = { ...current };
  if (p.brightness !== undefined && brightnessSupported(modes)) next.brightness = p.brightness;
  if (p.color_temp_kelvin !== undefined && modes.includes('color_temp')) {
    next.color_mode = 'color_temp';
    next.color_temp_kelvin = Math.min(Math.max(p.color_temp_kelvin, config.min_color_temp_kelvin), config.max_color_temp_kelvin);
  }
  if (p.hs_color && modes.includes('hs')) Object.assign(next, { color_mode: 'hs', hs_color: p.hs_color });
  if (p.rgb_color && modes.includes('rgb')) Object.assign(next, { color_mode: 'rgb', rgb_color: p.rgb_color });
  if (p.xy_color && modes.includes('xy')) Object.assign(next, { color_mode: 'xy', xy_color: p.xy_color });
  if (p.effect !== undefined && config.features & LIGHT_EFFECT) next.effect = p.effect;
  return { off: false, settings: next };
}
