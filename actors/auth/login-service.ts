import type { NewEvent } from '../../store/types.ts';
import type { CredentialCheck, VerifiedCredential } from '../../machines/login-flow.machine.ts';
import type { UserUpdated } from '../../machines/user.machine.ts';
import type { AuthModuleDeps } from './auth-records.ts';
import type { GrantOutcome } from './types.ts';
import { isLocalAddress, verifyClientId, verifyRedirectUri, type FetchPage } from './client-id.ts';
import type { AuthCodes } from './codes.ts';
import { LoginFlows, type FlowInfo, type FlowProvider, type ProviderKey, type StepOutcome } from './login-flows.ts';
import type { AuthProviderInfo, LoginPolicy } from './login-policy.ts';
import type { MfaModules } from './mfa-setup.ts';
import { groupOf, type LoginProvider, type UserMeta } from './providers.ts';
import type { TokenIssuer } from './token-issuer.ts';
import { GROUP_ADMIN, newUserData, userStream, type Credential, type CredentialAdded, type UserView } from './users.ts';

/** What a login-flow request led to; `step` bodies are answered with 200. */
export type FlowReply =
  | { kind: 'step'; body: Record<string, unknown>; failedLogin: boolean }
  | { kind: 'invalid_client' | 'unknown_handler' | 'unknown_flow' | 'ip_changed' | 'malformed' | 'invalid_redirect' }
  | { kind: 'blocked'; reason: string };

/** What POST /auth/link_user led to. */
export type LinkOutcome = { ok: true } | { ok: false; reason: 'invalid_code' | 'already_linked' };

/** Logging in: the providers, the login flows, and the authorization codes they end with. */
export interface LoginService {
  /** the configured providers a client at `ip` may use, in configuration order (GET /auth/providers) */
  providers(ip: string): AuthProviderInfo[];
  /** POST /auth/login_flow: validates the client id and the handler, starts the flow. */
  startLoginFlow(request: { handler: ProviderKey; clientId: string; redirectUri: string; ip: string; type: string }): Promise<FlowReply>;
  /** POST /auth/login_flow/:flow_id with the step fields (client_id already removed). */
  continueLoginFlow(flowId: string, clientId: string, input: Record<string, unknown>, ip: string): Promise<FlowReply>;
  /** DELETE /auth/login_flow/:flow_id; false when no such flow. */
  abortLoginFlow(flowId: string): Promise<boolean>;
  /** grant_type=authorization_code */
  exchangeCode(clientId: string | undefined, code: string | undefined, ip: string): Promise<GrantOutcome>;
  /** POST /auth/link_user: attaches the credential of a `link_user` flow's code to the user. */
  linkUser(userId: string, clientId: string, code: string): Promise<LinkOutcome>;
}

/** What the login module needs beyond the shared parts. */
export interface LoginDeps extends AuthModuleDeps {
  /** grants the refresh token a code is exchanged for */
  issuer: Pick<TokenIssuer, 'grant'>;
  policy: LoginPolicy;
  codes: AuthCodes;
  mfa: MfaModules;
  /** how a client page is fetched for its `<link rel="redirect_uri">` tags */
  fetchPage: FetchPage;
  /** where dropped flows are reported */
  report?: (line: string) => void;
  /** open login flows kept at most */
  maxOpenFlows?: number;
}

// a fresh credential lives as long as the code that carries it may (codes.ts), and a little more
const FRESH_CREDENTIAL_TTL_MS = 20 * 60 * 1000;
// Strings a client chose are clipped in flow records: a failed login must not write megabytes.
const RECORDED_TEXT_MAX = 256;
const invalidCode: GrantOutcome = { ok: false, error: 'invalid_request', description: 'Invalid code' };

/**
 * The login module: flows in memory (`login-flows.ts`), their outcomes as `login_flow_step`
 * records, authorization codes, and the credentials a flow found that no user owns yet.
 */
