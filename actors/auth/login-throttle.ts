import { canonicalIp } from './ip-bans.ts';
import type { Clock } from '../clock.ts';

/** Failed logins an address gets before it has to wait (a mistyped password or two costs nothing). */
export const FREE_FAILURES = 5;
/** The longest wait between attempts, however many failed. */
export const MAX_WAIT_MS = 60_000;
/** An address that stopped failing this long ago starts afresh. */
const FORGET_AFTER_MS = 15 * 60_000;
/** Addresses remembered at most; the oldest make room (a spread of addresses costs memory, not a lockout). */
const MAX_ADDRESSES = 100_000;

interface Failures {
  count: number;
  /** epoch ms of the last failure that counted */
  last: number;
}

/**
 * Slows a password-guessing loop down before any ban: after FREE_FAILURES failed logins in a
 * row from one address, each further attempt must wait twice as long as the one before (1 s,
 * 2 s, 4 s, ... up to a minute) after the last failure. The login routes answer 429 with
 * Retry-After meanwhile. A success clears the address. Unlike a ban (`http: ip_ban_enabled`,
 * `login_attempts_threshold`, the original's feature) this is always on and lives in memory.
 */
export class LoginThrottle {
  private readonly failures = new Map<string, Failures>();

  constructor(private readonly clock: Clock) {}

  /** Milliseconds the address must still wait before its next login attempt (0: none). */
  waitMs(ip: string): number {
    const entry = this.failures.get(canonicalIp(ip));
    if (!entry || entry.count < FREE_FAILURES) return 0;
    const wait = Math.min(MAX_WAIT_MS, 1000 * 2 ** (entry.count - FREE_FAILURES));
    return Math.max(0, entry.last + wait - this.clock.now());
  }

  /** A failed login; one made while the address had to wait does not lengthen the wait. */
  failed(ip: string): void {
    const key = canonicalIp(ip);
    const now = this.clock.now();
    if (this.waitMs(key) > 0) return;
    const entry = this.failures.get(key);
    const fresh = !entry || now - entry.last >= FORGET_AFTER_MS;
    // re-inserted so the map stays ordered by last failure, oldest first
    this.failures.delete(key);
    this.failures.set(key, { count: fresh ? 1 : entry.count + 1, last: now });
    if (this.failures.size > MAX_ADDRESSES) this.failures.delete(this.failures.keys().next().value!);
  }

  succeeded(ip: string): void {
    this.failures.delete(canonicalIp(ip));
  }
}
