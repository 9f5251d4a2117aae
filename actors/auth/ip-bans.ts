import { isIP, isIPv4, BlockList } from 'node:net';
import { lookupService } from 'node:dns/promises';
import type { TypedArea } from '../area.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import type { Clock, Ids } from '../clock.ts';
import type { EventLog, NewEvent } from '../../store/types.ts';

/**
 * Failed logins and IP bans as the original's http/ban.py has them: failures counted per
 * address (in memory only), a ban once the count reaches `login_attempts_threshold` (below 1:
 * never), a successful login clears the count. Bans are records `ip_banned` on `auth/ip_ban`
 * (the original appends them to ip_bans.yaml); every failure is a record `login_attempt_failed`
 * on `http/login_attempt` (history, purged with it) carrying the original's notification text.
 */

export const IP_BAN_STREAM = 'auth/ip_ban';
export const LOGIN_ATTEMPT_STREAM = 'http/login_attempt';

/** What a notification of a failed login or a ban says (the original's persistent notification). */
interface Notice {
  notification_id: string;
  title: string;
  message: string;
}
/** The ban list's records on `auth/ip_ban`. */
export type IpBanRecord = { type: 'ip_banned'; data: { ip_address: string; banned_at: string } & Notice } | { type: 'ip_unbanned'; data: { ip_address: string } };
export const ipBanRecords = typedRecords<IpBanRecord>(IP_BAN_STREAM, { ip_banned: true, ip_unbanned: true });
/** Each failed login on `http/login_attempt`. */
type LoginAttemptRecord = { type: 'login_attempt_failed'; data: { ip_address: string; host: string; path: string } & Notice };
const loginAttemptRecords = typedRecords<LoginAttemptRecord>(LOGIN_ATTEMPT_STREAM, { login_attempt_failed: true });
/** The original's notification ids (persistent_notification). */
export const NOTIFICATION_ID_LOGIN = 'http-login';
export const NOTIFICATION_ID_BAN = 'ip-ban';
const SNAPSHOT_VERSION = 1;

export interface IpBanConfig {
  /** `http: ip_ban_enabled` (default true) */
  enabled: boolean;
  /** `http: login_attempts_threshold` (default -1: never ban) */
  threshold: number;
}

/** What a failed or successful login is known by: the client's address and what it asked for. */
export interface LoginAttempt {
  remoteIp: string;
  path: string;
  query?: URLSearchParams;
  headers: Record<string, string>;
}

/** What the gateway needs of the ban keeper. */
export interface LoginAttempts {
  /** true when bans are enforced and at least one exists: the only case a request's address is looked at */
  readonly checking: boolean;
  isBanned(ip: string): boolean;
  failed(attempt: LoginAttempt): void;
  succeeded(attempt: LoginAttempt): void;
}

/**
 * An address as the original's ip_address() compares it: IPv4 dotted, an IPv4-mapped IPv6
 * address as its IPv4 (how a dual-stack socket reports an IPv4 peer), IPv6 compressed lower case.
 */
export function canonicalIp(ip: string): string {
  if (isIPv4(ip)) return ip;
  const bare = ip.charCodeAt(0) === 0x5b && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIP(bare) !== 6) return ip;
  const lower = bare.toLowerCase();
  if (lower.startsWith('::ffff:') && isIPv4(lower.slice(7))) return lower.slice(7);
  return new URL(`http://[${lower}]/`).hostname.slice(1, -1);
}

