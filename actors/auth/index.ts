import type { EventLog, EventRecord, NewEvent } from '../../store/types.ts';
import type { Area } from '../area.ts';
import type { Clock, Ids } from '../clock.ts';
import { CORE_VERSION } from '../version.ts';
import { isoformat as isoTime } from '../../machines/python/isoformat.ts';
import { REFRESH_TOKEN_EXPIRATION_MS, type RefreshTokenType } from '../../machines/refresh-token.machine.ts';
import type { CredentialCheck, VerifiedCredential } from '../../machines/login-flow.machine.ts';
import type { AuthService, CurrentUser, Principal } from './types.ts';
import { createPasswordHasher, type ScryptParams } from './passwords.ts';
import { AccessTokens } from './jwt.ts';
import { SignedPaths, MAX_EXPIRES_SECONDS, type SignedRequest } from './signed-paths.ts';
import { fetchPage, isLocalAddress, verifyClientId, verifyRedirectUri, type FetchPage } from './client-id.ts';
import { CORE_PROVIDER, GROUP_ADMIN, Users, coreCredentialData, newUserData, normalizeUsername, userStream, type Credential, type CredentialAdded, type UserView, type UsersSnapshot } from './users.ts';
import { RefreshTokens, refreshTokenStream, type RefreshTokenCreatedRecord, type RefreshTokenView, type TokensSnapshot } from './tokens.ts';
import { LoginFlows, type FlowInfo, type FlowProvider, type ProviderKey, type StepOutcome } from './login-flows.ts';
import { createProviders, groupOf, type LoginProvider, type ProviderConfig, type UserMeta } from './providers.ts';
import { AuthCodes } from './codes.ts';
import { createUserAdmin, type UserAdmin } from './admin.ts';
import { MfaSetupFlows, mfaModulesOf, verifyLoginCode, type MfaModuleConfig } from './mfa.ts';
import { ONBOARDING_STEPS, ONBOARDING_STREAM, Onboarding, type OnboardingStep } from './onboarding.ts';
import { Groups, type Group } from './groups.ts';
import { AuthPublisher } from './publish.ts';
import { tokenKeyPair } from './token-keys.ts';
import type { EntityPlacement } from './permissions.ts';
import type { EntityPermissions } from './permissions.ts';

/** Options of the auth system (the `auth_providers:` part of the configuration, and tuning). */
export interface AuthConfig {
  /** title of the `core` provider (the original: "Home Assistant Local") */
  providerName?: string;
  /** scrypt cost of new password hashes */
  scrypt?: ScryptParams;
  /** how a client page is fetched for its `<link rel="redirect_uri">` tags */
  fetchPage?: FetchPage;
  /** access-token lifetime of normal refresh tokens, in seconds */
  accessTokenLifetime?: number;
  /** how many verified access tokens are remembered */
  accessTokenCacheSize?: number;
  /** open login flows kept at most */
  maxOpenLoginFlows?: number;
  /** where entities sit (the registries): policies by device_ids and area_ids ask it */
  placement?: EntityPlacement;
  /** the `auth_providers:` of the core section (default: the `core` provider alone) */
  providers?: ProviderConfig[];
  /** `http: trusted_proxies`: trusted_networks refuses logins that come through them */
  trustedProxies?: readonly string[];
  /** the `auth_mfa_modules:` of the core section (default: the original's one totp module, "Authenticator app") */
  mfaModules?: MfaModuleConfig[];
  /** the `auth_groups:` of the core section (checked): groups beside the system ones */
  groups?: Group[];
  /** where the auth system reports what an operator should know (default: stdout) */
  say?: (line: string) => void;
}

/** Dependencies of the auth system. */
export interface AuthDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  config?: AuthConfig;
}

/** One entry of GET /auth/providers. */
export interface AuthProviderInfo {
  name: string;
  id: string | null;
  type: string;
}

/** The answer of the token endpoint, in OAuth terms. */
export type GrantOutcome =
  | { ok: true; accessToken: string; expiresIn: number; refreshToken?: string; providerType?: string | null }
  | { ok: false; error: 'invalid_request' | 'invalid_grant' | 'access_denied'; description?: string };

/** What a login-flow request led to; `step` bodies are answered with 200. */
export type FlowReply =
  | { kind: 'step'; body: Record<string, unknown>; failedLogin: boolean }
  | { kind: 'invalid_client' | 'unknown_handler' | 'unknown_flow' | 'ip_changed' | 'malformed' | 'invalid_redirect' }
  | { kind: 'blocked'; reason: string };

/** What the onboarding integration step led to. */
export type IntegrationStepOutcome = { ok: true; code: string } | { ok: false; reason: 'already_done' | 'invalid_redirect' | 'no_credential' };

/** One entry of the WebSocket command auth/refresh_tokens (the original's fields, in its order). */
export interface RefreshTokenInfo {
  id: string;
  client_id: string | null;
  client_name: string | null;
  client_icon: string | null;
  type: RefreshTokenType;
  created_at: string;
  is_current: boolean;
  last_used_at: string | null;
  last_used_ip: string | null;
  auth_provider_type: string | null;
  expire_at: string | null;
}

/** What auth/long_lived_access_token led to. */
export type LongLivedOutcome = { ok: true; accessToken: string } | { ok: false; reason: 'duplicate_name' | 'invalid_lifespan' | 'not_allowed' };

/** What POST /auth/link_user led to. */
export type LinkOutcome = { ok: true } | { ok: false; reason: 'invalid_code' | 'already_linked' };

/** What auth/setup_mfa and auth/depose_mfa led to: a result, or a WebSocket error code and message. */
export type MfaOutcome = { ok: true; result: unknown } | { ok: false; code: string; message: string };

