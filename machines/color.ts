// The original's colour arithmetic (homeassistant/util/color.py), for what a light shows.

/** Python's round(): to `digits` places, a tie to the even neighbour. */
export function pyRound(x: number, digits = 0): number {
  if (!Number.isFinite(x)) return x;
  const m = 10 ** digits;
  const scaled = x * m;
  const floor = Math.floor(scaled);
  const diff = scaled - floor;
  const whole = diff > 0.5 ? floor + 1 : diff < 0.5 ? floor : floor % 2 === 0 ? floor : floor + 1;
  return whole / m;
}

export type HS = [number, number];
export type RGB = [number, number, number];
export type XY = [number, number];

/** colorsys.rgb_to_hsv over 0..1 components. */
function rgbToHsv(r: number, g: number, b: number): [number, number, number] {
  const maxc = Math.max(r, g, b);
  const minc = Math.min(r, g, b);
  if (minc === maxc) return [0, 0, maxc];
  const range = maxc - minc;
  const rc = (maxc - r) / range;
  const gc = (maxc - g) / range;
  const bc = (maxc - b) / range;
  const h = r === maxc ? bc - gc : g === maxc ? 2 + rc - bc : 4 + gc - rc;
  return [(((h / 6) % 1) + 1) % 1, range / maxc, maxc];
}

/** colorsys.hsv_to_rgb over 0..1 components. */
function hsvToRgb(h: number, s: number, v: number): [number, number, number] {
  if (s === 0) return [v, v, v];
  let i = Math.trunc(h * 6);
  const f = h * 6 - i;
  const p = v * (1 - s);
  const q = v * (1 - s * f);
  const t = v * (1 - s * (1 - f));
  i = ((i % 6) + 6) % 6;
  return ([[v, t, p], [q, v, p], [p, v, t], [p, q, v], [t, p, v], [v, p, q]] as const)[i] as [number, number, number];
}

export function rgbToHs(r: number, g: number, b: number): HS {
  const [h, s] = rgbToHsv(r / 255, g / 255, b / 255);
  return [pyRound(h * 360, 3), pyRound(s * 100, 3)];
}

export function hsToRgb(h: number, s: number): RGB {
  const [r, g, b] = hsvToRgb(h / 360, s / 100, 1);
  return [Math.trunc(r * 255), Math.trunc(g * 255), Math.trunc(b * 255)];
}

const gamma = (c: number) => (c > 0.04045 ? ((c + 0.055) / 1.055) ** 2.4 : c / 12.92);

export function rgbToXy(r: number, g: number, b: number): XY {
  if (r + g + b === 0) return [0, 0];
  const R = gamma(r / 255);
  const G = gamma(g / 255);
  const B = gamma(b / 255);
  const X = R * 0.664511 + G * 0.154324 + B * 0.162028;
  const Y = R * 0.283881 + G * 0.668433 + B * 0.047685;
  const Z = R * 0.000088 + G * 0.07231 + B * 0.986039;
  return [pyRound(X / (X + Y + Z), 3), pyRound(Y / (X + Y + Z), 3)];
}

export function xyToRgb(x: number, y: number): RGB {
  const Y = 1;
  const vy = y === 0 ? 1e-11 : y;
  const X = (Y / vy) * x;
  const Z = (Y / vy) * (1 - x - vy);
  const linear = [X * 1.656492 - Y * 0.354851 - Z * 0.255038, -X * 0.707196 + Y * 1.655397 + Z * 0.036152, X * 0.051713 - Y * 0.121364 + Z * 1.01153];
  let [r, g, b] = linear.map((c) => Math.max(0, c <= 0.0031308 ? 12.92 * c : 1.055 * c ** (1 / 2.4) - 0.055));
  const max = Math.max(r, g, b);
  if (max > 1) [r, g, b] = [r / max, g / max, b / max];
  return [Math.trunc(r * 255), Math.trunc(g * 255), Math.trunc(b * 255)];
}

export function xyToHs(x: number, y: number): HS {
  return rgbToHs(...xyToRgb(x, y));
}

export function hsToXy(h: number, s: number): XY {
  return rgbToXy(...hsToRgb(h, s));
}

const clamp = (v: number, lo = 0, hi = 255) => Math.min(Math.max(v, lo), hi);

/** Tanner Helland's approximation, as the original uses it (components as floats). */
export function kelvinToRgb(kelvin: number): [number, number, number] {
  const t = clamp(kelvin, 1000, 40000) / 100;
  const red = t <= 66 ? 255 : clamp(329.698727446 * (t - 60) ** -0.1332047592);
  const green = clamp(t <= 66 ? 99.4708025861 * Math.log(t) - 161.1195681661 : 288.1221695283 * (t - 60) ** -0.0755148492);
  const blue = t >= 66 ? 255 : t <= 19 ? 0 : clamp(138.5177312231 * Math.log(t - 10) - 305.0447927307);
  return [red, green, blue];
}

