import { on } from 'node:events';
import type WebSocket from 'ws';
import type { HttpRequest as UwsRequest, HttpResponse as UwsResponse, TemplatedApp, WebSocket as UwsWebSocket, WebSocketBehavior } from '@trufflesuite/uws-js-unofficial';
import { plainError, type HttpReply } from '../replies.ts';
import { answer, incomingOf, type ProxyIncoming, type ProxyPlan } from '../proxy/exchange.ts';
import { relayHttp } from '../proxy/http-relay.ts';
import { closeUpstream, opened, openUpstream } from '../proxy/ws-upstream.ts';
import { endDown, sendDown } from '../proxy/ws-relay.ts';
import { treeOf, type Caller } from '../../actors/supervisor/access.ts';
import type { AppsView } from '../../actors/supervisor/apps/types.ts';
import { middleware } from './api.ts';

/**
 * The core's API for apps (supervisor-wire §4.21): `/core/api/<path>` (and the legacy
 * `/homeassistant/api/<path>`, and `/v2/core/api/<path>`) relayed to the core's `/api/<path>` with
 * the supervisor's own access token, and `/core/websocket` (`/core/api/websocket`, legacy
 * `/homeassistant/...`), whose auth phase the supervisor answers itself before it relays the
 * messages to the core's WebSocket API. Only an app whose config sets `homeassistant_api` may
 * use either; commands of the `supervisor/` and `hassio/` families are not passed on.
 */

export interface CoreProxyDeps {
  state(): string;
  /** whether `/v2` is served */
  v2: boolean;
  lookup(token: string): Caller | undefined;
  apps(): AppsView | undefined;
  /** the core as the supervisor reaches it: its base URL, an access token of the supervisor's user, its version */
  core: {
    url(): Promise<string>;
    accessToken(): Promise<string>;
    version(): string | null;
  };
  warn(line: string): void;
  info(line: string): void;
}

const HTTP_PATH = /^(?:\/v2\/core|\/core|\/homeassistant)\/api\/(.*)$/;
const WS_PATH = /^(?:(?:\/v2)?\/core|\/homeassistant)(?:\/api)?\/websocket$/;
/** request headers the core gets from the app besides the body's type (the rest are the app's own) */
const FORWARDED = ['content-type', 'accept', 'x-speech-content', 'last-event-id', 'mcp-session-id', 'mcp-protocol-version'];
/** response headers the app gets besides the content type */
const RETURNED: ReadonlySet<string> = new Set(['cache-control', 'mcp-session-id']);
/** the app's messages are held to the original's limit; the core's may be far larger */
const MAX_FROM_APP = 4 * 1024 * 1024;
const MAX_FROM_CORE = 64 * 1024 * 1024;
const AUTH_TIMEOUT_MS = 10_000;
const UNAUTHORIZED = (id: unknown) => JSON.stringify({ id, type: 'result', success: false, error: { code: 'unauthorized', message: 'Unauthorized' } });

/** Installs the proxy's HTTP and WebSocket handlers under `pattern` on `app`; `deps` is read per request. */
export function serveCoreProxy(app: TemplatedApp, pattern: string, deps: () => CoreProxyDeps | undefined): void {
  app.ws(pattern, coreWebSocket(deps));
  app.any(pattern, (res, req) => {
    if (!HTTP_PATH.test(req.getUrl())) return void req.setYield(true);
    const current = deps();
    relayHttp({ pattern, name: 'core API', matches: (url) => HTTP_PATH.test(url), plan: (incoming) => (current ? planCoreApi(current, incoming) : { refuse: plainError(503) }), log: (l) => current?.warn(l) }, res, req);
  });
}

/** The token an app shows the proxy: the last word of `Authorization`, else `X-Ha-Access`. */
function proxyToken(headers: Record<string, string>): string {
  if (headers.authorization !== undefined) return headers.authorization.split(' ').at(-1) ?? '';
  return headers['x-ha-access'] ?? '';
}

/** The app a token belongs to when that app may use the core's API; the reason otherwise. */
function apiApp(deps: CoreProxyDeps, token: string | undefined): { slug: string } | { why: string } {
  const caller = token ? deps.lookup(token) : undefined;
  const app = caller?.kind === 'app' && caller.slug ? deps.apps()?.get(caller.slug) : undefined;
  if (!app) return { why: 'Unknown Home Assistant API access!' };
  if (!app.config.homeassistant_api) return { why: `Not permitted API access: ${app.slug}` };
  return { slug: app.slug };
}

/** The checks an upgrade and a request share: the tree, the middleware. */
function gate(deps: CoreProxyDeps, incoming: ProxyIncoming): HttpReply | undefined {
  const tree = treeOf(incoming.url);
  if (tree === 'v2' && !deps.v2) return plainError(404);
  return middleware(deps, { path: incoming.url, query: incoming.query, headers: incoming.headers }, tree).refused;
}

