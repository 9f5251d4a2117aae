import type { Router } from '../router.ts';
import { json, text, plainError, type HttpAnswer, type HttpReply } from '../replies.ts';
import type { HttpRequest } from '../request.ts';
import { MAX_BODY } from '../request-body.ts';
import { decide, looksLikeExploit, tokenOf, type Caller, type Tree } from '../../actors/supervisor/access.ts';
import { SupervisorError, UNKNOWN_ERROR, supervisorUnknownError } from '../../actors/supervisor/errors.ts';
import { engineUnreachable } from '../../actors/supervisor/docker/engine.ts';

/**
 * The supervisor's API on the shared router: every route behind the original's middleware
 * (exploit filter, system-state gate, token and role check) and answered in its envelope
 * (`{"result":"ok","data":...}` / `{"result":"error","message":...,"error_key":...}`), on the
 * v1 tree and, when the `supervisor_v2_api` flag was on at start, on `/v2`.
 */

/** One call of a supervisor route as a handler sees it. */
export interface SupervisorCall {
  req: HttpRequest;
  /** undefined on paths that need no token (`/supervisor/ping`) */
  caller?: Caller;
  tree: Tree;
  params: Record<string, string>;
  query: URLSearchParams;
  /** the body as a JSON object: `{}` when empty; a 400 `Invalid json` when it is not JSON */
  body(): Record<string, unknown>;
}

/** A handler's answer that is not the envelope: logs as text, a stream, a file. */
export class Raw {
  constructor(readonly reply: HttpAnswer) {}
}
export const raw = (reply: HttpAnswer) => new Raw(reply);

/** Resolves to the envelope's `data` (undefined, true or empty answer `{}`), or a Raw answer. */
export type SupervisorHandler = (call: SupervisorCall) => unknown | Promise<unknown>;

export interface RouteSpec {
  /** which trees carry the route (default both) */
  trees?: Tree[];
  /** the path on `/v2` when it is renamed there (`/addons/...` becomes `/apps/...`) */
  v2Path?: string;
  /** more v1 paths with the same handler (the legacy core prefix `/homeassistant/...`) */
  v1Aliases?: string[];
  /** a larger body than the buffered 16 MiB (backup upload) */
  maxBody?: number;
  /** the handler reads the body as it arrives (`call.req.bodyStream`), once the middleware admitted the caller */
  streamBody?: boolean;
}

export interface TableEntry {
  method: string;
  /** the pattern as registered, with `:param` segments, including `/v2` on that tree */
  path: string;
  tree: Tree;
}

/** The three error keys the original still names `addon_*` on v1. */
const V1_ERROR_KEYS: Record<string, string> = {
  app_not_supported_architecture_error: 'addon_not_supported_architecture_error',
  app_not_supported_machine_type_error: 'addon_not_supported_machine_type_error',
  app_not_supported_home_assistant_version_error: 'addon_not_supported_home_assistant_version_error',
};

/** The states in which the supervisor answers (every other state: 400 `System is not ready`). */
const SERVING = new Set(['startup', 'running', 'freeze']);

export interface SupervisorApiOptions {
  /** the caller a token stands for */
  lookup(token: string): Caller | undefined;
  /** the supervisor's state: `setup`, `running`, `freeze`, `stopping`... */
  state(): string;
  /** whether the `/v2` tree is served (the feature flag as it was at start) */
  v2: boolean;
  /** where unexpected failures are told */
  error(line: string): void;
  /** where expected ones worth a line are told (an engine that does not answer) */
  warn?(line: string): void;
}

export class SupervisorApi {
  private readonly entries: TableEntry[] = [];

  constructor(
    private readonly router: Router,
    private readonly options: SupervisorApiOptions,
  ) {}

  get v2(): boolean {
    return this.options.v2;
  }

  /** Every registered method and path on both trees (the role-matrix test walks it). */
  table(): TableEntry[] {
    return [...this.entries];
  }

  route(method: string, path: string, handler: SupervisorHandler, spec: RouteSpec = {}): this {
    const trees = spec.trees ?? ['v1', 'v2'];
    if (trees.includes('v1')) for (const p of [path, ...(spec.v1Aliases ?? [])]) this.install(method, p, 'v1', handler, spec);
    if (trees.includes('v2') && this.options.v2) this.install(method, `/v2${spec.v2Path ?? path}`, 'v2', handler, spec);
    return this;
  }

  get(path: string, handler: SupervisorHandler, spec?: RouteSpec) {
    return this.route('GET', path, handler, spec);
  }

