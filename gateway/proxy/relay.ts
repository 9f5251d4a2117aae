import { request as httpRequest, STATUS_CODES, type IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { HttpResponse as UwsResponse, HttpRequest as UwsRequest, TemplatedApp, WebSocket as UwsWebSocket } from '@trufflesuite/uws-js-unofficial';
import type { HttpReply } from '../http.ts';
import { connectWebSocket, type UpstreamWebSocket } from './ws-client.ts';

/**
 * A reverse proxy on a uWS app, shared by the two ingress hops (the core's
 * `/api/hassio_ingress/...` and the supervisor's `/ingress/...`): each hop says, per request,
 * where it goes and with which headers (a `ProxyPlan`), or refuses it; this module relays the
 * HTTP exchange (request bodies buffered or streamed, responses buffered when small and
 * streamed when large or of unknown length) and WebSockets (messages both ways, close).
 * Response rules are the original's (supervisor-wire §10.3).
 */

/** A request as the hop sees it before deciding: read in the uWS callback, valid afterwards. */
export interface ProxyIncoming {
  method: string;
  /** the path as received (not decoded) */
  url: string;
  /** the raw query string, without `?` */
  query: string;
  /** names lower-cased; repeated ones joined with `, ` */
  headers: Record<string, string>;
  remoteIp: string;
  websocket: boolean;
}

export interface ProxyTarget {
  host: string;
  port: number;
  /** path and query string on the upstream */
  path: string;
  /** the request headers as sent upstream (hop-by-hop and body framing headers are set here) */
  headers: Record<string, string>;
  /** the request body goes upstream as it arrives (chunked); otherwise read whole first */
  streamBody: boolean;
}

export type ProxyPlan = { target: ProxyTarget } | { refuse: HttpReply };

export interface ProxyRoute {
  /** uWS pattern, e.g. `/ingress/*` */
  pattern: string;
  /** whether a path under the pattern is this proxy's (others go on to the app's other routes) */
  matches(url: string): boolean;
  plan(incoming: ProxyIncoming): ProxyPlan | Promise<ProxyPlan>;
  log(line: string): void;
}

/** Responses shorter than this are read whole and sent with a length, as the original does. */
export const BUFFER_BELOW = 4_194_000;
/** A buffered request body past this is refused (413). */
export const MAX_BUFFERED_BODY = 16 * 1024 * 1024;
/** The largest WebSocket message relayed. */
export const MAX_MESSAGE = 16 * 1024 * 1024;

/**
 * Request headers that describe one connection or one body's framing: never copied across a hop.
 * Content-Encoding stays, as the body's bytes go on as they came.
 */
export const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'content-length', 'transfer-encoding', 'sec-websocket-extensions', 'sec-websocket-protocol', 'sec-websocket-version', 'sec-websocket-key', 'sec-websocket-accept']);

/**
 * Response headers not copied: framing, the content type (set again, bare) and the ones uWS
 * writes itself. Content-Encoding stays: this proxy passes bodies through undecoded (the
 * original's client decodes them and drops the header, which a browser cannot tell apart).
 */
const RESPONSE_SKIP = new Set(['connection', 'keep-alive', 'proxy-connection', 'te', 'trailer', 'upgrade', 'transfer-encoding', 'content-length', 'content-type', 'date', 'uwebsockets']);

/** Installs the proxy's HTTP and WebSocket handlers on `app`. */
export function serveProxy(app: TemplatedApp, route: ProxyRoute): void {
  app.ws<{ link: SocketLink }>(route.pattern, {
    maxPayloadLength: MAX_MESSAGE,
    maxBackpressure: MAX_MESSAGE,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    upgrade: (res, req, context) => upgrade(route, res, req, context),
    open: (ws) => {
      const data = ws.getUserData().link;
      data.ws = ws;
      for (const [payload, binary] of data.waiting) sendDown(data, payload, binary);
      data.waiting = [];
      if (data.upstreamClosed) endDown(data, data.upstreamClosed.code, data.upstreamClosed.reason);
    },
    message: (ws, message, isBinary) => {
      ws.getUserData().link.upstream.send(Buffer.from(message.slice(0)), isBinary);
    },
    drain: (ws) => {
      const data = ws.getUserData().link;
      if (data.paused && ws.getBufferedAmount() < MAX_MESSAGE / 4) {
        data.paused = false;
        data.upstream.resume();
      }
    },
    close: (ws, code, message) => {
      const data = ws.getUserData().link;
      data.ws = undefined;
      data.downClosed = true;
      data.upstream.close(code, Buffer.from(message.slice(0)));
    },
  });
  app.any(route.pattern, (res, req) => {
    if (!route.matches(req.getUrl())) return void req.setYield(true);
    relayHttp(route, res, req);
  });
}

function incomingOf(res: UwsResponse, req: UwsRequest, websocket: boolean): ProxyIncoming {
  const headers: Record<string, string> = Object.create(null);
  req.forEach((k, v) => {
    headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
  });
  return {
    method: req.getCaseSensitiveMethod().toUpperCase(),
    url: req.getUrl(),
    query: req.getQuery() ?? '',
    headers,
    remoteIp: Buffer.from(res.getRemoteAddressAsText()).toString(),
    websocket,
  };
}

