// Time-based one-time passwords (RFC 6238 over RFC 4226 HOTP) for the `totp`
// multi-factor auth module. Parameters are the ones Home Assistant's module gets
// from pyotp's defaults, so secrets and codes are interchangeable with it:
// SHA-1, 6 digits, 30-second steps, one step of tolerance either side on login.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';

export const TOTP_DIGITS = 6;
export const TOTP_STEP_SECONDS = 30;
// pyotp >= 2.5 refuses anything shorter than 160 bits and defaults to exactly that.
export const DEFAULT_SECRET_BYTES = 20;

export interface TotpOptions {
  digits?: number;
  stepSeconds?: number;
}

/** RFC 4648 base32 without padding; 20 bytes give the 32 characters pyotp.random_base32() gives. */
export function randomBase32Secret(bytes: number = DEFAULT_SECRET_BYTES): string {
  if (!Number.isInteger(bytes) || bytes < 1) throw new RangeError(`secret length must be a positive whole number of bytes, got ${bytes}`);
  return base32Encode(randomBytes(bytes));
}

export function base32Encode(data: Uint8Array): string {
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const byte of data) {
    acc = ((acc << 8) | byte) & 0xffff; // only the unread low bits matter
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      out += ALPHABET[(acc >>> bits) & 31];
    }
  }
  if (bits > 0) out += ALPHABET[(acc << (5 - bits)) & 31];
  return out;
}

export function base32Decode(secret: string): Buffer {
  // Users retype secrets shown in groups and in either case; padding is optional in otpauth URIs.
  const bad = /[^A-Za-z2-7\s=]/.exec(secret);
  if (bad) throw new Error(`base32 secret has an invalid character ${JSON.stringify(bad[0])} at position ${bad.index} (allowed: A-Z, 2-7)`);
  const clean = secret.replace(/[\s=]/g, '').toUpperCase();
  // 1, 3 or 6 leftover characters cannot come from whole bytes; Python's b32decode refuses them too.
  if ([1, 3, 6].includes(clean.length % 8)) throw new Error(`base32 secret has an impossible length (${clean.length} characters)`);
  const out = Buffer.alloc(Math.floor((clean.length * 5) / 8));
  let acc = 0;
  let bits = 0;
  let n = 0;
  for (let i = 0; i < clean.length; i++) {
    const value = ALPHABET.indexOf(clean[i]);
    acc = ((acc << 5) | value) & 0xfff;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out[n++] = (acc >>> bits) & 0xff;
    }
  }
  return out;
}

function checkDigits(digits: number): number {
  // pyotp caps at 10; the 31-bit truncated value has no more significant digits than that.
  if (!Number.isInteger(digits) || digits < 1 || digits > 10) throw new RangeError(`digits must be a whole number from 1 to 10, got ${digits}`);
  return digits;
}

/** RFC 4226 HOTP value for one counter, zero-padded to `digits`. */
export function hotpCode(key: Buffer, counter: number, digits: number = TOTP_DIGITS): string {
  checkDigits(digits);
  if (!Number.isSafeInteger(counter) || counter < 0) throw new RangeError(`HOTP counter must be a non-negative whole number, got ${counter}`);
  const message = Buffer.alloc(8);
  message.writeBigUInt64BE(BigInt(counter));
  const mac = createHmac('sha1', key).update(message).digest();
  const offset = mac[mac.length - 1] & 0x0f;
  const value = mac.readUInt32BE(offset) & 0x7fffffff; // top bit dropped so signed/unsigned readers agree
  return String(value % 10 ** digits).padStart(digits, '0');
}

export function timeStep(timeMs: number, stepSeconds: number = TOTP_STEP_SECONDS): number {
  if (!Number.isFinite(timeMs)) throw new RangeError(`time must be a finite number of milliseconds, got ${timeMs}`);
  if (!Number.isInteger(stepSeconds) || stepSeconds < 1) throw new RangeError(`step must be a positive whole number of seconds, got ${stepSeconds}`);
  // Whole seconds first, as pyotp does, so a fraction never decides the step.
  return Math.floor(Math.floor(timeMs / 1000) / stepSeconds);
}

export function totpCode(secret: string, timeMs: number, options: TotpOptions = {}): string {
  const digits = options.digits ?? TOTP_DIGITS;
  return hotpCode(base32Decode(secret), timeStep(timeMs, options.stepSeconds), digits);
}

/** Accepts the codes of steps t-window..t+window (Home Assistant's login passes window 1). */
export function verifyTotp(secret: string, code: string, timeMs: number, window = 1): boolean {
  // The expected format is public, so refusing early leaks nothing; it also keeps timingSafeEqual's lengths equal.
  if (typeof code !== 'string' || !/^[0-9]{6}$/.test(code)) return false;
  if (!Number.isInteger(window) || window < 0) throw new RangeError(`window must be a non-negative whole number, got ${window}`);
  const key = base32Decode(secret);
  const step = timeStep(timeMs);
  const given = Buffer.from(code, 'ascii');
  let ok = false;
  // Every step in the window is checked even after a match, so the time taken does not say which one matched.
  for (let i = -window; i <= window; i++) {
    if (step + i < 0) continue; // no code exists before the epoch
    const expected = Buffer.from(hotpCode(key, step + i, TOTP_DIGITS), 'ascii');
    if (timingSafeEqual(given, expected)) ok = true;
  }
  return ok;
}

// Python's urllib.parse.quote: UTF-8 percent-encoding of all but the unreserved characters and `safe`.
function pyQuote(text: string, safe: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const ch = String.fromCharCode(byte);
    out += /[A-Za-z0-9_.~-]/.test(ch) || (byte < 0x80 && safe.includes(ch)) ? ch : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * The otpauth URI authenticator apps scan, byte for byte what pyotp's build_uri makes for a
 * SHA-1/6-digit/30-second TOTP: the label quotes with `/` left alone, the query is urlencoded
 * (nothing left alone) with spaces as %20, parameters in the order secret, issuer.
 */
export function provisioningUri(secret: string, accountName: string, issuer = 'Home Assistant'): string {
  const label = `${pyQuote(issuer, '/')}:${pyQuote(accountName, '/')}`;
  return `otpauth://totp/${label}?secret=${pyQuote(secret, '')}&issuer=${pyQuote(issuer, '')}`;
}
