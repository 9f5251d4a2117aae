// The QR encoder of the totp setup flow, proved by an independent decoder: jsQR reads the
// symbols back from pixels. Beside it, the tables and fixed patterns of ISO/IEC 18004
// checked against values printed in the standard, and the SVG drawn by a real browser.
import t from 'tap';
import { existsSync } from 'node:fs';
import jsqr from 'jsqr';
import { chooseVersion, dataCodewords, formatBits, qrMatrix, qrSvg, reedSolomon, versionBits, MAX_VERSION, type EcLevel } from '../../actors/auth/qr.ts';

// jsqr is CommonJS whose module.exports is the function, with itself as .default; TypeScript
// sees only the namespace, so take .default, which is the same function at run time
const jsQR = jsqr.default;

const LEVELS: EcLevel[] = ['L', 'M', 'Q', 'H'];
const OTPAUTH = 'otpauth://totp/Owner?secret=JBSWY3DPEHPK3PXP&issuer=Hearth';

/** RGBA pixels of `matrix`, `px` pixels a module, with a light quiet zone of `quiet` modules. */
function rasterize(matrix: boolean[][], px = 3, quiet = 4) {
  const width = (matrix.length + 2 * quiet) * px;
  const data = new Uint8ClampedArray(width * width * 4).fill(255);
  matrix.forEach((row, r) =>
    row.forEach((dark, c) => {
      if (!dark) return;
      for (let y = 0; y < px; y++) {
        const start = (((r + quiet) * px + y) * width + (c + quiet) * px) * 4;
        for (let x = 0; x < px * 4; x += 4) data[start + x] = data[start + x + 1] = data[start + x + 2] = 0;
      }
    }),
  );
  return { data, width, height: width };
}

function decode(matrix: boolean[][], px = 3) {
  const { data, width, height } = rasterize(matrix, px);
  return jsQR(data, width, height, { inversionAttempts: 'dontInvert' });
}

const versionOf = (matrix: boolean[][]) => (matrix.length - 17) / 4;
const darkCount = (matrix: boolean[][]) => matrix.flat().filter(Boolean).length;

/** The most bytes a symbol of `version` at `level` carries in byte mode. */
const byteCapacity = (version: number, level: EcLevel) => Math.floor((8 * dataCodewords(version, level) - 4 - (version <= 9 ? 8 : 16)) / 8);

/** `length` characters of printable ASCII that do not repeat in a short cycle. */
const filler = (length: number) => Array.from({ length }, (_, i) => String.fromCharCode(33 + ((i * 37 + (i >> 3)) % 94))).join('');

t.test('jsQR reads back what was encoded', async (t) => {
  const inputs: [string, string][] = [
    ['short text', 'Hearth'],
    ['one byte', 'x'],
    ['an otpauth URI', OTPAUTH],
    ['the URI the setup flow makes', 'otpauth://totp/Home%20Assistant:Owner?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Home%20Assistant'],
    ['UTF-8 text', 'Grüße aus der Küche — 家 🏠'],
    ['230 bytes', filler(230)],
    ['a long URI', `otpauth://totp/Home%20Assistant:${'someone.with.a.long.name'.repeat(8)}?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP&issuer=Home%20Assistant`],
  ];
  for (const [what, text] of inputs) {
    for (const level of LEVELS) {
      const matrix = qrMatrix(text, level);
      const read = decode(matrix);
      t.equal(read?.data, text, `${what}, level ${level}`);
      t.equal(read?.version, versionOf(matrix), `${what}, level ${level}: read as version ${versionOf(matrix)}`);
    }
  }
  t.equal(qrMatrix(OTPAUTH).length, qrMatrix(OTPAUTH, 'M').length, "level M when none is given");
  t.ok(versionOf(qrMatrix(filler(230), 'L')) >= 7, '230 bytes need version 7 or more even at level L: version information is drawn');
});

t.test('every version at every level, filled to capacity', async (t) => {
  for (const level of LEVELS) {
    for (let version = 1; version <= MAX_VERSION; version++) {
      const capacity = byteCapacity(version, level);
      const text = filler(capacity);
      const matrix = qrMatrix(text, level);
      t.equal(matrix.length, 17 + 4 * version, `${version}-${level}: ${capacity} bytes fill it`);
      if (version < MAX_VERSION) t.equal(chooseVersion(capacity + 1, level), version + 1, `${version}-${level}: one more byte moves up a version`);
      // jsQR's own table has version 23's alignment centres wrong (74 for 78), which only the
      // stronger levels survive; the centres here are the standard's, checked below
      if (version === 23 && level === 'L') continue;
      t.equal(decode(matrix, 2)?.data, text, `${version}-${level}: read back`);
    }
  }
  t.throws(() => qrMatrix(filler(2954), 'L'), RangeError, 'more than version 40-L holds');
  t.throws(() => qrMatrix('x', 'X' as EcLevel), RangeError, 'an unknown level');
});

