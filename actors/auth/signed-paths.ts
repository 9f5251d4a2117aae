import { randomBytes } from 'node:crypto';
import { createSigner, createVerifier } from 'fast-jwt';
import { MAX_TOKEN_LENGTH } from './jwt.ts';

/** The query parameter carrying the signature (the original's `authSig`). */
export const SIGN_QUERY_PARAM = 'authSig';
/** Parameters a client may add or change on a signed path (image sizes); never signed. */
export const SAFE_QUERY_PARAMS: ReadonlySet<string> = new Set(['height', 'width']);
/** The longest `expires` the original accepts (its timedelta holds 999999999 days at most). */
export const MAX_EXPIRES_SECONDS = 999_999_999 * 86_400;

/** The claims of a signed path, in the original's order. */
export interface SignedPathClaims {
  /** the id of the refresh token that signed it */
  iss: string;
  /** the path without its query */
  path: string;
  /** the query's parameters in their order, without the safe ones */
  params: Array<[string, string]>;
  iat: number;
  exp: number;
}

/** What a signed-path check needs of a request. */
export interface SignedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
}

type Sign = (payload: SignedPathClaims) => string;
type Verify = (token: string) => unknown;

/**
 * Temporary access to one path without an Authorization header: a JWT (HS256) under a secret of
 * this instance, made at start and never stored, so a restart ends every signed path, as in the
 * original. Whether the signing refresh token is still alive is asked on every request, so a
 * revocation takes effect at once.
 */
export class SignedPaths {
  private readonly signer: Sign;
  private readonly verifier: Verify;

  constructor(secret: string = randomBytes(32).toString('hex')) {
    // iat and exp are given by the caller (the injected clock): the library keeps a given iat
    this.signer = createSigner({ key: secret, algorithm: 'HS256' }) as Sign;
    this.verifier = createVerifier({
      key: secret,
      algorithms: ['HS256'],
      requiredClaims: ['iss', 'path', 'params', 'iat', 'exp'],
      // times are checked against the injected clock below, not Date.now()
      ignoreExpiration: true,
      ignoreNotBefore: true,
      cache: false,
    }) as Verify;
  }

  /**
   * `path` (optionally with a query) signed for `refreshTokenId` from `nowMs` for `expiresSeconds`:
   * `<path>?<params>&authSig=<jwt>`, the safe parameters dropped.
   */
  sign(refreshTokenId: string, path: string, expiresSeconds: number, nowMs: number): string {
    const { pathname, search } = splitPath(path);
    const params = [...new URLSearchParams(search)].filter(([name]) => !SAFE_QUERY_PARAMS.has(name));
    const iat = Math.floor(nowMs / 1000);
    const token = this.signer({ iss: refreshTokenId, path: decodePath(pathname), params, iat, exp: iat + Math.trunc(expiresSeconds) });
    return `${pathname}?${new URLSearchParams([...params, [SIGN_QUERY_PARAM, token]]).toString()}`;
  }

  /**
   * The id of the refresh token that signed this request, or undefined: GET only; the signature
   * valid and unexpired at `nowMs`; the path and the unsafe parameters (in order) exactly the
   * signed ones. The caller still checks that the refresh token is alive.
   */
  verify(request: SignedRequest, nowMs: number): string | undefined {
    if (request.method !== 'GET') return undefined;
    const signature = request.query.get(SIGN_QUERY_PARAM);
    if (signature === null || signature.length > MAX_TOKEN_LENGTH) return undefined;
    let claims: Partial<SignedPathClaims>;
    try {
      claims = this.verifier(signature) as Partial<SignedPathClaims>;
    } catch {
      return undefined;
    }
    const { iss, path, params, iat, exp } = claims;
    if (typeof iss !== 'string' || typeof path !== 'string' || !Array.isArray(params)) return undefined;
    if (typeof iat !== 'number' || typeof exp !== 'number' || !Number.isFinite(iat) || !Number.isFinite(exp)) return undefined;
    const now = nowMs / 1000;
    if (exp <= now || iat > now) return undefined;
    if (path !== decodePath(request.path)) return undefined;
    let i = 0;
    for (const [name, value] of request.query) {
      if (name === SIGN_QUERY_PARAM || SAFE_QUERY_PARAMS.has(name)) continue;
      const signed = params[i++];
      if (!Array.isArray(signed) || signed.length !== 2 || signed[0] !== name || signed[1] !== value) return undefined;
    }
    if (i !== params.length) return undefined;
    return iss;
  }
}

/** The path and query of what a client asked to sign; a scheme and host, and a fragment, are dropped. */
function splitPath(path: string): { pathname: string; search: string } {
  let rest = path.replace(/^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/, '');
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  return q < 0 ? { pathname: rest, search: '' } : { pathname: rest.slice(0, q), search: rest.slice(q + 1) };
}

/** Paths are compared decoded, as the original's request.path is. */
function decodePath(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}
