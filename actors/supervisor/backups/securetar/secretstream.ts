/**
 * libsodium's `crypto_secretstream_xchacha20poly1305`, byte for byte: HChaCha20 turns the
 * key and the first 16 header bytes into a subkey, each message is ChaCha20 (IETF, Node's
 * `chacha20`) plus a Poly1305 tag (tweetnacl's `crypto_onetimeauth`), and the state's nonce
 * and counter move on after each message and rekey the way libsodium does. Hand-written
 * because the dependency list is fixed; the tests check it against libsodium both ways.
 */
import { createCipheriv, randomBytes, timingSafeEqual } from 'node:crypto';
import nacl from 'tweetnacl';

export const KEYBYTES = 32;
export const HEADERBYTES = 24;
/** bytes each message grows by: one tag byte and a 16-byte MAC */
export const ABYTES = 17;
export const TAG_MESSAGE = 0;
export const TAG_PUSH = 1;
export const TAG_REKEY = 2;
export const TAG_FINAL = TAG_PUSH | TAG_REKEY;

const onetimeauth = (nacl as unknown as {
  lowlevel: { crypto_onetimeauth(out: Uint8Array, outpos: number, m: Uint8Array, mpos: number, n: number, k: Uint8Array): number };
}).lowlevel.crypto_onetimeauth;

/** A message failed authentication: a wrong key, a tampered or a reordered chunk. */
export class SecretStreamAuthError extends Error {
  constructor() {
    super('secretstream message failed authentication (corrupted or tampered data)');
    this.name = 'SecretStreamAuthError';
  }
}

/** HChaCha20 (draft-irtf-cfrg-xchacha §2.2): the ChaCha20 core without the final addition. */
export function hchacha20(key: Uint8Array, input: Uint8Array): Buffer {
  if (key.length !== 32 || input.length !== 16) throw new RangeError('HChaCha20 takes a 32-byte key and a 16-byte input');
  const s = new Uint32Array(16);
  s[0] = 0x61707865;
  s[1] = 0x3320646e;
  s[2] = 0x79622d32;
  s[3] = 0x6b206574;
  const k = Buffer.from(key.buffer, key.byteOffset, key.byteLength);
  const n = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  for (let i = 0; i < 8; i++) s[4 + i] = k.readUInt32LE(4 * i);
  for (let i = 0; i < 4; i++) s[12 + i] = n.readUInt32LE(4 * i);
  for (let i = 0; i < 10; i++) {
    quarter(s, 0, 4, 8, 12);
    quarter(s, 1, 5, 9, 13);
    quarter(s, 2, 6, 10, 14);
    quarter(s, 3, 7, 11, 15);
    quarter(s, 0, 5, 10, 15);
    quarter(s, 1, 6, 11, 12);
    quarter(s, 2, 7, 8, 13);
    quarter(s, 3, 4, 9, 14);
  }
  const out = Buffer.alloc(32);
  for (let i = 0; i < 4; i++) {
    out.writeUInt32LE(s[i], 4 * i);
    out.writeUInt32LE(s[12 + i], 16 + 4 * i);
  }
  return out;
}

function quarter(s: Uint32Array, a: number, b: number, c: number, d: number): void {
  s[a] += s[b];
  s[d] = rotl(s[d] ^ s[a], 16);
  s[c] += s[d];
  s[b] = rotl(s[b] ^ s[c], 12);
  s[a] += s[b];
  s[d] = rotl(s[d] ^ s[a], 8);
  s[c] += s[d];
  s[b] = rotl(s[b] ^ s[c], 7);
}

const rotl = (x: number, n: number) => (x << n) | (x >>> (32 - n));

/** ChaCha20 (IETF: 32-bit block counter, 12-byte nonce) of `data` starting at block `counter`. */
function chacha20(key: Uint8Array, nonce: Uint8Array, counter: number, data: Uint8Array): Buffer {
  const iv = Buffer.alloc(16);
  iv.writeUInt32LE(counter, 0);
  iv.set(nonce, 4);
  const cipher = createCipheriv('chacha20', key, iv);
  return Buffer.concat([cipher.update(data), cipher.final()]);
}

/** The state both ends keep: subkey, 32-bit counter and 8-byte inner nonce. */
export class SecretStreamState {
  private readonly key = Buffer.alloc(32);
  // libsodium's 12-byte nonce: LE32 counter then the inner nonce
  private readonly nonce = Buffer.alloc(12);