export function createLoginService(deps: LoginDeps): LoginService {
  const { users, clock, ids, issuer, policy, codes } = deps;
  const { record, append } = deps.records;
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
  const flowProviderOf = (p: LoginProvider): FlowProvider => ({
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
          return { credentialId: id, userId: user_id, mfaModules: p.supportsMfa ? deps.mfa.enabledFor(user_id) : [] };
        }
        case 'link': {
          // the original links a trusted_networks credential as the flow finishes
          const added: CredentialAdded = { id: ids.uuidHex(), user_id: found.userId, auth_provider_type: p.type, auth_provider_id: p.id, data: found.data };
          await append(record(userStream(found.userId), { type: 'credential_added', data: added }, found.userId));
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
  });
  const flowProviders = new Map(policy.providers.map((provider) => [provider, flowProviderOf(provider)]));

  const flows = new LoginFlows({
    clock,
    ids,
    verifyMfaCode: async (userId, module, code) => deps.mfa.verifyLoginCode(userId, module, code, clock.now()),
    mfaModuleName: (id) => deps.mfa.nameOf(id),
    log: deps.report,
    maxOpenFlows: deps.maxOpenFlows,
  });

  // Only outcomes are logged (a login, a refusal, an abort, a failed password check), never the
  // opening of a flow, which costs a client nothing: abandoned flows leave no record.
  const flowRecord = (flow: FlowInfo, data: Record<string, unknown>, userId: string | null = null) =>
    record(
      `auth/login_flow/${flow.flowId}`,
      {
        type: 'login_flow_step',
        data: {
          flow_id: flow.flowId,
          ...data,
          handler: flow.handler,
          client_id: clip(flow.clientId),
          redirect_uri: clip(flow.redirectUri),
          flow_type: clip(flow.flowType),
          ip_address: flow.ip,
        },
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
    if (!(await verifyRedirectUri(clientId, flow.redirectUri, deps.fetchPage))) {
      await append(flowRecord(flow, { ...entry, refused: 'invalid_redirect_uri' }, credential.userId));
      return { kind: 'invalid_redirect' };
    }
    const blocked = user && !flow.credentialOnly ? policy.userRefusal(user, flow.ip) : undefined;
    if (blocked) {
      await append(flowRecord(flow, { ...entry, refused: blocked }, credential.userId));
      return { kind: 'blocked', reason: blocked };
    }
    await append(flowRecord(flow, entry, credential.userId));
    return { kind: 'step', body: { ...body, result: codes.create(clientId, credential.credentialId) }, failedLogin: false };
  }

  /** An owned credential of the same provider and data as `credential` (a fresh one is made owned meanwhile). */
  function sameCredential(credential: Credential): Credential | undefined {
    const [field] = Object.keys(credential.data);
    return users.credentialOf({ type: credential.auth_provider_type, id: credential.auth_provider_id }, field, credential.data[field]);
  }

  /** command_line with `meta: true`: a login brings the user's name and local_only up to what the command said. */
  function metaUpdate(user: UserView, credential: Credential): NewEvent[] {
    const provider = policy.providerOf(credential);
    const meta = provider?.refreshesMeta ? provider.metaOf?.(credential) : undefined;
    if (!meta) return [];
    const update: UserUpdated = {};
    if (meta.name !== null && meta.name !== user.name) update.name = meta.name;
    if (meta.localOnly !== user.localOnly) update.local_only = meta.localOnly;
    return Object.keys(update).length === 0 ? [] : [record(userStream(user.id), { type: 'user_updated', data: update }, user.id)];
  }

  /** The token endpoint's refusal when the user or the credential's provider refuses a login from `ip`. */
  function refusal(user: UserView, credential: Credential, ip: string): GrantOutcome | undefined {
    const denied = policy.userRefusal(user, ip) ?? policy.providerRefusal(credential, ip);
    return denied ? { ok: false, error: 'access_denied', description: denied } : undefined;
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
      if (!user) return invalidCode;
      return refusal(user, taken, ip) ?? issuer.grant(user, taken, clientId, ip);
    }
    const group = groupOf(entry.meta);
    if (!users.groups.has(group)) return { ok: false, error: 'access_denied', description: `Invalid group specified ${group}` };
    if (entry.meta.localOnly && !isLocalAddress(ip)) return { ok: false, error: 'access_denied', description: 'User cannot authenticate remotely' };
    const denied = policy.providerRefusal(entry.credential, ip);
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
    return issuer.grant(view, credential, clientId, ip, [
      record(userStream(created.id), { type: 'user_created', data: created }, null, now),
      record(userStream(created.id), { type: 'credential_added', data: credential }, created.id, now),
    ]);
  }

  return {
    providers: (ip) => policy.listedFor(ip),

    async startLoginFlow({ handler, clientId, redirectUri, ip, type }) {
      if (!verifyClientId(clientId)) return { kind: 'invalid_client' };
      const provider = policy.provider(handler[0], handler[1]);
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
      if (code === undefined) return invalidCode;
      const credentialId = codes.take(clientId, code);
      if (credentialId === undefined) return invalidCode;
      const owned = users.credential(credentialId);
      if (!owned) {
        const entry = fresh.get(credentialId);
        fresh.delete(credentialId);
        return entry ? firstLogin(entry, clientId, ip) : invalidCode;
      }
      const user = users.get(owned.user_id);
      if (!user) return invalidCode;
      return refusal(user, owned, ip) ?? issuer.grant(user, owned, clientId, ip, metaUpdate(user, owned));
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
      await append(record(userStream(userId), { type: 'credential_added', data: { ...entry.credential, user_id: userId } }, userId));
      return { ok: true };
    },
  };
}

function clip(text: string): string {
  return text.length <= RECORDED_TEXT_MAX ? text : text.slice(0, RECORDED_TEXT_MAX) + '…';
}
