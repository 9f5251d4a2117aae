import type { EventLog, EventRecord } from '../../store/types.ts';
import type { RecordOf } from '../../store/typed-records.ts';
import { evolveOnCommit, type Area } from '../area.ts';
import type { Clock } from '../clock.ts';
import { REFRESH_TOKEN_EXPIRATION_MS } from '../../machines/refresh-token.machine.ts';
import { AccessTokens } from './jwt.ts';
import { ALL, NONE, NOWHERE, UserPermissions, compilePolicy, type EntityPermissions, type EntityPlacement, type Policy } from './permissions.ts';
import { AUTHPUB_PREFIX, authPubRecords, type AuthPubRecord, type TokenKeyPublished, type UserAccess } from './publish.ts';
import { publicKeyPem } from './token-keys.ts';
import type { Authenticator, Principal } from './types.ts';
import type { SignedRequest } from './signed-paths.ts';

/** A user as a read replica knows it. */
export interface MirroredUser {
  id: string;
  isAdmin: boolean;
  isOwner: boolean;
  isActive: boolean;
}

export interface MirroredAuthOptions {
  clock: Clock;
  /** where entities sit on this replica (its registries), for policies by device and area */
  placement?: EntityPlacement;
  /** how many verified access tokens are remembered */
  accessTokenCacheSize?: number;
}

/** Persisted form (area snapshot): the latest record of each live authpub/ stream. */
interface MirrorSnapshot {
  seq: number;
  tokens: TokenKeyPublished[];
  users: UserAccess[];
}

interface TokenEntry {
  published: TokenKeyPublished;
  /** handed to access-token checks as is */
  key: { id: string; publicKey: string };
}

interface UserEntry {
  access: UserAccess;
  view: MirroredUser;
  permissions: UserPermissions;
}

const SNAPSHOT_VERSION = 1;
const TOKEN_STREAM = 'authpub/token/';
const USER_STREAM = 'authpub/user/';

/** A record's data as a replica takes it: the primary's word, each field checked before it is used. */
type Unchecked<T> = { [K in keyof T]?: unknown };

/**
 * The auth of a read replica: checks the primary's access tokens with the public keys and user
 * access the primary publishes under `authpub/`, which is all it ever sees of auth (no password
 * hash, no signing key). It cannot mint tokens nor log anyone in; revocations and user changes
 * take effect as their records arrive.
 */
export class MirroredAuth implements Area<RecordOf<AuthPubRecord>>, Authenticator {
  readonly name = 'auth_mirror';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = AUTHPUB_PREFIX;
  readonly latestSuffices = true;

  private readonly clock: Clock;
  private readonly placement: EntityPlacement;
  private readonly accessTokens: AccessTokens;
  private readonly tokens = new Map<string, TokenEntry>();
  private readonly users = new Map<string, UserEntry>();
  private readonly revokedListeners = new Set<(refreshTokenId: string) => void>();
  private lastSeq = 0;

  constructor({ clock, placement = NOWHERE, accessTokenCacheSize }: MirroredAuthOptions) {
    this.clock = clock;
    this.placement = placement;
    this.accessTokens = new AccessTokens(accessTokenCacheSize);
  }

  owns(record: EventRecord): record is RecordOf<AuthPubRecord> {
    return authPubRecords.owns(record);
  }

  /** Applies one committed authpub/ record; a malformed one is ignored. */
  evolve(record: RecordOf<AuthPubRecord>): void {
    if (record.seq <= this.lastSeq) return; // a record can arrive both by follow() and by a replay
    this.lastSeq = record.seq;
    const { stream } = record;
    if (stream.startsWith(TOKEN_STREAM)) {
      const id = stream.slice(TOKEN_STREAM.length);
      if (record.type === 'token_key_published') this.publishToken(id, record.data ?? {});
      else if (record.type === 'token_key_revoked') this.revokeToken(id);
    } else if (stream.startsWith(USER_STREAM)) {
      const id = stream.slice(USER_STREAM.length);
      if (record.type === 'user_access') this.setUser(id, record.data ?? {});
      else if (record.type === 'user_access_removed') this.removeUser(id);
    }
  }

  /** Projects the authpub/ records committed on `log` (the replica's copy of the primary's) from now on. */
  follow(log: EventLog): () => void {
    return evolveOnCommit(log, this);
  }

  snapshot(): MirrorSnapshot {
    return {
      seq: this.lastSeq,
      tokens: [...this.tokens.values()].map((t) => t.published),
      users: [...this.users.values()].map((u) => u.access),
    };
  }

  restore(data: unknown): void {
    const snapshot = data as MirrorSnapshot;
    for (const id of this.tokens.keys()) this.accessTokens.forget(id);
    this.tokens.clear();
    this.users.clear();
    for (const t of snapshot.tokens) this.publishToken(t.token_id, t);
    for (const u of snapshot.users) this.setUser(u.user_id, u);
    this.lastSeq = snapshot.seq;
  }

