import type { NewEvent } from '../../store/types.ts';
import type { NewRecordOf } from '../../store/typed-records.ts';
import { CORE_VERSION } from '../version.ts';
import { REFRESH_TOKEN_EXPIRATION_MS, type RefreshTokenType } from '../../machines/refresh-token.machine.ts';
import type { AuthModuleDeps } from './auth-records.ts';
import type { GrantOutcome, Principal } from './types.ts';
import { AccessTokens } from './jwt.ts';
import { SignedPaths, MAX_EXPIRES_SECONDS, type SignedRequest } from './signed-paths.ts';
import { RefreshTokens, refreshTokenStream, type RefreshTokenCreatedRecord, type RefreshTokenView } from './tokens.ts';
import { tokenKeyPair } from './token-keys.ts';
import type { Credential, UserView } from './users.ts';

/** What the token issuer needs beyond the shared parts. */
export interface TokenIssuerDeps extends AuthModuleDeps {
  /** seconds the access tokens of a normal refresh token live */
  accessTokenLifetime: number;
  /** how many verified access tokens are remembered */
  accessTokenCacheSize?: number;
}

/** What a new refresh token is made for. */
export interface RefreshTokenRequest {
  clientId: string | null;
  credentialId: string | null;
  tokenType?: RefreshTokenType;
  clientName?: string | null;
  clientIcon?: string | null;
  /** seconds */
  accessTokenExpiration?: number;
}

/**
 * The refresh tokens and what is made of them: the live tokens (rebuilt from their records), the
 * access tokens they mint and the checks of those, signed paths, and revocations with the
 * listeners that hear of them. The login, onboarding and admin modules grant and revoke through
 * it; callers outside auth reach it only through the token service's narrow interfaces.
 */
export class TokenIssuer {
  /** the live refresh tokens; the auth area evolves, snapshots and restores them */
  readonly store: RefreshTokens;
  private readonly accessTokens: AccessTokens;
  private readonly signedPaths = new SignedPaths();
  private readonly revokedListeners = new Set<(refreshTokenId: string) => void>();

  constructor(private readonly deps: TokenIssuerDeps) {
    this.accessTokens = new AccessTokens(deps.accessTokenCacheSize);
    // a revoked token's cached access tokens and signers go with it
    this.store = new RefreshTokens((id) => this.accessTokens.forget(id));
  }

  /** The user behind a valid access token (JWT); undefined when invalid, expired, revoked or the user inactive. */
  principalOfAccessToken(token: string): Principal | undefined {
    const now = this.deps.clock.now();
    const claims = this.accessTokens.verify(token, now, (id) => this.store.liveKey(id, now));
    if (!claims) return undefined;
    const key = this.store.liveKey(claims.iss, now);
    const user = key && this.deps.users.get(key.userId);
    if (!user || !user.isActive) return undefined;
    return this.principalOf(user, claims.iss);
  }

  /**
   * The user of the refresh token that signed this request (its path and query exactly the signed
   * ones, unexpired, GET only), while that refresh token lives. As in the original, the user is
   * not checked for being active here.
   */
  principalOfSignedRequest(request: SignedRequest): Principal | undefined {
    if (request.method !== 'GET') return undefined; // before the query is parsed
    const now = this.deps.clock.now();
    const refreshTokenId = this.signedPaths.verify(request, now);
    const key = refreshTokenId === undefined ? undefined : this.store.liveKey(refreshTokenId, now);
    const user = key && this.deps.users.get(key.userId);
    if (!key || !user) return undefined;
    return this.principalOf(user, key.id);
  }

  /** `path` signed by the refresh token for `expiresSeconds`; undefined when that is out of range (the original's timedelta overflows). */
  signPath(refreshTokenId: string, path: string, expiresSeconds: number): string | undefined {
    if (!Number.isSafeInteger(expiresSeconds) || Math.abs(expiresSeconds) > MAX_EXPIRES_SECONDS) return undefined;
    return this.signedPaths.sign(refreshTokenId, path, expiresSeconds, this.deps.clock.now());
  }

  /** Calls `listener` after each revocation; the returned function stops it. */
  onRevoked(listener: (refreshTokenId: string) => void): () => void {
    this.revokedListeners.add(listener);
    return () => this.revokedListeners.delete(listener);
  }

