import { BlockList, isIP } from 'node:net';

/** A URL split the way the original's client-id rules see it (no WHATWG normalisation). */
export interface UrlParts {
  scheme: string;
  /** lower-cased, userinfo and port included */
  netloc: string;
  path: string;
  query: string;
  fragment: string;
  username: string | null;
  password: string | null;
  hostname: string;
  /** the port text; `valid` false when it is not a number in 0..65535 */
  port: { text: string; valid: boolean };
}

/**
 * Splits a URL as an RFC 3986 reader would, lower-casing the netloc and treating an empty path
 * as `/`. Dot segments are kept (the WHATWG URL class would resolve them away, and the rules
 * below must see them).
 */
export function parseUrl(url: string): UrlParts {
  let rest = url;
  let scheme = '';
  const m = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(rest);
  if (m) {
    scheme = m[1].toLowerCase();
    rest = rest.slice(m[0].length);
  }
  let fragment = '';
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = rest.slice(hash + 1);
    rest = rest.slice(0, hash);
  }
  let query = '';
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let netloc = '';
  if (rest.startsWith('//')) {
    const end = rest.indexOf('/', 2);
    netloc = end < 0 ? rest.slice(2) : rest.slice(2, end);
    rest = end < 0 ? '' : rest.slice(end);
  }
  netloc = netloc.toLowerCase();
  const path = rest === '' ? '/' : rest;

  let username: string | null = null;
  let password: string | null = null;
  let hostinfo = netloc;
  const at = netloc.lastIndexOf('@');
  if (at >= 0) {
    const userinfo = netloc.slice(0, at);
    hostinfo = netloc.slice(at + 1);
    const colon = userinfo.indexOf(':');
    username = colon < 0 ? userinfo : userinfo.slice(0, colon);
    password = colon < 0 ? null : userinfo.slice(colon + 1);
  }
  let hostname: string;
  let portText: string;
  if (hostinfo.includes('[')) {
    const inner = hostinfo.slice(hostinfo.indexOf('[') + 1);
    const close = inner.indexOf(']');
    hostname = close < 0 ? inner : inner.slice(0, close);
    const after = close < 0 ? '' : inner.slice(close + 1);
    portText = after.includes(':') ? after.slice(after.indexOf(':') + 1) : '';
  } else {
    const colon = hostinfo.indexOf(':');
    hostname = colon < 0 ? hostinfo : hostinfo.slice(0, colon);
    portText = colon < 0 ? '' : hostinfo.slice(colon + 1);
  }
  const portValid = portText === '' || (/^[0-9]+$/.test(portText) && Number(portText) <= 65535);
  return { scheme, netloc, path, query, fragment, username, password, hostname, port: { text: portText, valid: portValid } };
}

const local = new BlockList();
for (const [net, prefix] of [['127.0.0.0', 8], ['10.0.0.0', 8], ['172.16.0.0', 12], ['192.168.0.0', 16], ['169.254.0.0', 16]] as const) {
  local.addSubnet(net, prefix, 'ipv4');
}
for (const [net, prefix] of [['::1', 128], ['fd00::', 8], ['fe80::', 10]] as const) local.addSubnet(net, prefix, 'ipv6');

/** True for loopback, private (RFC 1918, fd00::/8) and link-local addresses, IPv4-mapped forms included. */
export function isLocalAddress(ip: string): boolean {
  const bare = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  const kind = isIP(bare);
  if (kind === 0) return false;
  return local.check(bare, kind === 4 ? 'ipv4' : 'ipv6');
}

/**
 * The client id rules (IndieAuth §3.2 as the original applies them): http(s), no dot segments,
 * no fragment, no userinfo, a numeric port, and a host that is a domain name or a local IP.
 */
export function verifyClientId(clientId: unknown): clientId is string {
  if (typeof clientId !== 'string') return false;
  const parts = parseUrl(clientId);
  if (parts.scheme !== 'http' && parts.scheme !== 'https') return false;
  if (parts.path.split('/').some((segment) => segment === '.' || segment === '..')) return false;
  if (parts.fragment !== '') return false;
  if (parts.username !== null || parts.password !== null) return false;
  if (!parts.port.valid) return false;
  if (parts.netloc === '') return false;
  // The original tests the whole netloc, port included, so `http://203.0.113.5:8123/` passes as a
  // "domain" while `http://203.0.113.5/` does not; browsers use such ids, so keep that.
  const host = parts.netloc.startsWith('[') && parts.netloc.endsWith(']') ? parts.netloc.slice(1, -1) : parts.netloc;
  if (isIP(host) === 0) return true;
  return isLocalAddress(host);
}

