import { isoformat as isoTime } from '../../machines/python/isoformat.ts';
import type { RefreshTokenType } from '../../machines/refresh-token.machine.ts';
import type { Clock } from '../clock.ts';
import type { AccessAuth, GrantOutcome } from './types.ts';
import { verifyClientId } from './client-id.ts';
import type { LoginPolicy } from './login-policy.ts';
import type { TokenIssuer } from './token-issuer.ts';
import { refreshTokenStream, type RefreshTokenView } from './tokens.ts';
import type { AuthRecords } from './auth-records.ts';
import type { Users } from './users.ts';

/** One entry of the WebSocket command auth/refresh_tokens (the original's fields, in its order). */
export interface RefreshTokenInfo {
  id: string;
  client_id: string | null;
  client_name: string | null;
  client_icon: string | null;
  type: RefreshTokenType;
  created_at: string;
  is_current: boolean;
  last_used_at: string | null;
  last_used_ip: string | null;
  auth_provider_type: string | null;
  expire_at: string | null;
}

/** What auth/long_lived_access_token led to. */
export type LongLivedOutcome = { ok: true; accessToken: string } | { ok: false; reason: 'duplicate_name' | 'invalid_lifespan' | 'not_allowed' };

/** The token endpoint's refresh and revoke (POST /auth/token, POST /auth/revoke). */
export interface TokenGrants {
  /** grant_type=refresh_token */
  refreshAccessToken(clientId: string | undefined, token: string | undefined, ip: string): Promise<GrantOutcome>;
  /** Revokes the refresh token whose secret is `token`; unknown tokens are ignored. */
  revokeBySecret(token: string): Promise<void>;
}

/** A user's refresh tokens as the WebSocket auth/* commands manage them. */
export interface UserTokens {
  refreshToken(id: string): RefreshTokenView | undefined;
  /**
   * A `long_lived_access_token` refresh token of the user named `clientName` (one per name and
   * user), whose access tokens live `lifespanDays`; its first access token, which is all the
   * caller ever gets of it.
   */
  createLongLivedToken(userId: string, request: { clientName: string; clientIcon: string | null; lifespanDays: number }): Promise<LongLivedOutcome>;
  /** The user's live refresh tokens in creation order; `currentId` is the asking connection's. */
  refreshTokensOf(userId: string, currentId: string): RefreshTokenInfo[];
  /** The user's refresh token `id`, or undefined when the user has none by that id. */
  userRefreshToken(userId: string, id: string): RefreshTokenView | undefined;
  /** Revokes a refresh token by id; false when there is none. */
  revokeRefreshToken(id: string, reason?: string): Promise<boolean>;
  /** Revokes these refresh tokens with one append; their access tokens fail from then on. */
  revokeRefreshTokens(ids: string[], reason?: string): Promise<void>;
  /** Turns expiry of the user's refresh token on or off; false when the user has no such token. */
  setRefreshTokenExpiry(userId: string, id: string, enable: boolean): Promise<boolean>;
  /**
   * `path` signed by the refresh token `refreshTokenId` for `expiresSeconds` (the WebSocket
   * command auth/sign_path): `<path>?authSig=<jwt>`; undefined when `expiresSeconds` is out of
   * range (the original's timedelta overflows).
   */
  signPath(refreshTokenId: string, path: string, expiresSeconds: number): string | undefined;
}

/** The tokens module as callers see it: checks, the token endpoint, a user's own tokens. */
export type TokenService = AccessAuth & TokenGrants & UserTokens;

/** What the token service needs: the issuer, who may log in from where, the shared parts. */
export interface TokenServiceDeps {
  issuer: TokenIssuer;
  policy: LoginPolicy;
  users: Users;
  records: AuthRecords;
  clock: Clock;
}

// the original's timedelta(days=...) refuses more than 999999999 days either way
const MAX_LIFESPAN_DAYS = 999_999_999;

