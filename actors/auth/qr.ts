// A QR Code encoder (ISO/IEC 18004) for byte-mode data, with an SVG drawing of the
// symbol. The totp setup flow shows the otpauth:// URI as a QR code to scan; Home
// Assistant draws it with PyQRCode, Hearth draws it here, without a dependency.
//
// Everything is byte mode: a provisioning URI mixes cases and punctuation, which the
// numeric and alphanumeric modes cannot carry. Text goes in as UTF-8 without an ECI
// header, which readers assume for byte mode in practice; an otpauth URI is
// percent-encoded ASCII anyway, so the question does not arise for it.

export type EcLevel = 'L' | 'M' | 'Q' | 'H';

export const MAX_VERSION = 40;

// ISO/IEC 18004 Table 9, by version 1..40: error-correction codewords in each block, and
// the number of blocks. The data codewords follow from the symbol's capacity; when they
// do not split evenly, the later blocks take one more (the table's second group).
const EC_CODEWORDS_PER_BLOCK: Record<EcLevel, number[]> = {
  L: [7, 10, 15, 20, 26, 18, 20, 24, 30, 18, 20, 24, 26, 30, 22, 24, 28, 30, 28, 28, 28, 28, 30, 30, 26, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  M: [10, 16, 26, 18, 24, 16, 18, 22, 22, 26, 30, 22, 22, 24, 24, 28, 28, 26, 26, 26, 26, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28, 28],
  Q: [13, 22, 18, 26, 18, 24, 18, 22, 20, 24, 28, 26, 24, 20, 30, 24, 28, 28, 26, 30, 28, 30, 30, 30, 30, 28, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
  H: [17, 28, 22, 16, 22, 28, 26, 26, 24, 28, 24, 28, 22, 24, 24, 30, 28, 28, 26, 28, 30, 24, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30, 30],
};
const BLOCKS: Record<EcLevel, number[]> = {
  L: [1, 1, 1, 1, 1, 2, 2, 2, 2, 4, 4, 4, 4, 4, 6, 6, 6, 6, 7, 8, 8, 9, 9, 10, 12, 12, 12, 13, 14, 15, 16, 17, 18, 19, 19, 20, 21, 22, 24, 25],
  M: [1, 1, 1, 2, 2, 4, 4, 4, 5, 5, 5, 8, 9, 9, 10, 10, 11, 13, 14, 16, 17, 17, 18, 20, 21, 23, 25, 26, 28, 29, 31, 33, 35, 37, 38, 40, 43, 45, 47, 49],
  Q: [1, 1, 2, 2, 4, 4, 6, 6, 8, 8, 8, 10, 12, 16, 12, 17, 16, 18, 21, 20, 23, 23, 25, 27, 29, 34, 34, 35, 38, 40, 43, 45, 48, 51, 53, 56, 59, 62, 65, 68],
  H: [1, 1, 2, 4, 4, 4, 5, 6, 8, 8, 11, 11, 16, 16, 18, 16, 19, 21, 25, 25, 25, 34, 30, 32, 35, 37, 40, 42, 45, 48, 51, 54, 57, 60, 63, 66, 70, 74, 77, 81],
};

// Annex E, Table E.1: the row/column centres of the alignment patterns, by version 2..40.
// Kept as the table rather than a spacing rule because version 32 breaks the rule.
const ALIGNMENT_CENTRES: number[][] = [
  [], [6, 18], [6, 22], [6, 26], [6, 30], [6, 34],
  [6, 22, 38], [6, 24, 42], [6, 26, 46], [6, 28, 50], [6, 30, 54], [6, 32, 58], [6, 34, 62],
  [6, 26, 46, 66], [6, 26, 48, 70], [6, 26, 50, 74], [6, 30, 54, 78], [6, 30, 56, 82], [6, 30, 58, 86], [6, 34, 62, 90],
  [6, 28, 50, 72, 94], [6, 26, 50, 74, 98], [6, 30, 54, 78, 102], [6, 28, 54, 80, 106], [6, 32, 58, 84, 110], [6, 30, 58, 86, 114], [6, 34, 62, 90, 118],
  [6, 26, 50, 74, 98, 122], [6, 30, 54, 78, 102, 126], [6, 26, 52, 78, 104, 130], [6, 30, 56, 82, 108, 134], [6, 34, 60, 86, 112, 138], [6, 30, 58, 86, 114, 142], [6, 34, 62, 90, 118, 146],
  [6, 30, 54, 78, 102, 126, 150], [6, 24, 50, 76, 102, 128, 154], [6, 28, 54, 80, 106, 132, 158], [6, 32, 58, 84, 110, 136, 162], [6, 26, 54, 82, 110, 138, 166], [6, 30, 58, 86, 114, 142, 170],
];

// The two-bit error-correction indicator of the format information (Table 12): not in L, M, Q, H order.
const EC_FORMAT_BITS: Record<EcLevel, number> = { L: 0b01, M: 0b00, Q: 0b11, H: 0b10 };

const MODE_BYTE = 0b0100;
const PAD_CODEWORDS = [0xec, 0x11];

// ---- GF(256) arithmetic, modulo the field polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D) ----

const EXP = new Uint8Array(510);
const LOG = new Uint8Array(256);
{
  let x = 1;
  for (let i = 0; i < 255; i++) {
    EXP[i] = x;
    LOG[x] = i;
    x <<= 1;
    if (x & 0x100) x ^= 0x11d;
  }
  // doubled so a product's exponent sum needs no modulus
  for (let i = 255; i < 510; i++) EXP[i] = EXP[i - 255];
}

const gfMul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : EXP[LOG[a] + LOG[b]]);

const generators = new Map<number, Uint8Array>();

/** (x − α⁰)(x − α¹)…(x − α^(degree−1)), coefficients highest power first; the leading 1 is kept. */
function generatorPolynomial(degree: number): Uint8Array {
  let g = generators.get(degree);
  if (g) return g;
  g = new Uint8Array(degree + 1);
  g[0] = 1;
  for (let i = 0; i < degree; i++) {
    const root = EXP[i];
    // times (x + root), in place: last coefficient first, so each g[j - 1] is read before it changes
    for (let j = i + 1; j >= 1; j--) g[j] ^= gfMul(g[j - 1], root);
  }
  generators.set(degree, g);
  return g;
}

/** The `ecCount` Reed–Solomon codewords of `data`: the remainder of data(x)·x^ecCount by the generator. */
export function reedSolomon(data: Uint8Array, ecCount: number): Uint8Array {
  const gen = generatorPolynomial(ecCount);
  const rem = new Uint8Array(ecCount);
  for (const byte of data) {
    const factor = byte ^ rem[0];
    rem.copyWithin(0, 1);
    rem[ecCount - 1] = 0;
    for (let j = 0; j < ecCount; j++) rem[j] ^= gfMul(gen[j + 1], factor);
  }
  return rem;
}

// ---- BCH codes of the format and version information ----

const bitLength = (v: number) => 32 - Math.clz32(v);

function bchRemainder(value: number, generator: number): number {
  const degree = bitLength(generator) - 1;
  let v = value;
  while (bitLength(v) > degree) v ^= generator << (bitLength(v) - 1 - degree);
  return v;
}

/** 15 bits: EC level and mask, BCH(15,5), then XORed so that no format word is all light. */
export function formatBits(level: EcLevel, mask: number): number {
  const data = (EC_FORMAT_BITS[level] << 3) | mask;
  return ((data << 10) | bchRemainder(data << 10, 0b10100110111)) ^ 0b101010000010010;
}

/** 18 bits: the version number and its BCH(18,6) code. */
export function versionBits(version: number): number {
  return (version << 12) | bchRemainder(version << 12, 0b1111100100101);
}

// ---- the symbol's layout ----

/** A symbol in the making: `dark` per module, and `fixed` for those that data must go around. */
interface Grid {
  size: number;
  dark: Uint8Array;
  fixed: Uint8Array;
}

function newGrid(size: number): Grid {
  return { size, dark: new Uint8Array(size * size), fixed: new Uint8Array(size * size) };
}

function setFixed(g: Grid, row: number, col: number, dark: boolean): void {
  const i = row * g.size + col;
  g.dark[i] = dark ? 1 : 0;
  g.fixed[i] = 1;
}

/** The function patterns of `version`, with the format and version areas held (light) for later. */
function layout(version: number): Grid {
  const size = 17 + 4 * version;
  const g = newGrid(size);

  // each finder with its light separator: concentric squares by Chebyshev distance from the centre
  for (const [top, left] of [[0, 0], [0, size - 7], [size - 7, 0]]) {
    for (let dr = -1; dr <= 7; dr++) {
      for (let dc = -1; dc <= 7; dc++) {
        const r = top + dr;
        const c = left + dc;
        if (r < 0 || c < 0 || r >= size || c >= size) continue;
        const ring = Math.max(Math.abs(dr - 3), Math.abs(dc - 3));
        setFixed(g, r, c, ring !== 2 && ring !== 4);
      }
    }
  }

  for (let i = 8; i < size - 8; i++) {
    setFixed(g, 6, i, i % 2 === 0);
    setFixed(g, i, 6, i % 2 === 0);
  }

  const centres = ALIGNMENT_CENTRES[version - 1];
  const last = centres.length - 1;
  for (let a = 0; a <= last; a++) {
    for (let b = 0; b <= last; b++) {
      // the three corners are the finders' places
      if ((a === 0 && b === 0) || (a === 0 && b === last) || (a === last && b === 0)) continue;
      for (let dr = -2; dr <= 2; dr++) {
        for (let dc = -2; dc <= 2; dc++) setFixed(g, centres[a] + dr, centres[b] + dc, Math.max(Math.abs(dr), Math.abs(dc)) !== 1);
      }
    }
  }

  // format areas beside the finders; drawn once the mask is chosen
  for (let i = 0; i <= 8; i++) {
    if (i !== 6) {
      setFixed(g, 8, i, false);
      setFixed(g, i, 8, false);
    }
  }
  for (let i = 0; i < 8; i++) {
    setFixed(g, 8, size - 1 - i, false);
    setFixed(g, size - 1 - i, 8, false);
  }
  // the one module the standard makes dark in every symbol, whatever the mask
  setFixed(g, size - 8, 8, true);

  if (version >= 7) {
    const bits = versionBits(version);
    for (let i = 0; i < 18; i++) {
      const dark = ((bits >> i) & 1) === 1;
      setFixed(g, Math.floor(i / 3), size - 11 + (i % 3), dark);
      setFixed(g, size - 11 + (i % 3), Math.floor(i / 3), dark);
    }
  }
  return g;
}

function drawFormat(g: Grid, bits: number): void {
  const size = g.size;
  const bit = (i: number) => ((bits >> i) & 1) === 1;
  // first copy, around the upper-left finder: bit 0 at the top of column 8, bit 14 at the left of row 8
  for (let i = 0; i <= 5; i++) setFixed(g, i, 8, bit(i));
  setFixed(g, 7, 8, bit(6));
  setFixed(g, 8, 8, bit(7));
  setFixed(g, 8, 7, bit(8));
  for (let i = 9; i < 15; i++) setFixed(g, 8, 14 - i, bit(i));
  // second copy, split between the other two finders
  for (let i = 0; i < 8; i++) setFixed(g, 8, size - 1 - i, bit(i));
  for (let i = 8; i < 15; i++) setFixed(g, size - 15 + i, 8, bit(i));
}

const templates = new Map<number, Grid>();

function template(version: number): Grid {
  let g = templates.get(version);
  if (!g) templates.set(version, (g = layout(version)));
  return g;
}

/** All codewords a symbol of `version` holds: its free modules, whole bytes (the rest are remainder bits). */
function totalCodewords(version: number): number {
  let free = 0;
  for (const f of template(version).fixed) if (!f) free++;
  return Math.floor(free / 8);
}

export function dataCodewords(version: number, level: EcLevel): number {
  return totalCodewords(version) - EC_CODEWORDS_PER_BLOCK[level][version - 1] * BLOCKS[level][version - 1];
}

// ---- the data ----

class BitWriter {
  readonly bytes: number[] = [];
  length = 0;

  put(value: number, bits: number): void {
    for (let i = bits - 1; i >= 0; i--) {
      if (this.length % 8 === 0) this.bytes.push(0);
      this.bytes[this.bytes.length - 1] |= ((value >> i) & 1) << (7 - (this.length % 8));
      this.length++;
    }
  }
}

const countBits = (version: number) => (version <= 9 ? 8 : 16);

/** The smallest version whose `level` capacity holds `byteCount` bytes in byte mode. */
export function chooseVersion(byteCount: number, level: EcLevel): number {
  for (let v = 1; v <= MAX_VERSION; v++) {
    if (byteCount < 1 << countBits(v) && 4 + countBits(v) + 8 * byteCount <= 8 * dataCodewords(v, level)) return v;
  }
  throw new RangeError(`${byteCount} bytes do not fit in a QR code at level ${level}`);
}

/** Mode, count, data, terminator and padding, cut into blocks, each followed by its EC codewords, interleaved. */
function codewords(bytes: Uint8Array, version: number, level: EcLevel): Uint8Array {
  const capacity = dataCodewords(version, level);
  const w = new BitWriter();
  w.put(MODE_BYTE, 4);
  w.put(bytes.length, countBits(version));
  for (const b of bytes) w.put(b, 8);
  w.put(0, Math.min(4, capacity * 8 - w.length));
  if (w.length % 8 !== 0) w.put(0, 8 - (w.length % 8));
  for (let i = 0; w.bytes.length < capacity; i++) w.bytes.push(PAD_CODEWORDS[i % 2]);

  const blockCount = BLOCKS[level][version - 1];
  const ecCount = EC_CODEWORDS_PER_BLOCK[level][version - 1];
  const shortLength = Math.floor(capacity / blockCount);
  const shortBlocks = blockCount - (capacity % blockCount);
  const data: Uint8Array[] = [];
  const ec: Uint8Array[] = [];
  for (let b = 0, at = 0; b < blockCount; b++) {
    const length = shortLength + (b < shortBlocks ? 0 : 1);
    const block = Uint8Array.from(w.bytes.slice(at, at + length));
    at += length;
    data.push(block);
    ec.push(reedSolomon(block, ecCount));
  }

  const out = new Uint8Array(totalCodewords(version));
  let n = 0;
  for (let i = 0; i <= shortLength; i++) for (const block of data) if (i < block.length) out[n++] = block[i];
  for (let i = 0; i < ecCount; i++) for (const block of ec) out[n++] = block[i];
  return out;
}

/** The codewords' bits, most significant first, in the two-column zigzag from the lower right; remainder bits stay light. */
function placeData(g: Grid, words: Uint8Array): void {
  const size = g.size;
  const totalBits = words.length * 8;
  let bit = 0;
  let upward = true;
  for (let right = size - 1; right >= 1; right -= 2) {
    // the vertical timing pattern takes a whole column, so the pairs left of it shift by one
    if (right === 6) right = 5;
    for (let k = 0; k < size; k++) {
      const row = upward ? size - 1 - k : k;
      for (const col of [right, right - 1]) {
        const i = row * size + col;
        if (g.fixed[i]) continue;
        g.dark[i] = bit < totalBits ? (words[bit >> 3] >> (7 - (bit & 7))) & 1 : 0;
        bit++;
      }
    }
    upward = !upward;
  }
}

// ---- masking ----

const MASKS: ((row: number, col: number) => boolean)[] = [
  (r, c) => (r + c) % 2 === 0,
  (r) => r % 2 === 0,
  (_r, c) => c % 3 === 0,
  (r, c) => (r + c) % 3 === 0,
  (r, c) => (Math.floor(r / 2) + Math.floor(c / 3)) % 2 === 0,
  (r, c) => ((r * c) % 2) + ((r * c) % 3) === 0,
  (r, c) => (((r * c) % 2) + ((r * c) % 3)) % 2 === 0,
  (r, c) => (((r + c) % 2) + ((r * c) % 3)) % 2 === 0,
];

function masked(g: Grid, mask: number, level: EcLevel): Grid {
  const out: Grid = { size: g.size, dark: g.dark.slice(), fixed: g.fixed.slice() };
  const flip = MASKS[mask];
  for (let r = 0; r < g.size; r++) {
    for (let c = 0; c < g.size; c++) {
      const i = r * g.size + c;
      if (!g.fixed[i] && flip(r, c)) out.dark[i] ^= 1;
    }
  }
  drawFormat(out, formatBits(level, mask));
  return out;
}

// a finder-like 1:1:3:1:1 run, dark-light-dark-dark-dark-light-dark
const FINDER_LIKE = [1, 0, 1, 1, 1, 0, 1];

/** The penalty of one row or column: N1 (runs of five or more) and N3 (finder-like runs beside four light modules). */
function linePenalty(line: Uint8Array): number {
  let score = 0;
  let run = 1;
  for (let i = 1; i <= line.length; i++) {
    if (i < line.length && line[i] === line[i - 1]) run++;
    else {
      if (run >= 5) score += 3 + (run - 5);
      run = 1;
    }
  }
  // outside the symbol is the quiet zone, so it counts as light
  const lightSpan = (from: number) => {
    for (let i = from; i < from + 4; i++) if (i >= 0 && i < line.length && line[i]) return false;
    return true;
  };
  for (let i = 0; i + 7 <= line.length; i++) {
    let match = true;
    for (let k = 0; k < 7 && match; k++) match = line[i + k] === FINDER_LIKE[k];
    if (match && (lightSpan(i - 4) || lightSpan(i + 7))) score += 40;
  }
  return score;
}

function penalty(g: Grid): number {
  const { size, dark } = g;
  let score = 0;
  const line = new Uint8Array(size);
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) line[c] = dark[r * size + c];
    score += linePenalty(line);
  }
  for (let c = 0; c < size; c++) {
    for (let r = 0; r < size; r++) line[r] = dark[r * size + c];
    score += linePenalty(line);
  }
  // N2: every 2×2 block of one colour, overlapping ones included
  for (let r = 0; r + 1 < size; r++) {
    for (let c = 0; c + 1 < size; c++) {
      const v = dark[r * size + c];
      if (v === dark[r * size + c + 1] && v === dark[(r + 1) * size + c] && v === dark[(r + 1) * size + c + 1]) score += 3;
    }
  }
  // N4: 10 for each whole 5% the dark share strays from half
  let darkCount = 0;
  for (const v of dark) darkCount += v;
  const total = size * size;
  score += 10 * Math.floor(Math.abs(20 * darkCount - 10 * total) / total);
  return score;
}

