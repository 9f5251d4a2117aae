/**
 * SecureTar (supervisor-wire §5.5): the encryption of a backup's inner archives, byte-compatible
 * with the original's `securetar` package. Streams both ways, so a multi-GiB inner archive
 * never sits in memory: v2 is AES-128-CBC, v3 is XChaCha20-Poly1305 secretstream in 1 MiB
 * chunks under an Argon2id root key shared by one backup (SecureTarKeys).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { open, rm, type FileHandle } from 'node:fs/promises';
import { ByteReader, type ByteSource } from './bytes.ts';
import { InvalidPasswordError, SecureTarError } from './errors.ts';
import { decodeHeader, encodeHeader, FILE_ID_SIZE, headerSize, inspectFileId, V3_CIPHER_INIT_SIZE, type SecureTarVersion } from './header.ts';
import { aesIv, SecureTarKeys, v3SubKey } from './keys.ts';
import { ABYTES, loadSodium, SecretStream, SecretStreamAuthError, TAG_FINAL, TAG_MESSAGE } from './sodium.ts';

export { SecureTarKeys } from './keys.ts';
export { SecureTarError, InvalidPasswordError } from './errors.ts';
export type { SecureTarVersion } from './header.ts';

/** v3 plaintext chunk size */
export const CHUNK_SIZE = 1024 * 1024;
const AES_BLOCK = 16;
const READ_SIZE = 64 * 1024;
// the v1/v2 password check looks at the first tar block
const TAR_BLOCK = 512;

export interface EncryptOptions {
  version: 2 | 3;
  /** recorded in the header; without it the header carries 0 and the caller patches in `EncryptResult.header` */
  plaintextSize?: number;
}

export interface EncryptResult {
  plaintextSize: number;
  ciphertextSize: number;
  /** the header with the real plaintext size, for callers that wrote the provisional one first */
  header: Buffer;
}

export interface DecryptOptions {
  /**
   * v1/v2 only: check the first 512 plaintext bytes look like gzip or tar (the original's
   * password check). Off only for callers that encrypt something other than an archive.
   */
  expectArchive?: boolean;
}

export interface DecryptResult {
  version: SecureTarVersion;
  plaintextSize: number;
}

/** Ciphertext bytes (header included) for a plaintext of `size` bytes. */
export function encryptedSize(size: number, version: 2 | 3): number {
  if (version === 2) return headerSize(2) + size + AES_BLOCK - (size % AES_BLOCK);
  return headerSize(3) + size + ABYTES * Math.max(1, Math.ceil(size / CHUNK_SIZE));
}

const keysOf = (keys: SecureTarKeys | string) => (typeof keys === 'string' ? new SecureTarKeys(keys) : keys);

/**
 * Encrypts `source`: yields the header, then the ciphertext. The generator's return value
 * has the sizes and the final header (a caller that did not know the size up front rewrites
 * the header with it). A known `plaintextSize` that the source does not match is an error.
 */
export async function* encrypt(source: ByteSource, keys: SecureTarKeys | string, options: EncryptOptions): AsyncGenerator<Buffer, EncryptResult> {
  const k = keysOf(keys);
  const declared = options.plaintextSize ?? (source instanceof Uint8Array ? source.length : undefined);
  if (options.version !== 2 && options.version !== 3) throw new SecureTarError('unsupported', `SecureTar can write versions 2 and 3, not ${String(options.version)}`);
  if (declared !== undefined && !(Number.isSafeInteger(declared) && declared >= 0)) throw new RangeError(`SecureTar plaintext size ${declared} is not a byte count`);
  const reader = new ByteReader(source);
  try {
    const sealer = options.version === 2 ? aesSealer(k) : await secretStreamSealer(k);
    const provisional = encodeHeader(options.version, declared ?? 0, sealer.cipherInit);
    yield provisional;
    let ciphertextSize = provisional.length;
    const body = sealer.body(reader);
    let step = await body.next();
    for (; !step.done; step = await body.next()) {
      ciphertextSize += step.value.length;
      yield step.value;
    }
    const plaintextSize = step.value;
    if (declared !== undefined && declared !== plaintextSize) {
      throw new SecureTarError('size_mismatch', `SecureTar plaintext was ${plaintextSize} bytes, not the ${declared} announced in its header`);
    }
    return { plaintextSize, ciphertextSize, header: encodeHeader(options.version, plaintextSize, sealer.cipherInit) };
  } finally {
    await reader.close();
  }
}

/** One file's cipher: the header's cipher initialisation, and the ciphertext of a source (returning the plaintext size). */
interface Sealer {
  cipherInit: Buffer;
  body(reader: ByteReader): AsyncGenerator<Buffer, number>;
}