t.test('capacities of the standard (Table 7, byte mode)', async (t) => {
  const table: [number, Record<EcLevel, number>][] = [
    [1, { L: 17, M: 14, Q: 11, H: 7 }],
    [2, { L: 32, M: 26, Q: 20, H: 14 }],
    [7, { L: 154, M: 122, Q: 86, H: 64 }],
    [10, { L: 271, M: 213, Q: 151, H: 119 }],
    [40, { L: 2953, M: 2331, Q: 1663, H: 1273 }],
  ];
  for (const [version, byLevel] of table) for (const level of LEVELS) t.equal(byteCapacity(version, level), byLevel[level], `${version}-${level}`);
});

t.test('Reed–Solomon: the published HELLO WORLD 1-M example', async (t) => {
  const data = Uint8Array.from([32, 91, 11, 120, 209, 114, 220, 77, 67, 64, 236, 17, 236, 17, 236, 17]);
  t.same([...reedSolomon(data, 10)], [196, 35, 39, 119, 235, 215, 231, 226, 93, 23]);
});

t.test('format and version information: BCH words of Annex C and D', async (t) => {
  // Table C.1, by mask 0..7
  const formats: Record<EcLevel, number[]> = {
    L: [0x77c4, 0x72f3, 0x7daa, 0x789d, 0x662f, 0x6318, 0x6c41, 0x6976],
    M: [0x5412, 0x5125, 0x5e7c, 0x5b4b, 0x45f9, 0x40ce, 0x4f97, 0x4aa0],
    Q: [0x355f, 0x3068, 0x3f31, 0x3a06, 0x24b4, 0x2183, 0x2eda, 0x2bed],
    H: [0x1689, 0x13be, 0x1ce7, 0x19d0, 0x0762, 0x0255, 0x0d0c, 0x083b],
  };
  for (const level of LEVELS) t.same([0, 1, 2, 3, 4, 5, 6, 7].map((mask) => formatBits(level, mask)), formats[level], `level ${level}`);
  // Table D.1
  t.equal(versionBits(7), 0x07c94);
  t.equal(versionBits(10), 0x0a4d3);
  t.equal(versionBits(23), 0x177ec);
  t.equal(versionBits(40), 0x28c69);
});

t.test('the fixed patterns where the standard puts them', async (t) => {
  const finder = [
    [1, 1, 1, 1, 1, 1, 1],
    [1, 0, 0, 0, 0, 0, 1],
    [1, 0, 1, 1, 1, 0, 1],
    [1, 0, 1, 1, 1, 0, 1],
    [1, 0, 1, 1, 1, 0, 1],
    [1, 0, 0, 0, 0, 0, 1],
    [1, 1, 1, 1, 1, 1, 1],
  ].map((row) => row.map(Boolean));
  const cut = (m: boolean[][], top: number, left: number, n: number) => m.slice(top, top + n).map((row) => row.slice(left, left + n));
  const formatLevels = new Map<number, EcLevel>();
  for (const level of LEVELS) for (let mask = 0; mask < 8; mask++) formatLevels.set(formatBits(level, mask), level);

  for (const [text, level] of [['Hearth', 'M'], [OTPAUTH, 'L'], [OTPAUTH, 'H'], [filler(230), 'Q'], [filler(1000), 'L']] as [string, EcLevel][]) {
    const m = qrMatrix(text, level);
    const size = m.length;
    const v = versionOf(m);
    const what = `${v}-${level}`;
    t.ok(Number.isInteger(v) && v >= 1 && v <= 40, `${what}: size ${size} is 17 + 4·version`);

    t.same(cut(m, 0, 0, 7), finder, `${what}: finder, upper left`);
    t.same(cut(m, 0, size - 7, 7), finder, `${what}: finder, upper right`);
    t.same(cut(m, size - 7, 0, 7), finder, `${what}: finder, lower left`);
    t.notSame(cut(m, size - 7, size - 7, 7), finder, `${what}: no finder lower right`);
    const separators = [
      ...[...Array(8).keys()].flatMap((i) => [m[7][i], m[i][7], m[7][size - 1 - i], m[i][size - 8], m[size - 8][i], m[size - 1 - i][7]]),
    ];
    t.notOk(separators.some(Boolean), `${what}: light separators`);
    t.ok([...Array(size - 16).keys()].every((k) => m[6][8 + k] === (k % 2 === 0) && m[8 + k][6] === (k % 2 === 0)), `${what}: timing patterns`);
    t.ok(m[size - 8][8], `${what}: the dark module`);

    // both copies of the format information, read in the standard's bit order
    let first = 0;
    for (const [r, c] of [[8, 0], [8, 1], [8, 2], [8, 3], [8, 4], [8, 5], [8, 7], [8, 8], [7, 8], [5, 8], [4, 8], [3, 8], [2, 8], [1, 8], [0, 8]]) first = (first << 1) | (m[r][c] ? 1 : 0);
    let second = 0;
    for (let i = 0; i < 7; i++) second = (second << 1) | (m[size - 1 - i][8] ? 1 : 0);
    for (let i = 0; i < 8; i++) second = (second << 1) | (m[8][size - 8 + i] ? 1 : 0);
    t.equal(first, second, `${what}: the two format copies agree`);
    t.equal(formatLevels.get(first), level, `${what}: the format information names level ${level}`);

    if (v >= 7) {
      let upperRight = 0;
      let lowerLeft = 0;
      for (let i = 17; i >= 0; i--) {
        upperRight = (upperRight << 1) | (m[Math.floor(i / 3)][size - 11 + (i % 3)] ? 1 : 0);
        lowerLeft = (lowerLeft << 1) | (m[size - 11 + (i % 3)][Math.floor(i / 3)] ? 1 : 0);
      }
      t.equal(upperRight, versionBits(v), `${what}: version information, upper right`);
      t.equal(lowerLeft, versionBits(v), `${what}: version information, lower left`);
    }
  }

  // alignment patterns at the centres of Table E.1: version 7 has 6, 22, 38
  const m = qrMatrix(filler(byteCapacity(7, 'M')), 'M');
  t.equal(versionOf(m), 7);
  const alignment = [
    [1, 1, 1, 1, 1],
    [1, 0, 0, 0, 1],
    [1, 0, 1, 0, 1],
    [1, 0, 0, 0, 1],
    [1, 1, 1, 1, 1],
  ].map((row) => row.map(Boolean));
  for (const [r, c] of [[6, 22], [22, 6], [22, 22], [22, 38], [38, 22], [38, 38]]) t.same(cut(m, r - 2, c - 2, 5), alignment, `7-M: alignment pattern at (${r}, ${c})`);
  // and version 23's, which jsQR gets wrong: 6, 30, 54, 78, 102
  const v23 = qrMatrix(filler(byteCapacity(23, 'L')), 'L');
  for (const c of [30, 54, 78, 102]) t.same(cut(v23, 78 - 2, c - 2, 5), alignment, `23-L: alignment pattern at (78, ${c})`);
});