// ---- the encoder ----

/** The QR code of `text` (UTF-8, byte mode) at the smallest version for `level`: rows of modules, true = dark. */
export function qrMatrix(text: string, level: EcLevel = 'M'): boolean[][] {
  if (!(level in EC_FORMAT_BITS)) throw new RangeError(`unknown error correction level ${String(level)}`);
  const bytes = new TextEncoder().encode(text);
  const version = chooseVersion(bytes.length, level);
  const base = template(version);
  const g: Grid = { size: base.size, dark: base.dark.slice(), fixed: base.fixed };
  placeData(g, codewords(bytes, version, level));

  let best: Grid | undefined;
  let bestScore = Infinity;
  for (let mask = 0; mask < MASKS.length; mask++) {
    const candidate = masked(g, mask, level);
    const score = penalty(candidate);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  const { size, dark } = best!;
  return Array.from({ length: size }, (_, r) => Array.from({ length: size }, (_, c) => dark[r * size + c] === 1));
}

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
  const matrix = qrMatrix(text, options.level);
  const px = (matrix.length + 2 * quiet) * scale;
  let d = '';
  // a rectangle per horizontal run of dark modules rather than per module keeps the path short
  matrix.forEach((row, r) => {
    for (let c = 0; c < row.length; ) {
      if (!row[c]) {
        c++;
        continue;
      }
      let end = c;
      while (end < row.length && row[end]) end++;
      d += `M${c + quiet} ${r + quiet}h${end - c}v1h-${end - c}z`;
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
