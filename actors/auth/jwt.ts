import { createDecoder, createSigner, createVerifier } from 'fast-jwt';

/** The original refuses longer tokens before parsing them. */
export const MAX_TOKEN_LENGTH = 8192;
/** Seconds of clock skew tolerated on `exp` and `iat`. */
export const LEEWAY_SECONDS = 10;

/**
 * The key of a refresh token's access tokens: the HMAC secret of a token made before key pairs
 * (HS256), or an Ed25519 key pair (EdDSA) whose public half a read replica can verify with.
 * To sign, `jwtKey` or `privateKey` (PEM); to verify, `jwtKey` or `publicKey` (PEM).
 */
export interface SigningToken {
  id: string;
  jwtKey?: string;
  privateKey?: string;
  publicKey?: string;
}

/** The verified claims of an access token. */
export interface AccessClaims {
  iss: string;
  iat: number;
  exp: number;
}

type Verify = (token: string) => AccessClaims;
type Sign = (payload: AccessClaims) => string;

const decode = createDecoder();

/**
 * Signs and checks access tokens: EdDSA JWTs signed by their refresh token's private key, or
 * (refresh tokens made before key pairs) HS256 JWTs keyed by its `jwt_key`. The algorithm a
 * token may use follows from the key its refresh token has, never from the token's header, so
 * an HS256 token keyed by a public key is refused.
 * Verified tokens are cached so the hot path is one Map lookup and an expiry check; the caller
 * still checks that the refresh token is alive, so a revocation takes effect at once.
 */
export class AccessTokens {
  private readonly signers = new Map<string, { key: string; sign: Sign }>();
  private readonly verifiers = new Map<string, { key: string; verify: Verify }>();
  private readonly verified = new Map<string, AccessClaims>();

  constructor(private readonly cacheSize = 4096) {}

  /** A token for `refreshToken` valid from `iat` to `exp` (epoch seconds). */
  sign(refreshToken: SigningToken, iat: number, exp: number): string {
    let entry = this.signers.get(refreshToken.id);
    const key = refreshToken.privateKey ?? refreshToken.jwtKey;
    if (key === undefined) throw new Error(`refresh token ${refreshToken.id} has no signing key`);
    if (!entry || entry.key !== key) {
      const algorithm = refreshToken.privateKey === undefined ? 'HS256' : 'EdDSA';
      entry = { key, sign: createSigner({ key, algorithm }) as Sign };
      this.signers.set(refreshToken.id, entry);
    }
    return entry.sign({ iss: refreshToken.id, iat, exp });
  }

  /**
   * The claims of a valid token at `nowMs`, or undefined. `lookup` finds the live refresh token
   * by id (undefined once revoked).
   */
  verify(token: string, nowMs: number, lookup: (id: string) => SigningToken | undefined): AccessClaims | undefined {
    if (token.length > MAX_TOKEN_LENGTH) return undefined;
    const now = nowMs / 1000;
    const cached = this.verified.get(token);
    if (cached) {
      if (!lookup(cached.iss) || !timely(cached, now)) {
        this.verified.delete(token);
        return undefined;
      }
      return cached;
    }
    let iss: unknown;
    try {
      iss = (decode(token) as { iss?: unknown })?.iss;
    } catch {
      return undefined;
    }
    if (typeof iss !== 'string') return undefined;
    const refreshToken = lookup(iss);
    if (!refreshToken) return undefined;
    let claims: AccessClaims;
    try {
      claims = this.verifierFor(refreshToken)(token);
    } catch {
      return undefined;
    }
    if (!Number.isInteger(claims.iat) || !Number.isInteger(claims.exp) || !timely(claims, now)) return undefined;
    if (this.verified.size >= this.cacheSize) this.verified.delete(this.verified.keys().next().value as string);
    this.verified.set(token, claims);
    return claims;
  }

  /** Forgets everything about a revoked refresh token. */
  forget(refreshTokenId: string): void {
    this.signers.delete(refreshTokenId);
    this.verifiers.delete(refreshTokenId);
    for (const [token, claims] of this.verified) if (claims.iss === refreshTokenId) this.verified.delete(token);
  }

  private verifierFor(refreshToken: SigningToken): Verify {
    let entry = this.verifiers.get(refreshToken.id);
    const key = refreshToken.publicKey ?? refreshToken.jwtKey;
    if (key === undefined) throw new Error('no verification key');
    if (!entry || entry.key !== key) {
      const verify = createVerifier({
        key,
        algorithms: [refreshToken.publicKey === undefined ? 'HS256' : 'EdDSA'],
        allowedIss: refreshToken.id,
        requiredClaims: ['iss', 'iat', 'exp'],
        // times are checked against the injected clock below, not Date.now()
        ignoreExpiration: true,
        ignoreNotBefore: true,
        cache: false,
      }) as Verify;
      entry = { key, verify };
      this.verifiers.set(refreshToken.id, entry);
    }
    return entry.verify;
  }
}

function timely(claims: AccessClaims, now: number): boolean {
  return claims.exp > now - LEEWAY_SECONDS && claims.iat <= now + LEEWAY_SECONDS;
}
