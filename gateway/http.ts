import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import { gzip } from 'node:zlib';
import { promisify } from 'node:util';
import { readJson, type JsonRead } from './body.ts';
import { readMultipart } from './multipart.ts';
import { BodyError, RequestBody } from './request-body.ts';
import { writeHead, type HeaderLine } from './response-head.ts';
import { OutputBudget, OUTPUT_BUDGET_BYTES, type Backlogged } from './output-budget.ts';
import type { LoginAttempts } from '../actors/auth/ip-bans.ts';
import { forwardedClient, type Forwarding } from './forwarded.ts';
import type { RefusalLog } from './refusal-log.ts';
import type { Authenticator, Principal } from '../actors/auth/types.ts';
import type { HttpResponse as UwsResponse, HttpRequest as UwsRequest, TemplatedApp } from '@trufflesuite/uws-js-unofficial';

// Who a request is from is the auth actors' notion; the gateway re-exports it for its handlers.
export type { Authenticator, Principal };

const gzipAsync = promisify(gzip);

/** A parsed request as route handlers see it. The body is read in full before the handler runs (except on `streamBody` routes). */
export interface HttpRequest {
  method: string;
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** header names lower-cased */
  headers: Record<string, string>;
  remoteIp: string;
  body: Buffer;
  /** the body as it arrives (routes with `streamBody`); it fails with a BodyError when the client leaves or sends too much */
  bodyStream?: Readable;
  principal?: Principal;
}

/** A complete answer. */
export interface HttpReply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** A long-lived streamed answer (SSE). `open` returns the cleanup run when the client leaves. */
export interface HttpStream {
  status: number;
  headers: Record<string, string>;
  open(sink: StreamSink): () => void;
}

/**
 * Where a streamed answer writes. `write` returns false once the stream is over: the client
 * left, or fell too far behind and was dropped (the router closes it then).
 */
export interface StreamSink {
  write(chunk: string | Buffer): boolean;
  end(): void;
}

/**
 * A file sent as it is read, at the pace the client takes it (a backup download of gigabytes:
 * never whole in memory, never gzipped again). `size` is its Content-Length.
 */
export interface HttpFile {
  status: number;
  headers: Record<string, string>;
  file: string;
  size: number;
}

export type Handler = (req: HttpRequest) => HttpReply | HttpStream | HttpFile | Promise<HttpReply | HttpStream | HttpFile>;

/** Who may call a route. */
export type Access = 'none' | 'user' | 'admin';

/** Where a route module adds its routes: the router, or the router as one component (`Router.of`). */
export interface Routes {
  add(method: string, pattern: string, options: RouteOptions, handler: Handler): void;
  get(pattern: string, options: RouteOptions, handler: Handler): void;
  post(pattern: string, options: RouteOptions, handler: Handler): void;
  delete(pattern: string, options: RouteOptions, handler: Handler): void;
}

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

const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 204: 'No Content', 302: 'Found', 400: 'Bad Request', 401: 'Unauthorized',
  403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 410: 'Gone', 413: 'Request Entity Too Large',
  429: 'Too Many Requests', 500: 'Internal Server Error', 502: 'Bad Gateway', 503: 'Service Unavailable',
};

/** The original's HTTP layer refuses a request line or a header field longer than this. */
export const MAX_LINE_BYTES = 8190;

/** The status line uWS wants: `200 OK`. */
export function statusLine(status: number): string {
  return `${status} ${REASONS[status] ?? 'Unknown'}`;
}

const JSON_TYPE = 'application/json; charset=utf-8';

/** A JSON answer. Pass a string to send pre-serialised JSON as it is. */
export function json(status: number, value: unknown, headers?: Record<string, string>): HttpReply {
  return { status, headers: { 'Content-Type': JSON_TYPE, ...headers }, body: typeof value === 'string' ? value : JSON.stringify(value) };
}

/** The original's `{"message": ...}` body. */
export function message(status: number, text: string, extra?: Record<string, unknown>): HttpReply {
  return json(status, { message: text, ...extra });
}

/** The framework's plain error page: `401: Unauthorized`. */
export function plainError(status: number, headers?: Record<string, string>): HttpReply {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers }, body: `${status}: ${REASONS[status] ?? 'Error'}` };
}

/** Plain text. */
export function text(status: number, body: string): HttpReply {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8' }, body };
}

/** The request body read as JSON (gateway/body.ts): the value (`undefined` when empty), or why not. */
export function parseJson(req: HttpRequest): JsonRead {
  return readJson(req.body);
}

