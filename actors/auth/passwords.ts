import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/** scrypt cost parameters; stored inside each hash so they can be raised later. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** N=2^15, r=8: about 32 MiB and some tens of milliseconds per check on a small board. */
export const DEFAULT_SCRYPT: ScryptParams = { N: 1 << 15, r: 8, p: 1 };

const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

/** Hashes and checks passwords with scrypt; every hash has its own salt. */
export interface PasswordHasher {
  /** `scrypt$N$r$p$<salt b64>$<hash b64>` */
  hash(password: string): Promise<string>;
  /** constant-time comparison; a malformed stored hash never matches */
  verify(password: string, stored: string): Promise<boolean>;
  /** spends the cost of one verification, for usernames that do not exist */
  burn(password: string): Promise<void>;
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  // scrypt needs 128·N·r bytes; the default cap (32 MiB) is exactly the default cost, so leave room
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

function parse(stored: string): { params: ScryptParams; salt: Buffer; key: Buffer } | undefined {
  const parts = stored.split('$');
  if (parts.length !== 6 || parts[0] !== 'scrypt') return undefined;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  if (![N, r, p].every((n) => Number.isInteger(n) && n > 0)) return undefined;
  const salt = Buffer.from(parts[4], 'base64');
  const key = Buffer.from(parts[5], 'base64');
  if (salt.length === 0 || key.length !== KEY_LENGTH) return undefined;
  return { params: { N, r, p }, salt, key };
}

/** A hasher with the given cost (tests pass a small one). */
export function createPasswordHasher(params: ScryptParams = DEFAULT_SCRYPT): PasswordHasher {
  let dummy: Promise<string> | undefined;
  const hash = async (password: string) => {
    const salt = randomBytes(SALT_LENGTH);
    const key = await derive(password, salt, params);
    return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64')}$${key.toString('base64')}`;
  };
  const verify = async (password: string, stored: string) => {
    const parsed = parse(stored);
    if (!parsed) return false;
    const key = await derive(password, parsed.salt, parsed.params);
    return timingSafeEqual(key, parsed.key);
  };
  return {
    hash,
    verify,
    async burn(password) {
      dummy ??= hash(randomBytes(16).toString('hex'));
      await verify(password, await dummy);
    },
  };
}
