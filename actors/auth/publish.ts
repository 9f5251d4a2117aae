import { initialTransition, transition } from 'xstate';
import { userEventOf, userMachine } from '../../machines/user.machine.ts';
import { refreshTokenEventOf, refreshTokenMachine } from '../../machines/refresh-token.machine.ts';
import type { EventLog, EventRecord, NewEvent } from '../../store/types.ts';
import { typedRecords } from '../../store/typed-records.ts';
import type { Groups } from './groups.ts';
import type { Policy } from './permissions.ts';
import { userRecords, userViewOf, type UserSnapshot, type Users } from './users.ts';
import { refreshTokenRecords, type RefreshTokens, type TokenSnapshot } from './tokens.ts';
import type { RecordMaker } from './auth-records.ts';

// What read replicas need of auth, and nothing secret: the public keys of refresh tokens and
// what each user may do. The auth actors append these beside the `auth/` records that change
// them (the same append), under `authpub/` so the exporter publishes them while `auth/` stays home.

/** Every stream of the public auth mirror starts with this. */
export const AUTHPUB_PREFIX = 'authpub/';
export const tokenPubStream = (tokenId: string) => `authpub/token/${tokenId}`;
export const userPubStream = (userId: string) => `authpub/user/${userId}`;

/** Data of `token_key_published`: a refresh token whose access tokens a replica can verify. */
export interface TokenKeyPublished {
  token_id: string;
  user_id: string;
  /** the raw 32-byte Ed25519 public key, base64url */
  public_key: string;
  token_type: string;
  /** epoch ms, or null when the token does not expire (a use slides it: 90 days after the last) */
  expire_at: number | null;
}

/** Data of `token_key_revoked`. */
export interface TokenKeyRevoked {
  token_id: string;
}

/** Data of `user_access`: what a user may do, as a replica checks it. */
export interface UserAccess {
  user_id: string;
  is_active: boolean;
  is_admin: boolean;
  is_owner: boolean;
  local_only: boolean;
  /** the merged policy of the user's groups (an owner may do everything whatever it says) */
  policy: Policy;
}

/** Data of `user_access_removed`. */
export interface UserAccessRemoved {
  user_id: string;
}

/** The records under `authpub/`: `authpub/token/<id>` and `authpub/user/<id>`. */
export type AuthPubRecord =
  | { type: 'token_key_published'; data: TokenKeyPublished }
  | { type: 'token_key_revoked'; data: TokenKeyRevoked }
  | { type: 'user_access'; data: UserAccess }
  | { type: 'user_access_removed'; data: UserAccessRemoved };
export const authPubRecords = typedRecords<AuthPubRecord>(AUTHPUB_PREFIX, { token_key_published: true, token_key_revoked: true, user_access: true, user_access_removed: true });

/** The access record of a user as its machine snapshot says. */
export function accessOf(snapshot: UserSnapshot, groups: Groups): UserAccess {
  const view = userViewOf(snapshot);
  return {
    user_id: view.id,
    is_active: view.isActive,
    is_admin: view.isAdmin,
    is_owner: view.isOwner,
    local_only: view.localOnly,
    policy: groups.policyOf(view.groupIds),
  };
}

function keyRecordOf(snapshot: TokenSnapshot, publicKey: string): TokenKeyPublished {
  const c = snapshot.context;
  return { token_id: c.id, user_id: c.userId, public_key: publicKey, token_type: c.tokenType, expire_at: c.expireAt };
}

const sameAccess = (a: UserAccess | undefined, b: UserAccess | undefined) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Derives the authpub/ records of a batch of auth records from the state they start from (the
 * committed users and tokens), walking the batch through the same machines the projection uses.
 */
export class AuthPublisher {
  /** the last committed user_access of each user (JSON), null once removed; only users seen since start */
  private readonly publishedUsers = new Map<string, string | null>();
  /** tokens whose last committed authpub/ record published their key */
  private readonly publishedTokens = new Set<string>();

  constructor(
    private readonly users: Users,
    private readonly tokens: RefreshTokens,
    private readonly record: RecordMaker,
  ) {}