/** Where the core listens, and the supervisor's token for it; undefined when it cannot be had (a 502). */
async function coreEnd(deps: CoreProxyDeps): Promise<{ host: string; port: number; token: string } | undefined> {
  try {
    const url = new URL(await deps.core.url());
    const token = await deps.core.accessToken();
    return { host: url.hostname, port: Number(url.port) || (url.protocol === 'https:' ? 443 : 80), token };
  } catch (err) {
    deps.warn(`the core's API cannot be reached for an app: ${(err as Error).message}`);
    return undefined;
  }
}

export async function planCoreApi(deps: CoreProxyDeps, incoming: ProxyIncoming): Promise<ProxyPlan> {
  const match = HTTP_PATH.exec(incoming.url)!;
  const legacy = incoming.url.startsWith('/homeassistant/');
  const methods = legacy ? ['GET', 'POST'] : ['GET', 'POST', 'DELETE'];
  if (!methods.includes(incoming.method)) return { refuse: plainError(405) };
  const refused = gate(deps, incoming);
  if (refused) return { refuse: refused };
  const app = apiApp(deps, proxyToken(incoming.headers));
  if ('why' in app) {
    deps.warn(app.why);
    return { refuse: plainError(401) };
  }
  const core = await coreEnd(deps);
  if (!core) return { refuse: plainError(502) };
  const headers: Record<string, string> = { host: `${core.host}:${core.port}`, authorization: `Bearer ${core.token}` };
  for (const name of FORWARDED) if (incoming.headers[name] !== undefined) headers[name] = incoming.headers[name];
  return {
    target: {
      host: core.host,
      port: core.port,
      path: `/api/${match[1]}${incoming.query ? `?${incoming.query}` : ''}`,
      headers,
      streamBody: false,
      responseHeaders: RETURNED,
    },
  };
}

// ---- WebSocket --------------------------------------------------------------------------------

interface CoreLink {
  deps: CoreProxyDeps;
  ws?: UwsWebSocket<{ link: CoreLink }>;
  phase: 'auth' | 'connecting' | 'relay' | 'closed';
  timer?: NodeJS.Timeout;
  /** the app's messages while the core's socket is being opened */
  held: [Buffer, boolean][];
  upstream?: WebSocket;
  downClosed: boolean;
  paused: boolean;
  slug?: string;
}

function coreWebSocket(deps: () => CoreProxyDeps | undefined): WebSocketBehavior<{ link: CoreLink }> {
  return {
    maxPayloadLength: MAX_FROM_APP,
    maxBackpressure: MAX_FROM_CORE,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => upgrade(deps, res, req, context),
    open: (ws) => {
      const link = ws.getUserData().link;
      link.ws = ws;
      ws.send(JSON.stringify({ type: 'auth_required', ha_version: link.deps.core.version() }), false);
      // as long as the core's own auth phase waits
      link.timer = setTimeout(() => {
        link.deps.warn('no authentication on the core WebSocket API proxy in time');
        close(link);
      }, AUTH_TIMEOUT_MS);
    },
    message: (ws, message, binary) => {
      const link = ws.getUserData().link;
      const payload = Buffer.from(message.slice(0));
      if (link.phase === 'auth') return void authenticate(link, payload, binary);
      if (link.phase === 'connecting') return void link.held.push([payload, binary]);
      if (link.phase === 'relay') up(link, payload, binary);
    },
    drain: (ws) => {
      const link = ws.getUserData().link;
      if (link.paused && ws.getBufferedAmount() < MAX_FROM_CORE / 4) {
        link.paused = false;
        link.upstream?.resume();
      }
    },
    close: (ws, code, message) => {
      const link = ws.getUserData().link;
      link.ws = undefined;
      link.downClosed = true;
      clearTimeout(link.timer);
      if (link.phase !== 'closed') link.deps.info(`the core WebSocket API proxy${link.slug ? ` of ${link.slug}` : ''} closed`);
      link.phase = 'closed';
      if (link.upstream) closeUpstream(link.upstream, code, Buffer.from(message.slice(0)));
    },
  };
}

function upgrade(deps: () => CoreProxyDeps | undefined, res: UwsResponse, req: UwsRequest, context: unknown): void {
  if (!WS_PATH.test(req.getUrl())) return void req.setYield(true);
  const incoming = incomingOf(res, req, true);
  const key = req.getHeader('sec-websocket-key');
  const current = deps();
  let aborted = false;
  res.onAborted(() => (aborted = true));
  const refuse = (reply: HttpReply) => !aborted && answer(res, reply, true, (line) => current?.warn(line));
  if (!current) return void refuse(plainError(503));
  const refused = gate(current, incoming);
  if (refused) return void refuse(refused);
  // the core must answer before the app is let in, as the original asks its API state first
  coreEnd(current)
    .then((core) => {
      if (aborted) return;
      if (!core) return refuse(plainError(502));
      const link: CoreLink = { deps: current, phase: 'auth', held: [], downClosed: false, paused: false };
      res.cork(() => res.upgrade({ link }, key, '', '', context as never));
    })
    .catch((err) => {
      current.warn(`the core WebSocket API proxy failed on ${incoming.url}: ${(err as Error)?.stack ?? err}`);
      refuse(plainError(500));
    });
}