/** The reverse name of an address, or the address (the original's gethostbyaddr, bounded). */
async function hostOf(ip: string): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((ok) => (timer = setTimeout(() => ok(ip), 1000)));
  try {
    return await Promise.race([lookupService(ip, 0).then((r) => r.hostname, () => ip), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

export interface IpBanDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  config: IpBanConfig;
  logLine: (line: string) => void;
  /** reverse lookup of an address (tests replace it) */
  resolveHost?: (ip: string) => Promise<string>;
}

export class IpBans implements LoginAttempts {
  /** banned addresses (canonical) with when they were banned, epoch ms */
  private readonly bans = new Map<string, number>();
  private readonly attempts = new Map<string, number>();
  private readonly log: EventLog;
  private readonly clock: Clock;
  private readonly ids: Ids;
  private readonly logLine: (line: string) => void;
  private readonly resolveHost: (ip: string) => Promise<string>;
  private readonly enabled: boolean;
  private readonly threshold: number;
  /** appends still under way (stop waits for them) */
  private pending = new Set<Promise<unknown>>();
  readonly area: TypedArea<RecordOf<IpBanRecord>>;

  constructor(deps: IpBanDeps) {
    this.log = deps.log;
    this.clock = deps.clock;
    this.ids = deps.ids;
    this.logLine = deps.logLine;
    this.resolveHost = deps.resolveHost ?? hostOf;
    this.enabled = deps.config.enabled;
    this.threshold = deps.config.threshold;
    this.area = {
      name: 'ip_bans',
      snapshotVersion: SNAPSHOT_VERSION,
      streamPrefix: IP_BAN_STREAM,
      latestSuffices: false,
      owns: ipBanRecords.owns,
      evolve: (r) => {
        const ip = canonicalIp(r.data.ip_address);
        if (r.type === 'ip_unbanned') this.bans.delete(ip);
        else if (!this.bans.has(ip)) this.bans.set(ip, r.time);
      },
      snapshot: () => [...this.bans].map(([ip, at]) => ({ ip_address: ip, banned_at: at })),
      restore: (data) => {
        this.bans.clear();
        for (const b of data as { ip_address: string; banned_at: number }[]) this.bans.set(b.ip_address, b.banned_at);
      },
    };
  }

  /** Bans are enforced (`ip_ban_enabled`) and there is one: only then is an address looked up. */
  get checking(): boolean {
    return this.enabled && this.bans.size !== 0;
  }

  isBanned(ip: string): boolean {
    return this.enabled && this.bans.has(canonicalIp(ip));
  }

  /** The banned addresses and when, oldest first. */
  banned(): { ip_address: string; banned_at: number }[] {
    return [...this.bans].map(([ip_address, banned_at]) => ({ ip_address, banned_at }));
  }

  /** Failures counted for an address (0 when none). */
  failures(ip: string): number {
    return this.attempts.get(canonicalIp(ip)) ?? 0;
  }

  /**
   * The original's process_wrong_login: a warning in the log and the "Login attempt failed"
   * notification (here a record) for every failure; with bans enabled and a threshold of at
   * least 1 the address's count goes up, and reaching the threshold bans it. The count and the
   * ban take effect at once (the next request is refused); the records follow.
   */
  failed(attempt: LoginAttempt): void {
    const ip = canonicalIp(attempt.remoteIp);
    if (ip === '') return; // the client left before its address was read
    const time = this.clock.now();
    let ban = false;
    if (this.enabled && this.threshold >= 1) {
      const count = (this.attempts.get(ip) ?? 0) + 1;
      this.attempts.set(ip, count);
      if (count >= this.threshold && !this.bans.has(ip)) {
        this.bans.set(ip, time);
        ban = true;
      }
    }
    const query = attempt.query?.toString();
    const url = query ? `${attempt.path}?${query}` : attempt.path;
    const userAgent = attempt.headers['user-agent'];
    this.track(
      (async () => {
        const host = await this.resolveHost(ip);
        const base = `Login attempt or request with invalid authentication from ${host} (${ip}).`;
        // the user agent is the client's own words: in the log only, as the original has it
        this.logLine(`${base} Requested URL: '${url}'. (${userAgent ?? 'None'})`);
        const events: NewEvent[] = [
          loginAttemptRecords.make(
            LOGIN_ATTEMPT_STREAM,
            {
              type: 'login_attempt_failed',
              data: { ip_address: ip, host, path: attempt.path, notification_id: NOTIFICATION_ID_LOGIN, title: 'Login attempt failed', message: `${base} See the log for details.` },
            },
            this.context(time),
            time,
          ),
        ];
        if (ban) {
          this.logLine(`Banned IP ${ip} for too many login attempts`);
          events.push(
            ipBanRecords.make(
              IP_BAN_STREAM,
              {
                type: 'ip_banned',
                data: { ip_address: ip, banned_at: new Date(time).toISOString(), notification_id: NOTIFICATION_ID_BAN, title: 'Banning IP address', message: `Too many login attempts from ${ip}` },
              },
              this.context(time),
              time,
            ),
          );
        }
        await this.log.append(events);
      })(),
    );
  }

  /** The original's process_success_login: the address's count starts again (a ban stays). */
  succeeded(attempt: LoginAttempt): void {
    if (!this.enabled || this.threshold < 1 || this.attempts.size === 0) return;
    this.attempts.delete(canonicalIp(attempt.remoteIp));
  }

  /** Resolves once every record of failures so far is in the log. */
  async settled(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private track(work: Promise<unknown>): void {
    const p = work.catch((err) => this.logLine(`recording a failed login failed: ${(err as Error).message}`)).finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  private context(time: number) {
    return { id: this.ids.ulid(time), parent_id: null, user_id: null };
  }
}

/** Trusted proxies as a lookup (networks written `address/prefix`, as the configuration gives them). */
export function proxyList(networks: readonly string[]): BlockList {
  const list = new BlockList();
  for (const n of networks) {
    const [addr, prefix] = n.split('/');
    const type = isIPv4(addr) ? 'ipv4' : 'ipv6';
    list.addSubnet(addr, Number(prefix), type);
  }
  return list;
}
