// The QR code of the totp setup flow (uqr encodes, Hearth draws the SVG), proved by an
// independent decoder: jsQR reads the drawn symbols back from pixels. Beside it, the level asked
// for is the level drawn (format information of ISO/IEC 18004 Annex C), and the SVG is drawn by
// a real browser as is and as Home Assistant's frontend sanitizes it.
import t from 'tap';
import { existsSync } from 'node:fs';
import jsqr from 'jsqr';
import { encode } from 'uqr';
import { qrSvg, type EcLevel } from '../../../actors/auth/qr.ts';

// jsqr is CommonJS whose module.exports is the function, with itself as .default; TypeScript
// sees only the namespace, so take .default, which is the same function at run time
const jsQR = jsqr.default;

const LEVELS: EcLevel[] = ['L', 'M', 'Q', 'H'];
const OTPAUTH = 'otpauth://totp/Owner?secret=JBSWY3DPEHPK3PXP&issuer=Hearth';

/** The modules the path of `svg` draws dark, quiet zone included, read from its runs. */
function drawnModules(svg: string): boolean[][] {
  const scale = Number(/<path transform="scale\(([\d.]+)\)"/.exec(svg)![1]);
  const size = Number(/ width="(\d+)"/.exec(svg)![1]) / scale;
  const m = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  const d = /<path [^>]*\bd="([^"]*)"/.exec(svg)![1];
  const runs = [...d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)];
  if (runs.map((r) => r[0]).join('') !== d) throw new Error('the path is not all runs');
  for (const [, x, y, n] of runs) for (let i = 0; i < Number(n); i++) m[Number(y)][Number(x) + i] = true;
  return m;
}

/** RGBA pixels of `modules`, `px` pixels a module. */
function rasterize(modules: boolean[][], px = 3) {
  const width = modules.length * px;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  modules.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (!dark) return;
      for (let y = 0; y < px; y++) {
        const start = ((r * px + y) * width + c * px) * 4;
        for (let x = 0; x < px * 4; x += 4) data[start + x] = data[start + x + 1] = data[start + x + 2] = 0;
      }
    }),
  );
  return { data, width, height: width };
}

function decode(modules: boolean[][], px = 3) {
  const { data, width, height } = rasterize(modules, px);
  return jsQR(data, width, height, { inversionAttempts: 'dontInvert' });
}

const darkCount = (modules: boolean[][]) => modules.flat().filter(Boolean).length;

/** `length` characters of printable ASCII that do not repeat in a short cycle. */
const filler = (length: number) => Array.from({ length }, (_, i) => String.fromCharCode(33 + ((i * 37 + (i >> 3)) % 94))).join('');

// ISO/IEC 18004 Table C.1: the format information words of each level, by mask 0..7
const FORMAT_WORDS: Record<EcLevel, number[]> = {
  L: [0x77c4, 0x72f3, 0x7daa, 0x789d, 0x662f, 0x6318, 0x6c41, 0x6976],
  M: [0x5412, 0x5125, 0x5e7c, 0x5b4b, 0x45f9, 0x40ce, 0x4f97, 0x4aa0],
  Q: [0x355f, 0x3068, 0x3f31, 0x3a06, 0x24b4, 0x2183, 0x2eda, 0x2bed],
  H: [0x1689, 0x13be, 0x1ce7, 0x19d0, 0x0762, 0x0255, 0x0d0c, 0x083b],
};

/** The level the format information next to the upper-left finder names (`quiet` modules in). */
function levelOf(m: boolean[][], quiet: number): EcLevel | undefined {
  let word = 0;
  for (const [r, c] of [[8, 0], [8, 1], [8, 2], [8, 3], [8, 4], [8, 5], [8, 7], [8, 8], [7, 8], [5, 8], [4, 8], [3, 8], [2, 8], [1, 8], [0, 8]]) word = (word << 1) | (m[r + quiet][c + quiet] ? 1 : 0);
  return LEVELS.find((level) => FORMAT_WORDS[level].includes(word));
}

t.test('jsQR reads back what was drawn, at the level asked for', async (t) => {
  const inputs: [string, string][] = [
    ['short text', 'Hearth'],
    ['one byte', 'x'],
    ['an otpauth URI', OTPAUTH],
    ['the URI the setup flow makes', 'otpauth://totp/Home%20Assistant:Owner?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Home%20Assistant'],
    ['UTF-8 text', 'Grüße aus der Küche — 家 🏠'],
    ['digits only', '0123456789012345678901234567890123456789'],
    ['230 bytes', filler(230)],
    ['a long URI', `otpauth://totp/Home%20Assistant:${'someone.with.a.long.name'.repeat(8)}?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Home%20Assistant`],
  ];
  for (const [what, text] of inputs) {
    for (const level of LEVELS) {
      const modules = drawnModules(qrSvg(text, { level, scale: 1, quietZone: 4 }));
      const version = (modules.length - 8 - 17) / 4;
      const read = decode(modules);
      t.equal(read?.data, text, `${what}, level ${level}`);
      t.equal(read?.version, version, `${what}, level ${level}: read as version ${version}`);
      t.equal(levelOf(modules, 4), level, `${what}: drawn at level ${level}`);
    }
  }
  t.equal(levelOf(drawnModules(qrSvg(OTPAUTH)), 4), 'M', 'level M when none is given');
  t.throws(() => qrSvg(filler(2954), { level: 'L' }), RangeError, 'more than version 40-L holds');
  t.doesNotThrow(() => qrSvg(filler(2953), { level: 'L' }), 'exactly what version 40-L holds');
});