  /** Checks `Authorization: Bearer <token>` (the scheme exactly); signed paths are the primary's alone. */
  authenticate(authorization: string | undefined, _request?: SignedRequest): Principal | undefined {
    if (authorization === undefined) return undefined;
    const space = authorization.indexOf(' ');
    if (space < 0 || authorization.slice(0, space) !== 'Bearer') return undefined;
    return this.validateAccessToken(authorization.slice(space + 1));
  }

  /** The principal of a valid access token; undefined when invalid, expired, revoked, or its user removed or inactive. */
  validateAccessToken(token: string): Principal | undefined {
    const now = this.clock.now();
    const claims = this.accessTokens.verify(token, now, (id) => this.liveKey(id));
    if (!claims) return undefined;
    const entry = this.tokens.get(claims.iss);
    const user = entry && this.users.get(entry.published.user_id);
    if (!entry || !user || !user.view.isActive) return undefined;
    // each access token was minted by a use of its refresh token, which slid its expiry to 90 days on
    const expireAt = entry.published.expire_at;
    if (expireAt !== null && now >= Math.max(expireAt, claims.iat * 1000 + REFRESH_TOKEN_EXPIRATION_MS)) return undefined;
    const { view } = user;
    return { userId: view.id, isAdmin: view.isAdmin, isOwner: view.isOwner, refreshTokenId: claims.iss, permissions: user.permissions };
  }

  /** `listener` hears of each refresh token whose access tokens stop working (revoked, or its user removed or deactivated). */
  onRefreshTokenRevoked(listener: (refreshTokenId: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  user(id: string): MirroredUser | undefined {
    return this.users.get(id)?.view;
  }

  /** True once the primary published a user. */
  hasUsers(): boolean {
    return this.users.size > 0;
  }

  /** The key of a token whose user may use it now. */
  private liveKey(id: string): { id: string; publicKey: string } | undefined {
    const entry = this.tokens.get(id);
    if (!entry) return undefined;
    const user = this.users.get(entry.published.user_id);
    return user?.view.isActive ? entry.key : undefined;
  }

  private publishToken(id: string, data: Unchecked<TokenKeyPublished>): void {
    const publicKey = publicKeyPem(data.public_key);
    const { user_id, token_type, expire_at } = data;
    if (publicKey === undefined || typeof user_id !== 'string' || (expire_at !== null && typeof expire_at !== 'number')) return;
    const published: TokenKeyPublished = {
      token_id: id,
      user_id,
      public_key: data.public_key as string,
      token_type: typeof token_type === 'string' ? token_type : 'normal',
      expire_at: expire_at as number | null,
    };
    const known = this.tokens.get(id);
    // a republished key (a changed expiry) keeps the verified tokens; another key does not
    if (known && known.key.publicKey !== publicKey) this.accessTokens.forget(id);
    this.tokens.set(id, { published, key: { id, publicKey } });
  }

  private revokeToken(id: string): void {
    if (!this.tokens.delete(id)) return;
    this.accessTokens.forget(id);
    this.tell(id);
  }

  private setUser(id: string, data: Unchecked<UserAccess>): void {
    const flag = (name: 'is_active' | 'is_admin' | 'is_owner' | 'local_only') => data[name] === true;
    const policy = data.policy !== null && typeof data.policy === 'object' ? (data.policy as Policy) : {};
    const access: UserAccess = {
      user_id: id,
      is_active: flag('is_active'),
      is_admin: flag('is_admin'),
      is_owner: flag('is_owner'),
      local_only: flag('local_only'),
      policy,
    };
    const compiled = this.compile(access);
    const known = this.users.get(id);
    const deactivated = known?.view.isActive !== false && !access.is_active;
    const view: MirroredUser = { id, isAdmin: access.is_admin, isOwner: access.is_owner, isActive: access.is_active };
    if (known) {
      known.permissions.set(compiled);
      known.access = access;
      known.view = view;
    } else {
      this.users.set(id, { access, view, permissions: new UserPermissions(compiled) });
    }
    if (deactivated) this.tellTokensOf(id);
  }

  private removeUser(id: string): void {
    const known = this.users.get(id);
    if (!known) return;
    this.users.delete(id);
    // a socket that still holds the permissions object may do nothing more
    known.permissions.set(NONE);
    this.tellTokensOf(id);
  }

  private compile(access: UserAccess): EntityPermissions {
    if (access.is_owner) return ALL;
    try {
      return compilePolicy(access.policy, this.placement);
    } catch {
      // a policy this replica cannot read grants nothing rather than stopping the projection
      return NONE;
    }
  }

  private tellTokensOf(userId: string): void {
    for (const entry of this.tokens.values()) {
      if (entry.published.user_id !== userId) continue;
      this.accessTokens.forget(entry.key.id);
      this.tell(entry.key.id);
    }
  }

  private tell(refreshTokenId: string): void {
    for (const listener of this.revokedListeners) {
      try {
        listener(refreshTokenId);
      } catch {
        // one failing listener must not keep the others from hearing of the revocation
      }
    }
  }
}