function statusLineOf(status: number, message?: string): string {
  return `${status} ${message || STATUS_CODES[status] || 'Unknown'}`;
}

/** Writes a refusal (a hop's 401, 503...), closing the connection when a body was left unread. */
function answer(res: UwsResponse, reply: HttpReply, closeConnection: boolean): void {
  res.cork(() => {
    res.writeStatus(statusLineOf(reply.status));
    for (const k in reply.headers ?? {}) res.writeHeader(k, reply.headers![k]);
    res.end(reply.body ?? '', closeConnection);
  });
}

/** HTTP/1.1's rule, whatever the method: a body is announced by its length or by chunks. */
const hasBody = (headers: Record<string, string>) => (headers['content-length'] !== undefined && headers['content-length'] !== '0') || headers['transfer-encoding'] !== undefined;

function relayHttp(route: ProxyRoute, res: UwsResponse, req: UwsRequest): void {
  const incoming = incomingOf(res, req, false);
  const state = { aborted: false, answered: false, cleanup: () => {} };
  res.onAborted(() => {
    state.aborted = true;
    state.cleanup();
  });
  // the body must be taken now (uWS hands it out only to a handler attached in this callback);
  // it waits in a stream, uWS paused while nobody reads it
  const body = hasBody(incoming.headers) ? bodyStream(res, state) : undefined;
  // a client gone while its body was awaited: whatever reads it stops
  state.cleanup = () => body?.destroy();
  const refuse = (reply: HttpReply) => {
    if (state.aborted || state.answered) return;
    state.answered = true;
    answer(res, reply, body !== undefined && !body.readableEnded);
    body?.destroy();
  };
  Promise.resolve()
    .then(() => route.plan(incoming))
    .then(async (plan) => {
      if (state.aborted) return body?.destroy();
      if ('refuse' in plan) return refuse(plan.refuse);
      const { target } = plan;
      let payload: Buffer | Readable | undefined = body;
      if (body && !target.streamBody) {
        payload = await readAll(body, MAX_BUFFERED_BODY);
        if (payload === undefined) return refuse({ status: 413, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '413: Request Entity Too Large' });
      }
      forward(route, res, state, incoming, target, payload);
    })
    .catch((err) => {
      if (state.aborted) return;
      route.log(`ingress proxy failed on ${incoming.method} ${incoming.url}: ${(err as Error)?.stack ?? err}`);
      refuse({ status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '500: Internal Server Error' });
    });
}

interface ExchangeState {
  aborted: boolean;
  answered: boolean;
  cleanup: () => void;
}

function bodyStream(res: UwsResponse, state: ExchangeState): Readable {
  let paused = false;
  const stream = new Readable({
    read() {
      if (paused && !state.aborted) {
        paused = false;
        res.resume();
      }
    },
  });
  res.onData((chunk, isLast) => {
    if (stream.destroyed) return;
    // uWS reuses the chunk's memory after this callback returns
    if (chunk.byteLength && !stream.push(Buffer.from(chunk.slice(0))) && !isLast && !state.aborted) {
      paused = true;
      res.pause();
    }
    if (isLast) stream.push(null);
  });
  return stream;
}

async function readAll(stream: Readable, limit: number): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    size += (chunk as Buffer).length;
    if (size > limit) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

function forward(route: ProxyRoute, res: UwsResponse, state: ExchangeState, incoming: ProxyIncoming, target: ProxyTarget, payload: Buffer | Readable | undefined): void {
  const headers: Record<string, string> = { ...target.headers };
  if (Buffer.isBuffer(payload)) headers['content-length'] = String(payload.length);
  else if (payload) headers['transfer-encoding'] = 'chunked';
  const upstream = httpRequest({ host: target.host, port: target.port, method: incoming.method, path: target.path, headers, agent: false });
  state.cleanup = () => {
    upstream.destroy();
    if (payload instanceof Readable) payload.destroy();
  };
  upstream.on('error', (err) => {
    if (state.aborted) return;
    if (!state.answered) {
      state.answered = true;
      route.log(`ingress upstream ${target.host}:${target.port} unreachable: ${err.message}`);
      return answer(res, { status: 502, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '502: Bad Gateway' }, true);
    }
    // the answer had begun: all the client can be told is that it ends here
    res.close();
  });
  upstream.on('response', (up) => respond(res, state, incoming, up));
  if (Buffer.isBuffer(payload)) upstream.end(payload);
  else if (payload) payload.pipe(upstream);
  else upstream.end();
}

/** The upstream's headers as the client gets them: each line copied except the skipped ones. */
function responseHeaders(up: IncomingMessage): [string, string][] {
  const out: [string, string][] = [];
  const raw = up.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) if (!RESPONSE_SKIP.has(raw[i].toLowerCase())) out.push([raw[i], raw[i + 1]]);
  return out;
}

