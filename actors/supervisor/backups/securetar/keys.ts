/**
 * Keys from a backup's password. v1/v2: SHA-256 a hundred times, first 16 bytes (AES-128).
 * v3: one Argon2id root key per backup (root and validation salts shared by all of its inner
 * files), then per file a BLAKE2b key from the root key and that file's derivation salt.
 * One SecureTarKeys object serves one backup, so Argon2id runs once per backup, not per file.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { InvalidPasswordError } from './errors.ts';
import { argon2id, blake2bSaltPersonal, loadSodium, type PwhashCost, type Sodium } from './sodium.ts';

const PERSONAL = Buffer.from('SecureTarv3', 'ascii');
const SALT_SIZE = 16;
/** the original's `crypto_pwhash` cost: opslimit 8, memlimit 16 MiB */
export const ROOT_KEY_COST: PwhashCost = { opslimit: 8, memlimit: 16 * 1024 * 1024 };

export interface V3Root {
  rootKey: Buffer;
  rootSalt: Buffer;
  validationSalt: Buffer;
  validationKey: Buffer;
}

/** SHA-256 applied `rounds` times, each round on the previous digest. */
export function sha256Rounds(input: Uint8Array, rounds = 100): Buffer {
  let digest = Buffer.from(input);
  for (let i = 0; i < rounds; i++) digest = createHash('sha256').update(digest).digest();
  return digest;
}

/** v1/v2 AES-128 IV from key and per-file salt. */
export function aesIv(key: Uint8Array, salt: Uint8Array): Buffer {
  return sha256Rounds(Buffer.concat([key, salt])).subarray(0, 16);
}

/** The v3 root key: Argon2id of the password, 32 bytes. */
export function v3RootKey(lib: Sodium, password: string, rootSalt: Uint8Array): Buffer {
  return argon2id(lib, 32, Buffer.from(password, 'utf8'), rootSalt, ROOT_KEY_COST);
}

/** BLAKE2b-256 keyed by the root key with personal "SecureTarv3": the validation key and each file key. */
export function v3SubKey(lib: Sodium, rootKey: Uint8Array, salt: Uint8Array): Buffer {
  return blake2bSaltPersonal(lib, 32, rootKey, salt, PERSONAL);
}

export class SecureTarKeys {
  private aes?: Buffer;
  private writeRoot?: Promise<V3Root>;
  // promises, so files encrypted or read side by side still share one derivation
  private readonly readRoots = new Map<string, Promise<V3Root>>();
  /** how many times Argon2id ran for this object (once per backup when all goes well) */
  rootDerivations = 0;

  constructor(private readonly password: string) {}

  /** The v1/v2 AES-128 key. */
  aesKey(): Buffer {
    this.aes ??= sha256Rounds(Buffer.from(this.password, 'utf8')).subarray(0, 16);
    return this.aes;
  }

  /** The root this backup writes its v3 files with: fresh salts, made once. */
  rootForWriting(): Promise<V3Root> {
    if (!this.writeRoot) {
      const rootSalt = randomBytes(SALT_SIZE);
      const validationSalt = randomBytes(SALT_SIZE);
      this.writeRoot = this.derive(rootSalt, validationSalt);
      this.readRoots.set(rootId(rootSalt, validationSalt), this.writeRoot);
    }
    return this.writeRoot;
  }

  /** The root a v3 file was written with; InvalidPasswordError when its validation key differs. */
  async rootForReading(rootSalt: Buffer, validationSalt: Buffer, validationKey: Buffer): Promise<V3Root> {
    const id = rootId(rootSalt, validationSalt);
    let pending = this.readRoots.get(id);
    if (!pending) {
      pending = this.derive(Buffer.from(rootSalt), Buffer.from(validationSalt));
      this.readRoots.set(id, pending);
    }
    const root = await pending;
    if (!timingSafeEqual(root.validationKey, validationKey)) throw new InvalidPasswordError('the validation key does not match');
    return root;
  }

  // Argon2id holds this thread for the whole derivation (about 0.1 s at the original's cost),
  // once per backup: cheaper than a worker, which would instantiate libsodium's WASM again.
  private async derive(rootSalt: Buffer, validationSalt: Buffer): Promise<V3Root> {
    this.rootDerivations++;
    const lib = await loadSodium();
    const rootKey = v3RootKey(lib, this.password, rootSalt);
    return { rootKey, rootSalt, validationSalt, validationKey: v3SubKey(lib, rootKey, validationSalt) };
  }
}

const rootId = (rootSalt: Buffer, validationSalt: Buffer) => rootSalt.toString('hex') + validationSalt.toString('hex');
