import { createHash } from 'node:crypto';
import type { Area } from '../../area.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';

/**
 * Ingress sessions (supervisor-wire §10.2): what the core asks for before a browser opens an
 * app's web page through the proxy. A session lives 15 minutes from creation; each validation
 * (POST /ingress/validate_session, and every proxied request) moves its end 15 minutes past
 * the previous end, as the original does. Each session is a stream
 * `supervisor/ingress/session/<id>` whose last record is its whole state, so sessions survive a
 * restart; an expired one is purged (`ingress_session_expired`) when it is met, at start, and
 * whenever a session is made.
 *
 * Only the token's SHA-256 is kept: the session is the browser's credential, and a copy of the
 * log (a backup) should not hand it out.
 */

export const INGRESS_SESSION_PREFIX = 'supervisor/ingress/session/';
const SNAPSHOT_VERSION = 1;
/** How long a session lasts, and how much each validation adds to its end. */
export const SESSION_LIFETIME_MS = 15 * 60 * 1000;

/** Who a session was made for, as the core's users list names them. */
export interface IngressUser {
  id: string;
  username: string | null;
  name: string | null;
}

interface SessionEntry {
  id: string;
  /** SHA-256 of the token, hex */
  token_hash: string;
  created: number;
  /** epoch ms after which the session is refused */
  expires: number;
  user: IngressUser | null;
}

/** What a valid session carries. */
export interface IngressSession {
  expires: number;
  user: IngressUser | null;
}

export interface IngressSessionsDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  /** the core's user by id, when the supervisor can ask the core; undefined for an unknown id */
  lookupUser?: (id: string) => Promise<IngressUser | undefined>;
}

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export class IngressSessions implements Area {
  readonly name = 'supervisor-ingress-sessions';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = INGRESS_SESSION_PREFIX;
  readonly latestSuffices = true;
  private readonly byId = new Map<string, SessionEntry>();
  private readonly byHash = new Map<string, SessionEntry>();

  constructor(private readonly deps: IngressSessionsDeps) {
    deps.log.onCommit((records) => {
      for (const r of records) if (this.owns(r)) this.evolve(r);
    });
  }

  owns(record: EventRecord): boolean {
    return record.stream.startsWith(INGRESS_SESSION_PREFIX);
  }

  evolve(record: EventRecord): void {
    const id = record.stream.slice(INGRESS_SESSION_PREFIX.length);
    const old = this.byId.get(id);
    if (old) {
      this.byId.delete(id);
      this.byHash.delete(old.token_hash);
    }
    if (record.type === 'ingress_session_created' || record.type === 'ingress_session_extended') this.keep(record.data as SessionEntry);
  }

  private keep(entry: SessionEntry) {
    this.byId.set(entry.id, entry);
    this.byHash.set(entry.token_hash, entry);
  }

  snapshot(): unknown {
    return [...this.byId.values()];
  }

  restore(data: unknown): void {
    for (const e of data as SessionEntry[]) this.keep(e);
  }

  /** How many sessions are kept (expired ones not yet purged included). */
  get size(): number {
    return this.byId.size;
  }

  /**
   * A new session: 128 hex characters. With `userId`, the core's user of that id is kept with it
   * (none when the supervisor cannot ask the core or the id is unknown). Expired sessions are
   * purged in the same append.
   */
  async create(userId: string | undefined, context: Context): Promise<string> {
    let user: IngressUser | null = null;
    if (userId !== undefined && this.deps.lookupUser) {
      const found = await this.deps.lookupUser(userId);
      if (found) user = { id: found.id, username: found.username ?? null, name: found.name ?? null };
    }
    const token = this.deps.ids.tokenHex(64);
    const now = this.deps.clock.now();
    const entry: SessionEntry = { id: this.deps.ids.uuidHex(), token_hash: hash(token), created: now, expires: now + SESSION_LIFETIME_MS, user };
    await this.deps.log.append([...this.expiredRecords(now, context), { time: now, stream: INGRESS_SESSION_PREFIX + entry.id, type: 'ingress_session_created', data: entry, context }]);
    return token;
  }

  /**
   * The session a token names when it has not expired, its end moved 15 minutes further;
   * undefined for an unknown or expired one (an expired one is purged).
   */
  async validate(token: string, context: Context): Promise<IngressSession | undefined> {
    if (typeof token !== 'string' || token === '') return undefined;
    const entry = this.byHash.get(hash(token));
    if (!entry) return undefined;
    const now = this.deps.clock.now();
    if (entry.expires < now) {
      await this.deps.log.append([this.expiredRecord(entry, now, context)]);
      return undefined;
    }
    const extended: SessionEntry = { ...entry, expires: entry.expires + SESSION_LIFETIME_MS };
    await this.deps.log.append([{ time: now, stream: INGRESS_SESSION_PREFIX + entry.id, type: 'ingress_session_extended', data: extended, context }]);
    return { expires: extended.expires, user: extended.user };
  }

  /** Purges every expired session (at start). */
  async purgeExpired(context: Context): Promise<number> {
    const records = this.expiredRecords(this.deps.clock.now(), context);
    if (records.length) await this.deps.log.append(records);
    return records.length;
  }

  private expiredRecords(now: number, context: Context) {
    const out = [];
    for (const e of this.byId.values()) if (e.expires < now) out.push(this.expiredRecord(e, now, context));
    return out;
  }

  private expiredRecord(entry: SessionEntry, now: number, context: Context) {
    return { time: now, stream: INGRESS_SESSION_PREFIX + entry.id, type: 'ingress_session_expired', data: { id: entry.id }, context };
  }
}
