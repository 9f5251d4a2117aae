import uWS from '@trufflesuite/uws-js-unofficial';
import { Router, type Handler, type RouteOptions } from '../gateway/router.ts';
import { plainError } from '../gateway/replies.ts';
import type { HttpRequest } from '../gateway/request.ts';
import { listenExclusive } from '../gateway/listen.ts';
import { serveProxy, type ProxyIncoming, type ProxyPlan } from '../gateway/proxy/relay.ts';
import { isIngressProxyPath } from '../gateway/supervisor/ingress-proxy.ts';
import { serveCoreProxy, type CoreProxyDeps } from '../gateway/supervisor/core-proxy.ts';

/**
 * The supervisor's listening socket, kept across soft restarts: each start of the supervisor
 * (a generation) registers its routes into a table of its own, and the listener answers from
 * the generation it serves. A restart therefore rebuilds everything behind the port without
 * closing it: the uWS build in use cannot bind a port again while closed connections of the
 * old socket linger (TIME_WAIT), so closing and listening again fails for up to a minute.
 */
export class SupervisorListener {
  readonly app = uWS.App();
  private readonly router: Router;
  private serving = new Map<string, Handler>();
  private readonly installed = new Set<string>();
  private socket?: uWS.us_listen_socket;
  port = 0;
  /** where the router tells unexpected failures (the serving generation's logger) */
  logLine: (line: string) => void = () => {};
  /** the serving generation's ingress proxy: where `/ingress/<token>/...` goes (HTTP and WebSocket) */
  ingress?: (incoming: ProxyIncoming) => Promise<ProxyPlan>;
  /** the serving generation's proxy of the core's API for apps (`/core/api/...`, `/core/websocket`) */
  coreProxy?: CoreProxyDeps;

  constructor() {
    this.router = new Router({ authenticator: { authenticate: () => undefined } as never, log: (line) => this.logLine(line) });
    // the proxy streams bodies and upgrades WebSockets, which the router's handlers do not
    for (const pattern of ['/ingress/*', '/v2/ingress/*']) {
      serveProxy(this.app, { pattern, matches: isIngressProxyPath, plan: (i) => this.ingress?.(i) ?? { refuse: plainError(503) }, log: (l) => this.logLine(l) });
    }
    for (const pattern of ['/core/*', '/homeassistant/*', '/v2/core/*']) serveCoreProxy(this.app, pattern, () => this.coreProxy);
    this.router.mount(this.app);
  }

  /** A router for one generation: what it registers answers once `serve` is given its table. */
  generation(): { router: Router; table: Map<string, Handler> } {
    const table = new Map<string, Handler>();
    const facade = {
      add: (method: string, path: string, options: RouteOptions, handler: Handler) => {
        const key = `${method.toUpperCase()} ${path}`;
        // the check before a streamed body is read is the generation's, as its handler is
        table.set(key, options.admit ? Object.assign((req: HttpRequest) => handler(req), { admit: options.admit }) : handler);
        if (!this.installed.has(key)) {
          this.installed.add(key);
          const admit = options.admit ? (req: HttpRequest) => (this.serving.get(key) as { admit?: RouteOptions['admit'] } | undefined)?.admit?.(req) : undefined;
          // a path only a later generation has (the /v2 tree after the flag) is 404 on the others
          this.router.add(method, path, { ...options, admit }, (req) => (this.serving.get(key) ?? (() => plainError(404)))(req));
        }
        return facade;
      },
    };
    return { router: facade as unknown as Router, table };
  }

  serve(table: Map<string, Handler>): void {
    this.serving = table;
  }

  /** Listens once; later calls keep the socket. */
  async listen(host: string, port: number): Promise<number> {
    if (this.socket) return this.port;
    this.socket = await listenExclusive(this.app, host, port);
    this.port = uWS.us_socket_local_port(this.socket);
    return this.port;
  }

  close(): void {
    if (this.socket) uWS.us_listen_socket_close(this.socket);
    this.socket = undefined;
    (this.app as unknown as { close(): void }).close();
  }
}
