import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler, type TypeCheck } from '@sinclair/typebox/compiler';
import { schemaErrorText } from '../../actors/services/validate.ts';
import { json, message, type HttpReply } from '../replies.ts';
import { parseFormBody } from '../multipart.ts';
import { parseJson } from '../body.ts';
import type { HttpRequest } from '../request.ts';
import type { Router } from '../router.ts';
import type { GrantOutcome } from '../../actors/auth/types.ts';
import type { FlowReply, LoginService } from '../../actors/auth/login-service.ts';
import type { TokenGrants } from '../../actors/auth/token-service.ts';
import type { OnboardingService } from '../../actors/auth/onboarding-service.ts';
import { isLocalAddress } from '../../actors/auth/client-id.ts';
import type { LoginAttempts } from '../../actors/auth/ip-bans.ts';
import type { LoginThrottle } from '../../actors/auth/login-throttle.ts';

/** What the auth routes need. */
export interface AuthRouteDeps {
  /** logins and the token endpoint; GET /auth/providers asks whether onboarding made the owner yet */
  auth: LoginService & TokenGrants & Pick<OnboardingService, 'onboardingStatus'>;
  /** failed logins counted towards an IP ban (actors/auth/ip-bans.ts) */
  bans?: LoginAttempts;
  /** failed logins that make an address wait before it may try again (actors/auth/login-throttle.ts) */
  throttle?: LoginThrottle;
}

/**
 * The original's login-flow and token views (@log_invalid_auth): an answer of 400 or more is a
 * failed login, and so is a form answered with the `invalid_auth` or `invalid_code` error
 * (answered 200); a finished flow resets the address's count. A body the request validator
 * refuses never reaches the view and does not count.
 */
function noteLogin({ bans, throttle }: AuthRouteDeps, req: HttpRequest, reply: HttpReply, flow?: FlowReply): HttpReply {
  // only login-flow answers move the throttle: a password is guessed there, not at the token endpoint
  if (reply.status >= 400 || (flow?.kind === 'step' && flow.failedLogin)) {
    bans?.failed(req);
    if (flow) throttle?.failed(req.remoteIp);
  } else if (flow?.kind === 'step' && flow.body.type === 'create_entry') {
    bans?.succeeded(req);
    throttle?.succeeded(req.remoteIp);
  }
  return reply;
}

/**
 * 429 with Retry-After while the address must wait after too many failed logins. It counts
 * toward a ban; the wait itself does not grow with it (the throttle only counts real tries).
 */
function throttled(deps: AuthRouteDeps, req: HttpRequest): HttpReply | undefined {
  const waitMs = deps.throttle?.waitMs(req.remoteIp) ?? 0;
  if (waitMs <= 0) return undefined;
  const seconds = Math.ceil(waitMs / 1000);
  const reply = json(429, { message: `Too many failed login attempts; try again in ${seconds} s` }, { 'Retry-After': String(seconds) });
  deps.bans?.failed(req);
  return reply;
}

/** A request body validated against a compiled schema, or the original's 400 answer. */
export type BodyResult<T> = { ok: true; value: T } | { ok: false; reply: HttpReply };

/**
 * Reads a JSON body the way the original's request validator does: 400 `Invalid JSON.` when it
 * does not parse, 400 `Message format incorrect: <reason>` when the schema refuses it.
 */
export function readJsonBody<T extends TSchema>(req: HttpRequest, check: TypeCheck<T>): BodyResult<Static<T>> {
  const read = parseJson(req);
  if (!read.ok) return { ok: false, reply: message(400, read.problem === 'depth' ? `Invalid JSON: ${read.message}.` : 'Invalid JSON.') };
  const value = read.value;
  if (value === undefined) return { ok: false, reply: message(400, 'Invalid JSON.') };
  if (check.Check(value)) return { ok: true, value };
  const first = check.Errors(value).First();
  return { ok: false, reply: message(400, `Message format incorrect: ${schemaErrorText(first)}`) };
}