function aesSealer(keys: SecureTarKeys): Sealer {
  const salt = randomBytes(16);
  const key = keys.aesKey();
  return {
    cipherInit: salt,
    async *body(reader) {
      // Node's PKCS#7 padding is the original's: 1..16 bytes, a whole block when already aligned
      const cipher = createCipheriv('aes-128-cbc', key, aesIv(key, salt));
      let total = 0;
      for (;;) {
        const plain = await reader.read(READ_SIZE);
        if (plain.length === 0) break;
        total += plain.length;
        const out = cipher.update(plain);
        if (out.length) yield out;
      }
      yield cipher.final();
      return total;
    },
  };
}

async function secretStreamSealer(keys: SecureTarKeys): Promise<Sealer> {
  const lib = await loadSodium();
  const root = await keys.rootForWriting();
  const derivationSalt = randomBytes(16);
  const { stream, header } = SecretStream.initPush(lib, v3SubKey(lib, root.rootKey, derivationSalt));
  return {
    cipherInit: Buffer.concat([root.rootSalt, root.validationSalt, root.validationKey, derivationSalt, header]),
    async *body(reader) {
      // A chunk is FINAL when nothing follows it, so read one ahead; an empty plaintext is one empty FINAL chunk.
      let total = 0;
      let current = await reader.read(CHUNK_SIZE);
      for (;;) {
        const next = current.length === CHUNK_SIZE ? await reader.read(CHUNK_SIZE) : Buffer.alloc(0);
        total += current.length;
        const last = next.length === 0;
        yield stream.push(current, last ? TAG_FINAL : TAG_MESSAGE);
        if (last) return total;
        current = next;
      }
    },
  };
}

/**
 * Encrypts into a file, writing a provisional header first and the real plaintext size into
 * it at the end, the way the original writes an inner archive whose size it learns last.
 */
export async function encryptToFile(source: ByteSource, path: string, keys: SecureTarKeys | string, options: EncryptOptions): Promise<EncryptResult> {
  const file = await open(path, 'w');
  try {
    const chunks = encrypt(source, keys, options);
    let step = await chunks.next();
    for (; !step.done; step = await chunks.next()) await file.write(step.value);
    await file.write(step.value.header, 0, step.value.header.length, 0);
    return step.value;
  } finally {
    await file.close();
  }
}

/**
 * Decrypts a SecureTar file of any version (v1 recognised by its missing magic). Nothing is
 * yielded before the password is checked; a cut or altered v3 file fails instead of ending early.
 */
export async function* decrypt(source: ByteSource, keys: SecureTarKeys | string, options: DecryptOptions = {}): AsyncGenerator<Buffer, DecryptResult> {
  const k = keysOf(keys);
  const reader = new ByteReader(source);
  try {
    const fileId = await reader.read(FILE_ID_SIZE);
    const { rest } = inspectFileId(fileId);
    const header = decodeHeader(fileId, await reader.read(rest));
    if (header.version === 3) {
      const plaintextSize = yield* secretStreamPlain(reader, k, header.cipherInit, header.plaintextSize!);
      return { version: 3, plaintextSize };
    }
    const plaintextSize = yield* aesPlain(reader, k, header.cipherInit, options.expectArchive ?? true);
    return { version: header.version, plaintextSize };
  } finally {
    await reader.close();
  }
}

async function* aesPlain(reader: ByteReader, keys: SecureTarKeys, salt: Buffer, expectArchive: boolean): AsyncGenerator<Buffer, number> {
  const key = keys.aesKey();
  const decipher = createDecipheriv('aes-128-cbc', key, aesIv(key, salt)).setAutoPadding(false);
  // plaintext not yet handed out: the last block (its padding is stripped at the end) and,
  // before the password check, everything up to the first tar block
  let held = Buffer.alloc(0);
  let checked = !expectArchive;
  let cipherLength = 0;
  let total = 0;
  for (;;) {
    const chunk = await reader.read(READ_SIZE);
    if (chunk.length === 0) break;
    cipherLength += chunk.length;
    held = Buffer.concat([held, decipher.update(chunk)]);
    if (!checked && held.length >= TAR_BLOCK) {
      checkArchiveStart(held);
      checked = true;
    }
    if (checked && held.length > AES_BLOCK) {
      const out = held.subarray(0, held.length - AES_BLOCK);
      held = held.subarray(out.length);
      total += out.length;
      yield out;
    }
  }
  if (cipherLength === 0 || cipherLength % AES_BLOCK !== 0) {
    throw new SecureTarError('truncated', `SecureTar ciphertext of ${cipherLength} bytes is not a whole number of AES blocks`);
  }
  if (!checked) checkArchiveStart(held);
  const pad = held[held.length - 1];
  if (pad < 1 || pad > AES_BLOCK || pad > held.length) throw new SecureTarError('corrupt', `SecureTar data has invalid padding (${pad})`);
  const out = held.subarray(0, held.length - pad);
  total += out.length;
  if (out.length) yield out;
  return total;
}