/** The auth system as the gateway routes use it. */
export interface CoreAuthService extends AuthService, UserAdmin {
  /** the configured providers a client at `ip` may use, in configuration order (GET /auth/providers) */
  providers(ip: string): AuthProviderInfo[];
  user(userId: string): UserView | undefined;
  /**
   * Who a service call's context names, as the service registry checks it: whether the user is
   * an admin now, and its permissions; undefined for a user that does not exist.
   */
  caller(userId: string): { isAdmin: boolean; permissions: EntityPermissions } | undefined;
  refreshToken(id: string): RefreshTokenView | undefined;

  /** POST /auth/login_flow: validates the client id and the handler, starts the flow. */
  startLoginFlow(request: { handler: ProviderKey; clientId: string; redirectUri: string; ip: string; type: string }): Promise<FlowReply>;
  /** POST /auth/login_flow/:flow_id with the step fields (client_id already removed). */
  continueLoginFlow(flowId: string, clientId: string, input: Record<string, unknown>, ip: string): Promise<FlowReply>;
  /** DELETE /auth/login_flow/:flow_id; false when no such flow. */
  abortLoginFlow(flowId: string): Promise<boolean>;

  /** grant_type=authorization_code */
  exchangeCode(clientId: string | undefined, code: string | undefined, ip: string): Promise<GrantOutcome>;
  /** grant_type=refresh_token */
  refreshAccessToken(clientId: string | undefined, token: string | undefined, ip: string): Promise<GrantOutcome>;
  /** Revokes the refresh token whose secret is `token`; unknown tokens are ignored. */
  revokeBySecret(token: string): Promise<void>;
  /** Revokes a refresh token by id; false when there is none. */
  revokeRefreshToken(id: string, reason?: string): Promise<boolean>;
  /**
   * A `long_lived_access_token` refresh token of the user named `clientName` (one per name and
   * user), whose access tokens live `lifespanDays`; its first access token, which is all the
   * caller ever gets of it.
   */
  createLongLivedToken(userId: string, request: { clientName: string; clientIcon: string | null; lifespanDays: number }): Promise<LongLivedOutcome>;
  /** The user's live refresh tokens in creation order; `currentId` is the asking connection's. */
  refreshTokensOf(userId: string, currentId: string): RefreshTokenInfo[];
  /** The user's refresh token `id`, or undefined when the user has none by that id. */
  userRefreshToken(userId: string, id: string): RefreshTokenView | undefined;
  /** Revokes these refresh tokens with one append; their access tokens fail from then on. */
  revokeRefreshTokens(ids: string[], reason?: string): Promise<void>;
  /** Turns expiry of the user's refresh token on or off; false when the user has no such token. */
  setRefreshTokenExpiry(userId: string, id: string, enable: boolean): Promise<boolean>;
  /**
   * `path` signed by the refresh token `refreshTokenId` for `expiresSeconds` (the WebSocket
   * command auth/sign_path): `<path>?authSig=<jwt>`; undefined when `expiresSeconds` is out of
   * range (the original's timedelta overflows).
   */
  signPath(refreshTokenId: string, path: string, expiresSeconds: number): string | undefined;
  /** POST /auth/link_user: attaches the credential of a `link_user` flow's code to the user. */
  linkUser(userId: string, clientId: string, code: string): Promise<LinkOutcome>;
  /** Whether codes for `clientId` may be sent to `redirectUri`. */
  verifyRedirectUri(clientId: string, redirectUri: string): Promise<boolean>;
  /** A fresh authorization code for the credential of a refresh token (undefined without one). */
  createAuthCodeFor(refreshTokenId: string, clientId: string): string | undefined;

  /**
   * auth/setup_mfa: starts the setup flow of `moduleId`, or feeds `input` to the flow `flowId`;
   * the answer is the flow's result dict. A finished flow enables the module (an `mfa_enabled` record).
   */
  setupMfa(userId: string, request: { moduleId: string } | { flowId: string; input: unknown }): Promise<MfaOutcome>;
  /** auth/depose_mfa: disables the module for the user (an `mfa_disabled` record when it was enabled). */
  deposeMfa(userId: string, moduleId: string): Promise<MfaOutcome>;

  /** The onboarding steps in order with their state. */
  onboardingStatus(): Array<{ step: OnboardingStep; done: boolean }>;
  /** The onboarding user step: creates the owner (admin) with a `core` credential; an auth code for it. */
  createOwner(input: { name: string; username: string; password: string; clientId: string }): Promise<{ ok: true; code: string } | { ok: false }>;
  /** Marks a step without side effects done (core_config, analytics); false when it already was. */
  completeOnboardingStep(step: 'core_config' | 'analytics', userId: string): Promise<boolean>;
  /** The onboarding integration step: an auth code for the caller's credential. */
  completeIntegrationStep(principal: Principal, clientId: string, redirectUri: string): Promise<IntegrationStepOutcome>;

  /**
   * The system-generated user `name` (made with `groupIds` when there is none) and a live
   * `system` refresh token of it (made when it has none): how the core hands a supervisor API
   * access. The same user and token on every later call.
   */
  ensureSystemUser(name: string, groupIds: string[]): Promise<{ userId: string; refreshToken: string }>;
  /** Whether `username` and `password` are a `core` credential's (the provider's check, as a login form makes it). */
  checkCoreLogin(username: string, password: string): Promise<boolean>;
  /** Sets the password of the `core` credential `username`; false when there is none. */
  resetCorePassword(actorId: string, username: string, password: string): Promise<boolean>;

  /**
   * Appends the authpub/ records the log lacks for the users and tokens as they are (an instance
   * upgraded in place, users added by `hearth auth add`, a changed group policy); run once after
   * the restore. Resolves to the count of records appended (0 when all were there).
   */
  publishCatchUp(): Promise<number>;
}

const PROVIDER_TYPE = CORE_PROVIDER;
// a fresh credential lives as long as the code that carries it may (codes.ts), and a little more
const FRESH_CREDENTIAL_TTL_MS = 20 * 60 * 1000;
// Strings a client chose are clipped in flow records: a failed login must not write megabytes.
const RECORDED_TEXT_MAX = 256;
const DEFAULT_ACCESS_TOKEN_LIFETIME = 1800;
// 2: refresh tokens carry their Ed25519 key pair
const SNAPSHOT_VERSION = 2;
const MAX_LIFESPAN_DAYS = 999_999_999;

