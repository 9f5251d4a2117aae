// The http section's bans and reverse proxies, checked as the original's HTTP_SCHEMA checks
// them, and IP networks read as its ip_network() reads them.
import { isIP } from 'node:net';
import * as cv from '../voluptuous/cv.ts';
import { ConfigurationError, listOf, shown } from './config-error.ts';

/**
 * `ip_ban_enabled` (cv.boolean, default true), `login_attempts_threshold` (cv.positive_int or -1,
 * default -1), `use_x_forwarded_for` (cv.boolean) and `trusted_proxies` (list of ip_network, strict:
 * no host bits), the last two inclusive: both or neither.
 */
export function validateHttpSecurity(
  section: Record<string, unknown>,
  where = 'http',
): { ip_ban_enabled: boolean; login_attempts_threshold: number; use_x_forwarded_for: boolean; trusted_proxies: string[] } {
  const refuse = (key: string, reason: string, value: unknown = section[key]): never => {
    throw new ConfigurationError(`${where}: ${key}: ${reason} (got ${shown(value)})`);
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const value = section[key];
    if (value === undefined) return fallback;
    try {
      return cv.convert(cv.boolean, value);
    } catch {
      return refuse(key, 'invalid boolean value');
    }
  };
  const hasUse = section.use_x_forwarded_for !== undefined;
  const hasProxies = section.trusted_proxies !== undefined;
  if (hasUse !== hasProxies) {
    const key = hasUse ? 'trusted_proxies' : 'use_x_forwarded_for';
    throw new ConfigurationError(`${where}: ${key}: some but not all values in the same group of inclusion 'proxy' (use_x_forwarded_for and trusted_proxies go together)`);
  }
  let threshold = -1;
  const raw = section.login_attempts_threshold;
  if (raw !== undefined) {
    // vol.Coerce(int): numbers lose their fraction, strings must read as a whole number
    const whole = typeof raw === 'number' && Number.isFinite(raw) ? Math.trunc(raw)
      : typeof raw === 'string' && /^\s*[+-]?\d+\s*$/.test(raw) ? Number(raw.trim())
      : NaN;
    if (!Number.isSafeInteger(whole) || (whole < 0 && whole !== -1)) refuse('login_attempts_threshold', 'expected a positive integer, or -1 to never ban');
    threshold = whole;
  }
  const proxies = hasProxies ? listOf(section.trusted_proxies) : [];
  return {
    ip_ban_enabled: bool('ip_ban_enabled', true),
    login_attempts_threshold: threshold,
    use_x_forwarded_for: bool('use_x_forwarded_for', false),
    trusted_proxies: proxies.map((proxy) => ipNetwork(proxy) ?? refuse('trusted_proxies', `invalid IP network: ${shown(proxy)}`, section.trusted_proxies)),
  };
}

/** 32 or 128 bits of an address, or undefined when it is none. */
function addressBits(addr: string): { bits: bigint; width: number } | undefined {
  const kind = isIP(addr);
  if (kind === 4) return { bits: addr.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n), width: 32 };
  if (kind !== 6) return undefined;
  // the URL parser writes any IPv6 form out in full groups (embedded IPv4 included)
  const host = new URL(`http://[${addr}]/`).hostname.slice(1, -1);
  const [head, tail] = host.includes('::') ? host.split('::') : [host, undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups = tail === undefined ? headGroups : [...headGroups, ...Array(8 - headGroups.length - tailGroups.length).fill('0'), ...tailGroups];
  return { bits: groups.reduce((acc, group) => (acc << 16n) | BigInt(parseInt(group, 16)), 0n), width: 128 };
}

/** A network as the original's ip_network() reads it (strict), written `address/prefix`; undefined when invalid. */
export function ipNetwork(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const [addr, prefixText, extra] = value.trim().split('/');
  if (extra !== undefined || addr.includes('%')) return undefined;
  const parsed = addressBits(addr);
  if (!parsed) return undefined;
  let prefix = parsed.width;
  if (prefixText !== undefined) {
    if (/^\d+$/.test(prefixText)) prefix = Number(prefixText);
    else if (parsed.width === 32 && isIP(prefixText) === 4) {
      // a netmask (255.255.0.0) stands for its prefix
      const mask = addressBits(prefixText)!.bits.toString(2).padStart(32, '0');
      if (!/^1*0*$/.test(mask)) return undefined;
      prefix = mask.indexOf('0') === -1 ? 32 : mask.indexOf('0');
    } else return undefined;
    if (prefix > parsed.width) return undefined;
  }
  const hostBits = (1n << BigInt(parsed.width - prefix)) - 1n;
  if ((parsed.bits & hostBits) !== 0n) return undefined; // host bits set: not a network
  return `${parsed.width === 32 ? addr : new URL(`http://[${addr}]/`).hostname.slice(1, -1)}/${prefix}`;
}
