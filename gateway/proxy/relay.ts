import type { TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import type { ProxyRoute } from './exchange.ts';
import { relayHttp } from './http-relay.ts';
import { webSocketRelay } from './ws-relay.ts';

export { HOP_HEADERS, BUFFER_BELOW, MAX_BUFFERED_BODY, MAX_MESSAGE, type ProxyIncoming, type ProxyTarget, type ProxyPlan, type ProxyRoute } from './exchange.ts';

/**
 * A reverse proxy on a uWS app, shared by the two ingress hops (the core's
 * `/api/hassio_ingress/...` and the supervisor's `/ingress/...`): each hop says, per request,
 * where it goes and with which headers (a `ProxyPlan`), or refuses it; this module relays the
 * HTTP exchange (request bodies buffered or streamed, responses buffered when small and
 * streamed when large or of unknown length) and WebSockets (messages both ways, close).
 * Response rules are the original's (supervisor-wire §10.3).
 */

/** Installs the proxy's HTTP and WebSocket handlers on `app`. */
export function serveProxy(app: TemplatedApp, route: ProxyRoute): void {
  app.ws(route.pattern, webSocketRelay(route));
  app.any(route.pattern, (res, req) => {
    if (!route.matches(req.getUrl())) return void req.setYield(true);
    relayHttp(route, res, req);
  });
}