  /** The authpub/ records `events` cause, to be appended after them. */
  derive(events: readonly NewEvent[]): NewEvent[] {
    const out: NewEvent[] = [];
    const userState = new Map<string, UserSnapshot | undefined>();
    const tokenState = new Map<string, { snapshot: TokenSnapshot; publicKey: string } | undefined>();
    const userNow = (id: string) => (userState.has(id) ? userState.get(id) : this.users.machine(id));
    const tokenNow = (id: string) => {
      if (tokenState.has(id)) return tokenState.get(id);
      const snapshot = this.tokens.machine(id);
      const publicKey = this.tokens.get(id)?.publicKey;
      return snapshot && publicKey ? { snapshot, publicKey } : undefined;
    };
    for (const event of events) {
      const { stream } = event;
      const ctx = event.context.user_id;
      if (userRecords.ownsNew(event)) {
        const userId = stream.slice('auth/user/'.length);
        const before = userNow(userId);
        let after: UserSnapshot;
        if (event.type === 'user_created') after = initialTransition(userMachine, event.data)[0];
        else if (event.type === 'credential_added' || event.type === 'password_changed' || event.type === 'credential_removed') continue;
        else {
          const userEvent = userEventOf(event);
          if (!before?.can(userEvent)) continue;
          after = transition(userMachine, before, userEvent)[0];
        }
        if (after.status === 'done') {
          userState.set(userId, undefined);
          out.push(this.record(userPubStream(userId), { type: 'user_access_removed', data: { user_id: userId } satisfies UserAccessRemoved }, ctx, event.time));
          continue;
        }
        userState.set(userId, after);
        const access = accessOf(after, this.users.groups);
        if (!before || event.type === 'user_created' || !sameAccess(accessOf(before, this.users.groups), access)) {
          out.push(this.record(userPubStream(userId), { type: 'user_access', data: access }, ctx, event.time));
        }
      } else if (refreshTokenRecords.ownsNew(event)) {
        const tokenId = stream.slice('auth/refresh_token/'.length);
        if (event.type === 'refresh_token_created') {
          const { token: _t, jwt_key: _k, private_key, public_key, ...created } = event.data;
          if (private_key === undefined || public_key === undefined) continue;
          const snapshot = initialTransition(refreshTokenMachine, created)[0];
          tokenState.set(tokenId, { snapshot, publicKey: public_key });
          out.push(this.record(tokenPubStream(tokenId), { type: 'token_key_published', data: keyRecordOf(snapshot, public_key) }, ctx, event.time));
          continue;
        }
        const current = tokenNow(tokenId);
        const tokenEvent = refreshTokenEventOf(event);
        if (!current || !current.snapshot.can(tokenEvent)) continue;
        const snapshot = transition(refreshTokenMachine, current.snapshot, tokenEvent)[0];
        if (snapshot.status === 'done') {
          tokenState.set(tokenId, undefined);
          out.push(this.record(tokenPubStream(tokenId), { type: 'token_key_revoked', data: { token_id: tokenId } satisfies TokenKeyRevoked }, ctx, event.time));
          continue;
        }
        tokenState.set(tokenId, { snapshot, publicKey: current.publicKey });
        // a use slides the expiry, which a replica reckons from the access token's iat itself
        if (event.type === 'refresh_token_expiry_set' && snapshot.context.expireAt !== current.snapshot.context.expireAt) {
          out.push(this.record(tokenPubStream(tokenId), { type: 'token_key_published', data: keyRecordOf(snapshot, current.publicKey) }, ctx, event.time));
        }
      }
    }
    return out;
  }

