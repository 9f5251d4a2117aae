import { isIP } from 'node:net';
import { json, message, type HttpReply } from '../replies.ts';
import type { HttpRequest } from '../request.ts';
import type { Router } from '../router.ts';
import type { CoreConfig } from '../../actors/core/core-config.ts';

/** What the OAuth metadata routes need. */
export interface WellKnownRouteDeps {
  /** read per request, so a reloaded internal_url / external_url counts at once */
  coreConfig: Pick<CoreConfig, 'asDict'>;
  /** the port this instance listens on (the original's `api.port`) */
  port: () => number;
}

const AUTH_API_DOCS = 'https://developers.home-assistant.io/docs/auth_api';

/** The original's normalize_url: no trailing slash, no default port. */
export function normalizeUrl(address: string): string {
  const trimmed = address.replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(trimmed);
  } catch {
    return trimmed;
  }
  // WHATWG URL already lower-cases the host and drops a default port; it adds "/" to an empty path
  const href = url.href;
  return url.pathname === '/' && !url.search && !url.hash && href.endsWith('/') ? href.slice(0, -1) : href;
}

/** The host of a URL as the original compares hosts: lower case, IPv6 without brackets. */
function hostOf(url: string): string | undefined {
  try {
    return new URL(url).hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  } catch {
    return undefined;
  }
}

function isLoopbackIp(host: string): boolean {
  const family = isIP(host);
  if (family === 4) return host.startsWith('127.');
  if (family === 6) return host === '::1' || host === '0:0:0:0:0:0:0:1';
  return false;
}

/**
 * The original's get_url(require_current_request=True), for an instance without TLS, cloud or
 * Supervisor: the configured internal_url, then external_url, whose host is the request's host;
 * failing both, a request to a loopback IP or "localhost" is answered with
 * http://<that host>:<port>. Otherwise there is no URL (undefined).
 *
 * Not reproduced: the original's detected LAN IP (`http://<local ip>:<port>`, tried after
 * internal_url) — Hearth does not detect its LAN address — and the Home Assistant Cloud URL.
 */
export function currentRequestUrl(req: HttpRequest, deps: WellKnownRouteDeps): string | undefined {
  const hostHeader = req.headers.host;
  if (!hostHeader) return undefined;
  const requestHost = hostOf(`http://${hostHeader}`);
  if (requestHost === undefined) return undefined;

  const config = deps.coreConfig.asDict('RUNNING');
  for (const key of ['internal_url', 'external_url'] as const) {
    const configured = config[key];
    if (typeof configured === 'string' && configured && hostOf(configured) === requestHost) return normalizeUrl(configured);
  }

  if (isLoopbackIp(requestHost) || requestHost === 'localhost') {
    const host = isIP(requestHost) === 6 ? `[${requestHost}]` : requestHost;
    return normalizeUrl(`http://${host}:${deps.port()}`);
  }
  return undefined;
}

// GET /.well-known/oauth-authorization-server (RFC 8414) -------------------------------------

function getAuthorizationServer(deps: WellKnownRouteDeps) {
  return (req: HttpRequest): HttpReply => {
    // absolute endpoints when the request reached a known URL of this instance, else relative ones
    const prefix = currentRequestUrl(req, deps) ?? '';
    const metadata: Record<string, unknown> = {
      authorization_endpoint: `${prefix}/auth/authorize`,
      token_endpoint: `${prefix}/auth/token`,
      revocation_endpoint: `${prefix}/auth/revoke`,
      client_id_metadata_document_supported: true,
      // the newest original also lists code_challenge_methods_supported: ["S256"]; Hearth's
      // login flow has no PKCE, so it is not advertised
      response_types_supported: ['code'],
      service_documentation: AUTH_API_DOCS,
    };
    // RFC 8414: the issuer is an absolute URL, so it is only given when one is known
    if (prefix) metadata.issuer = prefix;
    return json(200, metadata);
  };
}

// GET /.well-known/oauth-protected-resource (RFC 9728) ---------------------------------------

function getProtectedResource(deps: WellKnownRouteDeps) {
  return (req: HttpRequest): HttpReply => {
    const prefix = currentRequestUrl(req, deps);
    if (prefix === undefined) return message(404, 'No URL available');
    return json(200, { resource: prefix, authorization_servers: [prefix], resource_documentation: AUTH_API_DOCS });
  };
}

/** The OAuth discovery documents: open to anyone, no CORS (the original's views do not allow it). */
export function registerWellKnownRoutes(root: Router, deps: WellKnownRouteDeps): void {
  const router = root.of('auth');
  router.get('/.well-known/oauth-authorization-server', { access: 'none' }, getAuthorizationServer(deps));
  router.get('/.well-known/oauth-protected-resource', { access: 'none' }, getProtectedResource(deps));
}
