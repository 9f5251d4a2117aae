import { createPrivateKey, createPublicKey } from 'node:crypto';

// DER headers of an Ed25519 key (RFC 8410): followed by the 32-byte seed (PKCS#8) or the 32-byte
// public key (SPKI). Building them by hand keeps the seed coming from the injected Ids.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
const RAW_KEY = /^[A-Za-z0-9_-]{43}$/;

/** An Ed25519 key pair of a refresh token: the private key as PEM, the public key raw in base64url. */
export interface TokenKeyPair {
  privateKey: string;
  publicKey: string;
}

/** The key pair of a 32-byte seed (64 hex digits). */
export function tokenKeyPair(seedHex: string): TokenKeyPair {
  const seed = Buffer.from(seedHex, 'hex');
  if (seed.length !== 32) throw new Error('an Ed25519 seed is 32 bytes');
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
  const spki = createPublicKey(key).export({ format: 'der', type: 'spki' });
  return {
    privateKey: key.export({ format: 'pem', type: 'pkcs8' }).toString(),
    publicKey: spki.subarray(SPKI_ED25519.length).toString('base64url'),
  };
}

/** The PEM form of a raw public key (base64url), or undefined when it is not 32 bytes of base64url. */
export function publicKeyPem(raw: unknown): string | undefined {
  if (typeof raw !== 'string' || !RAW_KEY.test(raw)) return undefined;
  const der = Buffer.concat([SPKI_ED25519, Buffer.from(raw, 'base64url')]);
  const body = der.toString('base64');
  return `-----BEGIN PUBLIC KEY-----\n${body}\n-----END PUBLIC KEY-----\n`;
}