  /**
   * Corrections after a commit, in case two appends of one tick were derived from the same
   * state (a deactivation beside a group change, a revocation beside an expiry change): the
   * records the authpub/ streams need for the users and tokens `batch` touched to say what the
   * committed state says. Usually empty; a correction converges, as it is checked in its turn.
   */
  observe(batch: readonly EventRecord[]): NewEvent[] {
    const users = new Set<string>();
    const tokens = new Set<string>();
    for (const r of batch) {
      if (!r.stream.startsWith('auth')) continue; // every commit passes here: entity states leave at once
      if (r.stream.startsWith('authpub/user/')) {
        const id = r.stream.slice('authpub/user/'.length);
        if (r.type === 'user_access') this.publishedUsers.set(id, JSON.stringify(r.data));
        else if (r.type === 'user_access_removed') this.publishedUsers.set(id, null);
        users.add(id);
      } else if (r.stream.startsWith('authpub/token/')) {
        const id = r.stream.slice('authpub/token/'.length);
        if (r.type === 'token_key_published') this.publishedTokens.add(id);
        else if (r.type === 'token_key_revoked') this.publishedTokens.delete(id);
        tokens.add(id);
      } else if (r.stream.startsWith('auth/user/')) users.add(r.stream.slice('auth/user/'.length));
      else if (r.stream.startsWith('auth/refresh_token/')) tokens.add(r.stream.slice('auth/refresh_token/'.length));
    }
    const out: NewEvent[] = [];
    for (const id of users) {
      if (!this.publishedUsers.has(id)) continue; // not seen since start: the catch-up's part
      const snapshot = this.users.machine(id);
      const access = snapshot && accessOf(snapshot, this.users.groups);
      if (this.publishedUsers.get(id) === (access ? JSON.stringify(access) : null)) continue;
      out.push(access ? this.record(userPubStream(id), { type: 'user_access', data: access }) : this.record(userPubStream(id), { type: 'user_access_removed', data: { user_id: id } }));
    }
    for (const id of tokens) {
      // a key published for a token revoked meanwhile must not outlive it on a replica
      if (this.publishedTokens.has(id) && !this.tokens.get(id)?.publicKey) out.push(this.record(tokenPubStream(id), { type: 'token_key_revoked', data: { token_id: id } }));
    }
    return out;
  }

  /**
   * The records that bring the authpub/ streams in `log` up to the users and tokens as they are:
   * those of an instance that ran before authpub/ existed, or whose groups' policies changed in
   * the configuration since. Empty when nothing is missing, so running it at every start is free.
   */
  async catchUp(log: EventLog): Promise<NewEvent[]> {
    const published = new Map<string, unknown>();
    for await (const r of log.readStreams(AUTHPUB_PREFIX, { latest: true })) {
      published.set(r.stream, r.type === 'user_access' || r.type === 'token_key_published' ? r.data : undefined);
      this.observe([r]);
    }
    const out: NewEvent[] = [];
    const userIds = new Set<string>();
    for (const user of this.users.all()) {
      userIds.add(user.id);
      const access = accessOf(this.users.machine(user.id)!, this.users.groups);
      const stream = userPubStream(user.id);
      if (!sameAccess(published.get(stream) as UserAccess | undefined, access)) out.push(this.record(stream, { type: 'user_access', data: access }));
    }
    const tokenIds = new Set<string>();
    for (const id of this.tokens.ids()) {
      const snapshot = this.tokens.machine(id)!;
      const publicKey = this.tokens.get(id)?.publicKey;
      if (!publicKey) continue;
      tokenIds.add(id);
      const stream = tokenPubStream(id);
      const known = published.get(stream) as TokenKeyPublished | undefined;
      if (!known || known.public_key !== publicKey) out.push(this.record(stream, { type: 'token_key_published', data: keyRecordOf(snapshot, publicKey) }));
    }
    for (const [stream, data] of published) {
      if (data === undefined) continue;
      if (stream.startsWith('authpub/user/') && !userIds.has(stream.slice('authpub/user/'.length))) {
        out.push(this.record(stream, { type: 'user_access_removed', data: { user_id: stream.slice('authpub/user/'.length) } }));
      } else if (stream.startsWith('authpub/token/') && !tokenIds.has(stream.slice('authpub/token/'.length))) {
        out.push(this.record(stream, { type: 'token_key_revoked', data: { token_id: stream.slice('authpub/token/'.length) } }));
      }
    }
    return out;
  }
}