// GET /auth/providers ------------------------------------------------------------------------

function getProviders({ auth }: AuthRouteDeps) {
  return (req: HttpRequest): HttpReply => {
    if (!auth.onboardingStatus().find((s) => s.step === 'user')?.done) {
      return message(400, 'Onboarding not finished', { code: 'onboarding_required' });
    }
    return json(200, { providers: auth.providers(req.remoteIp), preselect_remember_me: isLocalAddress(req.remoteIp) });
  };
}

// POST /auth/login_flow ----------------------------------------------------------------------

const LoginFlowStart = Type.Object(
  {
    client_id: Type.String(),
    handler: Type.Tuple([Type.String(), Type.Union([Type.String(), Type.Null()])]),
    redirect_uri: Type.Optional(Type.String()),
    // the seed spells the field this way; the original and its clients send redirect_uri
    redirect_url: Type.Optional(Type.String()),
    type: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);
const checkLoginFlowStart = TypeCompiler.Compile(LoginFlowStart);

function flowReply(reply: FlowReply): HttpReply {
  switch (reply.kind) {
    case 'step':
      return json(200, reply.body);
    case 'invalid_client':
      return message(400, 'Invalid client id');
    case 'unknown_handler':
      return message(404, 'Invalid handler specified');
    case 'unknown_flow':
      return message(404, 'Invalid flow specified');
    case 'ip_changed':
      return message(400, 'IP address changed');
    case 'malformed':
      return message(400, 'User input malformed');
    case 'invalid_redirect':
      return message(403, 'Invalid redirect URI');
    case 'blocked':
      return message(403, `Login blocked: ${reply.reason}`);
  }
}

function postLoginFlow(deps: AuthRouteDeps) {
  const { auth } = deps;
  return async (req: HttpRequest): Promise<HttpReply> => {
    const wait = throttled(deps, req);
    if (wait) return wait;
    const body = readJsonBody(req, checkLoginFlowStart);
    if (!body.ok) return body.reply;
    const { client_id, handler, type = 'authorize' } = body.value;
    const redirectUri = body.value.redirect_uri ?? body.value.redirect_url;
    if (redirectUri === undefined) return message(400, "Message format incorrect: required key not provided @ data['redirect_uri']");
    const flow = await auth.startLoginFlow({ handler, clientId: client_id, redirectUri, ip: req.remoteIp, type });
    return noteLogin(deps, req, flowReply(flow), flow);
  };
}

// POST /auth/login_flow/:flow_id -------------------------------------------------------------

const LoginFlowStep = Type.Object({ client_id: Type.String() }, { additionalProperties: true });
const checkLoginFlowStep = TypeCompiler.Compile(LoginFlowStep);

function postLoginFlowStep(deps: AuthRouteDeps) {
  const { auth } = deps;
  return async (req: HttpRequest): Promise<HttpReply> => {
    const wait = throttled(deps, req);
    if (wait) return wait;
    const body = readJsonBody(req, checkLoginFlowStep);
    if (!body.ok) return body.reply;
    const { client_id, ...input } = body.value as Record<string, unknown> & { client_id: string };
    const flow = await auth.continueLoginFlow(req.params.flow_id, client_id, input, req.remoteIp);
    return noteLogin(deps, req, flowReply(flow), flow);
  };
}

// GET and DELETE /auth/login_flow/:flow_id ---------------------------------------------------

const getLoginFlowStep = (): HttpReply => message(404, 'Invalid flow specified');

function deleteLoginFlow({ auth }: AuthRouteDeps) {
  return async (req: HttpRequest): Promise<HttpReply> =>
    (await auth.abortLoginFlow(req.params.flow_id)) ? message(200, 'Flow aborted') : message(404, 'Invalid flow specified');
}

// POST /auth/token ---------------------------------------------------------------------------

/** Token answers must not be cached by anything between client and server (RFC 6749 §5.1). */
const NO_STORE = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };

