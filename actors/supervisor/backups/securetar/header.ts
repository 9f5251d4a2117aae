/**
 * The SecureTar header (supervisor-wire §5.5): v2/v3 start with a 16-byte file id
 * ("SecureTar", version byte, 6 zero bytes) and 16 bytes of metadata (big-endian uint64
 * plaintext size, 8 reserved bytes), then the cipher initialisation (v2: 16-byte salt,
 * v3: 104 bytes). v1 has no magic: its first 16 bytes are the salt.
 */
import { SecureTarError } from './errors.ts';

export type SecureTarVersion = 1 | 2 | 3;

export const MAGIC = Buffer.from('SecureTar', 'ascii');
export const FILE_ID_SIZE = 16;
export const METADATA_SIZE = 16;
export const V2_CIPHER_INIT_SIZE = 16;
export const V3_CIPHER_INIT_SIZE = 104;

export interface SecureTarHeader {
  version: SecureTarVersion;
  /** absent for v1, which does not record it */
  plaintextSize?: number;
  cipherInit: Buffer;
}

export function headerSize(version: SecureTarVersion): number {
  if (version === 1) return V2_CIPHER_INIT_SIZE;
  return FILE_ID_SIZE + METADATA_SIZE + (version === 2 ? V2_CIPHER_INIT_SIZE : V3_CIPHER_INIT_SIZE);
}

export function encodeHeader(version: 2 | 3, plaintextSize: number, cipherInit: Uint8Array): Buffer {
  const expected = version === 2 ? V2_CIPHER_INIT_SIZE : V3_CIPHER_INIT_SIZE;
  if (cipherInit.length !== expected) throw new RangeError(`SecureTar v${version} cipher initialisation is ${expected} bytes, got ${cipherInit.length}`);
  const out = Buffer.alloc(headerSize(version));
  MAGIC.copy(out, 0);
  out[MAGIC.length] = version;
  out.writeBigUInt64BE(BigInt(plaintextSize), FILE_ID_SIZE);
  out.set(cipherInit, FILE_ID_SIZE + METADATA_SIZE);
  return out;
}

/**
 * Which version the first 16 bytes announce and how many more header bytes follow.
 * Anything without the magic is v1 (the original's reader rule).
 */
export function inspectFileId(fileId: Uint8Array): { version: SecureTarVersion; rest: number } {
  if (fileId.length < FILE_ID_SIZE) throw new SecureTarError('truncated', `SecureTar file is ${fileId.length} bytes, shorter than its 16-byte header`);
  if (!MAGIC.equals(fileId.subarray(0, MAGIC.length))) return { version: 1, rest: 0 };
  const version = fileId[MAGIC.length];
  if (version !== 2 && version !== 3) throw new SecureTarError('unsupported', `Unsupported SecureTar version ${version}`);
  if (fileId.subarray(MAGIC.length + 1, FILE_ID_SIZE).some((b) => b !== 0)) {
    throw new SecureTarError('corrupt', 'SecureTar header has non-zero reserved bytes in its file id');
  }
  return { version, rest: headerSize(version) - FILE_ID_SIZE };
}

/** The header from its file id and the `rest` bytes inspectFileId asked for. */
export function decodeHeader(fileId: Uint8Array, rest: Uint8Array): SecureTarHeader {
  const { version, rest: wanted } = inspectFileId(fileId);
  if (version === 1) return { version, cipherInit: Buffer.from(fileId.subarray(0, V2_CIPHER_INIT_SIZE)) };
  if (rest.length < wanted) throw new SecureTarError('truncated', `SecureTar v${version} header is cut short`);
  const metadata = Buffer.from(rest.buffer, rest.byteOffset, rest.byteLength);
  const size = metadata.readBigUInt64BE(0);
  // reserved metadata bytes are ignored on read, like the original
  if (size > BigInt(Number.MAX_SAFE_INTEGER)) throw new SecureTarError('corrupt', `SecureTar header claims an impossible plaintext size ${size}`);
  return { version, plaintextSize: Number(size), cipherInit: Buffer.from(metadata.subarray(METADATA_SIZE, wanted)) };
}