/** Redirect URIs of the official companion apps, allowed without fetching the client page. */
export const OFFICIAL_REDIRECTS: Record<string, string[]> = {
  'https://home-assistant.io/iOS': ['homeassistant://auth-callback'],
  'https://home-assistant.io/iOS/dev-auth': ['homeassistant-dev://auth-callback'],
  'https://home-assistant.io/android': [
    'homeassistant://auth-callback',
    'https://wear.googleapis.com/3p_auth/io.homeassistant.companion.android',
    'https://wear.googleapis-cn.com/3p_auth/io.homeassistant.companion.android',
  ],
};

/** Fetches the start of a client page (at most `limit` bytes); resolves '' on any failure. */
export type FetchPage = (url: string, limit: number) => Promise<string>;

/** The client page is read up to 10 chunks of 1 kB, with a 5 s timeout. */
export const PAGE_LIMIT = 10 * 1024;

/** Reads the first `limit` bytes of a page with fetch(); network and TLS errors give ''. */
export const fetchPage: FetchPage = async (url, limit) => {
  try {
    const res = await fetch(url, { signal: AbortSignal.timeout(5000), redirect: 'follow' });
    if (!res.body) return '';
    const reader = res.body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
    await reader.cancel().catch(() => {});
    return Buffer.concat(chunks).subarray(0, limit).toString('utf8');
  } catch {
    return '';
  }
};

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'" };

/** `href`s of `<link rel="redirect_uri">` tags (the rel value must be exactly that), resolved against `base`. */
export function findRedirectUris(html: string, base: string): string[] {
  const found: string[] = [];
  for (const tag of html.matchAll(/<link\b([^>]*)>/gi)) {
    const attrs: Record<string, string> = {};
    for (const a of tag[1].matchAll(/([^\s=\/>]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g)) {
      const value = a[2] ?? a[3] ?? a[4] ?? '';
      attrs[a[1].toLowerCase()] = value.replace(/&(amp|lt|gt|quot|apos|#39);/g, (_, e: string) => ENTITIES[e]);
    }
    if (attrs.rel !== 'redirect_uri' || attrs.href === undefined) continue;
    found.push(resolveUrl(base, attrs.href));
  }
  return found;
}

function resolveUrl(base: string, href: string): string {
  // an absolute href stays exactly as written; only relative ones are resolved
  if (/^[A-Za-z][A-Za-z0-9+.-]*:/.test(href)) return href;
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/**
 * Whether `redirectUri` may receive codes for `clientId`: same scheme and netloc, one of the
 * official app callbacks, or listed in a `<link rel="redirect_uri">` of the client page.
 */
export async function verifyRedirectUri(clientId: string, redirectUri: string, fetch: FetchPage = fetchPage): Promise<boolean> {
  if (!verifyClientId(clientId)) return false;
  const client = parseUrl(clientId);
  const redirect = parseUrl(redirectUri);
  if (client.scheme === redirect.scheme && client.netloc === redirect.netloc) return true;
  if (OFFICIAL_REDIRECTS[clientId]?.includes(redirectUri)) return true;
  const page = await fetch(clientId, PAGE_LIMIT);
  return (metadataRedirectUris(page, clientId) ?? findRedirectUris(page, clientId)).includes(redirectUri);
}

/**
 * The `redirect_uris` of a client metadata document (the OAuth client-id metadata draft that
 * `client_id_metadata_document_supported` in /.well-known/oauth-authorization-server
 * advertises): a JSON object whose `client_id` is the URL it was fetched from. Undefined when
 * the page is no such document (then it is read as HTML).
 */
export function metadataRedirectUris(page: string, clientId: string): string[] | undefined {
  if (!page.trimStart().startsWith('{')) return undefined;
  let doc: unknown;
  try {
    doc = JSON.parse(page);
  } catch {
    return undefined; // cut at the size limit, or not JSON at all
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) return undefined;
  const { client_id, redirect_uris } = doc as Record<string, unknown>;
  // a document naming another client is someone else's: it vouches for nothing here
  if (client_id !== clientId || !Array.isArray(redirect_uris)) return [];
  return redirect_uris.filter((u): u is string => typeof u === 'string');
}
