import type { HttpResponse as UwsResponse, HttpRequest as UwsRequest, WebSocket as UwsWebSocket, WebSocketBehavior } from '@trufflesuite/uws-js-unofficial';
import type { HttpReply } from '../replies.ts';
import type WebSocket from 'ws';
import { closeUpstream, opened, openUpstream } from './ws-upstream.ts';
import { answer, incomingOf, MAX_MESSAGE, type ProxyRoute, type ProxyTarget } from './exchange.ts';

/** The WebSocket side of the proxy: the upstream opened first, then the client upgraded; messages and closes relayed. */

/** The uWS behaviour of a proxy's WebSocket route. */
export function webSocketRelay(route: ProxyRoute): WebSocketBehavior<{ link: SocketLink }> {
  return {
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
      ws.getUserData().link.upstream.send(Buffer.from(message.slice(0)), { binary: isBinary });
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
      closeUpstream(data.upstream, code, Buffer.from(message.slice(0)));
    },
  };
}

/** One relayed WebSocket: both ends. uWS may copy the user data object, so this hangs off it. */
export interface SocketLink {
  upstream: WebSocket;
  ws?: UwsWebSocket<{ link: SocketLink }>;
  /** what the upstream sent before the client's socket opened */
  waiting: [Buffer, boolean][];
  upstreamClosed?: { code: number; reason: Buffer };
  downClosed: boolean;
  paused: boolean;
}

/** The client's side of a relayed socket, as sendDown and endDown use it. */
export interface DownSide {
  ws?: Pick<UwsWebSocket<unknown>, 'send' | 'end' | 'close'>;
  paused: boolean;
  downClosed: boolean;
  upstream?: Pick<WebSocket, 'pause'>;
}

/** Sends a message to the client, pausing the upstream while the client is behind. */
export function sendDown(data: DownSide, payload: Buffer | string, binary: boolean) {
  const ws = data.ws!;
  const status = ws.send(payload, binary);
  // 2: dropped, the client is too far behind; 0: kept, stop reading until it drains
  if (status === 2) return void ws.end(1011, 'backpressure');
  if (status === 0 && !data.paused) {
    data.paused = true;
    data.upstream?.pause();
  }
}

/** Closes the client's socket as the upstream closed, once. */
export function endDown(data: DownSide, code: number, reason: Buffer) {
  const ws = data.ws;
  if (!ws || data.downClosed) return;
  data.downClosed = true;
  // the upstream gave no code (1005): neither does the close sent on; it dropped (1006): so does this side
  if (code === 1005) ws.end();
  else if (code === 1006) ws.close();
  else ws.end(code, reason);
}

/** Starts opening the upstream, its messages kept until the client's socket opens and its close relayed. */
function link(route: ProxyRoute, target: ProxyTarget, protocols: string[]): SocketLink {
  const ended = (code: number, reason: Buffer) => {
    data.upstreamClosed ??= { code, reason };
    endDown(data, data.upstreamClosed.code, data.upstreamClosed.reason);
  };
  const upstream = openUpstream({
    host: target.host,
    port: target.port,
    path: target.path,
    headers: target.headers,
    protocols,
    maxPayload: MAX_MESSAGE,
    onBroken: (err, code) => {
      route.log(`${upstreamName(route, target)} broke the protocol: ${err.message}`);
      ended(code, Buffer.alloc(0));
    },
  });
  const data: SocketLink = { upstream, waiting: [], downClosed: false, paused: false };
  upstream.on('message', (payload, binary) => (data.ws ? sendDown(data, payload as Buffer, binary) : data.waiting.push([payload as Buffer, binary])));
  upstream.on('close', ended);
  return data;
}

const upstreamName = (route: ProxyRoute, target: ProxyTarget) => `${route.name ?? 'ingress'} WebSocket upstream ${target.host}:${target.port}${target.path}`;

function upgrade(route: ProxyRoute, res: UwsResponse, req: UwsRequest, context: unknown): void {
  if (!route.matches(req.getUrl())) return void req.setYield(true);
  const incoming = incomingOf(res, req, true);
  const key = req.getHeader('sec-websocket-key');
  const protocols = (incoming.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).filter(Boolean);
  let aborted = false;
  let upstream: WebSocket | undefined;
  res.onAborted(() => {
    aborted = true;
    upstream?.terminate();
  });
  const refuse = (reply: HttpReply) => {
    if (!aborted) answer(res, reply, true, route.log);
  };
  Promise.resolve()
    .then(() => route.plan(incoming))
    .then(async (plan) => {
      if (aborted) return;
      if ('refuse' in plan) return refuse(plan.refuse);
      const { target } = plan;
      const data = link(route, target, protocols);
      upstream = data.upstream;
      try {
        await opened(data.upstream);
      } catch (err) {
        if (aborted) return;
        route.log(`${upstreamName(route, target)} refused: ${(err as Error).message}`);
        return refuse({ status: 502, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '502: Bad Gateway' });
      }
      // aborted meanwhile: onAborted has cut the upstream off
      if (aborted) return;
      // the client is told the subprotocol the upstream chose
      res.cork(() => res.upgrade({ link: data }, key, data.upstream.protocol, '', context as never));
    })
    .catch((err) => {
      route.log(`${route.name ?? 'ingress'} WebSocket proxy failed on ${incoming.url}: ${(err as Error)?.stack ?? err}`);
      refuse({ status: 500, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body: '500: Internal Server Error' });
    });
}

