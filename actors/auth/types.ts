import type { Area } from '../area.ts';
import type { SignedRequest } from './signed-paths.ts';
import type { EntityPermissions } from './permissions.ts';
import type { UserView } from './users.ts';

/** Who made a request: the user behind a valid access token. */
export interface Principal {
  userId: string;
  isAdmin: boolean;
  isOwner: boolean;
  refreshTokenId: string;
  /**
   * What the user may do to which entity: the user's own live object (actors/auth/users.ts), so
   * a WebSocket connection's principal follows a change of the user's groups.
   */
  permissions: EntityPermissions;
}

/** Checks a request's Authorization header (exactly `Bearer <token>`), or its signed path. */
export interface Authenticator {
  authenticate(authorization: string | undefined, request: SignedRequest): Principal | undefined;
}

/** The result of the WebSocket command auth/current_user (the original's shape). */
export interface CurrentUser {
  id: string;
  name: string | null;
  is_owner: boolean;
  is_admin: boolean;
  credentials: Array<{ auth_provider_type: string; auth_provider_id: string | null }>;
  mfa_modules: Array<{ id: string; name: string; enabled: boolean }>;
}

/**
 * What the read side of the API needs of auth: the primary's auth service, or a replica's mirror
 * of the primary's public token keys.
 */
export interface AccessAuth extends Authenticator {
  /** checks an access token (JWT); undefined when invalid, expired, revoked or the user inactive */
  validateAccessToken(token: string): Principal | undefined;
  /** called after a refresh token is revoked (its access tokens die; sockets using them close) */
  onRefreshTokenRevoked(listener: (refreshTokenId: string) => void): () => void;
}

/** The users as the rest of Hearth reads them (who a request or a service call names). */
export interface UserDirectory {
  user(userId: string): UserView | undefined;
  /**
   * Who a service call's context names, as the service registry checks it: whether the user is
   * an admin now, and its permissions; undefined for a user that does not exist.
   */
  caller(userId: string): { isAdmin: boolean; permissions: EntityPermissions } | undefined;
  currentUser(userId: string): CurrentUser | undefined;
  /** true once onboarding created the first user */
  hasUsers(): boolean;
}

/** What the rest of Hearth needs of the auth system. */
export interface AuthService extends AccessAuth, UserDirectory {
  /** the auth actors' persistence (snapshot + log tail) */
  area: Area;
}

/** The answer of the token endpoint, in OAuth terms. */
export type GrantOutcome =
  | { ok: true; accessToken: string; expiresIn: number; refreshToken?: string; providerType?: string | null }
  | { ok: false; error: 'invalid_request' | 'invalid_grant' | 'access_denied'; description?: string };