/** What a form may hold: token requests and the like, a few short fields. */
const FORM_LIMITS = { fieldSize: 64 * 1024, fields: 64, files: 0 };

/**
 * The request body's form fields: application/x-www-form-urlencoded, or multipart/form-data
 * (what a browser's FormData sends; the original's request.post() reads both, and
 * home-assistant-js-websocket posts its token requests that way). File parts are left out; a
 * multipart body that cannot be read has no fields.
 */
export async function parseFormBody(req: HttpRequest): Promise<URLSearchParams> {
  const type = (req.headers['content-type'] ?? '').toLowerCase();
  if (type.startsWith('application/x-www-form-urlencoded')) return new URLSearchParams(req.body.toString('utf8'));
  if (!type.startsWith('multipart/form-data')) return new URLSearchParams();
  return readMultipart(req.body, { contentType: req.headers['content-type'], limits: FORM_LIMITS }).then(
    (form) => form.fields,
    () => new URLSearchParams(),
  );
}

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

interface Route {
  segments: string[];
  methods: Map<string, RouteEntry>;
}

const COLON = 0x3a;
/** No extra headers (shared, never written to). */
const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

const DEFAULT_HEADERS: [string, string][] = [
  ['Referrer-Policy', 'no-referrer'],
  ['X-Content-Type-Options', 'nosniff'],
  ['X-Frame-Options', 'SAMEORIGIN'],
];

/** What one event-stream client may have waiting before it is dropped. */
const STREAM_BACKLOG_LIMIT = 4 * 1024 * 1024;

/** Routes open to anyone (login, tokens, onboarding) read at most this much of a body. */
const OPEN_MAX_BODY = 1024 * 1024;

/** Large answers whose gzip is kept: all states, and a few single ones. */
const GZIP_CACHE_PATHS = 8;

const CORS_HEADERS = 'Origin, Accept, X-Requested-With, Content-Type, Authorization';

/**
 * Routes requests of a uWS app: path patterns with `:param` segments, 404 for unknown paths,
 * 405 with `Allow` for a known path and the wrong method, 413 past the body limit, bearer and
 * admin checks, gzip when the client accepts it, CORS, and the original's default headers.
 */
export class Router implements Routes {
  private routes: Route[] = [];
  /** the components whose routes were added through `of` */
  private readonly claimed = new Set<string>();
  private readonly gzipCache = new Map<string, { body: string; zipped: Buffer }>();
  /** routes without parameters, found by one lookup */
  private readonly exact = new Map<string, Route>();
  /** routes with `:param` segments, matched in turn */
  private readonly withParams: Route[] = [];
  private readonly maxBody: number;
  private readonly gzipMin: number;
  private readonly log: (line: string) => void;
  private readonly budget: OutputBudget;
  private app: TemplatedApp | undefined;

  constructor(private readonly options: RouterOptions) {
    this.maxBody = options.maxBody ?? 16 * 1024 * 1024;
    this.gzipMin = options.gzipMin ?? 1024;
    this.log = options.log ?? (() => {});
    this.budget = options.budget ?? new OutputBudget(OUTPUT_BUDGET_BYTES, this.log);
  }

  /** Adds a route; `pattern` like `/api/states/:entity_id`. */
  add(method: string, pattern: string, options: RouteOptions, handler: Handler): this {
    const segments = pattern.split('/').slice(1);
    let route = this.routes.find((r) => r.segments.join('/') === segments.join('/'));
    if (!route) {
      route = { segments, methods: new Map() };
      this.routes.push(route);
      if (pattern.includes(':')) this.withParams.push(route);
      else this.exact.set(pattern, route);
    }
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
    return this.routes.length === 0 ? [] : ['http', ...this.claimed];
  }

  get(pattern: string, options: RouteOptions, handler: Handler) {
    return this.add('GET', pattern, options, handler);
  }