/** The token service over the issuer's refresh tokens. */
export function createTokenService({ issuer, policy, users, records, clock }: TokenServiceDeps): TokenService {
  const tokens = issuer.store;
  /** `userId\nclient_name` of long-lived tokens being created (the name check and the append are apart) */
  const longLivedInProgress = new Set<string>();

  return {
    validateAccessToken: (token) => issuer.principalOfAccessToken(token),

    authenticate(authorization, request) {
      if (authorization !== undefined) {
        const space = authorization.indexOf(' ');
        // the scheme is compared exactly: `bearer x` and `BEARER x` are refused
        const principal = space < 0 || authorization.slice(0, space) !== 'Bearer' ? undefined : issuer.principalOfAccessToken(authorization.slice(space + 1));
        if (principal) return principal;
      }
      // as in the original, a request without a valid bearer token may still be a signed GET
      return request ? issuer.principalOfSignedRequest(request) : undefined;
    },

    onRefreshTokenRevoked: (listener) => issuer.onRevoked(listener),

    async refreshAccessToken(clientId, token, ip) {
      if (clientId !== undefined && !verifyClientId(clientId)) return { ok: false, error: 'invalid_request', description: 'Invalid client id' };
      if (token === undefined) return { ok: false, error: 'invalid_request' };
      const rt = tokens.bySecretToken(token);
      if (!rt) return { ok: false, error: 'invalid_grant' };
      if (rt.clientId !== (clientId ?? null)) return { ok: false, error: 'invalid_request' };
      const user = users.get(rt.userId);
      if (!user) return { ok: false, error: 'invalid_grant' };
      const credential = rt.credentialId === null ? undefined : users.credential(rt.credentialId);
      const denied = policy.userRefusal(user, ip) ?? (credential && policy.providerRefusal(credential, ip));
      if (denied) return { ok: false, error: 'access_denied', description: denied };
      if (!tokens.can(rt.id, { type: 'refresh_token_used', last_used_at: clock.now(), last_used_ip: ip })) {
        await issuer.revoke([rt], 'expired');
        return { ok: false, error: 'invalid_grant' };
      }
      const accessToken = await issuer.mint(rt, ip);
      if (!accessToken) return { ok: false, error: 'invalid_grant' };
      return { ok: true, accessToken, expiresIn: rt.accessTokenExpiration };
    },

    async revokeBySecret(token) {
      const rt = tokens.bySecretToken(token);
      if (rt) await issuer.revoke([rt]);
    },

    refreshToken: (id) => tokens.get(id),

    async createLongLivedToken(userId, { clientName, clientIcon, lifespanDays }) {
      const user = users.get(userId);
      if (!user || !user.isActive) return { ok: false, reason: 'not_allowed' };
      if (!Number.isSafeInteger(lifespanDays) || Math.abs(lifespanDays) > MAX_LIFESPAN_DAYS) return { ok: false, reason: 'invalid_lifespan' };
      const nameKey = `${userId}\n${clientName}`;
      const taken = () =>
        longLivedInProgress.has(nameKey) ||
        tokens.ofUser(userId).some((rt) => rt.tokenType === 'long_lived_access_token' && rt.clientName === clientName);
      if (taken()) return { ok: false, reason: 'duplicate_name' };
      longLivedInProgress.add(nameKey);
      try {
        const created = issuer.create(user, {
          clientId: null,
          credentialId: null,
          tokenType: 'long_lived_access_token',
          clientName,
          clientIcon,
          accessTokenExpiration: lifespanDays * 86_400,
        });
        const accessToken = await issuer.mintFirst(created, null);
        return accessToken ? { ok: true, accessToken } : { ok: false, reason: 'not_allowed' };
      } finally {
        longLivedInProgress.delete(nameKey);
      }
    },

    refreshTokensOf(userId, currentId) {
      const now = clock.now();
      // an expired token is gone for the original (its expiry timer removes it)
      return tokens
        .ofUser(userId)
        .filter((rt) => rt.expireAt === null || now < rt.expireAt)
        .map((rt) => ({
          id: rt.id,
          client_id: rt.clientId,
          client_name: rt.clientName,
          client_icon: rt.clientIcon,
          type: rt.tokenType,
          created_at: isoTime(rt.createdAt),
          is_current: rt.id === currentId,
          last_used_at: rt.lastUsedAt === null ? null : isoTime(rt.lastUsedAt),
          last_used_ip: rt.lastUsedIp,
          auth_provider_type: (rt.credentialId && users.credential(rt.credentialId)?.auth_provider_type) || null,
          expire_at: rt.expireAt === null ? null : isoTime(rt.expireAt),
        }));
    },

    userRefreshToken(userId, id) {
      const rt = tokens.get(id);
      return rt && rt.userId === userId ? rt : undefined;
    },

    async revokeRefreshToken(id, reason) {
      const rt = tokens.get(id);
      if (!rt) return false;
      await issuer.revoke([rt], reason);
      return true;
    },

    async revokeRefreshTokens(tokenIds, reason) {
      const rts = tokenIds.map((id) => tokens.get(id)).filter((rt): rt is RefreshTokenView => rt !== undefined);
      await issuer.revoke(rts, reason);
    },

    async setRefreshTokenExpiry(userId, id, enable) {
      const rt = tokens.get(id);
      if (!rt || rt.userId !== userId) return false;
      await records.append(records.record(refreshTokenStream(id), { type: 'refresh_token_expiry_set', data: { enable_expiry: enable, at: clock.now() } }, userId));
      return true;
    },

    signPath: (refreshTokenId, path, expiresSeconds) => issuer.signPath(refreshTokenId, path, expiresSeconds),
  };
}
