import { createHash } from 'node:crypto';
import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { refreshTokenEventOf, refreshTokenMachine, type RefreshTokenContext, type RefreshTokenCreated, type RefreshTokenEvent, type RefreshTokenStepRecord } from '../../machines/refresh-token.machine.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import { publicKeyPem } from './token-keys.ts';

const secretKey = (token: string) => createHash('sha256').update(token).digest('base64');

/** The stream of one refresh token. */
export const refreshTokenStream = (id: string) => `auth/refresh_token/${id}`;

/** Data of a `refresh_token_created` record: the public fields plus the two secrets. */
export interface RefreshTokenCreatedRecord extends RefreshTokenCreated {
  /** the secret a client presents as `refresh_token` (128 hex) */
  token: string;
  /** the HMAC key of its access tokens (128 hex): tokens made before key pairs sign with it */
  jwt_key: string;
  /** the Ed25519 key its access tokens are signed with (PKCS#8 PEM); absent on tokens made before key pairs */
  private_key?: string;
  /** its public half, raw in base64url: what read replicas verify with (published under authpub/) */
  public_key?: string;
}

/** A live refresh token as the rest of the auth system reads it: its machine's context plus the secrets. */
export interface RefreshTokenView extends RefreshTokenContext {
  token: string;
  jwtKey: string;
  /** PEM; undefined for a token made before key pairs (its access tokens are HS256) */
  privateKey?: string;
  /** raw base64url, beside privateKey */
  publicKey?: string;
}

/** The key pair fields of a refresh token, when it has one. */
export interface TokenKeys {
  privateKey?: string;
  publicKey?: string;
}

/** What access-token checks need of a live refresh token (the PEM public key when it has a pair). */
export interface LiveKey {
  id: string;
  jwtKey: string;
  publicKey?: string;
  userId: string;
}

export type TokenSnapshot = SnapshotFrom<typeof refreshTokenMachine>;

interface Entry {
  snapshot: TokenSnapshot;
  token: string;
  jwtKey: string;
  keys: TokenKeys;
  /** handed to access-token checks as is, so the hot path allocates nothing */
  key: LiveKey;
}

/** Persisted form of the live refresh tokens (area snapshot). */
export interface TokensSnapshot {
  tokens: Array<{ value: unknown; context: unknown; token: string; jwt_key: string; private_key?: string; public_key?: string }>;
}

/** The records of a token's stream `auth/refresh_token/<id>`. */
export type RefreshTokenRecord = { type: 'refresh_token_created'; data: RefreshTokenCreatedRecord } | RefreshTokenStepRecord;
export const refreshTokenRecords = typedRecords<RefreshTokenRecord>('auth/refresh_token/', {
  refresh_token_created: true,
  refresh_token_used: true,
  refresh_token_expiry_set: true,
  refresh_token_revoked: true,
});

/** The live refresh tokens, rebuilt from their log records; revoked ones are dropped. */
export class RefreshTokens {
  private readonly entries = new Map<string, Entry>();
  /**
   * Tokens by the SHA-256 of their secret: a lookup compares digests, so how long it takes says
   * nothing about how much of a guessed secret was right.
   */
  private readonly bySecret = new Map<string, string>();

  /** `onRemoved` runs when a token is revoked (caches of its access tokens go). */
  constructor(private readonly onRemoved: (id: string) => void = () => {}) {}

  /** Applies one committed record of an `auth/refresh_token/...` stream. */
  evolve(record: RecordOf<RefreshTokenRecord>): void {
    if (record.type === 'refresh_token_created') {
      const { token, jwt_key, private_key, public_key, ...created } = record.data;
      this.add(initialTransition(refreshTokenMachine, created)[0], token, jwt_key, { privateKey: private_key, publicKey: public_key });
      return;
    }
    const id = record.stream.slice('auth/refresh_token/'.length);
    const entry = this.entries.get(id);
    const event = refreshTokenEventOf(record);
    if (!entry || !entry.snapshot.can(event)) return;
    entry.snapshot = transition(refreshTokenMachine, entry.snapshot, event)[0];
    if (entry.snapshot.status === 'done') {
      this.entries.delete(id);
      this.bySecret.delete(secretKey(entry.token));
      this.onRemoved(id);
    }
  }

  /** Whether `event` would apply to the token now (the machine's guards decide). */
  can(id: string, event: RefreshTokenEvent): boolean {
    return this.entries.get(id)?.snapshot.can(event) ?? false;
  }

  get(id: string): RefreshTokenView | undefined {
    const entry = this.entries.get(id);
    return entry && view(entry);
  }

  /** The signing key of a live token that has not expired at `nowMs` (the access-token hot path). */
  liveKey(id: string, nowMs: number): LiveKey | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    const expireAt = entry.snapshot.context.expireAt;
    return expireAt === null || nowMs < expireAt ? entry.key : undefined;
  }

  /** The token a client presented as `refresh_token`. */
  bySecretToken(token: string): RefreshTokenView | undefined {
    const id = this.bySecret.get(secretKey(token));
    return id === undefined ? undefined : this.get(id);
  }

  ofUser(userId: string): RefreshTokenView[] {
    return [...this.entries.values()].filter((e) => e.snapshot.context.userId === userId).map(view);
  }

  snapshot(): TokensSnapshot {
    return {
      tokens: [...this.entries.values()].map((e) => ({
        value: e.snapshot.value,
        context: e.snapshot.context,
        token: e.token,
        jwt_key: e.jwtKey,
        ...(e.keys.privateKey === undefined ? {} : { private_key: e.keys.privateKey, public_key: e.keys.publicKey }),
      })),
    };
  }

  restore(data: TokensSnapshot): void {
    for (const id of this.entries.keys()) this.onRemoved(id);
    this.entries.clear();
    this.bySecret.clear();
    for (const t of data.tokens) {
      const snapshot = refreshTokenMachine.resolveState(t as Parameters<typeof refreshTokenMachine.resolveState>[0]);
      this.add(snapshot, t.token, t.jwt_key, { privateKey: t.private_key, publicKey: t.public_key });
    }
  }

  /** The machine snapshot of a live token (what the authpub/ records are derived from). */
  machine(id: string): TokenSnapshot | undefined {
    return this.entries.get(id)?.snapshot;
  }

  /** Ids of the live tokens, in creation order. */
  ids(): string[] {
    return [...this.entries.keys()];
  }

  private add(snapshot: TokenSnapshot, token: string, jwtKey: string, keys: TokenKeys): void {
    const { id, userId } = snapshot.context;
    const publicKey = keys.privateKey === undefined ? undefined : publicKeyPem(keys.publicKey);
    const key: LiveKey = publicKey === undefined ? { id, jwtKey, userId } : { id, jwtKey, publicKey, userId };
    this.entries.set(id, { snapshot, token, jwtKey, keys: publicKey === undefined ? {} : keys, key });
    this.bySecret.set(secretKey(token), snapshot.context.id);
  }
}

function view(entry: Entry): RefreshTokenView {
  return { ...entry.snapshot.context, token: entry.token, jwtKey: entry.jwtKey, ...entry.keys };
}