  post(pattern: string, options: RouteOptions, handler: Handler) {
    return this.add('POST', pattern, options, handler);
  }

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
    for (const route of this.routes) for (const [method, entry] of route.methods) this.install(app, route, method, entry);
    app.any('/*', (res, req) => this.onRequest(res, req, undefined, undefined));
  }

  private install(app: TemplatedApp, route: Route, method: string, entry: RouteEntry): void {
    const pattern = `/${route.segments.join('/')}`;
    const handler = (res: UwsResponse, req: UwsRequest) => this.onRequest(res, req, route, entry);
    if (method === 'GET') app.get(pattern, handler);
    else if (method === 'POST') app.post(pattern, handler);
    else if (method === 'DELETE') app.del(pattern, handler);
    else if (method === 'PUT') app.put(pattern, handler);
    else if (method === 'PATCH') app.patch(pattern, handler);
    // any other method is found by the catch-all
  }

  /** The decoded `:param` values uWS matched, or undefined when one is empty or not decodable. */
  private paramsOf(route: Route, req: UwsRequest): Record<string, string> | undefined {
    const params: Record<string, string> = {};
    let index = 0;
    for (const seg of route.segments) {
      if (seg.charCodeAt(0) !== COLON) continue;
      const raw = req.getParameter(index++);
      if (!raw) return undefined;
      try {
        params[seg.slice(1)] = decodeURIComponent(raw);
      } catch {
        return undefined;
      }
    }
    return params;
  }

  private match(path: string): { route: Route; params: Record<string, string> } | undefined {
    const exact = this.exact.get(path);
    if (exact) return { route: exact, params: {} };
    const parts = path.split('/').slice(1);
    outer: for (const route of this.withParams) {
      if (route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      for (let i = 0; i < parts.length; i++) {
        const seg = route.segments[i];
        if (seg.startsWith(':')) {
          if (parts[i] === '') continue outer;
          try {
            params[seg.slice(1)] = decodeURIComponent(parts[i]);
          } catch {
            continue outer;
          }
        } else if (seg !== parts[i]) continue outer;
      }
      return { route, params };
    }
    return undefined;
  }

  private onRequest(res: UwsResponse, req: UwsRequest, route: Route | undefined, entry: RouteEntry | undefined): void {
    const method = req.getCaseSensitiveMethod().toUpperCase();
    const path = req.getUrl();
    const rawQuery = req.getQuery() ?? '';
    // no prototype: a header named like an Object member is just a header
    const headers: Record<string, string> = Object.create(null);
    let longest = 0;
    req.forEach((k, v) => {
      headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
      if (k.length + v.length > longest) longest = k.length + v.length;
    });
    const request = new Exchange(res, method, path, rawQuery, headers);
    const state: Answering = request;
    res.onAborted(() => {
      state.aborted = true;
      state.intake?.abandon();
      state.cleanup?.();
    });
    const line = method.length + path.length + (rawQuery ? rawQuery.length + 1 : 0) + 10;
    if (line > MAX_LINE_BYTES) return this.send(res, state, request, tooLong('Status line', line), {}, true);
    if (longest + 2 > MAX_LINE_BYTES) return this.send(res, state, request, tooLong('Header field', longest + 2), {}, true);
    // the original's middleware order: forwarded headers, then bans, then routing and auth
    const forwardedFor = headers['x-forwarded-for'];
    if (forwardedFor !== undefined) {
      const client = forwardedClient(request.remoteIp, headers, this.options.forwarded, this.log);
      if (client === undefined) return this.send(res, state, request, plainError(400), NO_HEADERS, hasBodyMethod(method));
      request.useRemoteIp(client);
    }
    const bans = this.options.bans;
    if (bans !== undefined && bans.checking && bans.isBanned(request.remoteIp)) return this.send(res, state, request, plainError(403), NO_HEADERS, hasBodyMethod(method));

    if (route && entry) {
      const params = this.paramsOf(route, req);
      if (!params) return this.send(res, state, request, plainError(404));
      request.params = params;
    } else {
      const found = this.match(path);
      if (!found) return this.send(res, state, request, plainError(404));
      request.params = found.params;
      if (method === 'OPTIONS' && headers['access-control-request-method']) {
        const wanted = headers['access-control-request-method'].toUpperCase();
        const preflight = found.route.methods.get(wanted);
        const cors = this.cors(headers.origin, preflight?.options.corsAnyOrigin ?? false);
        if (!preflight || !cors['Access-Control-Allow-Origin']) return this.send(res, state, request, plainError(403));
        return this.send(res, state, request, {
          status: 200,
          headers: { ...cors, 'Access-Control-Allow-Methods': wanted, 'Access-Control-Allow-Headers': CORS_HEADERS },
        });
      }
      entry = found.route.methods.get(method) ?? (method === 'HEAD' ? found.route.methods.get('GET') : undefined);
      if (!entry) {
        const allow = [...found.route.methods.keys()].join(', ');
        return this.send(res, state, request, plainError(405, { Allow: allow }));
      }
    }
    const { options, handler } = entry;
    const cors = this.cors(headers.origin, options.corsAnyOrigin ?? false);

    const hasBody = !(method === 'GET' || method === 'HEAD' || method === 'OPTIONS');
    // who is asking is known from the headers: a stranger's body is never read
    if (options.access !== 'none') {
      const principal = this.options.authenticator.authenticate(headers.authorization, request);
      // known even when refused: the refusal's line names the user
      request.principal = principal;
      if (!principal || (options.access === 'admin' && !principal.isAdmin)) {
        // the original's ban middleware counts every 401 as a failed login
        this.options.bans?.failed(request);
        return this.send(res, state, request, plainError(401), cors, hasBody);
      }
    }
    const maxBody = options.maxBody ?? (options.access === 'none' ? Math.min(this.maxBody, OPEN_MAX_BODY) : this.maxBody);
    if (options.admit) {
      const refused = options.admit(request);
      if (refused) return this.send(res, state, request, refused, cors, hasBody);
    }
    const declared = headers['content-length'] === undefined ? undefined : Number(headers['content-length']);
    // past this point an answer given before the body's end waits for the rest of it (send)
    const body = hasBody ? (state.intake = new RequestBody(res, Number.isSafeInteger(declared) ? declared : undefined)) : undefined;
    if (declared !== undefined && declared > maxBody) return this.send(res, state, request, plainError(413), cors, true);
    if (!body) return this.run(res, state, request, handler, cors, EMPTY);
    if (options.streamBody) {
      const stream = body.stream(maxBody);
      // the handler may answer before reading it all, or never read it
      stream.on('error', () => {});
      request.bodyStream = stream;
      state.cleanup = () => stream.destroy(new BodyError(400, 'the client left before its body was sent'));
      return this.run(res, state, request, handler, cors, EMPTY);
    }
    body.collect(
      maxBody,
      (whole) => this.run(res, state, request, handler, cors, whole),
      () => this.send(res, state, request, plainError(413), cors, true),
    );
  }

  /** CORS for a request from `origin`: open to it on `anyOrigin` routes, else when configured. */
  private cors(origin: string | undefined, anyOrigin: boolean): Record<string, string> {
    if (!origin) return NO_HEADERS;
    if (anyOrigin || this.options.corsOrigins?.includes(origin)) return { 'Access-Control-Allow-Origin': origin };
    return NO_HEADERS;
  }

  /** Runs the handler with the body read, and answers what it returns, sync or async. */
  private run(res: UwsResponse, state: Answering, request: HttpRequest, handler: Handler, cors: Record<string, string>, body: Buffer): void {
    request.body = body;
    let result: HttpReply | HttpStream | HttpFile | Promise<HttpReply | HttpStream | HttpFile>;
    try {
      result = handler(request);
    } catch (err) {
      return this.fail(res, state, request, err, cors);
    }
    if (result instanceof Promise) {
      result.then(
        (r) => this.respond(res, state, request, r, cors),
        (err) => this.fail(res, state, request, err, cors),
      );
    } else this.respond(res, state, request, result, cors);
  }

  private fail(res: UwsResponse, state: Answering, request: HttpRequest, err: unknown, cors: Record<string, string>) {
    this.log(`error answering ${request.method} ${request.path}: ${(err as Error)?.stack ?? err}`);
    this.send(res, state, request, plainError(500), cors);
  }

  private respond(res: UwsResponse, state: Answering, request: HttpRequest, reply: HttpReply | HttpStream | HttpFile, cors: Record<string, string>) {
    if (state.aborted) return;
    if ('file' in reply) {
      if (request.method === 'HEAD') return this.send(res, state, request, { status: reply.status, headers: reply.headers }, cors);
      return this.sendFile(res, state, reply, cors);
    }
    // a handler's 401 (an entity the user may not read or control) counts as a failed login too,
    // as the original's ban middleware counts every 401
    if (reply.status === 401) this.options.bans?.failed(request);
    if ('open' in reply) {
      // HEAD learns the stream's headers without opening it
      if (request.method === 'HEAD') return this.send(res, state, request, { status: reply.status, headers: reply.headers }, cors);
      return this.stream(res, state, reply, cors);
    }
    const body = reply.body;
    const accepts = (request.headers['accept-encoding'] ?? '').includes('gzip');
    if (accepts && body !== undefined && body.length >= this.gzipMin) {
      const zipped = (z: Buffer) => this.send(res, state, request, { ...reply, body: z, headers: { ...reply.headers, 'Content-Encoding': 'gzip' } }, cors);
      // dashboards poll the same large answer (all states): its gzip is kept until it changes
      const cached = this.gzipCache.get(request.path);
      if (cached && cached.body === body) return zipped(cached.zipped);
      gzipAsync(typeof body === 'string' ? Buffer.from(body) : body).then(
        (z) => {
          if (typeof body === 'string' && body.length >= 64 * 1024) this.keepGzip(request.path, body, z);
          zipped(z);
        },
        (err) => this.fail(res, state, request, err, cors),
      );
      return;
    }
    this.send(res, state, request, reply, cors);
  }

  /** Keeps the gzip of a large answer for its path; a few paths only, the oldest dropped first. */
  private keepGzip(path: string, body: string, zipped: Buffer) {
    this.gzipCache.delete(path);
    this.gzipCache.set(path, { body, zipped });
    if (this.gzipCache.size > GZIP_CACHE_PATHS) this.gzipCache.delete(this.gzipCache.keys().next().value!);
  }

  /**
   * The status line and headers: the original's defaults (a route may replace one, as the login
   * page does X-Frame-Options, never send both), CORS, the answer's own. False when the answer
   * was dropped for a 500 (a header that would split its line).
   */
  private head(res: UwsResponse, status: number, headers: Record<string, string> | undefined, cors: Record<string, string>): boolean {
    const lines: HeaderLine[] = [];
    for (const [k, v] of DEFAULT_HEADERS) if (headers?.[k] === undefined) lines.push([k, v]);
    for (const k in cors) lines.push([k, cors[k]]);
    if (headers) for (const k in headers) lines.push([k, headers[k]]);
    return writeHead(res, statusLine(status), lines, this.log);
  }

  /**
   * Writes one complete answer. What the socket cannot take now is written as it drains
   * (`tryEnd`/`onWritable`); until then uWS reads no further pipelined request of this
   * connection, so a client that never reads holds one answer in memory, not thousands.
   */
  private send(res: UwsResponse, state: Answering, request: HttpRequest, reply: HttpReply, cors: Record<string, string> = {}, close = false) {
    if (state.aborted) return;
    // before the request counts as answered: uWS forgets the client's address then
    this.options.refusals?.http(reply.status, request);
    state.aborted = true; // one answer per request
    // answered before its body's end: the rest is read and thrown away first, then the
    // connection closes (the client can read the answer only once it stops sending)
    if (state.intake && !state.intake.ended) {
      state.bodyStream?.destroy();
      return state.intake.afterBody(() => this.write(res, request, reply, cors, true));
    }
    this.write(res, request, reply, cors, close);
  }

  private write(res: UwsResponse, request: HttpRequest, reply: HttpReply, cors: Record<string, string>, close: boolean) {
    res.cork(() => {
      if (!this.head(res, reply.status, reply.headers, cors)) return;
      if (request.method === 'HEAD') return void res.endWithoutBody();
      const body = reply.body ?? '';
      if (close) return void res.end(body, true);
      const total = typeof body === 'string' ? Buffer.byteLength(body) : body.length;
      const start = res.getWriteOffset();
      const [, done] = res.tryEnd(body, total);
      if (done) return;
      const bytes = typeof body === 'string' ? Buffer.from(body) : body;
      res.onWritable((offset) => {
        const [ok] = res.tryEnd(bytes.subarray(offset - start), total);
        return ok;
      });
    });
  }

  /**
   * A file in chunks: each goes out with `tryEnd` against the whole size; what the socket cannot
   * take is retried from `onWritable`, and the file is not read further until it is taken.
   */
  private sendFile(res: UwsResponse, state: Answering, reply: HttpFile, cors: Record<string, string>) {
    const stream = createReadStream(reply.file, { highWaterMark: 256 * 1024 });
    const finish = () => {
      state.aborted = true;
      stream.destroy();
    };
    state.cleanup = () => stream.destroy();
    let head = false;
    res.cork(() => {
      head = this.head(res, reply.status, reply.headers, cors);
    });
    if (!head) return finish();
    if (reply.size === 0) {
      finish();
      return void res.cork(() => res.end());
    }
    stream.on('data', (data) => {
      const chunk = data as Buffer;
      if (state.aborted) return void stream.destroy();
      const start = res.getWriteOffset();
      let ok = false;
      let done = false;
      res.cork(() => {
        [ok, done] = res.tryEnd(chunk, reply.size);
      });
      if (done) return finish();
      if (ok) return;
      stream.pause();
      res.onWritable((offset) => {
        if (state.aborted) return true;
        const [sent, over] = res.tryEnd(chunk.subarray(offset - start), reply.size);
        if (over) finish();
        else if (sent) stream.resume();
        return sent;
      });
    });
    // the file changed size or could not be read: the client sees a cut answer, not a wrong one
    const cut = () => {
      if (state.aborted) return;
      state.aborted = true;
      res.close();
    };
    stream.on('error', cut);
    stream.on('end', () => setImmediate(cut));
  }

  private stream(res: UwsResponse, state: Answering, reply: HttpStream, cors: Record<string, string>) {
    let head = false;
    res.cork(() => {
      head = this.head(res, reply.status, reply.headers, cors);
    });
    if (!head) return void (state.aborted = true);
    // uWS keeps what the socket cannot take yet and sends it as the socket drains (no onWritable
    // handler here: with one, uWS would leave its buffer to the handler). That is the client's
    // backlog, counted here and in the budget shared by every connection: a write that goes
    // straight out means nothing was left waiting before it
    let backlog = 0;
    const behind: Backlogged = { who: `the event stream of ${remoteIpOf(res)}`, drop: () => drop() };
    const drop = () => {
      if (state.aborted) return;
      state.aborted = true;
      // at once: ending gracefully would keep the backlog until the client reads it
      res.close();
    };
    const sink: StreamSink = {
      write: (chunk) => {
        if (state.aborted) return false;
        let ok = true;
        res.cork(() => {
          ok = res.write(chunk);
        });
        if (ok) {
          if (backlog > 0) this.budget.set(behind, (backlog = 0));
          return true;
        }
        backlog += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
        if (backlog >= STREAM_BACKLOG_LIMIT) {
          drop();
          return false;
        }
        this.budget.set(behind, backlog);
        return !state.aborted;
      },
      end: () => {
        if (state.aborted) return;
        state.aborted = true;
        state.cleanup?.();
        res.cork(() => res.end());
      },
    };
    const close = reply.open(sink);
    let closed = false;
    state.cleanup = () => {
      if (closed) return;
      closed = true;
      this.budget.set(behind, 0);
      close();
    };
    // dropped while it opened (its first write was already too much)
    if (state.aborted) state.cleanup();
  }
}

