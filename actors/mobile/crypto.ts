import nacl from 'tweetnacl';

/**
 * The companion apps' payload encryption (core-wire §6.3): libsodium secretbox
 * (XSalsa20-Poly1305), carried as standard base64 of `nonce(24) || MAC(16) || ciphertext`.
 */

/** The key of today's apps: the 64-hex-char secret decoded to its 32 bytes. */
export function currentKey(secret: string): Uint8Array {
  return new Uint8Array(Buffer.from(secret, 'hex'));
}

/** The key of apps before 2022.8: the secret's first 32 UTF-8 bytes, padded with zeros. */
export function legacyKey(secret: string): Uint8Array {
  const key = new Uint8Array(nacl.secretbox.keyLength);
  key.set(Buffer.from(secret, 'utf8').subarray(0, nacl.secretbox.keyLength));
  return key;
}

/** Encrypts a text with a fresh random nonce. */
export function seal(plaintext: string, key: Uint8Array): string {
  const nonce = nacl.randomBytes(nacl.secretbox.nonceLength);
  const box = nacl.secretbox(new Uint8Array(Buffer.from(plaintext, 'utf8')), nonce, key);
  const out = new Uint8Array(nonce.length + box.length);
  out.set(nonce);
  out.set(box, nonce.length);
  return Buffer.from(out).toString('base64');
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The plaintext bytes of a sealed payload, or undefined when it does not open with this key. */
export function open(encoded: string, key: Uint8Array): Uint8Array | undefined {
  if (!BASE64.test(encoded)) return undefined;
  const bytes = new Uint8Array(Buffer.from(encoded, 'base64'));
  const min = nacl.secretbox.nonceLength + nacl.secretbox.overheadLength;
  if (bytes.length < min) return undefined;
  const opened = nacl.secretbox.open(bytes.subarray(nacl.secretbox.nonceLength), bytes.subarray(0, nacl.secretbox.nonceLength), key);
  return opened ?? undefined;
}