  private constructor(key: Uint8Array, header: Uint8Array) {
    if (key.length !== KEYBYTES) throw new RangeError(`secretstream key must be ${KEYBYTES} bytes, got ${key.length}`);
    if (header.length !== HEADERBYTES) throw new RangeError(`secretstream header must be ${HEADERBYTES} bytes, got ${header.length}`);
    hchacha20(key, header.subarray(0, 16)).copy(this.key);
    this.resetCounter();
    this.nonce.set(header.subarray(16, 24), 4);
  }

  /** `init_push`: a fresh random header (sent ahead of the stream) and the sender's state. */
  static initPush(key: Uint8Array, header: Uint8Array = randomBytes(HEADERBYTES)): { state: SecretStreamState; header: Buffer } {
    return { state: new SecretStreamState(key, header), header: Buffer.from(header) };
  }

  /** `init_pull`: the receiver's state from the sender's header. */
  static initPull(key: Uint8Array, header: Uint8Array): SecretStreamState {
    return new SecretStreamState(key, header);
  }

  /** `push`: tag byte, ciphertext and MAC of one message. */
  push(message: Uint8Array, tag: number = TAG_MESSAGE, ad: Uint8Array = new Uint8Array(0)): Buffer {
    const { polyKey, block } = this.blocks(tag, undefined);
    const out = Buffer.alloc(1 + message.length + 16);
    out[0] = block[0];
    const body = chacha20(this.key, this.nonce, 2, message);
    body.copy(out, 1);
    const mac = this.mac(polyKey, ad, block, body);
    mac.copy(out, 1 + message.length);
    this.advance(mac, tag);
    return out;
  }

  /** `pull`: the message and its tag; throws SecretStreamAuthError and keeps the state when it does not verify. */
  pull(input: Uint8Array, ad: Uint8Array = new Uint8Array(0)): { message: Buffer; tag: number } {
    if (input.length < ABYTES) throw new SecretStreamAuthError();
    const body = input.subarray(1, input.length - 16);
    const given = input.subarray(input.length - 16);
    const { polyKey, block, tag } = this.blocks(undefined, input[0]);
    const mac = this.mac(polyKey, ad, block, body);
    if (!timingSafeEqual(mac, given)) throw new SecretStreamAuthError();
    const message = chacha20(this.key, this.nonce, 2, body);
    this.advance(mac, tag);
    return { message, tag };
  }

  // The Poly1305 key (keystream block 0) and the 64-byte block that carries the tag
  // (keystream block 1 with its first byte being the encrypted tag).
  private blocks(tag: number | undefined, encryptedTag: number | undefined): { polyKey: Buffer; block: Buffer; tag: number } {
    const stream = chacha20(this.key, this.nonce, 0, Buffer.alloc(128));
    const polyKey = stream.subarray(0, 32);
    const block = Buffer.from(stream.subarray(64, 128));
    if (tag !== undefined) {
      block[0] ^= tag;
      return { polyKey, block, tag };
    }
    const decrypted = block[0] ^ encryptedTag!;
    block[0] = encryptedTag!;
    return { polyKey, block, tag: decrypted };
  }

  private mac(polyKey: Uint8Array, ad: Uint8Array, block: Uint8Array, body: Uint8Array): Buffer {
    const adPad = (0x10 - ad.length) & 0xf;
    const bodyPad = (0x10 - 64 + body.length) & 0xf;
    const input = Buffer.alloc(ad.length + adPad + 64 + body.length + bodyPad + 16);
    let at = 0;
    input.set(ad, at);
    at += ad.length + adPad;
    input.set(block, at);
    at += 64;
    input.set(body, at);
    at += body.length + bodyPad;
    input.writeBigUInt64LE(BigInt(ad.length), at);
    input.writeBigUInt64LE(BigInt(64 + body.length), at + 8);
    const mac = Buffer.alloc(16);
    onetimeauth(mac, 0, input, 0, input.length, polyKey);
    return mac;
  }

  private advance(mac: Uint8Array, tag: number): void {
    for (let i = 0; i < 8; i++) this.nonce[4 + i] ^= mac[i];
    const counter = (this.nonce.readUInt32LE(0) + 1) >>> 0;
    this.nonce.writeUInt32LE(counter, 0);
    if ((tag & TAG_REKEY) !== 0 || counter === 0) this.rekey();
  }

  /** `rekey`: the subkey and inner nonce replaced by their own encryption; also done after REKEY/FINAL tags. */
  rekey(): void {
    const fresh = chacha20(this.key, this.nonce, 0, Buffer.concat([this.key, this.nonce.subarray(4, 12)]));
    fresh.copy(this.key, 0, 0, 32);
    fresh.copy(this.nonce, 4, 32, 40);
    this.resetCounter();
  }

  private resetCounter(): void {
    this.nonce.writeUInt32LE(1, 0);
  }
}