function close(link: CoreLink): void {
  clearTimeout(link.timer);
  link.phase = 'closed';
  link.upstream?.terminate();
  if (link.ws && !link.downClosed) {
    link.downClosed = true;
    link.ws.end();
  }
}

/** The app's first message: its token as `access_token` (or `api_password`). */
function authenticate(link: CoreLink, payload: Buffer, binary: boolean): void {
  clearTimeout(link.timer);
  let message: { access_token?: unknown; api_password?: unknown } | undefined;
  try {
    message = binary ? undefined : JSON.parse(payload.toString('utf8'));
  } catch {
    message = undefined;
  }
  if (!message || typeof message !== 'object') {
    link.deps.warn('unexpected message during authentication on the core WebSocket API proxy');
    return close(link);
  }
  const token = message.api_password || message.access_token;
  const app = apiApp(link.deps, typeof token === 'string' ? token : undefined);
  if ('why' in app) {
    link.deps.warn('Unauthorized WebSocket access!');
    link.ws?.send(JSON.stringify({ type: 'auth_invalid', message: 'Invalid access' }), false);
    return close(link);
  }
  link.slug = app.slug;
  link.deps.info(`WebSocket access from ${app.slug}`);
  link.ws?.send(JSON.stringify({ type: 'auth_ok', ha_version: link.deps.core.version() }), false);
  link.phase = 'connecting';
  void openCore(link).then(
    (upstream) => {
      if (link.phase === 'closed') return upstream.terminate();
      link.upstream = upstream;
      link.phase = 'relay';
      upstream.on('message', (data, isBinary) => {
        if (link.ws && !link.downClosed) sendDown(link, data as Buffer, isBinary);
      });
      upstream.on('close', (code, reason) => {
        link.phase = 'closed';
        endDown(link, code, reason);
      });
      for (const [held, isBinary] of link.held) up(link, held, isBinary);
      link.held = [];
    },
    (err) => {
      // closed meanwhile: the app left, or the core broke the protocol (warned as it happened)
      if (link.phase === 'closed') return;
      link.deps.warn(`the core WebSocket API proxy of ${app.slug} cannot reach the core: ${(err as Error).message}`);
      close(link);
    },
  );
}

/** The core's WebSocket API, past its auth phase with the supervisor's token. */
async function openCore(link: CoreLink): Promise<WebSocket> {
  const core = await coreEnd(link.deps);
  if (!core) throw new Error('the core is not reachable');
  const upstream = openUpstream({
    host: core.host,
    port: core.port,
    path: '/api/websocket',
    headers: { host: `${core.host}:${core.port}` },
    maxPayload: MAX_FROM_CORE,
    onBroken: (err, code) => {
      link.deps.warn(`the core's WebSocket API broke the protocol${link.slug ? ` for ${link.slug}` : ''}: ${err.message}`);
      link.phase = 'closed';
      endDown(link, code, Buffer.alloc(0));
    },
  });
  // listened to from the start: the core's auth_required can come with the handshake's answer
  const said = on(upstream, 'message', { close: ['close'] });
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    upstream.terminate();
  }, AUTH_TIMEOUT_MS);
  const next = async (): Promise<{ type?: string }> => {
    const { done, value } = await said.next();
    if (done) throw new Error('the core closed the connection');
    try {
      return JSON.parse((value[0] as Buffer).toString('utf8'));
    } catch {
      throw new Error('the core sent something else than JSON');
    }
  };
  try {
    await opened(upstream);
    let message = await next();
    if (message.type === 'auth_required') {
      upstream.send(JSON.stringify({ type: 'auth', access_token: core.token }));
      message = await next();
    }
    if (message.type !== 'auth_ok') throw new Error(`the core answered ${JSON.stringify(message).slice(0, 200)} to the supervisor's token`);
    return upstream;
  } catch (err) {
    upstream.terminate();
    throw late ? new Error('the core said nothing in time') : err;
  } finally {
    clearTimeout(deadline);
    await said.return?.();
  }
}

/** One of the app's messages to the core; the supervisor's own command families are answered here. */
function up(link: CoreLink, payload: Buffer, binary: boolean): void {
  if (!binary) {
    let message: unknown;
    try {
      message = JSON.parse(payload.toString('utf8'));
    } catch {
      message = undefined;
    }
    const type = message && typeof message === 'object' && !Array.isArray(message) ? (message as { type?: unknown }).type : undefined;
    if (typeof type === 'string' && (type.startsWith('supervisor/') || type.startsWith('hassio/'))) {
      link.ws?.send(UNAUTHORIZED((message as { id?: unknown }).id ?? null), false);
      return;
    }
  }
  link.upstream?.send(payload, { binary });
}
