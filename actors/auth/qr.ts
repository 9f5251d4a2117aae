import { encode } from 'uqr';

// The totp setup flow shows the otpauth:// URI as a QR code to scan. Home Assistant draws it
// with PyQRCode; Hearth encodes it with uqr and draws the SVG itself, because uqr's renderSVG
// sizes its symbol by viewBox alone, which Home Assistant's frontend strips (see qrSvg).

export type EcLevel = 'L' | 'M' | 'Q' | 'H';

export interface QrSvgOptions {
  /** Pixels per module. */
  scale?: number;
  /** Light modules around the symbol; the standard asks for 4. */
  quietZone?: number;
  level?: EcLevel;
}

/**
 * The QR code of `text` as one line of SVG: a white square and one path of the dark modules.
 *
 * Home Assistant's frontend shows `qr_code` through its markdown sanitizer, which keeps only
 * `xmlns`, `width` and `height` of an <svg> and `transform`, `stroke` and `d` of a <path>,
 * and turns any other tag into text (inside an <svg>, text that is not drawn). Its setup
 * dialog paints the svg's background white itself. So the scale rides on the path's
 * `transform`, not only on `viewBox`, and the path draws with the default black fill: what
 * survives the sanitizer is still the whole symbol at full size. The rect and viewBox
 * serve everywhere else the SVG is shown.
 */
export function qrSvg(text: string, options: QrSvgOptions = {}): string {
  const scale = options.scale ?? 4;
  const quiet = options.quietZone ?? 4;
  if (!(Number.isFinite(scale) && scale > 0)) throw new RangeError(`scale must be a positive number, got ${scale}`);
  if (!(Number.isInteger(quiet) && quiet >= 0)) throw new RangeError(`quietZone must be a whole number of modules, got ${quiet}`);
  const { data: modules, size } = encode(text, { ecc: options.level ?? 'M', border: quiet });
  const px = size * scale;
  let d = '';
  // a rectangle per horizontal run of dark modules rather than per module keeps the path short
  modules.forEach((row, r) => {
    for (let c = 0; c < row.length; ) {
      if (!row[c]) {
        c++;
        continue;
      }
      let end = c;
      while (end < row.length && row[end]) end++;
      d += `M${c} ${r}h${end - c}v1h-${end - c}z`;
      c = end;
    }
  });
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${px} ${px}" width="${px}" height="${px}">` +
    `<rect width="${px}" height="${px}" fill="#fff"/>` +
    `<path transform="scale(${scale})" d="${d}"/>` +
    `</svg>`
  );
}
