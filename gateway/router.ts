import type { HttpResponse as UwsResponse, HttpRequest as UwsRequest, TemplatedApp } from '@trufflesuite/uws-js-unofficial';
import type { LoginAttempts } from '../actors/auth/ip-bans.ts';
import type { Authenticator } from '../actors/auth/types.ts';
import { forwardedClient, type Forwarding } from './forwarded.ts';
import { OutputBudget, OUTPUT_BUDGET_BYTES } from './output-budget.ts';
import type { RefusalLog } from './refusal-log.ts';
import { plainError, type HttpAnswer, type HttpReply } from './replies.ts';
import { Exchange, type HttpRequest } from './request.ts';
import { MAX_BODY, OPEN_MAX_BODY, takeBody } from './request-body.ts';
import { NO_HEADERS, ResponseWriter } from './response-writer.ts';
import { RouteTable, paramsOf, patternOf, type Route } from './route-table.ts';

/** A route's handler: the request, its body read (unless the route streams it), to an answer. */
export type Handler = (req: HttpRequest) => HttpAnswer | Promise<HttpAnswer>;

/** Who may call a route. */
export type Access = 'none' | 'user' | 'admin';

/** Where a route module adds its routes: the router, or the router as one component (`Router.of`). */
export interface Routes {
  add(method: string, pattern: string, options: RouteOptions, handler: Handler): void;
  get(pattern: string, options: RouteOptions, handler: Handler): void;
  post(pattern: string, options: RouteOptions, handler: Handler): void;
  delete(pattern: string, options: RouteOptions, handler: Handler): void;
}

/** How a route is admitted and its body read. */
export interface RouteOptions {
  access: Access;
  /** CORS open to any origin (token endpoint, revoke, webhooks) */
  corsAnyOrigin?: boolean;
  /** largest body in bytes; the router's limit, or 1 MiB for routes open to anyone */
  maxBody?: number;
  /**
   * The handler runs before the body is read and reads `request.bodyStream` itself (an upload of
   * gigabytes, written where it belongs as it arrives); `request.body` stays empty.
   */
  streamBody?: boolean;
  /** Asked before any body is read: an answer here is sent instead (a token check, so a stranger's upload is never stored). */
  admit?(request: HttpRequest): HttpReply | undefined;
}

/** How a router admits requests and writes answers. */
export interface RouterOptions {
  authenticator: Authenticator;
  /** largest accepted request body in bytes (the original: 16 MiB) */
  maxBody?: number;
  /** origins granted CORS on every route (`http: cors_allowed_origins`) */
  corsOrigins?: string[];
  /** smallest body worth compressing */
  gzipMin?: number;
  /** what may wait for slow clients, shared with the WebSocket API */
  budget?: OutputBudget;
  log?: (line: string) => void;
  /** failed logins and IP bans (actors/auth/ip-bans.ts): banned addresses get 403, every 401 counts */
  bans?: LoginAttempts;
  /** `http: use_x_forwarded_for` and `trusted_proxies`: X-Forwarded-For honoured from these only */
  forwarded?: Forwarding;
  /** where answers that refuse (401, 403, 404, 405) are told, with who asked for what */
  refusals?: RefusalLog;
}

interface RouteEntry {
  handler: Handler;
  options: RouteOptions;
}

const CORS_HEADERS = 'Origin, Accept, X-Requested-With, Content-Type, Authorization';

/**
 * Routes requests of a uWS app: path patterns with `:param` segments, 404 for unknown paths,
 * 405 with `Allow` for a known path and the wrong method, preflights and HEAD, CORS, then the
 * admission of each request (line lengths, forwarded addresses, bans, bearer and admin checks,
 * the route's own check) before its body is read (request-body.ts) and its handler answered
 * (response-writer.ts).
 */
export class Router implements Routes {
  private readonly table = new RouteTable<RouteEntry>();
  /** the components whose routes were added through `of` */
  private readonly claimed = new Set<string>();
  private readonly maxBody: number;
  private readonly log: (line: string) => void;
  private readonly writer: ResponseWriter;
  private app: TemplatedApp | undefined;

