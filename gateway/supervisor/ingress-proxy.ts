import { STATUS_CODES } from 'node:http';
import { parseCookie } from 'cookie';
import type { HttpReply } from '../replies.ts';
import { looksLikeExploit } from '../../actors/supervisor/access.ts';
import { SupervisorError } from '../../actors/supervisor/errors.ts';
import type { IngressSessions, IngressUser } from '../../actors/supervisor/ingress/sessions.ts';
import type { AppsView } from '../../actors/supervisor/apps/types.ts';
import type { Context } from '../../store/types.ts';
import { HOP_HEADERS, type ProxyIncoming, type ProxyPlan } from '../proxy/relay.ts';
import { envelopeError } from './api.ts';

/**
 * The supervisor's hop of ingress (supervisor-wire §10.3): `ANY /ingress/<token>/<path>` (and on
 * `/v2`), no token but the `ingress_session` cookie, checked (and so extended) on every request;
 * then the app whose ingress token it is, reached on its ingress port with the original's
 * header rules. The relaying itself is gateway/proxy/relay.ts.
 */

export const INGRESS_COOKIE = 'ingress_session';

const PATH = /^(?:\/v2)?\/ingress\/([-_A-Za-z0-9]+)\/(.*)$/;

/** Client headers never passed on: the supervisor's tokens, and the user headers only the proxy sets. */
const STRIPPED = new Set(['x-supervisor-token', 'x-hassio-key', 'x-remote-user-id', 'x-remote-user-name', 'x-remote-user-display-name']);

/** The states in which the supervisor answers (as the API's middleware). */
const SERVING = new Set(['startup', 'running', 'freeze']);

export interface IngressProxyDeps {
  sessions: IngressSessions;
  /** the installed apps as they are now (the app actors come up after the API) */
  apps(): AppsView | undefined;
  state(): string;
  context(): Context;
  /** whether `/v2` is served */
  v2: boolean;
}

/** Whether a path is the proxy's (`/ingress/session` and `/ingress/panels` are the API's). */
export function isIngressProxyPath(url: string): boolean {
  return PATH.test(url);
}

/** The original's plain error page (aiohttp's): `502: Bad Gateway`. */
export const textError = (status: number): HttpReply => ({ status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: `${status}: ${STATUS_CODES[status]}` });
const text = (status: number): { refuse: HttpReply } => ({ refuse: textError(status) });

/** Decides where one request goes, or why it is refused (401 session, 503 unknown token, 502 app down). */
export async function planIngress(deps: IngressProxyDeps, incoming: ProxyIncoming): Promise<ProxyPlan> {
  const match = PATH.exec(incoming.url);
  if (!match || (incoming.url.startsWith('/v2/') && !deps.v2)) return text(404);
  if (looksLikeExploit(incoming.query ? `${incoming.url}?${incoming.query}` : incoming.url)) return text(400);
  const state = deps.state();
  if (!SERVING.has(state)) return { refuse: envelopeError(new SupervisorError(`System is not ready with state: ${state}`), incoming.url.startsWith('/v2/') ? 'v2' : 'v1') };
  const cookie = parseCookie(incoming.headers.cookie ?? '')[INGRESS_COOKIE];
  const session = cookie ? await deps.sessions.validate(cookie, deps.context()) : undefined;
  if (!session) return text(401);
  const apps = deps.apps();
  const app = apps?.byIngressToken(match[1]);
  if (!apps || !app) return text(503);
  const target = await apps.ingressTarget(app.slug);
  // installed but not running: nothing answers on its port, as the original finds out
  if (!target) return text(502);
  return {
    target: {
      host: target.host,
      port: target.port,
      path: `/${match[2]}${incoming.query ? `?${incoming.query}` : ''}`,
      headers: upstreamHeaders(incoming, session.user),
      streamBody: app.config.ingress_stream && incoming.method === 'POST',
    },
  };
}

/** The request headers the app gets. */
export function upstreamHeaders(incoming: ProxyIncoming, user: IngressUser | null): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name in incoming.headers) if (!HOP_HEADERS.has(name) && !STRIPPED.has(name)) headers[name] = incoming.headers[name];
  if (user) {
    headers['X-Remote-User-Id'] = user.id;
    if (user.username) headers['X-Remote-User-Name'] = user.username;
    if (user.name) headers['X-Remote-User-Display-Name'] = user.name;
  }
  // the original formats a missing header as Python's None: `None, <peer>`
  headers['x-forwarded-for'] = `${incoming.headers['x-forwarded-for'] ?? 'None'}, ${incoming.remoteIp}`;
  return headers;
}