/** The dark modules the path of `svg` draws, as a matrix of `size` (the quiet zone taken off). */
function pathModules(svg: string, size: number, quiet: number): boolean[][] {
  const m = Array.from({ length: size }, () => Array<boolean>(size).fill(false));
  const d = /<path [^>]*\bd="([^"]*)"/.exec(svg)![1];
  const runs = [...d.matchAll(/M(\d+) (\d+)h(\d+)v1h-(\d+)z/g)];
  if (runs.map((r) => r[0]).join('') !== d) throw new Error('the path is not all runs');
  for (const [, x, y, n] of runs) for (let i = 0; i < Number(n); i++) m[Number(y) - quiet][Number(x) - quiet + i] = true;
  return m;
}

t.test('the SVG: one line, one path of exactly the dark modules', async (t) => {
  const matrix = qrMatrix(OTPAUTH);
  const svg = qrSvg(OTPAUTH, { scale: 4, quietZone: 4 });
  const px = (matrix.length + 8) * 4;
  t.notMatch(svg, /[\r\n]/, 'no newline');
  t.ok(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg" '), 'starts with the svg element, no XML prolog');
  t.ok(svg.endsWith('</svg>'));
  t.match(svg, new RegExp(`^<svg [^>]*viewBox="0 0 ${px} ${px}" width="${px}" height="${px}">`), 'its size: symbol and quiet zone at 4 pixels a module');
  t.match(svg, new RegExp(`<rect width="${px}" height="${px}" fill="#fff"/>`), 'a white background');
  t.equal(svg.match(/<path /g)?.length, 1, 'one path');
  t.equal(svg.match(/<[a-z]/g)?.length, 3, 'svg, rect and path: nothing else');
  t.match(svg, /<path transform="scale\(4\)" d="/, 'drawn in modules, scaled to pixels by the path itself');
  const drawn = pathModules(svg, matrix.length, 4);
  t.equal(darkCount(drawn), darkCount(matrix), 'as many modules as the matrix has dark ones');
  t.same(drawn, matrix, 'and the same ones');
  t.equal(decode(drawn)?.data, OTPAUTH, 'which read back as the text');

  t.equal(qrSvg(OTPAUTH), svg, 'scale 4 and quiet zone 4 by default');
  const big = qrSvg('Hearth', { scale: 10, quietZone: 2, level: 'H' });
  t.match(big, /width="250" height="250"/, 'version 1 at 10 pixels a module with two modules of quiet zone');
  t.same(pathModules(big, 21, 2), qrMatrix('Hearth', 'H'));
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
    t.same([box?.width, box?.height], [(qrMatrix(OTPAUTH).length + 8) * 4, (qrMatrix(OTPAUTH).length + 8) * 4], `${id}: drawn at its size`);
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