  constructor(private readonly options: RouterOptions) {
    this.maxBody = options.maxBody ?? MAX_BODY;
    this.log = options.log ?? (() => {});
    const budget = options.budget ?? new OutputBudget(OUTPUT_BUDGET_BYTES, this.log);
    this.writer = new ResponseWriter({ log: this.log, budget, gzipMin: options.gzipMin ?? 1024, refusals: options.refusals });
  }

  /** Adds a route; `pattern` like `/api/states/:entity_id`. */
  add(method: string, pattern: string, options: RouteOptions, handler: Handler): this {
    const route = this.table.routeOf(pattern);
    const entry = { handler, options };
    route.methods.set(method.toUpperCase(), entry);
    if (this.app) this.install(this.app, route, method.toUpperCase(), entry);
    return this;
  }

  /** The router as a component's: the routes added through it make the component a loaded one. */
  of(component: string): Routes {
    const add = (method: string, pattern: string, options: RouteOptions, handler: Handler) => {
      this.claimed.add(component);
      this.add(method, pattern, options, handler);
    };
    return {
      add,
      get: (pattern, options, handler) => add('GET', pattern, options, handler),
      post: (pattern, options, handler) => add('POST', pattern, options, handler),
      delete: (pattern, options, handler) => add('DELETE', pattern, options, handler),
    };
  }

  /** The components that serve routes here, and http, which serves them all. */
  components(): string[] {
    return this.table.routes.length === 0 ? [] : ['http', ...this.claimed];
  }

  /** Adds a GET route. */
  get(pattern: string, options: RouteOptions, handler: Handler) {
    return this.add('GET', pattern, options, handler);
  }

  /** Adds a POST route. */
  post(pattern: string, options: RouteOptions, handler: Handler) {
    return this.add('POST', pattern, options, handler);
  }

  /** Adds a DELETE route. */
  delete(pattern: string, options: RouteOptions, handler: Handler) {
    return this.add('DELETE', pattern, options, handler);
  }

  /**
   * Installs the routes on the app: each on uWS's own router (native matching, no per-request
   * route search), and a catch-all for unknown paths (404), known paths with another method
   * (405), CORS preflights and HEAD.
   */
  mount(app: TemplatedApp): void {
    this.app = app;
    for (const route of this.table.routes) for (const [method, entry] of route.methods) this.install(app, route, method, entry);
    app.any('/*', (res, req) => this.onRequest(res, req, undefined, undefined));
  }

  private install(app: TemplatedApp, route: Route<RouteEntry>, method: string, entry: RouteEntry): void {
    const pattern = patternOf(route);
    const handler = (res: UwsResponse, req: UwsRequest) => this.onRequest(res, req, route, entry);
    if (method === 'GET') app.get(pattern, handler);
    else if (method === 'POST') app.post(pattern, handler);
    else if (method === 'DELETE') app.del(pattern, handler);
    else if (method === 'PUT') app.put(pattern, handler);
    else if (method === 'PATCH') app.patch(pattern, handler);
    // any other method is found by the catch-all
  }