function checkArchiveStart(plain: Buffer): void {
  const gzip = plain[0] === 0x1f && plain[1] === 0x8b && plain[2] === 0x08;
  const tar = plain.subarray(257, 262).toString('latin1') === 'ustar';
  if (!gzip && !tar) throw new InvalidPasswordError('the decrypted data is neither gzip nor tar');
}

async function* secretStreamPlain(reader: ByteReader, keys: SecureTarKeys, init: Buffer, plaintextSize: number): AsyncGenerator<Buffer, number> {
  if (init.length !== V3_CIPHER_INIT_SIZE) throw new SecureTarError('truncated', 'SecureTar v3 header is cut short');
  const lib = await loadSodium();
  const root = await keys.rootForReading(init.subarray(0, 16), init.subarray(16, 32), init.subarray(32, 64));
  const stream = SecretStream.initPull(lib, v3SubKey(lib, root.rootKey, init.subarray(64, 80)), init.subarray(80, 104));
  let remaining = plaintextSize + ABYTES * Math.max(1, Math.ceil(plaintextSize / CHUNK_SIZE));
  let total = 0;
  for (;;) {
    const want = Math.min(CHUNK_SIZE + ABYTES, remaining);
    const chunk = await reader.read(want);
    if (chunk.length < want) throw new SecureTarError('truncated', `SecureTar v3 data ends ${remaining - chunk.length} bytes early (truncated)`);
    remaining -= chunk.length;
    let message: Buffer;
    let tag: number;
    try {
      ({ message, tag } = stream.pull(chunk));
    } catch (error) {
      if (error instanceof SecretStreamAuthError) throw new SecureTarError('corrupt', 'SecureTar v3 data failed authentication (corrupted or tampered)');
      throw error;
    }
    if (tag === TAG_FINAL && remaining !== 0) throw new SecureTarError('corrupt', 'SecureTar v3 stream has its final tag before the end of its data');
    if (tag !== TAG_FINAL && remaining === 0) throw new SecureTarError('truncated', 'SecureTar v3 stream ends without its final tag (truncated)');
    total += message.length;
    if (message.length) yield message;
    if (tag === TAG_FINAL) break;
  }
  if ((await reader.read(1)).length > 0) throw new SecureTarError('corrupt', 'SecureTar v3 file has data after its final chunk');
  return total;
}

/**
 * Decrypts into a file. The file is created only once the password has been checked, and a
 * file that fails part-way (truncated, tampered) is removed rather than left half-written.
 */
export async function decryptToFile(source: ByteSource, path: string, keys: SecureTarKeys | string, options?: DecryptOptions): Promise<DecryptResult> {
  let file: FileHandle | undefined;
  try {
    const chunks = decrypt(source, keys, options);
    let step = await chunks.next();
    for (; !step.done; step = await chunks.next()) {
      file ??= await open(path, 'w');
      await file.write(step.value);
    }
    file ??= await open(path, 'w');
    return step.value;
  } catch (error) {
    if (file) {
      await file.close();
      file = undefined;
      await rm(path, { force: true });
    }
    throw error;
  } finally {
    await file?.close();
  }
}

/**
 * The original's quick password check before a restore: true when the start of the file
 * decrypts (v3: the validation key and the first chunk; v1/v2: the first tar block looks like
 * gzip or tar). Damage further on is not looked for; `verify` reads everything.
 */
export async function passwordMatches(source: ByteSource, keys: SecureTarKeys | string, options?: DecryptOptions): Promise<boolean> {
  const chunks = decrypt(source, keys, options);
  try {
    await chunks.next();
    return true;
  } catch (error) {
    if (error instanceof SecureTarError) return false;
    throw error;
  } finally {
    await chunks.return(undefined as never);
  }
}

/** True when the whole file decrypts with `keys`: right password, nothing cut or altered. */
export async function verify(source: ByteSource, keys: SecureTarKeys | string, options?: DecryptOptions): Promise<boolean> {
  try {
    for await (const chunk of decrypt(source, keys, options)) void chunk;
    return true;
  } catch (error) {
    if (error instanceof SecureTarError) return false;
    throw error;
  }
}

/** Collects a whole decryption (small inputs and tests). */
export async function decryptToBuffer(source: ByteSource, keys: SecureTarKeys | string, options?: DecryptOptions): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of decrypt(source, keys, options)) parts.push(part);
  return Buffer.concat(parts);
}

/** Collects a whole encryption (small inputs and tests), its header carrying the real size. */
export async function encryptToBuffer(source: ByteSource, keys: SecureTarKeys | string, options: EncryptOptions): Promise<Buffer> {
  const parts: Buffer[] = [];
  const chunks = encrypt(source, keys, options);
  let step = await chunks.next();
  for (; !step.done; step = await chunks.next()) parts.push(step.value);
  parts[0] = step.value.header;
  return Buffer.concat(parts);
}
