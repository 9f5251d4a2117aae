import { createHash } from 'node:crypto';
import type { Area } from '../../area.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Context, EventLog, EventRecord, NewEvent } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';

/**
 * Ingress sessions (supervisor-wire §10.2): what the core asks for before a browser opens an
 * app's web page through the proxy. A session lives 15 minutes from creation; each validation
 * (POST /ingress/validate_session, and every proxied request) moves its end 15 minutes past
 * the previous end, as the original does. Each session is a stream
 * `supervisor/ingress/session/<id>` whose last record is its whole state, so sessions survive a
 * restart; an expired one is purged (`ingress_session_expired`) when it is met, at start, and
 * whenever a session is made.
 *
 * The sessions in memory are the truth while the supervisor runs (checks must not wait for a
 * disk write, and two at once must both count). Extensions are written coalesced: one
 * `ingress_session_extended` per session at most every `flushMs`, and at stop, so an app page
 * polling every second does not add a record per request to the log forever. A crash loses at
 * most the last `flushMs` of extensions (the original writes its sessions only at shutdown).
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

/** A session's records on `supervisor/ingress/session/<id>`: the last one is its whole state. */
type SessionRecord = { type: 'ingress_session_created' | 'ingress_session_extended'; data: SessionEntry } | { type: 'ingress_session_expired'; data: { id: string } };
const sessionRecords = typedRecords<SessionRecord>(INGRESS_SESSION_PREFIX, { ingress_session_created: true, ingress_session_extended: true, ingress_session_expired: true });
const sessionRecord = (id: string, kind: SessionRecord, now: number, context: Context) => sessionRecords.make(INGRESS_SESSION_PREFIX + id, kind, context, now);

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
  /** how long extensions wait to be written together (default 30 s) */
  flushMs?: number;
  /** where a failed write is told */
  warn?: (line: string) => void;
}

const FLUSH_MS = 30_000;

const hash = (token: string) => createHash('sha256').update(token).digest('hex');

export class IngressSessions implements Area<RecordOf<SessionRecord>> {
  readonly name = 'supervisor-ingress-sessions';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = INGRESS_SESSION_PREFIX;
  readonly latestSuffices = true;
  private readonly byId = new Map<string, SessionEntry>();
  private readonly byHash = new Map<string, SessionEntry>();
  /** sessions extended since their last record */
  private readonly dirty = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private lastContext: Context | undefined;

  /** the core's user by id (settable once the supervisor can ask the core) */
  lookupUser: IngressSessionsDeps['lookupUser'];

  constructor(private readonly deps: IngressSessionsDeps) {
    this.lookupUser = deps.lookupUser;
  }

  owns(record: EventRecord): record is RecordOf<SessionRecord> {
    return sessionRecords.owns(record);
  }

  /** Applies a record while restoring; at run time the methods below change memory themselves. */
  evolve(record: RecordOf<SessionRecord>): void {
    const id = record.stream.slice(INGRESS_SESSION_PREFIX.length);
    this.drop(id);
    if (record.type !== 'ingress_session_expired') this.keep(record.data);
  }

  private drop(id: string) {
    const old = this.byId.get(id);
    if (old) {
      this.byId.delete(id);
      this.byHash.delete(old.token_hash);
    }
    this.dirty.delete(id);
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
    if (userId !== undefined && this.lookupUser) {
      // a core that cannot be asked leaves the session without a user rather than without a session
      const found = await this.lookupUser(userId).catch((err) => {
        this.deps.warn?.(`the core's user ${userId} could not be looked up for an ingress session: ${(err as Error).message}`);
        return undefined;
      });
      if (found) user = { id: found.id, username: found.username ?? null, name: found.name ?? null };
    }
    const token = this.deps.ids.tokenHex(64);
    const now = this.deps.clock.now();
    const entry: SessionEntry = { id: this.deps.ids.uuidHex(), token_hash: hash(token), created: now, expires: now + SESSION_LIFETIME_MS, user };
    const purged = this.purgeInMemory(now, context);
    this.keep(entry);
    await this.deps.log.append([...purged, sessionRecord(entry.id, { type: 'ingress_session_created', data: { ...entry } }, now, context)]);
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
      this.drop(entry.id);
      await this.deps.log.append([expiredRecord(entry, now, context)]);
      return undefined;
    }
    entry.expires += SESSION_LIFETIME_MS;
    this.dirty.add(entry.id);
    this.lastContext = context;
    this.timer ??= setTimeout(() => void this.flush(), this.deps.flushMs ?? FLUSH_MS).unref();
    return { expires: entry.expires, user: entry.user };
  }

  /** Writes the extensions not written yet (one record per session: its whole state). */
  async flush(): Promise<void> {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (!this.dirty.size) return;
    const now = this.deps.clock.now();
    const context = this.lastContext!;
    const records: NewEvent[] = [];
    for (const id of this.dirty) {
      const entry = this.byId.get(id);
      if (entry) records.push(sessionRecord(id, { type: 'ingress_session_extended', data: { ...entry } }, now, context));
    }
    this.dirty.clear();
    try {
      await this.deps.log.append(records);
    } catch (err) {
      this.deps.warn?.(`ingress session extensions not written: ${(err as Error).message}`);
    }
  }

  /** Writes what is pending; the supervisor calls it as it stops. */
  async close(): Promise<void> {
    await this.flush();
  }

  /** Purges every expired session (at start). */
  async purgeExpired(context: Context): Promise<number> {
    const records = this.purgeInMemory(this.deps.clock.now(), context);
    if (records.length) await this.deps.log.append(records);
    return records.length;
  }

  private purgeInMemory(now: number, context: Context) {
    const out = [];
    for (const e of [...this.byId.values()]) {
      if (e.expires >= now) continue;
      this.drop(e.id);
      out.push(expiredRecord(e, now, context));
    }
    return out;
  }
}

function expiredRecord(entry: SessionEntry, now: number, context: Context): NewEvent {
  return sessionRecord(entry.id, { type: 'ingress_session_expired', data: { id: entry.id } }, now, context);
}
