// What the original's light services make of their data before an entity's turn_on sees it
// (light/__init__.py: the turn_on handler, filter_turn_on_params): brightness steps and
// percentages, colour names, a colour temperature emulated where the light has none, a colour
// converted to the one mode the light has, `white`, brightness 0 meaning off, and whatever the
// light cannot do dropped. Pure; over every colour mode an MQTT light may have.
import {
  hsToRgb, hsToXy, kelvinToHs, rgbToHs, rgbToRgbw, rgbToRgbww, rgbToXy, rgbwToRgb, rgbwwToRgb,
  temperatureToRgbww, xyToHs, xyToKelvin, xyToRgb, type HS, type RGB, type RGBW, type RGBWW, type XY,
} from '../color.ts';
import { LIGHT_EFFECT, LIGHT_FLASH, LIGHT_TRANSITION, resolveRelativeParams, type LightParams } from '../light-params.ts';

/** LightEntityFeature (the virtual light's). */
export { LIGHT_EFFECT, LIGHT_FLASH, LIGHT_TRANSITION };

export type ColorMode = 'onoff' | 'brightness' | 'color_temp' | 'hs' | 'xy' | 'rgb' | 'rgbw' | 'rgbww' | 'white' | 'unknown';

export const BRIGHTNESS_MODES: readonly string[] = ['brightness', 'color_temp', 'hs', 'xy', 'rgb', 'rgbw', 'rgbww', 'white'];
export const COLOR_MODES: readonly string[] = ['hs', 'xy', 'rgb', 'rgbw', 'rgbww'];
export const VALID_COLOR_MODES: readonly string[] = ['onoff', 'brightness', 'color_temp', 'hs', 'xy', 'rgb', 'rgbw', 'rgbww', 'white'];

export const brightnessSupported = (modes: readonly string[]) => modes.some((m) => BRIGHTNESS_MODES.includes(m));
export const colorSupported = (modes: readonly string[]) => modes.some((m) => COLOR_MODES.includes(m));

/** The service data of turn_on / toggle after the schema (the virtual light's). */
export type LightCallParams = LightParams;

/** What turn_on hands the entity (the original's kwargs). */
export interface LightKwargs {
  transition?: number;
  brightness?: number;
  color_temp_kelvin?: number;
  hs_color?: HS;
  rgb_color?: RGB;
  rgbw_color?: RGBW;
  rgbww_color?: RGBWW;
  xy_color?: XY;
  white?: number;
  flash?: 'short' | 'long';
  effect?: string;
}

/** The light as the service sees it. */
export interface LightFacts {
  isOn: boolean;
  brightness: number | null;
  modes: readonly string[];
  features: number;
  minKelvin: number;
  maxKelvin: number;
}