const tokenError = (status: number, error: string, description?: string) =>
  json(status, description === undefined ? { error } : { error, error_description: description }, NO_STORE);

function grantReply(outcome: GrantOutcome): HttpReply {
  if (!outcome.ok) return tokenError(outcome.error === 'access_denied' ? 403 : 400, outcome.error, outcome.description);
  const body: Record<string, unknown> = { access_token: outcome.accessToken, token_type: 'Bearer' };
  if (outcome.refreshToken !== undefined) body.refresh_token = outcome.refreshToken;
  body.expires_in = outcome.expiresIn;
  if (outcome.providerType !== undefined) body.core_auth_provider = outcome.providerType;
  return json(200, body, NO_STORE);
}

function postToken(deps: AuthRouteDeps) {
  const answer = tokenAnswer(deps);
  return async (req: HttpRequest): Promise<HttpReply> => noteLogin(deps, req, await answer(req));
}

function tokenAnswer({ auth }: AuthRouteDeps) {
  return async (req: HttpRequest): Promise<HttpReply> => {
    // only form bodies count; a JSON body reads as no fields at all (→ unsupported_grant_type)
    const form = await parseFormBody(req);
    const field = (name: string) => form.get(name) ?? undefined;
    if (field('action') === 'revoke') return revoke(auth, field('token'));
    switch (field('grant_type')) {
      case 'authorization_code':
        return grantReply(await auth.exchangeCode(field('client_id'), field('code'), req.remoteIp));
      case 'refresh_token':
        return grantReply(await auth.refreshAccessToken(field('client_id'), field('refresh_token'), req.remoteIp));
      default:
        return tokenError(400, 'unsupported_grant_type');
    }
  };
}

// POST /auth/revoke --------------------------------------------------------------------------

/** RFC 7009 §2.2: 200 whether or not the token existed. */
async function revoke(auth: TokenGrants, token: string | undefined): Promise<HttpReply> {
  if (token !== undefined) await auth.revokeBySecret(token);
  return { status: 200 };
}

function postRevoke({ auth }: AuthRouteDeps) {
  return async (req: HttpRequest) => revoke(auth, (await parseFormBody(req)).get('token') ?? undefined);
}

// POST /auth/link_user ----------------------------------------------------------------------

const LinkUser = Type.Object({ code: Type.String(), client_id: Type.String() });
const checkLinkUser = TypeCompiler.Compile(LinkUser);

function postLinkUser({ auth }: AuthRouteDeps) {
  return async (req: HttpRequest): Promise<HttpReply> => {
    const body = readJsonBody(req, checkLinkUser);
    if (!body.ok) return body.reply;
    const linked = await auth.linkUser(req.principal!.userId, body.value.client_id, body.value.code);
    if (linked.ok) return message(200, 'User linked');
    return message(400, linked.reason === 'already_linked' ? 'Credential already linked' : 'Invalid code');
  };
}

/** Registers /auth/providers, /auth/login_flow[/:flow_id], /auth/token and /auth/revoke. */
export function registerAuthRoutes(root: Router, deps: AuthRouteDeps): void {
  const router = root.of('auth');
  router.get('/auth/providers', { access: 'none' }, getProviders(deps));
  router.post('/auth/login_flow', { access: 'none' }, postLoginFlow(deps));
  router.get('/auth/login_flow/:flow_id', { access: 'none' }, getLoginFlowStep);
  router.post('/auth/login_flow/:flow_id', { access: 'none' }, postLoginFlowStep(deps));
  router.delete('/auth/login_flow/:flow_id', { access: 'none' }, deleteLoginFlow(deps));
  router.post('/auth/token', { access: 'none', corsAnyOrigin: true }, postToken(deps));
  router.post('/auth/revoke', { access: 'none', corsAnyOrigin: true }, postRevoke(deps));
  router.post('/auth/link_user', { access: 'user' }, postLinkUser(deps));
}
