/**
 * Argon2id version 1.3 (RFC 9106), the `crypto_pwhash` ALG_ARGON2ID13 of libsodium that
 * SecureTar v3 derives its root key with. Hand-written (fixed dependency list) and checked in
 * the tests against RFC 9106 §5.3 and libsodium. Memory is one Uint32Array of 1 KiB blocks,
 * each block 128 64-bit words stored as (low, high) pairs.
 */
import { Blake2b, xorRotate } from './blake2b.ts';

export interface Argon2idParams {
  password: Uint8Array;
  salt: Uint8Array;
  /** passes over memory (libsodium's opslimit) */
  iterations: number;
  /** KiB (libsodium's memlimit / 1024) */
  memoryKiB: number;
  parallelism?: number;
  tagLength?: number;
  secret?: Uint8Array;
  associatedData?: Uint8Array;
}

const VERSION = 0x13;
const TYPE_ID = 2;
const BLOCK_WORDS = 256; // 32-bit words per 1 KiB block
const SYNC_POINTS = 4;

/** The libsodium `crypto_pwhash` call SecureTar v3 makes: opslimit 8, memlimit 16 MiB, 32 bytes. */
export function secureTarRootKey(password: Uint8Array, salt: Uint8Array): Promise<Buffer> {
  return argon2idAsync(secureTarParams(password, salt));
}

export function secureTarParams(password: Uint8Array, salt: Uint8Array): Argon2idParams {
  return { password, salt, iterations: 8, memoryKiB: 16 * 1024, parallelism: 1, tagLength: 32 };
}

/** Argon2id in one go (blocks the thread for the whole computation). */
export function argon2id(params: Argon2idParams): Buffer {
  const steps = argon2idSteps(params);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
  }
}

/**
 * Argon2id that gives the event loop a turn after each segment: SecureTar's parameters take
 * seconds in JavaScript, and a supervisor must keep answering meanwhile.
 */