  private onRequest(res: UwsResponse, req: UwsRequest, route: Route<RouteEntry> | undefined, entry: RouteEntry | undefined): void {
    const x = Exchange.read(res, req);
    const { headers, method } = x;
    res.onAborted(() => {
      x.aborted = true;
      x.intake?.abandon();
      x.cleanup?.();
    });
    const tooLong = x.tooLong();
    if (tooLong) return this.writer.send(x, tooLong, NO_HEADERS, true);
    // the original's middleware order: forwarded headers, then bans, then routing and auth
    if (headers['x-forwarded-for'] !== undefined) {
      const client = forwardedClient(x.remoteIp, headers, this.options.forwarded, this.log);
      if (client === undefined) return this.writer.send(x, plainError(400), NO_HEADERS, x.hasBody);
      x.useRemoteIp(client);
    }
    const bans = this.options.bans;
    if (bans !== undefined && bans.checking && bans.isBanned(x.remoteIp)) return this.writer.send(x, plainError(403), NO_HEADERS, x.hasBody);

    if (route && entry) {
      const params = paramsOf(route, req);
      if (!params) return this.writer.send(x, plainError(404));
      x.params = params;
    } else {
      const found = this.table.match(x.path);
      if (!found) return this.writer.send(x, plainError(404));
      x.params = found.params;
      if (method === 'OPTIONS' && headers['access-control-request-method']) return this.preflight(x, found.route);
      entry = found.route.methods.get(method) ?? (method === 'HEAD' ? found.route.methods.get('GET') : undefined);
      if (!entry) {
        const allow = [...found.route.methods.keys()].join(', ');
        return this.writer.send(x, plainError(405, { Allow: allow }));
      }
    }
    const { options, handler } = entry;
    const cors = this.cors(headers.origin, options.corsAnyOrigin ?? false);

    // who is asking is known from the headers: a stranger's body is never read
    if (options.access !== 'none') {
      const principal = this.options.authenticator.authenticate(headers.authorization, x);
      // known even when refused: the refusal's line names the user
      x.principal = principal;
      if (!principal || (options.access === 'admin' && !principal.isAdmin)) {
        // the original's ban middleware counts every 401 as a failed login
        this.options.bans?.failed(x);
        return this.writer.send(x, plainError(401), cors, x.hasBody);
      }
    }
    const maxBody = options.maxBody ?? (options.access === 'none' ? Math.min(this.maxBody, OPEN_MAX_BODY) : this.maxBody);
    if (options.admit) {
      const refused = options.admit(x);
      if (refused) return this.writer.send(x, refused, cors, x.hasBody);
    }
    takeBody(
      x,
      maxBody,
      options.streamBody === true,
      (body) => this.run(x, handler, cors, body),
      () => this.writer.send(x, plainError(413), cors, true),
    );
  }

  /** A CORS preflight: 200 with what the route allows when its origin may call it, else 403. */
  private preflight(x: Exchange, route: Route<RouteEntry>): void {
    const wanted = x.headers['access-control-request-method'].toUpperCase();
    const asked = route.methods.get(wanted);
    const cors = this.cors(x.headers.origin, asked?.options.corsAnyOrigin ?? false);
    if (!asked || !cors['Access-Control-Allow-Origin']) return this.writer.send(x, plainError(403));
    this.writer.send(x, {
      status: 200,
      headers: { ...cors, 'Access-Control-Allow-Methods': wanted, 'Access-Control-Allow-Headers': CORS_HEADERS },
    });
  }

  /** CORS for a request from `origin`: open to it on `anyOrigin` routes, else when configured. */
  private cors(origin: string | undefined, anyOrigin: boolean): Record<string, string> {
    if (!origin) return NO_HEADERS;
    if (anyOrigin || this.options.corsOrigins?.includes(origin)) return { 'Access-Control-Allow-Origin': origin };
    return NO_HEADERS;
  }

  /** Runs the handler with the body read, and answers what it returns, sync or async. */
  private run(x: Exchange, handler: Handler, cors: Record<string, string>, body: Buffer): void {
    x.body = body;
    let result: HttpAnswer | Promise<HttpAnswer>;
    try {
      result = handler(x);
    } catch (err) {
      return this.writer.fail(x, err, cors);
    }
    if (result instanceof Promise) {
      result.then(
        (r) => this.answer(x, r, cors),
        (err) => this.writer.fail(x, err, cors),
      );
    } else this.answer(x, result, cors);
  }

  private answer(x: Exchange, reply: HttpAnswer, cors: Record<string, string>): void {
    if (x.aborted) return;
    // a handler's 401 (an entity the user may not read or control) counts as a failed login too,
    // as the original's ban middleware counts every 401
    if (!('file' in reply) && reply.status === 401) this.options.bans?.failed(x);
    this.writer.respond(x, reply, cors);
  }
}