interface AuthSnapshot extends UsersSnapshot, TokensSnapshot {
  seq: number;
  onboarding: string[];
}

/**
 * Builds the auth system: users, credentials and refresh tokens as actors whose transitions are
 * appended to the log (`auth/...` streams, records without origin), login flows and
 * authorization codes in memory. Committed records are applied through the log's onCommit, the
 * same `evolve` a restart replays.
 */
export function createAuth({ log, clock, ids, config = {} }: AuthDeps): CoreAuthService {
  const providerName = config.providerName ?? 'Hearth Local';
  const accessTokenLifetime = config.accessTokenLifetime ?? DEFAULT_ACCESS_TOKEN_LIFETIME;
  const fetchClientPage = config.fetchPage ?? fetchPage;
  const hasher = createPasswordHasher(config.scrypt);
  const accessTokens = new AccessTokens(config.accessTokenCacheSize);
  const signedPaths = new SignedPaths();
  const users = new Users(new Groups(config.groups), config.placement);
  const tokens = new RefreshTokens((id) => accessTokens.forget(id));
  const onboarding = new Onboarding();
  const codes = new AuthCodes(clock, ids);
  const revokedListeners = new Set<(id: string) => void>();
  const stepsInProgress = new Set<OnboardingStep>();
  /** `userId\nclient_name` of long-lived tokens being created (the name check and the append are apart) */
  const longLivedInProgress = new Set<string>();
  let lastSeq = 0;
  const mfaModules = mfaModulesOf(config.mfaModules);
  const mfaModule = (id: string) => mfaModules.find((m) => m.id === id);
  const setupFlows = new MfaSetupFlows({ clock, ids });
  /** the configured modules the user has enabled, in configuration order */
  const enabledMfa = (userId: string) => {
    const enabled = users.mfaOf(userId);
    return mfaModules.filter((m) => Object.hasOwn(enabled, m.id)).map((m) => m.id);
  };

  const providers = createProviders(config.providers, {
    users,
    hasher,
    trustedProxies: config.trustedProxies ?? [],
    say: config.say ?? ((line) => console.log(line)),
    coreTitle: providerName,
  });
  const providerKey = (type: string, id: string | null) => `${type}\n${id ?? ''}`;
  const providerByKey = new Map(providers.map((p) => [providerKey(p.type, p.id), p]));
  const providerOf = (c: { auth_provider_type: string; auth_provider_id: string | null }) => providerByKey.get(providerKey(c.auth_provider_type, c.auth_provider_id));
  /**
   * Credentials a flow found that no user owns yet (a first login with command_line or
   * insecure_example), by the id their code carries; they become a user's at the code exchange
   * or at POST /auth/link_user, and are forgotten with the code.
   */
  const fresh = new Map<string, { credential: Credential; meta: UserMeta; createdAt: number }>();
  const forgetStaleFresh = (now: number) => {
    for (const [id, entry] of fresh) {
      if (now - entry.createdAt < FRESH_CREDENTIAL_TTL_MS) break; // insertion order is creation order
      fresh.delete(id);
    }
  };

  /** A provider as a login flow sees it: its check's findings become credentials the flow can finish with. */
  const flowProviders = new Map<LoginProvider, FlowProvider>(
    providers.map((p) => [
      p,
      {
        name: p.name,
        open: (ip) => p.open(ip),
        async check(fields, ip): Promise<CredentialCheck> {
          const found = await p.check(fields, ip);
          switch (found.kind) {
            case 'invalid':
              return null;
            case 'abort':
              return { abortReason: found.reason };
            case 'existing': {
              const { id, user_id } = found.credential;
              // the machine skips MFA for a link_user flow, as the original does
              return { credentialId: id, userId: user_id, mfaModules: p.supportsMfa ? enabledMfa(user_id) : [] };
            }
            case 'link': {
              // the original links a trusted_networks credential as the flow finishes
              const added: CredentialAdded = { id: ids.uuidHex(), user_id: found.userId, auth_provider_type: p.type, auth_provider_id: p.id, data: found.data };
              await append(record(userStream(found.userId), 'credential_added', added, found.userId));
              return { credentialId: added.id, userId: found.userId, mfaModules: [] };
            }
            case 'fresh': {
              const now = clock.now();
              forgetStaleFresh(now);
              const credential: Credential = { id: ids.uuidHex(), user_id: '', auth_provider_type: p.type, auth_provider_id: p.id, data: found.data };
              fresh.set(credential.id, { credential, meta: found.meta, createdAt: now });
              return { credentialId: credential.id, userId: null, mfaModules: [] };
            }
          }
        },
      },
    ]),
  );

  const flows = new LoginFlows({
    clock,
    ids,
    async verifyMfaCode(userId, module, code) {
      const enabled = userId === null ? {} : users.mfaOf(userId);
      const secret = Object.hasOwn(enabled, module) ? enabled[module] : undefined;
      return verifyLoginCode(secret, code, clock.now());
    },
    mfaModuleName: (id) => mfaModule(id)?.name ?? id,
    log: config.say,
    maxOpenFlows: config.maxOpenLoginFlows,
  });

  const owns = (record: EventRecord) => record.stream.startsWith('auth/');

  function evolve(record: EventRecord): void {
    if (record.seq <= lastSeq) return; // a record can arrive both by onCommit and by a replay
    lastSeq = record.seq;
    const { stream } = record;
    if (stream.startsWith('auth/user/')) users.evolve(record);
    else if (stream.startsWith('auth/refresh_token/')) tokens.evolve(record);
    else if (stream === ONBOARDING_STREAM) onboarding.evolve(record);
    // login flows live in memory; their records are an audit trail of outcomes only
  }

  log.onCommit((records) => {
    for (const record of records) if (owns(record)) evolve(record);
    const corrections = publisher.observe(records);
    // appended after this commit, never inside it; one that fails (a full disk) is found again
    // by the next commit that touches the same user or token
    if (corrections.length > 0) queueMicrotask(() => void log.append(corrections).catch(() => {}));
  });

  const record = (stream: string, type: string, data: unknown, userId: string | null = null, time = clock.now()): NewEvent => ({
    time,
    stream,
    type,
    data,
    context: { id: ids.ulid(time), parent_id: null, user_id: userId },
  });

  const publisher = new AuthPublisher(users, tokens, record);
  // what read replicas need of a change is appended with it, never after it
  const append = async (...events: NewEvent[]) => {
    const published = publisher.derive(events);
    await log.append(published.length === 0 ? events : [...events, ...published]);
  };

  const area: Area = {
    name: 'auth',
    snapshotVersion: SNAPSHOT_VERSION,
    streamPrefix: 'auth/',
    latestSuffices: false,
    owns,
    evolve,
    snapshot(): AuthSnapshot {
      return { seq: lastSeq, ...users.snapshot(), ...tokens.snapshot(), onboarding: onboarding.snapshot() };
    },
    restore(data: unknown) {
      const snapshot = data as AuthSnapshot;
      users.restore(snapshot);
      tokens.restore(snapshot);
      onboarding.restore(snapshot.onboarding);
      lastSeq = snapshot.seq;
    },
  };

  function validateAccessToken(token: string): Principal | undefined {
    const now = clock.now();
    const claims = accessTokens.verify(token, now, (id) => tokens.liveKey(id, now));
    if (!claims) return undefined;
    const key = tokens.liveKey(claims.iss, now);
    const user = key && users.get(key.userId);
    if (!user || !user.isActive) return undefined;
    return { userId: user.id, isAdmin: user.isAdmin, isOwner: user.isOwner, refreshTokenId: claims.iss, permissions: users.permissions(user.id) };
  }

  /**
   * The user of the refresh token that signed this request (its path and query exactly the signed
   * ones, unexpired, GET only), while that refresh token lives. As in the original, the user is
   * not checked for being active here.
   */
  function signedRequestPrincipal(request: SignedRequest): Principal | undefined {
    if (request.method !== 'GET') return undefined; // before the query is parsed
    const now = clock.now();
    const refreshTokenId = signedPaths.verify(request, now);
    const key = refreshTokenId === undefined ? undefined : tokens.liveKey(refreshTokenId, now);
    const user = key && users.get(key.userId);
    if (!key || !user) return undefined;
    return { userId: user.id, isAdmin: user.isAdmin, isOwner: user.isOwner, refreshTokenId: key.id, permissions: users.permissions(user.id) };
  }

  /** Why a user may not log in from `ip`, or undefined when it may. */
  function notAllowed(user: UserView, ip: string): string | undefined {
    if (!user.isActive) return 'User is not active';
    if (user.localOnly && !isLocalAddress(ip)) return 'User cannot authenticate remotely';
    return undefined;
  }

  /** Mints an access token, recording the use; undefined when the refresh token can no longer be used. */
  async function mintAccessToken(rt: RefreshTokenView, ip: string | null, extra: NewEvent[] = []): Promise<string | undefined> {
    const now = clock.now();
    const used = { last_used_at: now, last_used_ip: ip };
    await append(...extra, record(refreshTokenStream(rt.id), 'refresh_token_used', used, rt.userId, now));
    const live = tokens.get(rt.id);
    if (!live || live.lastUsedAt !== now) return undefined;
    const iat = Math.floor(now / 1000);
    return accessTokens.sign(live, iat, iat + live.accessTokenExpiration);
  }

  async function revoke(rt: RefreshTokenView, reason?: string): Promise<void> {
    await revokeAll([rt], reason);
  }

  /** Revokes tokens with one append (with `extra` records after them), then tells the listeners of each. */
  async function revokeAll(rts: RefreshTokenView[], reason?: string, extra: NewEvent[] = []): Promise<void> {
    if (rts.length === 0 && extra.length === 0) return;
    await append(...rts.map((rt) => record(refreshTokenStream(rt.id), 'refresh_token_revoked', reason ? { reason } : {}, rt.userId)), ...extra);
    for (const rt of rts) {
      for (const listener of revokedListeners) {
        try {
          listener(rt.id);
        } catch {
          // one failing listener must not keep the others from hearing of the revocation
        }
      }
    }
  }

  function newRefreshToken(
    user: UserView,
    options: {
      clientId: string | null;
      credentialId: string | null;
      tokenType?: RefreshTokenType;
      clientName?: string | null;
      clientIcon?: string | null;
      /** seconds */
      accessTokenExpiration?: number;
    },
  ): NewEvent {
    const now = clock.now();
    const tokenType = options.tokenType ?? 'normal';
    const data: RefreshTokenCreatedRecord = {
      id: ids.uuidHex(),
      user_id: user.id,
      client_id: options.clientId,
      client_name: options.clientName ?? null,
      client_icon: options.clientIcon ?? null,
      token_type: tokenType,
      created_at: now,
      access_token_expiration: options.accessTokenExpiration ?? accessTokenLifetime,
      expire_at: tokenType === 'normal' ? now + REFRESH_TOKEN_EXPIRATION_MS : null,
      credential_id: options.credentialId,
      version: CORE_VERSION,
      token: ids.tokenHex(64),
      jwt_key: ids.tokenHex(64),
      ...keyPairRecord(tokenKeyPair(ids.tokenHex(32))),
    };
    return record(refreshTokenStream(data.id), 'refresh_token_created', data, user.id, now);
  }

  // Only outcomes are logged (a login, a refusal, an abort, a failed password check), never the
  // opening of a flow, which costs a client nothing: abandoned flows leave no record.
  const flowRecord = (flow: FlowInfo, data: Record<string, unknown>, userId: string | null = null) =>
    record(
      `auth/login_flow/${flow.flowId}`,
      'login_flow_step',
      {
        flow_id: flow.flowId,
        ...data,
        handler: flow.handler,
        client_id: clip(flow.clientId),
        redirect_uri: clip(flow.redirectUri),
        flow_type: clip(flow.flowType),
        ip_address: flow.ip,
      },
      userId,
    );

  /** Logs a flow outcome and turns it into a reply; a finished flow gets its code here. */
  async function settle(outcome: StepOutcome, clientId: string): Promise<FlowReply> {
    switch (outcome.kind) {
      case 'malformed':
      case 'unknown_flow':
      case 'ip_changed':
        return { kind: outcome.kind };
      case 'form': {
        const errors = outcome.body.errors as Record<string, string>;
        const failedLogin = errors.base === 'invalid_auth' || errors.base === 'invalid_code';
        if (failedLogin) {
          const username = outcome.username === null ? null : clip(outcome.username);
          await append(flowRecord(outcome.flow, { type: 'form', step_id: outcome.stepId, errors, username }));
        }
        return { kind: 'step', body: outcome.body, failedLogin };
      }
      case 'abort':
        await append(flowRecord(outcome.flow, { type: 'abort', reason: outcome.reason }));
        return { kind: 'step', body: outcome.body, failedLogin: false };
      case 'finished':
        return finish(outcome.flow, outcome.credential, outcome.body, clientId);
    }
  }

  async function finish(flow: FlowInfo, credential: VerifiedCredential, body: Record<string, unknown>, clientId: string): Promise<FlowReply> {
    const user = credential.userId === null ? undefined : users.get(credential.userId);
    const entry = { type: 'create_entry', credential_id: credential.credentialId, user_id: credential.userId };
    if (!(await verifyRedirectUri(clientId, flow.redirectUri, fetchClientPage))) {
      await append(flowRecord(flow, { ...entry, refused: 'invalid_redirect_uri' }, credential.userId));
      return { kind: 'invalid_redirect' };
    }
    const blocked = user && !flow.credentialOnly ? notAllowed(user, flow.ip) : undefined;
    if (blocked) {
      await append(flowRecord(flow, { ...entry, refused: blocked }, credential.userId));
      return { kind: 'blocked', reason: blocked };
    }
    await append(flowRecord(flow, entry, credential.userId));
    return { kind: 'step', body: { ...body, result: codes.create(clientId, credential.credentialId) }, failedLogin: false };
  }

  async function markStep(step: OnboardingStep, userId: string | null, extra: NewEvent[] = []): Promise<boolean> {
    if (onboarding.isDone(step) || stepsInProgress.has(step)) return false;
    stepsInProgress.add(step);
    try {
      await append(...extra, record(ONBOARDING_STREAM, 'onboarding_step_done', { step }, userId));
      return true;
    } finally {
      stepsInProgress.delete(step);
    }
  }

  /** Why the credential's provider refuses a token now (trusted_networks checks the address), or undefined. */
  function providerRefusal(credential: Credential, ip: string | null): string | undefined {
    const provider = providerOf(credential);
    // onboarding and `hearth auth add` make core credentials whatever is configured; others need their provider
    if (!provider) return credential.auth_provider_type === PROVIDER_TYPE ? undefined : `Auth provider ${credential.auth_provider_type} is not configured`;
    return provider.refreshRefusal(ip);
  }

  /** An owned credential of the same provider and data as `credential` (a fresh one is made owned meanwhile). */
  function sameCredential(credential: Credential): Credential | undefined {
    const [field] = Object.keys(credential.data);
    return users.credentialOf({ type: credential.auth_provider_type, id: credential.auth_provider_id }, field, credential.data[field]);
  }

  /** command_line with `meta: true`: a login brings the user's name and local_only up to what the command said. */
  function metaUpdate(user: UserView, credential: Credential): NewEvent[] {
    const provider = providerOf(credential);
    const meta = provider?.refreshesMeta ? provider.metaOf?.(credential) : undefined;
    if (!meta) return [];
    const update: Record<string, unknown> = {};
    if (meta.name !== null && meta.name !== user.name) update.name = meta.name;
    if (meta.localOnly !== user.localOnly) update.local_only = meta.localOnly;
    return Object.keys(update).length === 0 ? [] : [record(userStream(user.id), 'user_updated', update, user.id)];
  }

  /** A refresh token for `user` from `credential` and its first access token, appended with `extra` records. */
  async function grantFor(user: UserView, credential: Credential, clientId: string, ip: string, extra: NewEvent[] = []): Promise<GrantOutcome> {
    const created = newRefreshToken(user, { clientId, credentialId: credential.id });
    const data = created.data as RefreshTokenCreatedRecord;
    const rt: RefreshTokenView = { ...tokenViewOf(data), token: data.token, jwtKey: data.jwt_key, privateKey: data.private_key, publicKey: data.public_key };
    const accessToken = await mintAccessToken(rt, ip, [...extra, created]);
    if (!accessToken) return { ok: false, error: 'invalid_grant' };
    return { ok: true, accessToken, expiresIn: data.access_token_expiration, refreshToken: data.token, providerType: credential.auth_provider_type };
  }

  /**
   * The first login of a credential nobody owns: the user is created as the provider describes
   * it (administrators unless it names a group; the first user is the owner), with the credential
   * and the refresh token, in one append.
   */
  async function firstLogin(entry: { credential: Credential; meta: UserMeta }, clientId: string, ip: string): Promise<GrantOutcome> {
    const taken = sameCredential(entry.credential);
    if (taken) {
      const user = users.get(taken.user_id);
      if (!user) return { ok: false, error: 'invalid_request', description: 'Invalid code' };
      const denied = notAllowed(user, ip) ?? providerRefusal(taken, ip);
      return denied ? { ok: false, error: 'access_denied', description: denied } : grantFor(user, taken, clientId, ip);
    }
    const group = groupOf(entry.meta);
    if (!users.groups.has(group)) return { ok: false, error: 'access_denied', description: `Invalid group specified ${group}` };
    if (entry.meta.localOnly && !isLocalAddress(ip)) return { ok: false, error: 'access_denied', description: 'User cannot authenticate remotely' };
    const denied = providerRefusal(entry.credential, ip);
    if (denied) return { ok: false, error: 'access_denied', description: denied };
    const now = clock.now();
    const created = newUserData(ids, now, { name: entry.meta.name, isOwner: !users.hasUsers(), groupIds: [group], localOnly: entry.meta.localOnly });
    const credential: Credential = { ...entry.credential, user_id: created.id };
    const view: UserView = {
      id: created.id,
      name: created.name,
      isOwner: created.is_owner,
      isActive: true,
      isAdmin: created.is_owner || group === GROUP_ADMIN,
      systemGenerated: false,
      localOnly: created.local_only,
      groupIds: created.group_ids,
      createdAt: now,
    };
    return grantFor(view, credential, clientId, ip, [
      record(userStream(created.id), 'user_created', created, null, now),
      record(userStream(created.id), 'credential_added', credential, created.id, now),
    ]);
  }

  const admin = createUserAdmin({
    users,
    clock,
    ids,
    hasher,
    providerType: PROVIDER_TYPE,
    record,
    append,
    tokensOf: (userId) => tokens.ofUser(userId),
    revokeWith: (rts, reason, extra) => revokeAll(rts, reason, extra),
  });

  return {
    ...admin,
    area,
    validateAccessToken,

    authenticate(authorization, request) {
      if (authorization !== undefined) {
        const space = authorization.indexOf(' ');
        // the scheme is compared exactly: `bearer x` and `BEARER x` are refused
        const principal = space < 0 || authorization.slice(0, space) !== 'Bearer' ? undefined : validateAccessToken(authorization.slice(space + 1));
        if (principal) return principal;
      }
      // as in the original, a request without a valid bearer token may still be a signed GET
      return request ? signedRequestPrincipal(request) : undefined;
    },

    currentUser(userId): CurrentUser | undefined {
      const user = users.get(userId);
      if (!user) return undefined;
      return {
        id: user.id,
        name: user.name,
        is_owner: user.isOwner,
        is_admin: user.isAdmin,
        credentials: users.credentialsOf(userId).map((c) => ({ auth_provider_type: c.auth_provider_type, auth_provider_id: c.auth_provider_id })),
        mfa_modules: mfaModules.map((m) => ({ id: m.id, name: m.name, enabled: Object.hasOwn(users.mfaOf(userId), m.id) })),
      };
    },

    onRefreshTokenRevoked(listener) {
      revokedListeners.add(listener);
      return () => revokedListeners.delete(listener);
    },

    hasUsers: () => users.hasUsers(),
    providers: (ip) => providers.filter((p) => p.listedFor(ip)).map((p) => ({ name: p.name, id: p.id, type: p.type })),
    user: (id) => users.get(id),
    caller(id) {
      const user = users.get(id);
      return user && { isAdmin: user.isAdmin, permissions: users.permissions(id) };
    },
    refreshToken: (id) => tokens.get(id),

    async startLoginFlow({ handler, clientId, redirectUri, ip, type }) {
      if (!verifyClientId(clientId)) return { kind: 'invalid_client' };
      const provider = providerByKey.get(providerKey(handler[0], handler[1]));
      if (!provider) return { kind: 'unknown_handler' };
      const outcome = await flows.start({ handler, clientId, redirectUri, ip, flowType: type, credentialOnly: type === 'link_user' }, flowProviders.get(provider)!);
      return settle(outcome, clientId);
    },

    async continueLoginFlow(flowId, clientId, input, ip) {
      if (!verifyClientId(clientId)) return { kind: 'invalid_client' };
      return settle(await flows.step(flowId, input, ip), clientId);
    },

    async abortLoginFlow(flowId) {
      // a client dropping its own flow is not an outcome worth a record
      return flows.abort(flowId);
    },

    async exchangeCode(clientId, code, ip) {
      if (!verifyClientId(clientId)) return { ok: false, error: 'invalid_request', description: 'Invalid client id' };
      if (code === undefined) return { ok: false, error: 'invalid_request', description: 'Invalid code' };
      const credentialId = codes.take(clientId, code);
      if (credentialId === undefined) return { ok: false, error: 'invalid_request', description: 'Invalid code' };
      const owned = users.credential(credentialId);
      if (!owned) {
        const entry = fresh.get(credentialId);
        fresh.delete(credentialId);
        return entry ? firstLogin(entry, clientId, ip) : { ok: false, error: 'invalid_request', description: 'Invalid code' };
      }
      const user = users.get(owned.user_id);
      if (!user) return { ok: false, error: 'invalid_request', description: 'Invalid code' };
      const denied = notAllowed(user, ip) ?? providerRefusal(owned, ip);
      if (denied) return { ok: false, error: 'access_denied', description: denied };
      return grantFor(user, owned, clientId, ip, metaUpdate(user, owned));
    },

    async refreshAccessToken(clientId, token, ip) {
      if (clientId !== undefined && !verifyClientId(clientId)) return { ok: false, error: 'invalid_request', description: 'Invalid client id' };
      if (token === undefined) return { ok: false, error: 'invalid_request' };
      const rt = tokens.bySecretToken(token);
      if (!rt) return { ok: false, error: 'invalid_grant' };
      if (rt.clientId !== (clientId ?? null)) return { ok: false, error: 'invalid_request' };
      const user = users.get(rt.userId);
      if (!user) return { ok: false, error: 'invalid_grant' };
      const credential = rt.credentialId === null ? undefined : users.credential(rt.credentialId);
      const denied = notAllowed(user, ip) ?? (credential && providerRefusal(credential, ip));
      if (denied) return { ok: false, error: 'access_denied', description: denied };
      if (!tokens.can(rt.id, { type: 'refresh_token_used', last_used_at: clock.now(), last_used_ip: ip })) {
        await revoke(rt, 'expired');
        return { ok: false, error: 'invalid_grant' };
      }
      const accessToken = await mintAccessToken(rt, ip);
      if (!accessToken) return { ok: false, error: 'invalid_grant' };
      return { ok: true, accessToken, expiresIn: rt.accessTokenExpiration };
    },

    async linkUser(userId, clientId, code) {
      const credentialId = codes.take(clientId, code);
      if (credentialId === undefined) return { ok: false, reason: 'invalid_code' };
      const owned = users.credential(credentialId);
      // linking a credential to the user that has it already changes nothing
      if (owned) return owned.user_id === userId ? { ok: true } : { ok: false, reason: 'already_linked' };
      const entry = fresh.get(credentialId);
      fresh.delete(credentialId);
      if (!entry || !users.get(userId)) return { ok: false, reason: 'invalid_code' };
      // another flow may have made the same login someone's meanwhile
      const taken = sameCredential(entry.credential);
      if (taken) return taken.user_id === userId ? { ok: true } : { ok: false, reason: 'already_linked' };
      await append(record(userStream(userId), 'credential_added', { ...entry.credential, user_id: userId }, userId));
      return { ok: true };
    },

    async revokeBySecret(token) {
      const rt = tokens.bySecretToken(token);
      if (rt) await revoke(rt);
    },

    async revokeRefreshToken(id, reason) {
      const rt = tokens.get(id);
      if (!rt) return false;
      await revoke(rt, reason);
      return true;
    },

    async createLongLivedToken(userId, { clientName, clientIcon, lifespanDays }) {
      const user = users.get(userId);
      if (!user || !user.isActive) return { ok: false, reason: 'not_allowed' };
      // the original's timedelta(days=...) refuses more than 999999999 days either way
      if (!Number.isSafeInteger(lifespanDays) || Math.abs(lifespanDays) > MAX_LIFESPAN_DAYS) return { ok: false, reason: 'invalid_lifespan' };
      const nameKey = `${userId}\n${clientName}`;
      const taken = () =>
        longLivedInProgress.has(nameKey) ||
        tokens.ofUser(userId).some((rt) => rt.tokenType === 'long_lived_access_token' && rt.clientName === clientName);
      if (taken()) return { ok: false, reason: 'duplicate_name' };
      longLivedInProgress.add(nameKey);
      try {
        const created = newRefreshToken(user, {
          clientId: null,
          credentialId: null,
          tokenType: 'long_lived_access_token',
          clientName,
          clientIcon,
          accessTokenExpiration: lifespanDays * 86_400,
        });
        const data = created.data as RefreshTokenCreatedRecord;
        const rt: RefreshTokenView = { ...tokenViewOf(data), token: data.token, jwtKey: data.jwt_key, privateKey: data.private_key, publicKey: data.public_key };
        const accessToken = await mintAccessToken(rt, null, [created]);
        return accessToken ? { ok: true, accessToken } : { ok: false, reason: 'not_allowed' };
      } finally {
        longLivedInProgress.delete(nameKey);
      }
    },

    refreshTokensOf(userId, currentId) {
      const now = clock.now();
      // an expired token is gone for the original (its expiry timer removes it)
      return tokens
        .ofUser(userId)
        .filter((rt) => rt.expireAt === null || now < rt.expireAt)
        .map((rt) => ({
          id: rt.id,
          client_id: rt.clientId,
          client_name: rt.clientName,
          client_icon: rt.clientIcon,
          type: rt.tokenType,
          created_at: isoTime(rt.createdAt),
          is_current: rt.id === currentId,
          last_used_at: rt.lastUsedAt === null ? null : isoTime(rt.lastUsedAt),
          last_used_ip: rt.lastUsedIp,
          auth_provider_type: (rt.credentialId && users.credential(rt.credentialId)?.auth_provider_type) || null,
          expire_at: rt.expireAt === null ? null : isoTime(rt.expireAt),
        }));
    },

    userRefreshToken(userId, id) {
      const rt = tokens.get(id);
      return rt && rt.userId === userId ? rt : undefined;
    },

    async revokeRefreshTokens(tokenIds, reason) {
      const rts = tokenIds.map((id) => tokens.get(id)).filter((rt): rt is RefreshTokenView => rt !== undefined);
      await revokeAll(rts, reason);
    },

    async setRefreshTokenExpiry(userId, id, enable) {
      const rt = tokens.get(id);
      if (!rt || rt.userId !== userId) return false;
      await append(record(refreshTokenStream(id), 'refresh_token_expiry_set', { enable_expiry: enable, at: clock.now() }, userId));
      return true;
    },

    signPath(refreshTokenId, path, expiresSeconds) {
      if (!Number.isSafeInteger(expiresSeconds) || Math.abs(expiresSeconds) > MAX_EXPIRES_SECONDS) return undefined;
      return signedPaths.sign(refreshTokenId, path, expiresSeconds, clock.now());
    },

    verifyRedirectUri: (clientId, redirectUri) => verifyRedirectUri(clientId, redirectUri, fetchClientPage),

    createAuthCodeFor(refreshTokenId, clientId) {
      const rt = tokens.get(refreshTokenId);
      const credential = rt?.credentialId ? users.credential(rt.credentialId) : undefined;
      return credential ? codes.create(clientId, credential.id) : undefined;
    },

    async setupMfa(userId, request) {
      const user = users.get(userId);
      if (!user || user.systemGenerated) return { ok: false, code: 'unauthorized', message: 'Unauthorized' };
      if ('moduleId' in request) {
        const module = mfaModule(request.moduleId);
        if (!module) return { ok: false, code: 'no_module', message: `MFA module ${request.moduleId} is not found` };
        const started = setupFlows.start(module, userId, user.name ?? 'None');
        return started.kind === 'result' ? { ok: true, result: started.body } : { ok: false, code: 'unknown_error', message: 'Unknown error' };
      }
      const outcome = setupFlows.step(request.flowId, userId, request.input);
      if (outcome.kind === 'unknown_flow') return { ok: false, code: 'not_found', message: 'Flow not found' };
      if (outcome.kind === 'malformed') return { ok: false, code: 'invalid_format', message: 'User input malformed' };
      if (outcome.enable) {
        const { moduleId, secret } = outcome.enable;
        await append(record(userStream(userId), 'mfa_enabled', { module_id: moduleId, secret }, userId));
      }
      return { ok: true, result: outcome.body };
    },

    async deposeMfa(userId, moduleId) {
      const user = users.get(userId);
      if (!user || user.systemGenerated) return { ok: false, code: 'unauthorized', message: 'Unauthorized' };
      if (!mfaModule(moduleId)) {
        return { ok: false, code: 'disable_failed', message: `Cannot disable MFA Module ${moduleId}: Unable find multi-factor auth module: ${moduleId}` };
      }
      if (Object.hasOwn(users.mfaOf(userId), moduleId)) {
        await append(record(userStream(userId), 'mfa_disabled', { module_id: moduleId }, userId));
      }
      return { ok: true, result: 'done' };
    },

    onboardingStatus: () => ONBOARDING_STEPS.map((step) => ({ step, done: onboarding.isDone(step) })),

    async createOwner({ name, username, password, clientId }) {
      if (onboarding.isDone('user') || stepsInProgress.has('user')) return { ok: false };
      stepsInProgress.add('user');
      let passwordHash: string;
      try {
        passwordHash = await hasher.hash(password);
      } finally {
        stepsInProgress.delete('user');
      }
      const now = clock.now();
      const created = newUserData(ids, now, { name, isOwner: !users.hasUsers(), groupIds: [GROUP_ADMIN] });
      const credential = coreCredentialData(ids, created.id, normalizeUsername(username), passwordHash);
      const done = await markStep('user', null, [
        record(userStream(created.id), 'user_created', created, null, now),
        record(userStream(created.id), 'credential_added', credential, null, now),
      ]);
      if (!done) return { ok: false };
      return { ok: true, code: codes.create(clientId, credential.id) };
    },

    completeOnboardingStep: (step, userId) => markStep(step, userId),

    async ensureSystemUser(name, groupIds) {
      let user = users.all().find((u) => u.systemGenerated && u.name === name);
      if (!user) {
        const now = clock.now();
        const created = { ...newUserData(ids, now, { name, isOwner: false, groupIds }), system_generated: true };
        await append(record(userStream(created.id), 'user_created', created, null, now));
        user = users.get(created.id)!;
      } else if (groupIds.some((g) => !user!.groupIds.includes(g))) {
        // an older system user without the admin group (the original migrates it the same way)
        await append(record(userStream(user.id), 'user_updated', { group_ids: [...new Set([...user.groupIds, ...groupIds])] }, null));
      }
      const live = tokens.ofUser(user.id).find((rt) => rt.tokenType === 'system');
      if (live) return { userId: user.id, refreshToken: tokens.get(live.id)!.token };
      const created = newRefreshToken(user, { clientId: null, credentialId: null, tokenType: 'system' });
      await append(created);
      return { userId: user.id, refreshToken: (created.data as RefreshTokenCreatedRecord).token };
    },

    async checkCoreLogin(username, password) {
      const credential = users.coreCredential(username);
      const hash = credential && users.passwordHash(credential.id);
      if (!credential || hash === undefined) {
        await hasher.burn(password); // an unknown username costs the same as a wrong password
        return false;
      }
      return hasher.verify(password, hash);
    },

    async resetCorePassword(actorId, username, password) {
      const credential = users.coreCredential(username);
      if (!credential) return false;
      const changed = { credential_id: credential.id, password_hash: await hasher.hash(password) };
      await append(record(userStream(credential.user_id), 'password_changed', changed, actorId));
      return true;
    },

    async publishCatchUp() {
      const missing = await publisher.catchUp(log);
      if (missing.length > 0) await log.append(missing);
      return missing.length;
    },

    async completeIntegrationStep(principal, clientId, redirectUri) {
      if (onboarding.isDone('integration') || stepsInProgress.has('integration')) return { ok: false, reason: 'already_done' };
      if (!(await verifyRedirectUri(clientId, redirectUri, fetchClientPage))) return { ok: false, reason: 'invalid_redirect' };
      const rt = tokens.get(principal.refreshTokenId);
      if (!rt?.credentialId || !users.credential(rt.credentialId)) return { ok: false, reason: 'no_credential' };
      if (!(await markStep('integration', principal.userId))) return { ok: false, reason: 'already_done' };
      return { ok: true, code: codes.create(clientId, rt.credentialId) };
    },
  };
}