export async function argon2idAsync(params: Argon2idParams): Promise<Buffer> {
  const steps = argon2idSteps(params);
  for (;;) {
    const step = steps.next();
    if (step.done) return step.value;
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}

function* argon2idSteps(params: Argon2idParams): Generator<void, Buffer> {
  const lanes = params.parallelism ?? 1;
  const tagLength = params.tagLength ?? 32;
  const { iterations, memoryKiB } = params;
  if (!Number.isInteger(lanes) || lanes < 1) throw new RangeError(`Argon2id parallelism ${lanes} is not a positive integer`);
  if (!Number.isInteger(iterations) || iterations < 1) throw new RangeError(`Argon2id iterations ${iterations} is not a positive integer`);
  if (!Number.isInteger(memoryKiB) || memoryKiB < 8 * lanes) throw new RangeError(`Argon2id memory ${memoryKiB} KiB is below 8 KiB per lane`);
  if (!Number.isInteger(tagLength) || tagLength < 4) throw new RangeError(`Argon2id tag length ${tagLength} is below 4`);
  if (params.salt.length < 8) throw new RangeError(`Argon2id salt of ${params.salt.length} bytes is shorter than 8`);

  const blockCount = 4 * lanes * Math.floor(memoryKiB / (4 * lanes));
  const laneLength = blockCount / lanes;
  const segmentLength = laneLength / SYNC_POINTS;

  const h0 = new Blake2b(64);
  for (const n of [lanes, tagLength, memoryKiB, iterations, VERSION, TYPE_ID]) h0.update(le32(n));
  for (const field of [params.password, params.salt, params.secret ?? new Uint8Array(0), params.associatedData ?? new Uint8Array(0)]) {
    h0.update(le32(field.length)).update(field);
  }
  const seed = h0.digest();

  const memory = new Uint32Array(blockCount * BLOCK_WORDS);
  for (let lane = 0; lane < lanes; lane++) {
    for (let column = 0; column < 2; column++) {
      const block = variableHash(1024, Buffer.concat([seed, le32(column), le32(lane)]));
      memory.set(bytesToWords(block), (lane * laneLength + column) * BLOCK_WORDS);
    }
  }

  const work = new Work();
  for (let pass = 0; pass < iterations; pass++) {
    for (let slice = 0; slice < SYNC_POINTS; slice++) {
      for (let lane = 0; lane < lanes; lane++) {
        fillSegment(memory, work, { pass, slice, lane, lanes, laneLength, segmentLength, blockCount, iterations });
        yield;
      }
    }
  }

  const final = new Uint32Array(BLOCK_WORDS);
  for (let lane = 0; lane < lanes; lane++) {
    const last = (lane * laneLength + laneLength - 1) * BLOCK_WORDS;
    for (let i = 0; i < BLOCK_WORDS; i++) final[i] ^= memory[last + i];
  }
  return variableHash(tagLength, wordsToBytes(final));
}

interface Position {
  pass: number;
  slice: number;
  lane: number;
  lanes: number;
  laneLength: number;
  segmentLength: number;
  blockCount: number;
  iterations: number;
}

/** Scratch blocks reused by every compression, so the hot loop allocates nothing. */
class Work {
  readonly r = new Uint32Array(BLOCK_WORDS);
  readonly tmp = new Uint32Array(BLOCK_WORDS);
  readonly zero = new Uint32Array(BLOCK_WORDS);
  readonly input = new Uint32Array(BLOCK_WORDS);
  readonly address = new Uint32Array(BLOCK_WORDS);
}

function fillSegment(memory: Uint32Array, work: Work, p: Position): void {
  // Argon2id: data-independent addressing in the first half of the first pass only
  const independent = p.pass === 0 && p.slice < SYNC_POINTS / 2;
  if (independent) {
    work.input.fill(0);
    const fields = [p.pass, p.lane, p.slice, p.blockCount, p.iterations, TYPE_ID];
    fields.forEach((value, i) => (work.input[2 * i] = value));
  }
  let start = 0;
  if (p.pass === 0 && p.slice === 0) {
    start = 2;
    if (independent) nextAddresses(work);
  }
  let current = p.lane * p.laneLength + p.slice * p.segmentLength + start;
  let previous = current % p.laneLength === 0 ? current + p.laneLength - 1 : current - 1;
  for (let i = start; i < p.segmentLength; i++, current++, previous++) {
    if (current % p.laneLength === 1) previous = current - 1;
    let randLow: number;
    let randHigh: number;
    if (independent) {
      if (i % 128 === 0) nextAddresses(work);
      randLow = work.address[2 * (i % 128)];
      randHigh = work.address[2 * (i % 128) + 1];
    } else {
      randLow = memory[previous * BLOCK_WORDS];
      randHigh = memory[previous * BLOCK_WORDS + 1];
    }
    const refLane = p.pass === 0 && p.slice === 0 ? p.lane : randHigh % p.lanes;
    const refIndex = referenceIndex(p, i, randLow, refLane === p.lane);
    const ref = (refLane * p.laneLength + refIndex) * BLOCK_WORDS;
    // version 1.3 XORs the new block into the old one on every pass after the first
    fillBlock(memory, previous * BLOCK_WORDS, memory, ref, memory, current * BLOCK_WORDS, p.pass > 0, work);
  }
}

function nextAddresses(work: Work): void {
  // the counter is a 64-bit word; the low half never wraps at the sizes Argon2 allows
  work.input[12] = (work.input[12] + 1) >>> 0;
  fillBlock(work.zero, 0, work.input, 0, work.address, 0, false, work);
  fillBlock(work.zero, 0, work.address, 0, work.address, 0, false, work);
}

function referenceIndex(p: Position, index: number, randLow: number, sameLane: boolean): number {
  let areaSize: number;
  if (p.pass === 0) {
    if (p.slice === 0) areaSize = index - 1;
    else if (sameLane) areaSize = p.slice * p.segmentLength + index - 1;
    else areaSize = p.slice * p.segmentLength + (index === 0 ? -1 : 0);
  } else if (sameLane) areaSize = p.laneLength - p.segmentLength + index - 1;
  else areaSize = p.laneLength - p.segmentLength + (index === 0 ? -1 : 0);
  const x = BigInt(randLow);
  const y = (x * x) >> 32n;
  const z = (BigInt(areaSize) * y) >> 32n;
  const relative = areaSize - 1 - Number(z);
  const startPosition = p.pass !== 0 && p.slice !== SYNC_POINTS - 1 ? (p.slice + 1) * p.segmentLength : 0;
  return (startPosition + relative) % p.laneLength;
}

/** next = G(prev, ref), XORed into next's old content when `withXor`. Buffers may alias. */
function fillBlock(
  prevMem: Uint32Array,
  prevAt: number,
  refMem: Uint32Array,
  refAt: number,
  nextMem: Uint32Array,
  nextAt: number,
  withXor: boolean,
  work: Work,
): void {
  const { r, tmp } = work;
  for (let i = 0; i < BLOCK_WORDS; i++) r[i] = refMem[refAt + i] ^ prevMem[prevAt + i];
  if (withXor) for (let i = 0; i < BLOCK_WORDS; i++) tmp[i] = r[i] ^ nextMem[nextAt + i];
  else tmp.set(r);
  // rows: 64-bit words 16i..16i+15 (32-bit index 32i..)
  for (let i = 0; i < 8; i++) {
    const o = 32 * i;
    round(r, o, o + 2, o + 4, o + 6, o + 8, o + 10, o + 12, o + 14, o + 16, o + 18, o + 20, o + 22, o + 24, o + 26, o + 28, o + 30);
  }
  // columns: 64-bit words 2i, 2i+1, 2i+16, 2i+17, ..., 2i+112, 2i+113
  for (let i = 0; i < 8; i++) {
    const o = 4 * i;
    round(r, o, o + 2, o + 32, o + 34, o + 64, o + 66, o + 96, o + 98, o + 128, o + 130, o + 160, o + 162, o + 192, o + 194, o + 224, o + 226);
  }
  for (let i = 0; i < BLOCK_WORDS; i++) nextMem[nextAt + i] = tmp[i] ^ r[i];
}

function round(
  v: Uint32Array,
  v0: number, v1: number, v2: number, v3: number, v4: number, v5: number, v6: number, v7: number,
  v8: number, v9: number, v10: number, v11: number, v12: number, v13: number, v14: number, v15: number,
): void {
  gb(v, v0, v4, v8, v12);
  gb(v, v1, v5, v9, v13);
  gb(v, v2, v6, v10, v14);
  gb(v, v3, v7, v11, v15);
  gb(v, v0, v5, v10, v15);
  gb(v, v1, v6, v11, v12);
  gb(v, v2, v7, v8, v13);
  gb(v, v3, v4, v9, v14);
}

function gb(v: Uint32Array, a: number, b: number, c: number, d: number): void {
  blaMka(v, a, b);
  xorRotate(v, d, a, 32);
  blaMka(v, c, d);
  xorRotate(v, b, c, 24);
  blaMka(v, a, b);
  xorRotate(v, d, a, 16);
  blaMka(v, c, d);
  xorRotate(v, b, c, 63);
}

// v[x] = v[x] + v[y] + 2 * low32(v[x]) * low32(v[y]), all mod 2^64
function blaMka(v: Uint32Array, x: number, y: number): void {
  const xl = v[x];
  const yl = v[y];
  // 32x32 -> 64-bit product from 16-bit halves (each partial product is exact in a double)
  const a0 = xl & 0xffff;
  const a1 = xl >>> 16;
  const b0 = yl & 0xffff;
  const b1 = yl >>> 16;
  const ll = a0 * b0;
  const hl = a1 * b0;
  const lh = a0 * b1;
  const carry = (ll >>> 16) + (hl & 0xffff) + lh;
  let productHigh = (a1 * b1 + (hl >>> 16) + Math.floor(carry / 0x10000)) >>> 0;
  let productLow = (((carry & 0xffff) << 16) | (ll & 0xffff)) >>> 0;
  productHigh = ((productHigh << 1) | (productLow >>> 31)) >>> 0;
  productLow = (productLow << 1) >>> 0;
  let lo = xl + yl;
  let hi = v[x + 1] + v[y + 1] + (lo >= 0x100000000 ? 1 : 0);
  lo = lo >>> 0;
  const lo2 = lo + productLow;
  hi = hi + productHigh + (lo2 >= 0x100000000 ? 1 : 0);
  v[x] = lo2;
  v[x + 1] = hi;
}

/** H' of RFC 9106 §3.3: BLAKE2b stretched to any length. */
function variableHash(length: number, input: Uint8Array): Buffer {
  const prefixed = Buffer.concat([le32(length), input]);
  if (length <= 64) return new Blake2b(length).update(prefixed).digest();
  const out = Buffer.alloc(length);
  const r = Math.ceil(length / 32) - 2;
  let v = new Blake2b(64).update(prefixed).digest();
  v.copy(out, 0, 0, 32);
  for (let i = 1; i < r; i++) {
    v = new Blake2b(64).update(v).digest();
    v.copy(out, 32 * i, 0, 32);
  }
  new Blake2b(length - 32 * r).update(v).digest().copy(out, 32 * r);
  return out;
}

function le32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

function bytesToWords(bytes: Uint8Array): Uint32Array {
  const words = new Uint32Array(bytes.length / 4);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < words.length; i++) words[i] = view.getUint32(4 * i, true);
  return words;
}

function wordsToBytes(words: Uint32Array): Buffer {
  const out = Buffer.alloc(words.length * 4);
  for (let i = 0; i < words.length; i++) out.writeUInt32LE(words[i], 4 * i);
  return out;
}