export function kelvinToHs(kelvin: number): HS {
  return rgbToHs(...kelvinToRgb(kelvin));
}

/** McCamy's approximation of the colour temperature of an xy point, as an integer kelvin. */
export function xyToKelvin(x: number, y: number): number {
  const n = (x - 0.332) / (0.1858 - y);
  return Math.trunc(437 * n ** 3 + 3601 * n ** 2 + 6861 * n + 5517);
}

/** The original's _match_max_scale: `output` scaled so its largest channel is the largest of `input`. */
export function matchMaxScale(input: number[], output: number[]): number[] {
  const maxIn = Math.max(...input);
  const maxOut = Math.max(...output);
  const factor = maxOut === 0 ? 0 : maxIn / maxOut;
  return output.map((v) => Math.trunc(pyRound(v * factor)));
}

/** Mireds and kelvin, each the floor of a million over the other (the original's conversions). */
export const miredToKelvin = (mired: number) => Math.floor(1e6 / mired);
export const kelvinToMired = (kelvin: number) => Math.floor(1e6 / kelvin);

export type RGBW = [number, number, number, number];
export type RGBWW = [number, number, number, number, number];

export function rgbwToRgb([r, g, b, w]: RGBW): RGB {
  return matchMaxScale([r, g, b, w], [r + w, g + w, b + w]) as RGB;
}

export function rgbToRgbw(r: number, g: number, b: number): RGBW {
  const w = Math.min(r, g, b);
  return matchMaxScale([r, g, b], [r - w, g - w, b - w, w]) as RGBW;
}

export function rgbwwToRgb([r, g, b, cw, ww]: RGBWW, minKelvin: number, maxKelvin: number): RGB {
  const maxMireds = kelvinToMired(minKelvin);
  const minMireds = kelvinToMired(maxKelvin);
  const ratio = cw + ww === 0 ? 0.5 : ww / (cw + ww);
  const mired = minMireds + ratio * (maxMireds - minMireds);
  const kelvin = mired ? miredToKelvin(mired) : 0;
  const [wr, wg, wb] = kelvinToRgb(kelvin);
  const level = Math.max(cw, ww) / 255;
  return matchMaxScale([r, g, b, cw, ww], [r + wr * level, g + wg * level, b + wb * level]) as RGB;
}

export function rgbToRgbww(r: number, g: number, b: number, minKelvin: number, maxKelvin: number): RGBWW {
  const maxMireds = kelvinToMired(minKelvin);
  const minMireds = kelvinToMired(maxKelvin);
  const midpoint = minMireds + (maxMireds - minMireds) / 2;
  const [wr, wg, wb] = kelvinToRgb(miredToKelvin(midpoint));
  const level = Math.min(wr ? r / wr : 0, wg ? g / wg : 0, wb ? b / wb : 0);
  const white = pyRound(level * 255);
  return matchMaxScale([r, g, b], [r - wr * level, g - wg * level, b - wb * level, white, white]) as RGBWW;
}

/** A colour temperature as the two white channels of an RGBWW light at a brightness. */
export function temperatureToRgbww(kelvin: number, brightness: number, minKelvin: number, maxKelvin: number): RGBWW {
  const maxMireds = kelvinToMired(minKelvin);
  const minMireds = kelvinToMired(maxKelvin);
  const cold = ((maxMireds - kelvinToMired(kelvin)) / (maxMireds - minMireds)) * brightness;
  return [0, 0, 0, pyRound(cold), pyRound(brightness - cold)];
}

/** colorsys.hsv_to_rgb over hue 0..360, saturation and value 0..100, as whole 0..255 channels. */
export function hsvToRgb255(h: number, s: number, v: number): RGB {
  const [r, g, b] = hsvToRgb(h / 360, s / 100, v / 100);
  return [Math.trunc(r * 255), Math.trunc(g * 255), Math.trunc(b * 255)];
}

