/**
 * BLAKE2b (RFC 7693) with the parameter block's key, salt and personal fields, as libsodium's
 * `crypto_generichash_blake2b_salt_personal` computes it. Hand-written because the dependency
 * list is fixed and Node's `blake2b512` takes neither key, salt nor personal; the tests check
 * it against libsodium. 64-bit words are kept as (low, high) pairs of 32-bit numbers.
 */

const IV = new Uint32Array([
  0xf3bcc908, 0x6a09e667, 0x84caa73b, 0xbb67ae85, 0xfe94f82b, 0x3c6ef372, 0x5f1d36f1, 0xa54ff53a,
  0xade682d1, 0x510e527f, 0x2b3e6c1f, 0x9b05688c, 0xfb41bd6b, 0x1f83d9ab, 0x137e2179, 0x5be0cd19,
]);

const SIGMA = [
  [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
  [14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3],
  [11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4],
  [7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8],
  [9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13],
  [2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9],
  [12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11],
  [13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10],
  [6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5],
  [10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0],
].map((row) => row.map((i) => 2 * i));

export interface Blake2bOptions {
  key?: Uint8Array;
  /** at most 16 bytes, zero-padded like libsodium's callers (PyNaCl) do */
  salt?: Uint8Array;
  /** at most 16 bytes, zero-padded */
  personal?: Uint8Array;
}

/** Incremental BLAKE2b: `new Blake2b(32, { key }).update(data).digest()`. */
export class Blake2b {
  private readonly h = new Uint32Array(16);
  private readonly v = new Uint32Array(32);
  private readonly m = new Uint32Array(32);
  private readonly block = new Uint8Array(128);
  private filled = 0;
  // total bytes compressed so far; a double is exact far beyond any input this code sees
  private counted = 0;
  private done = false;

  constructor(
    readonly outLength: number,
    options: Blake2bOptions = {},
  ) {
    const key = options.key ?? new Uint8Array(0);
    if (!Number.isInteger(outLength) || outLength < 1 || outLength > 64) throw new RangeError(`BLAKE2b output length ${outLength} is not 1..64`);
    if (key.length > 64) throw new RangeError(`BLAKE2b key of ${key.length} bytes is longer than 64`);
    const params = new Uint8Array(64);
    params[0] = outLength;
    params[1] = key.length;
    params[2] = 1; // fanout
    params[3] = 1; // depth
    params.set(fitted(options.salt, 'salt'), 32);
    params.set(fitted(options.personal, 'personal'), 48);
    for (let i = 0; i < 16; i++) this.h[i] = IV[i] ^ readUint32(params, 4 * i);
    if (key.length > 0) {
      this.update(key);
      this.filled = 128; // a key is padded to one full block
    }
  }

  update(data: Uint8Array): this {
    if (this.done) throw new Error('BLAKE2b digest already taken');
    for (let i = 0; i < data.length; i++) {
      if (this.filled === 128) {
        this.counted += 128;
        this.compress(false);
        this.filled = 0;
      }
      this.block[this.filled++] = data[i];
    }
    return this;
  }

  digest(): Buffer {
    if (this.done) throw new Error('BLAKE2b digest already taken');
    this.done = true;
    this.counted += this.filled;
    this.block.fill(0, this.filled);
    this.compress(true);
    const out = Buffer.alloc(64);
    for (let i = 0; i < 16; i++) out.writeUInt32LE(this.h[i], 4 * i);
    return out.subarray(0, this.outLength);
  }

  private compress(last: boolean): void {
    const { v, m, h } = this;
    for (let i = 0; i < 16; i++) {
      v[i] = h[i];
      v[i + 16] = IV[i];
    }
    v[24] ^= this.counted >>> 0;
    v[25] ^= Math.floor(this.counted / 0x100000000);
    if (last) {
      v[28] = ~v[28];
      v[29] = ~v[29];
    }
    for (let i = 0; i < 32; i++) m[i] = readUint32(this.block, 4 * i);
    for (let r = 0; r < 12; r++) {
      const s = SIGMA[r % 10];
      mix(v, m, 0, 8, 16, 24, s[0], s[1]);
      mix(v, m, 2, 10, 18, 26, s[2], s[3]);
      mix(v, m, 4, 12, 20, 28, s[4], s[5]);
      mix(v, m, 6, 14, 22, 30, s[6], s[7]);
      mix(v, m, 0, 10, 20, 30, s[8], s[9]);
      mix(v, m, 2, 12, 22, 24, s[10], s[11]);
      mix(v, m, 4, 14, 16, 26, s[12], s[13]);
      mix(v, m, 6, 8, 18, 28, s[14], s[15]);
    }
    for (let i = 0; i < 16; i++) h[i] ^= v[i] ^ v[i + 16];
  }
}

/** One-shot BLAKE2b. */
export function blake2b(data: Uint8Array, outLength: number, options: Blake2bOptions = {}): Buffer {
  return new Blake2b(outLength, options).update(data).digest();
}

function fitted(value: Uint8Array | undefined, name: string): Uint8Array {
  if (!value) return new Uint8Array(16);
  if (value.length > 16) throw new RangeError(`BLAKE2b ${name} of ${value.length} bytes is longer than 16`);
  const out = new Uint8Array(16);
  out.set(value);
  return out;
}

function readUint32(bytes: Uint8Array, at: number): number {
  return (bytes[at] | (bytes[at + 1] << 8) | (bytes[at + 2] << 16) | (bytes[at + 3] << 24)) >>> 0;
}

// v[a] += v[b] (64-bit)
function add(v: Uint32Array, a: number, b: number): void {
  const lo = v[a] + v[b];
  v[a + 1] = v[a + 1] + v[b + 1] + (lo >= 0x100000000 ? 1 : 0);
  v[a] = lo;
}

// v[a] += m[i] (64-bit)
function addWord(v: Uint32Array, a: number, m: Uint32Array, i: number): void {
  const lo = v[a] + m[i];
  v[a + 1] = v[a + 1] + m[i + 1] + (lo >= 0x100000000 ? 1 : 0);
  v[a] = lo;
}

// v[d] = (v[d] ^ v[a]) >>> bits, for the four rotation widths BLAKE2b uses
export function xorRotate(v: Uint32Array, d: number, a: number, bits: 32 | 24 | 16 | 63): void {
  const lo = v[d] ^ v[a];
  const hi = v[d + 1] ^ v[a + 1];
  if (bits === 32) {
    v[d] = hi;
    v[d + 1] = lo;
  } else if (bits === 63) {
    v[d] = (lo << 1) | (hi >>> 31);
    v[d + 1] = (hi << 1) | (lo >>> 31);
  } else {
    v[d] = (lo >>> bits) | (hi << (32 - bits));
    v[d + 1] = (hi >>> bits) | (lo << (32 - bits));
  }
}

function mix(v: Uint32Array, m: Uint32Array, a: number, b: number, c: number, d: number, x: number, y: number): void {
  add(v, a, b);
  addWord(v, a, m, x);
  xorRotate(v, d, a, 32);
  add(v, c, d);
  xorRotate(v, b, c, 24);
  add(v, a, b);
  addWord(v, a, m, y);
  xorRotate(v, d, a, 16);
  add(v, c, d);
  xorRotate(v, b, c, 63);
}