function respond(res: UwsResponse, state: ExchangeState, incoming: ProxyIncoming, up: IncomingMessage): void {
  if (state.aborted) return void up.destroy();
  state.answered = true;
  const status = up.statusCode ?? 502;
  const headers = responseHeaders(up);
  const sentType = up.headers['content-type'];
  // the media type alone, as the original sets it again from what the upstream sent
  const type = sentType ? sentType.split(';')[0].trim() : 'application/octet-stream';
  const head = (extra: [string, string][] = []) => {
    res.writeStatus(statusLineOf(status, up.statusMessage));
    for (const [k, v] of headers) res.writeHeader(k, v);
    for (const [k, v] of extra) res.writeHeader(k, v);
  };
  if (incoming.method === 'HEAD' || status === 204 || status === 304 || status < 200) {
    up.resume();
    return void res.cork(() => {
      head(sentType ? [['Content-Type', type]] : []);
      res.endWithoutBody();
    });
  }
  const length = up.headers['content-length'];
  if (length !== undefined && Number(length) < BUFFER_BELOW) {
    const chunks: Buffer[] = [];
    up.on('data', (c: Buffer) => chunks.push(c));
    up.on('end', () => {
      if (state.aborted) return;
      res.cork(() => {
        head([['Content-Type', type]]);
        res.end(Buffer.concat(chunks));
      });
    });
    return;
  }
  res.cork(() => head([['Content-Type', type], ['X-Accel-Buffering', 'no']]));
  up.on('data', (chunk: Buffer) => {
    if (state.aborted) return;
    let ok = true;
    res.cork(() => {
      ok = res.write(chunk);
    });
    if (!ok) {
      // uWS holds the chunk; the upstream waits until the client has taken it
      up.pause();
      res.onWritable(() => {
        up.resume();
        return true;
      });
    }
  });
  up.on('end', () => {
    if (!state.aborted) res.cork(() => res.end());
  });
  up.on('error', () => {
    if (!state.aborted) res.close();
  });
}

/** One relayed WebSocket: both ends. uWS may copy the user data object, so this hangs off it. */
interface SocketLink {
  upstream: UpstreamWebSocket;
  ws?: UwsWebSocket<{ link: SocketLink }>;
  /** what the upstream sent before the client's socket opened */
  waiting: [Buffer, boolean][];
  upstreamClosed?: { code: number; reason: Buffer };
  downClosed: boolean;
  paused: boolean;
}

function sendDown(data: SocketLink, payload: Buffer, binary: boolean) {
  const ws = data.ws!;
  const status = ws.send(payload, binary);
  // 2: dropped, the client is too far behind; 0: kept, stop reading until it drains
  if (status === 2) return void ws.end(1011, 'backpressure');
  if (status === 0 && !data.paused) {
    data.paused = true;
    data.upstream.pause();
  }
}

function endDown(data: SocketLink, code: number, reason: Buffer) {
  const ws = data.ws;
  if (!ws || data.downClosed) return;
  data.downClosed = true;
  // the upstream gave no code (1005): neither does the close sent on; it dropped (1006): so does this side
  if (code === 1005) ws.end();
  else if (code === 1006) ws.close();
  else ws.end(code, reason);
}

function upgrade(route: ProxyRoute, res: UwsResponse, req: UwsRequest, context: unknown): void {
  if (!route.matches(req.getUrl())) return void req.setYield(true);
  const incoming = incomingOf(res, req, true);
  const key = req.getHeader('sec-websocket-key');
  const protocols = (incoming.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  let aborted = false;
  let upstream: UpstreamWebSocket | undefined;
  res.onAborted(() => {
    aborted = true;
    upstream?.terminate();
  });
  const refuse = (reply: HttpReply) => {
    if (!aborted) answer(res, reply, true);
  };
  Promise.resolve()
    .then(() => route.plan(incoming))
    .then(async (plan) => {
      if (aborted) return;
      if ('refuse' in plan) return refuse(plan.refuse);
      const { target } = plan;
      try {
        upstream = await connectWebSocket({ host: target.host, port: target.port, path: target.path, headers: target.headers, protocols, maxPayload: MAX_MESSAGE });
      } catch (err) {
        route.log(`ingress WebSocket upstream ${target.host}:${target.port}${target.path} refused: ${(err as Error).message}`);
        return refuse({ status: 502, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '502: Bad Gateway' });
      }
      if (aborted) return upstream.terminate();
      const data: SocketLink = { upstream, waiting: [], downClosed: false, paused: false };
      upstream.on('message', (payload, binary) => (data.ws ? sendDown(data, payload, binary) : data.waiting.push([payload, binary])));
      upstream.on('close', (code, reason) => {
        data.upstreamClosed = { code, reason };
        endDown(data, code, reason);
      });
      // the client is told the subprotocol the upstream chose
      res.cork(() => res.upgrade({ link: data }, key, upstream!.protocol, '', context as never));
    })
    .catch((err) => {
      route.log(`ingress WebSocket proxy failed on ${incoming.url}: ${(err as Error)?.stack ?? err}`);
      refuse({ status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '500: Internal Server Error' });
    });
}