const EMPTY = Buffer.alloc(0);
const NO_PARAMS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Where one request stands: answered or gone (`aborted`), the stream's cleanup, its body. */
interface Answering {
  aborted: boolean;
  cleanup: undefined | (() => void);
  intake?: RequestBody;
  bodyStream?: Readable;
}

/**
 * One request and where its answer stands, in one object: a class, so the lazy parts (query,
 * address) are getters on its prototype rather than closures made for every request.
 */
class Exchange implements HttpRequest, Answering {
  params = NO_PARAMS;
  body = EMPTY;
  bodyStream?: Readable;
  intake?: RequestBody;
  principal?: Principal;
  aborted = false;
  cleanup: undefined | (() => void) = undefined;
  #query: URLSearchParams | undefined;
  #remoteIp: string | undefined;

  constructor(
    private readonly res: UwsResponse,
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: Record<string, string>,
  ) {}

  // most requests never look at their query string
  get query(): URLSearchParams {
    return (this.#query ??= new URLSearchParams(this.rawQuery));
  }

  /** the client's address as a trusted proxy forwarded it */
  useRemoteIp(ip: string): void {
    this.#remoteIp = ip;
  }

  // asked of uWS only when wanted (a native call, and a copy, per request); uWS forgets the
  // address once the request is answered or gone
  get remoteIp(): string {
    return (this.#remoteIp ??= this.aborted ? '' : remoteIpOf(this.res));
  }
}

/** A request whose body is not read when it is refused early: its connection is closed. */
function hasBodyMethod(method: string): boolean {
  return !(method === 'GET' || method === 'HEAD' || method === 'OPTIONS');
}

/** The original's answer to an over-long request line or header field. */
function tooLong(what: string, bytes: number): HttpReply {
  return text(400, `400, message: Got more than ${MAX_LINE_BYTES} bytes (${bytes}) when reading ${what} is too long.`);
}

/** The client's address as text. */
function remoteIpOf(res: UwsResponse): string {
  return Buffer.from(res.getRemoteAddressAsText()).toString();
}
