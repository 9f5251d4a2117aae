/**
 * The libsodium primitives SecureTar v3 is made of (Argon2id, BLAKE2b with salt and personal,
 * XChaCha20-Poly1305 secretstream), from libsodium itself: libsodium-wrappers-sumo, the C
 * library compiled to WASM, the same code the original's securetar reaches through PyNaCl.
 * The WASM module is instantiated once, on first use; the calls after that are synchronous,
 * so a stream pays no await per chunk.
 */
import sodium, { type StateAddress } from 'libsodium-wrappers-sumo';

export type Sodium = typeof sodium;

/** bytes each secretstream message grows by: one tag byte and a 16-byte MAC */
export const ABYTES = 17;
export const TAG_MESSAGE = 0;
export const TAG_FINAL = 3;
const SALT_BYTES = 16;
const PERSONAL_BYTES = 16;

let loading: Promise<Sodium> | undefined;

/** libsodium, ready for synchronous calls; a supervisor that never encrypts never instantiates it. */
export function loadSodium(): Promise<Sodium> {
  loading ??= sodium.ready.then(() => sodium);
  return loading;
}

const asBuffer = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export interface PwhashCost {
  /** passes over memory */
  opslimit: number;
  /** bytes */
  memlimit: number;
}

/** `crypto_pwhash` with ALG_ARGON2ID13: Argon2id v1.3, one lane, a 16-byte salt. */
export function argon2id(lib: Sodium, outLength: number, password: Uint8Array, salt: Uint8Array, cost: PwhashCost): Buffer {
  return asBuffer(lib.crypto_pwhash(outLength, password, salt, cost.opslimit, cost.memlimit, lib.crypto_pwhash_ALG_ARGON2ID13));
}

/**
 * BLAKE2b of the empty message under `key`, with salt and personal zero-padded to 16 bytes
 * as PyNaCl pads them (`crypto_generichash_blake2b_salt_personal`; the wrappers take no message).
 */
export function blake2bSaltPersonal(lib: Sodium, outLength: number, key: Uint8Array | null, salt: Uint8Array, personal: Uint8Array): Buffer {
  return asBuffer(lib.crypto_generichash_blake2b_salt_personal(outLength, key, padded(salt, SALT_BYTES, 'salt'), padded(personal, PERSONAL_BYTES, 'personal')));
}

function padded(bytes: Uint8Array, size: number, name: string): Uint8Array {
  if (bytes.length > size) throw new RangeError(`BLAKE2b ${name} of ${bytes.length} bytes is longer than ${size}`);
  const out = new Uint8Array(size);
  out.set(bytes);
  return out;
}

/** A secretstream message failed authentication: a wrong key, a tampered, cut or reordered chunk. */
export class SecretStreamAuthError extends Error {
  constructor() {
    super('secretstream message failed authentication (corrupted or tampered data)');
    this.name = 'SecretStreamAuthError';
  }
}

/**
 * One end of a `crypto_secretstream_xchacha20poly1305` stream. Its state lives in libsodium's
 * WASM heap (52 bytes the wrappers give no way to free).
 */
export class SecretStream {
  private constructor(
    private readonly lib: Sodium,
    private readonly state: StateAddress,
  ) {}

  /** `init_push`: the sender's end and the random header sent ahead of the stream. */
  static initPush(lib: Sodium, key: Uint8Array): { stream: SecretStream; header: Buffer } {
    const { state, header } = lib.crypto_secretstream_xchacha20poly1305_init_push(key);
    return { stream: new SecretStream(lib, state), header: asBuffer(header) };
  }

  /** `init_pull`: the receiver's end from the sender's header. */
  static initPull(lib: Sodium, key: Uint8Array, header: Uint8Array): SecretStream {
    return new SecretStream(lib, lib.crypto_secretstream_xchacha20poly1305_init_pull(header, key));
  }

  /** Tag byte, ciphertext and MAC of one message. */
  push(message: Uint8Array, tag: number): Buffer {
    return asBuffer(this.lib.crypto_secretstream_xchacha20poly1305_push(this.state, message, null, tag));
  }

  /** The message and its tag; SecretStreamAuthError (the state unchanged) when it does not verify. */
  pull(chunk: Uint8Array): { message: Buffer; tag: number } {
    if (chunk.length < ABYTES) throw new SecretStreamAuthError();
    const pulled = this.lib.crypto_secretstream_xchacha20poly1305_pull(this.state, chunk, null);
    if (!pulled) throw new SecretStreamAuthError();
    return { message: asBuffer(pulled.message), tag: pulled.tag };
  }
}