t.test('the SVG: one line, one path of exactly the dark modules', async (t) => {
  const matrix = encode(OTPAUTH, { ecc: 'M', border: 4 }).data;
  const svg = qrSvg(OTPAUTH, { scale: 4, quietZone: 4 });
  const px = matrix.length * 4;
  t.notMatch(svg, /[\r\n]/, 'no newline');
  t.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" '), 'starts with the svg element, no XML prolog');
  t.ok(svg.endsWith('</svg>'));
  t.match(svg, new RegExp(`^<svg [^>]*viewBox="0 0 ${px} ${px}" width="${px}" height="${px}">`), 'its size: symbol and quiet zone at 4 pixels a module');
  t.match(svg, new RegExp(`<rect width="${px}" height="${px}" fill="#fff"/>`), 'a white background');
  t.equal(svg.match(/<path /g)?.length, 1, 'one path');
  t.equal(svg.match(/<[a-z]/g)?.length, 3, 'svg, rect and path: nothing else');
  t.match(svg, /<path transform="scale\(4\)" d="/, 'drawn in modules, scaled to pixels by the path itself');
  const drawn = drawnModules(svg);
  t.equal(darkCount(drawn), darkCount(matrix), 'as many modules as the matrix has dark ones');
  t.same(drawn, matrix, 'and the same ones');
  t.equal(decode(drawn)?.data, OTPAUTH, 'which read back as the text');

  t.equal(qrSvg(OTPAUTH), svg, 'scale 4 and quiet zone 4 by default');
  const big = qrSvg('Hearth', { scale: 10, quietZone: 2, level: 'H' });
  t.match(big, /width="250" height="250"/, 'version 1 at 10 pixels a module with two modules of quiet zone');
  t.same(drawnModules(big), encode('Hearth', { ecc: 'H', border: 2 }).data);
  t.throws(() => qrSvg('x', { scale: 0 }), RangeError);
  t.throws(() => qrSvg('x', { quietZone: 1.5 }), RangeError);
});

// Home Assistant's frontend puts `qr_code` through js-xss with this whitelist (the allowSvg
// one of its markdown worker); any other tag is escaped to text, any other attribute dropped.
const HA_SVG_WHITELIST: Record<string, string[]> = { svg: ['xmlns', 'height', 'width'], path: ['transform', 'stroke', 'd'] };

function haSanitize(html: string): string {
  return html.replace(/<(\/?)([a-z]+)([^>]*?)(\/?)>/g, (tag, close: string, name: string, attrs: string, selfClose: string) => {
    const allowed = HA_SVG_WHITELIST[name];
    if (!allowed) return tag.replace(/</g, '&lt;').replace(/>/g, '&gt;');
    const kept = [...attrs.matchAll(/([a-zA-Z:-]+)="([^"]*)"/g)].filter(([, a]) => allowed.includes(a)).map(([all]) => ` ${all}`);
    return `<${close}${name}${kept.join('')}${selfClose ? ' /' : ''}>`;
  });
}

const CHROMIUM = '/usr/bin/chromium';
const noBrowser = existsSync(CHROMIUM) ? false : `no browser: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;

t.test('drawn by Chromium, as is and as the frontend sanitizes it, it reads back', { skip: noBrowser }, async (t) => {
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'] });
  t.teardown(() => browser.close());
  const page = await browser.newPage({ deviceScaleFactor: 1 });
  const svg = qrSvg(OTPAUTH, { scale: 4, quietZone: 4 });
  const sanitized = haSanitize(svg);
  t.notMatch(sanitized, /viewBox|<rect/, 'the sanitizer drops the viewBox and the rect');
  // the setup dialog's own style: --markdown-svg-background-color: white
  await page.setContent(
    `<!doctype html><body style="margin:0;background:#888"><div id="raw" style="display:inline-block">${svg}</div>` +
      `<div id="ha" style="display:inline-block">${sanitized}</div><style>#ha svg { background-color: white }</style></body>`,
  );
  for (const id of ['raw', 'ha']) {
    const box = await page.locator(`#${id} svg`).boundingBox();
    const side = encode(OTPAUTH, { ecc: 'M', border: 4 }).size * 4;
    t.same([box?.width, box?.height], [side, side], `${id}: drawn at its size`);
    const png = await page.locator(`#${id} svg`).screenshot();
    // the page's canvas turns the screenshot back into pixels for jsQR
    const pixels = await page.evaluate(async (b64) => {
      const img = new Image();
      img.src = `data:image/png;base64,${b64}`;
      await img.decode();
      const canvas = document.createElement('canvas');
      canvas.width = img.width;
      canvas.height = img.height;
      const ctx = canvas.getContext('2d')!;
      ctx.drawImage(img, 0, 0);
      return { data: Array.from(ctx.getImageData(0, 0, img.width, img.height).data), width: img.width, height: img.height };
    }, png.toString('base64'));
    const read = jsQR(Uint8ClampedArray.from(pixels.data), pixels.width, pixels.height);
    t.equal(read?.data, OTPAUTH, `${id}: read back from the screen`);
  }
});