/** CSS3 colour names (and the original's own), for `color_name`. */
export const COLOR_NAMES: Record<string, RGB> = {
  aliceblue: [240, 248, 255], antiquewhite: [250, 235, 215], aqua: [0, 255, 255], aquamarine: [127, 255, 212], azure: [240, 255, 255],
  beige: [245, 245, 220], bisque: [255, 228, 196], black: [0, 0, 0], blanchedalmond: [255, 235, 205], blue: [0, 0, 255],
  blueviolet: [138, 43, 226], brown: [165, 42, 42], burlywood: [222, 184, 135], cadetblue: [95, 158, 160], chartreuse: [127, 255, 0],
  chocolate: [210, 105, 30], coral: [255, 127, 80], cornflowerblue: [100, 149, 237], cornsilk: [255, 248, 220], crimson: [220, 20, 60],
  cyan: [0, 255, 255], darkblue: [0, 0, 139], darkcyan: [0, 139, 139], darkgoldenrod: [184, 134, 11], darkgray: [169, 169, 169],
  darkgreen: [0, 100, 0], darkgrey: [169, 169, 169], darkkhaki: [189, 183, 107], darkmagenta: [139, 0, 139], darkolivegreen: [85, 107, 47],
  darkorange: [255, 140, 0], darkorchid: [153, 50, 204], darkred: [139, 0, 0], darksalmon: [233, 150, 122], darkseagreen: [143, 188, 143],
  darkslateblue: [72, 61, 139], darkslategray: [47, 79, 79], darkslategrey: [47, 79, 79], darkturquoise: [0, 206, 209], darkviolet: [148, 0, 211],
  deeppink: [255, 20, 147], deepskyblue: [0, 191, 255], dimgray: [105, 105, 105], dimgrey: [105, 105, 105], dodgerblue: [30, 144, 255],
  firebrick: [178, 34, 34], floralwhite: [255, 250, 240], forestgreen: [34, 139, 34], fuchsia: [255, 0, 255], gainsboro: [220, 220, 220],
  ghostwhite: [248, 248, 255], gold: [255, 215, 0], goldenrod: [218, 165, 32], gray: [128, 128, 128], green: [0, 128, 0],
  greenyellow: [173, 255, 47], grey: [128, 128, 128], honeydew: [240, 255, 240], hotpink: [255, 105, 180], indianred: [205, 92, 92],
  indigo: [75, 0, 130], ivory: [255, 255, 240], khaki: [240, 230, 140], lavender: [230, 230, 250], lavenderblush: [255, 240, 245],
  lawngreen: [124, 252, 0], lemonchiffon: [255, 250, 205], lightblue: [173, 216, 230], lightcoral: [240, 128, 128], lightcyan: [224, 255, 255],
  lightgoldenrodyellow: [250, 250, 210], lightgray: [211, 211, 211], lightgreen: [144, 238, 144], lightgrey: [211, 211, 211], lightpink: [255, 182, 193],
  lightsalmon: [255, 160, 122], lightseagreen: [32, 178, 170], lightskyblue: [135, 206, 250], lightslategray: [119, 136, 153], lightslategrey: [119, 136, 153],
  lightsteelblue: [176, 196, 222], lightyellow: [255, 255, 224], lime: [0, 255, 0], limegreen: [50, 205, 50], linen: [250, 240, 230],
  magenta: [255, 0, 255], maroon: [128, 0, 0], mediumaquamarine: [102, 205, 170], mediumblue: [0, 0, 205], mediumorchid: [186, 85, 211],
  mediumpurple: [147, 112, 219], mediumseagreen: [60, 179, 113], mediumslateblue: [123, 104, 238], mediumspringgreen: [0, 250, 154], mediumturquoise: [72, 209, 204],
  mediumvioletred: [199, 21, 133], midnightblue: [25, 25, 112], mintcream: [245, 255, 250], mistyrose: [255, 228, 225], moccasin: [255, 228, 181],
  navajowhite: [255, 222, 173], navy: [0, 0, 128], navyblue: [0, 0, 128], oldlace: [253, 245, 230], olive: [128, 128, 0],
  olivedrab: [107, 142, 35], orange: [255, 165, 0], orangered: [255, 69, 0], orchid: [218, 112, 214], palegoldenrod: [238, 232, 170],
  palegreen: [152, 251, 152], paleturquoise: [175, 238, 238], palevioletred: [219, 112, 147], papayawhip: [255, 239, 213], peachpuff: [255, 218, 185],
  peru: [205, 133, 63], pink: [255, 192, 203], plum: [221, 160, 221], powderblue: [176, 224, 230], purple: [128, 0, 128],
  red: [255, 0, 0], rosybrown: [188, 143, 143], royalblue: [65, 105, 225], saddlebrown: [139, 69, 19], salmon: [250, 128, 114],
  sandybrown: [244, 164, 96], seagreen: [46, 139, 87], seashell: [255, 245, 238], sienna: [160, 82, 45], silver: [192, 192, 192],
  skyblue: [135, 206, 235], slateblue: [106, 90, 205], slategray: [112, 128, 144], slategrey: [112, 128, 144], snow: [255, 250, 250],
  springgreen: [0, 255, 127], steelblue: [70, 130, 180], tan: [210, 180, 140], teal: [0, 128, 128], thistle: [216, 191, 216],
  tomato: [255, 99, 71], turquoise: [64, 224, 208], violet: [238, 130, 238], wheat: [245, 222, 179], white: [255, 255, 255],
  whitesmoke: [245, 245, 245], yellow: [255, 255, 0], yellowgreen: [154, 205, 50], homeassistant: [3, 169, 244],
};

/** The colour a name stands for (spaces and case ignored, as the original's color_name_to_rgb), or undefined. */
export function colorNameToRgb(name: string): RGB | undefined {
  const key = name.replaceAll(' ', '').toLowerCase();
  return Object.hasOwn(COLOR_NAMES, key) ? [...COLOR_NAMES[key]] : undefined;
}