/** A colour in a mode the light lacks, as the first mode it has (the original's order per source). */
function convertColor(p: Record<string, any>, f: LightFacts): void {
  const has = (m: string) => f.modes.includes(m);
  const { minKelvin: lo, maxKelvin: hi } = f;
  const fromRgb = (rgb: RGB, order: string[]) => {
    for (const m of order) {
      if (!has(m)) continue;
      if (m === 'rgb') p.rgb_color = rgb;
      else if (m === 'rgbw') p.rgbw_color = rgbToRgbw(...rgb);
      else if (m === 'rgbww') p.rgbww_color = rgbToRgbww(...rgb, lo, hi);
      else if (m === 'hs') p.hs_color = rgbToHs(...rgb);
      else if (m === 'xy') p.xy_color = rgbToXy(...rgb);
      else if (m === 'color_temp') p.color_temp_kelvin = xyToKelvin(...rgbToXy(...rgb));
      return;
    }
  };
  if (p.hs_color && !has('hs')) {
    const hs: HS = p.hs_color;
    delete p.hs_color;
    if (has('rgb')) p.rgb_color = hsToRgb(...hs);
    else if (has('rgbw') || has('rgbww')) fromRgb(hsToRgb(...hs), ['rgbw', 'rgbww']);
    else if (has('xy')) p.xy_color = hsToXy(...hs);
    else if (has('color_temp')) p.color_temp_kelvin = xyToKelvin(...hsToXy(...hs));
  } else if (p.rgb_color && !has('rgb')) {
    const rgb: RGB = p.rgb_color;
    delete p.rgb_color;
    fromRgb(rgb, ['rgbw', 'rgbww', 'hs', 'xy', 'color_temp']);
  } else if (p.xy_color && !has('xy')) {
    const xy: XY = p.xy_color;
    delete p.xy_color;
    if (has('hs')) p.hs_color = xyToHs(...xy);
    else if (has('rgb') || has('rgbw') || has('rgbww')) fromRgb(xyToRgb(...xy), ['rgb', 'rgbw', 'rgbww']);
    else if (has('color_temp')) p.color_temp_kelvin = xyToKelvin(...xy);
  } else if (p.rgbw_color && !has('rgbw')) {
    const rgb = rgbwToRgb(p.rgbw_color);
    delete p.rgbw_color;
    fromRgb(rgb, ['rgb', 'rgbww', 'hs', 'xy', 'color_temp']);
  } else if (p.rgbww_color && !has('rgbww')) {
    const rgb = rgbwwToRgb(p.rgbww_color, lo, hi);
    delete p.rgbww_color;
    fromRgb(rgb, ['rgb', 'rgbw', 'hs', 'xy', 'color_temp']);
  }
}

/** The turn_off data the light takes (filter_turn_off_params). */
export function offKwargs(data: Record<string, unknown>, features: number): LightKwargs {
  const out: LightKwargs = {};
  if (data.flash !== undefined && features & LIGHT_FLASH) out.flash = data.flash as 'short' | 'long';
  if (data.transition !== undefined && features & LIGHT_TRANSITION) out.transition = data.transition as number;
  return out;
}

/**
 * turn_on's data as the entity's kwargs, or `off` when it ends up turning the light off
 * (brightness or white 0), with the turn_off kwargs.
 */
export function onKwargs(data: LightCallParams, f: LightFacts): { off: true; kwargs: LightKwargs } | { off: false; kwargs: LightKwargs } {
  const p: Record<string, any> = { ...data };
  resolveRelativeParams(p, f.isOn, f.brightness);
  const has = (m: string) => f.modes.includes(m);
  if (p.color_temp_kelvin !== undefined && !has('color_temp')) {
    const kelvin = p.color_temp_kelvin;
    delete p.color_temp_kelvin;
    if (has('rgbww')) p.rgbww_color = temperatureToRgbww(kelvin, p.brightness ?? f.brightness ?? 0, f.minKelvin, f.maxKelvin);
    else if (colorSupported(f.modes)) p.hs_color = kelvinToHs(kelvin);
  }
  convertColor(p, f);
  if (p.white === true) p.white = f.brightness ?? undefined;
  if (p.white !== undefined && has('white')) {
    if (p.brightness !== undefined) p.white = p.brightness;
    delete p.brightness;
  }
  if (p.brightness === 0 || p.white === 0) return { off: true, kwargs: offKwargs(data as Record<string, unknown>, f.features) };
  // filter_turn_on_params
  if (!(f.features & LIGHT_EFFECT)) delete p.effect;
  if (!(f.features & LIGHT_FLASH)) delete p.flash;
  if (!(f.features & LIGHT_TRANSITION)) delete p.transition;
  if (!brightnessSupported(f.modes)) delete p.brightness;
  if (!has('color_temp')) delete p.color_temp_kelvin;
  if (!has('hs')) delete p.hs_color;
  if (!has('rgb')) delete p.rgb_color;
  if (!has('rgbw')) delete p.rgbw_color;
  if (!has('rgbww')) delete p.rgbww_color;
  if (!has('white')) delete p.white;
  if (!has('xy')) delete p.xy_color;
  for (const k of Object.keys(p)) if (p[k] === undefined) delete p[k];
  return { off: false, kwargs: p as LightKwargs };
}