  /** The `refresh_token_created` record of a new token of `user` (not appended). */
  create(user: UserView, request: RefreshTokenRequest): TokenCreated {
    const { clock, ids, records } = this.deps;
    const now = clock.now();
    const tokenType = request.tokenType ?? 'normal';
    const data: RefreshTokenCreatedRecord = {
      id: ids.uuidHex(),
      user_id: user.id,
      client_id: request.clientId,
      client_name: request.clientName ?? null,
      client_icon: request.clientIcon ?? null,
      token_type: tokenType,
      created_at: now,
      access_token_expiration: request.accessTokenExpiration ?? this.deps.accessTokenLifetime,
      expire_at: tokenType === 'normal' ? now + REFRESH_TOKEN_EXPIRATION_MS : null,
      credential_id: request.credentialId,
      version: CORE_VERSION,
      token: ids.tokenHex(64),
      jwt_key: ids.tokenHex(64),
      ...keyPairRecord(tokenKeyPair(ids.tokenHex(32))),
    };
    return records.record(refreshTokenStream(data.id), { type: 'refresh_token_created', data: data }, user.id, now);
  }

  /** Mints an access token, recording the use (after `extra`); undefined when the refresh token can no longer be used. */
  async mint(rt: RefreshTokenView, ip: string | null, extra: NewEvent[] = []): Promise<string | undefined> {
    const { clock, records } = this.deps;
    const now = clock.now();
    const used = { last_used_at: now, last_used_ip: ip };
    await records.append(...extra, records.record(refreshTokenStream(rt.id), { type: 'refresh_token_used', data: used }, rt.userId, now));
    const live = this.store.get(rt.id);
    if (!live || live.lastUsedAt !== now) return undefined;
    const iat = Math.floor(now / 1000);
    return this.accessTokens.sign(live, iat, iat + live.accessTokenExpiration);
  }

  /** Mints the first access token of a token `created` made, appending it with `extra` records before it. */
  mintFirst(created: TokenCreated, ip: string | null, extra: NewEvent[] = []): Promise<string | undefined> {
    const { data } = created;
    const rt: RefreshTokenView = { ...tokenViewOf(data), token: data.token, jwtKey: data.jwt_key, privateKey: data.private_key, publicKey: data.public_key };
    return this.mint(rt, ip, [...extra, created]);
  }

  /** A refresh token for `user` from `credential` and its first access token, appended with `extra` records. */
  async grant(user: UserView, credential: Credential, clientId: string, ip: string, extra: NewEvent[] = []): Promise<GrantOutcome> {
    const created = this.create(user, { clientId, credentialId: credential.id });
    const { data } = created;
    const accessToken = await this.mintFirst(created, ip, extra);
    if (!accessToken) return { ok: false, error: 'invalid_grant' };
    return { ok: true, accessToken, expiresIn: data.access_token_expiration, refreshToken: data.token, providerType: credential.auth_provider_type };
  }

  /** Revokes tokens with one append (with `extra` records after them), then tells the listeners of each. */
  async revoke(rts: RefreshTokenView[], reason?: string, extra: NewEvent[] = []): Promise<void> {
    if (rts.length === 0 && extra.length === 0) return;
    const { records } = this.deps;
    await records.append(...rts.map((rt) => records.record(refreshTokenStream(rt.id), { type: 'refresh_token_revoked', data: reason ? { reason } : {} }, rt.userId)), ...extra);
    for (const rt of rts) {
      for (const listener of this.revokedListeners) {
        try {
          listener(rt.id);
        } catch {
          // one failing listener must not keep the others from hearing of the revocation
        }
      }
    }
  }

  private principalOf(user: UserView, refreshTokenId: string): Principal {
    return { userId: user.id, isAdmin: user.isAdmin, isOwner: user.isOwner, refreshTokenId, permissions: this.deps.users.permissions(user.id) };
  }
}

/** A `refresh_token_created` record not yet appended. */
type TokenCreated = NewRecordOf<{ type: 'refresh_token_created'; data: RefreshTokenCreatedRecord }>;

function keyPairRecord(pair: { privateKey: string; publicKey: string }): Pick<RefreshTokenCreatedRecord, 'private_key' | 'public_key'> {
  return { private_key: pair.privateKey, public_key: pair.publicKey };
}

function tokenViewOf(data: RefreshTokenCreatedRecord): Omit<RefreshTokenView, 'token' | 'jwtKey'> {
  return {
    id: data.id,
    userId: data.user_id,
    clientId: data.client_id,
    clientName: data.client_name,
    clientIcon: data.client_icon,
    tokenType: data.token_type,
    createdAt: data.created_at,
    accessTokenExpiration: data.access_token_expiration,
    lastUsedAt: null,
    lastUsedIp: null,
    expireAt: data.expire_at,
    credentialId: data.credential_id,
    version: data.version,
  };
}