function clip(text: string): string {
  return text.length <= RECORDED_TEXT_MAX ? text : text.slice(0, RECORDED_TEXT_MAX) + '…';
}

function keyPairRecord(pair: { privateKey: string; publicKey: string }): Pick<RefreshTokenCreatedRecord, 'private_key' | 'public_key'> {
  return { private_key: pair.privateKey, public_key: pair.publicKey };
}

function tokenViewOf(data: RefreshTokenCreatedRecord): Omit<RefreshTokenView, 'token' | 'jwtKey'> {
  return {
    id: data.id,
    userId: data.user_id,
    clientId: data.client_id,
    clientName: data.client_name,
    clientIcon: data.client_icon,
    tokenType: data.token_type,
    createdAt: data.created_at,
    accessTokenExpiration: data.access_token_expiration,
    lastUsedAt: null,
    lastUsedIp: null,
    expireAt: data.expire_at,
    credentialId: data.credential_id,
    version: data.version,
  };
}

export type { CurrentUser } from './types.ts';
export type { UserView } from './users.ts';
export type { UserInfo, AdminRefusal, UserChanges } from './admin.ts';
export type { RefreshTokenView } from './tokens.ts';
export type { OnboardingStep } from './onboarding.ts';
export type { ProviderKey } from './login-flows.ts';