  post(path: string, handler: SupervisorHandler, spec?: RouteSpec) {
    return this.route('POST', path, handler, spec);
  }

  delete(path: string, handler: SupervisorHandler, spec?: RouteSpec) {
    return this.route('DELETE', path, handler, spec);
  }

  private install(method: string, path: string, tree: Tree, handler: SupervisorHandler, spec: RouteSpec) {
    this.entries.push({ method, path, tree });
    const streamed = spec.streamBody ? { streamBody: true, admit: (req: HttpRequest) => this.gate(req, tree).refused } : {};
    // open routes, but the router's whole 16 MiB: the supervisor's middleware admits the caller
    this.router.add(method, path, { access: 'none', maxBody: spec.maxBody ?? MAX_BODY, ...streamed }, (req) => this.handle(req, tree, handler));
  }

  /** The middleware in the original's order: exploit filter, system state, token and role. */
  private gate(req: HttpRequest, tree: Tree): { refused?: HttpReply; caller?: Caller } {
    return middleware(this.options, { path: req.path, query: req.query.toString(), headers: req.headers }, tree);
  }

  private async handle(req: HttpRequest, tree: Tree, handler: SupervisorHandler): Promise<HttpAnswer> {
    const gate = this.gate(req, tree);
    if (gate.refused) return gate.refused;
    const call: SupervisorCall = {
      req,
      caller: gate.caller,
      tree,
      params: req.params,
      query: req.query,
      body: () => bodyOf(req),
    };
    try {
      const data = await handler(call);
      if (data instanceof Raw) return data.reply;
      return ok(data);
    } catch (err) {
      if (err instanceof SupervisorError) return err.plain ? text(err.status, err.message) : envelopeError(err, tree);
      const unreachable = engineUnreachable(err);
      if (unreachable) {
        (this.options.warn ?? this.options.error)(`${req.method} ${req.path}: the container engine does not answer (${unreachable})`);
        // the original answers a stats call whose engine failed with its unknown error
        return envelopeError(req.path.endsWith('/stats') ? supervisorUnknownError() : new SupervisorError(`The container engine does not answer (${unreachable})`), tree);
      }
      this.options.error(`error answering ${req.method} ${req.path}: ${(err as Error)?.stack ?? err}`);
      return envelopeError(new SupervisorError((err as Error)?.message || UNKNOWN_ERROR), tree);
    }
  }
}

/**
 * The middleware in the original's order: exploit filter, system state, token and role; also
 * the gate of the routes served outside the router (the core's API proxy).
 */
export function middleware(
  supervisor: { state(): string; lookup(token: string): Caller | undefined },
  req: { path: string; query: string; headers: Record<string, string> },
  tree: Tree,
): { refused?: HttpReply; caller?: Caller } {
  if (looksLikeExploit(req.query ? `${req.path}?${req.query}` : req.path)) return { refused: plainError(400) };
  const state = supervisor.state();
  if (!SERVING.has(state)) return { refused: envelopeError(new SupervisorError(`System is not ready with state: ${state}`), tree) };
  const decision = decide(req.path, tokenOf(req.headers), supervisor.lookup);
  if (!decision.allow) return { refused: plainError(decision.status) };
  return { caller: decision.caller };
}

/** The original's require_home_assistant: a handler for the core alone; anyone else gets the text 401. */
export function requireCore(call: SupervisorCall): void {
  if (call.caller?.kind !== 'core') throw new SupervisorError('401: Unauthorized', { status: 401, plain: true });
}

/** The success envelope; nothing, `true` or an empty answer is `{}` as in the original. */
export function ok(data: unknown): HttpReply {
  const empty = data === undefined || data === null || data === true || (Array.isArray(data) && data.length === 0);
  return json(200, { result: 'ok', data: empty ? {} : data });
}

/** The error envelope of a failure. */
export function envelopeError(err: SupervisorError, tree: Tree): HttpReply {
  const body: Record<string, unknown> = { result: 'error', message: err.message || UNKNOWN_ERROR };
  if (err.errorKey) body.error_key = tree === 'v1' ? (V1_ERROR_KEYS[err.errorKey] ?? err.errorKey) : err.errorKey;
  if (err.extraFields) body.extra_fields = err.extraFields;
  if (err.jobId) body.job_id = err.jobId;
  return json(err.status, body);
}

function bodyOf(req: HttpRequest): Record<string, unknown> {
  if (req.body.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(req.body.toString('utf8'));
  } catch {
    throw new SupervisorError('Invalid json');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new SupervisorError(`expected a dictionary. Got ${JSON.stringify(value)}`);
  return value as Record<string, unknown>;
}
