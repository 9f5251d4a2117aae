import type { EventLog, EventRecord } from '../../store/types.ts';
import type { Area } from '../area.ts';
import type { Clock, Ids } from '../clock.ts';
import type { AuthService } from './types.ts';
import { createPasswordHasher, type ScryptParams } from './passwords.ts';
import { fetchPage, type FetchPage } from './client-id.ts';
import { CORE_PROVIDER, Users, userRecords, type UsersSnapshot } from './users.ts';
import { refreshTokenRecords, type TokensSnapshot } from './tokens.ts';
import { createProviders, type ProviderConfig } from './providers.ts';
import { AuthCodes } from './codes.ts';
import { createCorePasswords, createUserAdmin, type CorePasswords, type UserAdmin } from './admin.ts';
import type { MfaModuleConfig } from './mfa.ts';
import { ONBOARDING_STREAM, Onboarding, onboardingRecords } from './onboarding.ts';
import { Groups, type Group } from './groups.ts';
import { AuthPublisher } from './publish.ts';
import type { EntityPlacement } from './permissions.ts';
import { createAuthRecords } from './auth-records.ts';
import { LoginPolicy } from './login-policy.ts';
import { TokenIssuer } from './token-issuer.ts';
import { createTokenService, type TokenGrants, type UserTokens } from './token-service.ts';
import { createLoginService, type LoginService } from './login-service.ts';
import { MfaModules, createMfaSetup, type MfaSetup } from './mfa-setup.ts';
import { createOnboardingService, type OnboardingService } from './onboarding-service.ts';
import { createSystemUsers, type SystemUsers } from './system-user.ts';

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
  logLine?: (line: string) => void;
}

/** Dependencies of the auth system. */
export interface AuthDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  config?: AuthConfig;
}

/**
 * The whole auth system, as the composition root holds it. Everything else takes the narrow
 * part it uses: the router an `Authenticator`, read paths an `AccessAuth`, the auth routes a
 * `LoginService` and `TokenGrants`, the onboarding routes an `OnboardingService`, the WebSocket
 * commands `UserTokens`, `MfaSetup` and `UserAdmin`, the supervisor's side `SystemUsers` and
 * `CorePasswords`.
 */
export interface CoreAuthService extends AuthService, TokenGrants, UserTokens, LoginService, OnboardingService, MfaSetup, UserAdmin, CorePasswords, SystemUsers {
  /**
   * Appends the authpub/ records the log lacks for the users and tokens as they are (an instance
   * upgraded in place, users added by `hearth auth add`, a changed group policy); run once after
   * the restore. Resolves to the count of records appended (0 when all were there).
   */
  publishCatchUp(): Promise<number>;
}

const DEFAULT_ACCESS_TOKEN_LIFETIME = 1800;
// 2: refresh tokens carry their Ed25519 key pair
const SNAPSHOT_VERSION = 2;

interface AuthSnapshot extends UsersSnapshot, TokensSnapshot {
  seq: number;
  onboarding: string[];
}

/**
 * Builds the auth system: users, credentials and refresh tokens as actors whose transitions are
 * appended to the log (`auth/...` streams, records without origin), login flows and
 * authorization codes in memory. Committed records are applied through the log's onCommit, the
 * same `evolve` a restart replays. The modules (tokens, login, onboarding, MFA setup, user
 * administration, system users) share the users view and the log append, handed in here.
 */
export function createAuth({ log, clock, ids, config = {} }: AuthDeps): CoreAuthService {
  const fetchClientPage = config.fetchPage ?? fetchPage;
  const hasher = createPasswordHasher(config.scrypt);
  const users = new Users(new Groups(config.groups), config.placement);
  // the publisher reads the token store, which the issuer below makes; appends come after both exist
  const records = createAuthRecords(log, clock, ids, (events) => publisher.derive(events));
  const shared = { users, records, clock, ids };
  const issuer = new TokenIssuer({ ...shared, accessTokenLifetime: config.accessTokenLifetime ?? DEFAULT_ACCESS_TOKEN_LIFETIME, accessTokenCacheSize: config.accessTokenCacheSize });
  const publisher = new AuthPublisher(users, issuer.store, records.record);
  const progress = new Onboarding();
  const codes = new AuthCodes(clock, ids);
  const mfaModules = new MfaModules(config.mfaModules, users);
  const policy = new LoginPolicy(
    createProviders(config.providers, {
      users,
      hasher,
      trustedProxies: config.trustedProxies ?? [],
      logLine: config.logLine ?? ((line) => console.log(line)),
      coreTitle: config.providerName ?? 'Hearth Local',
    }),
  );

  const tokens = createTokenService({ ...shared, issuer, policy });
  const login = createLoginService({ ...shared, issuer, policy, codes, mfa: mfaModules, fetchPage: fetchClientPage, report: config.logLine, maxOpenFlows: config.maxOpenLoginFlows });
  const onboarding = createOnboardingService({ ...shared, progress, hasher, codes, refreshToken: (id) => issuer.store.get(id), fetchPage: fetchClientPage });
  const mfa = createMfaSetup({ ...shared, modules: mfaModules });
  const admin = createUserAdmin({
    ...shared,
    hasher,
    providerType: CORE_PROVIDER,
    tokensOf: (userId) => issuer.store.ofUser(userId),
    revokeWith: (rts, reason, extra) => issuer.revoke(rts, reason, extra),
  });

  let lastSeq = 0;
  const owns = (record: EventRecord) => record.stream.startsWith('auth/');

  function evolve(record: EventRecord): void {
    if (record.seq <= lastSeq) return; // a record can arrive both by onCommit and by a replay
    lastSeq = record.seq;
    if (userRecords.owns(record)) users.evolve(record);
    else if (refreshTokenRecords.owns(record)) issuer.store.evolve(record);
    else if (onboardingRecords.owns(record)) progress.evolve(record);
    // login flows live in memory; their records are an audit trail of outcomes only
  }

  log.onCommit((committed) => {
    for (const record of committed) if (owns(record)) evolve(record);
    const corrections = publisher.observe(committed);
    // appended after this commit, never inside it; one that fails (a full disk) is found again
    // by the next commit that touches the same user or token
    if (corrections.length > 0) queueMicrotask(() => void log.append(corrections).catch(() => {}));
  });

  const area: Area = {
    name: 'auth',
    snapshotVersion: SNAPSHOT_VERSION,
    streamPrefix: 'auth/',
    latestSuffices: false,
    owns,
    evolve,
    snapshot(): AuthSnapshot {
      return { seq: lastSeq, ...users.snapshot(), ...issuer.store.snapshot(), onboarding: progress.snapshot() };
    },
    restore(data: unknown) {
      const snapshot = data as AuthSnapshot;
      users.restore(snapshot);
      issuer.store.restore(snapshot);
      progress.restore(snapshot.onboarding);
      lastSeq = snapshot.seq;
    },
  };

  return {
    ...tokens,
    ...login,
    ...onboarding,
    ...mfa,
    ...admin,
    ...createCorePasswords({ users, records, hasher }),
    ...createSystemUsers({ ...shared, issuer }),
    area,
    currentUser(userId) {
      const user = users.get(userId);
      if (!user) return undefined;
      return {
        id: user.id,
        name: user.name,
        is_owner: user.isOwner,
        is_admin: user.isAdmin,
        credentials: users.credentialsOf(userId).map(({ auth_provider_type, auth_provider_id }) => ({ auth_provider_type, auth_provider_id })),
        mfa_modules: mfaModules.statusOf(userId),
      };
    },
    hasUsers: () => users.hasUsers(),
    user: (id) => users.get(id),
    caller(id) {
      const user = users.get(id);
      return user && { isAdmin: user.isAdmin, permissions: users.permissions(id) };
    },
    async publishCatchUp() {
      const missing = await publisher.catchUp(log);
      if (missing.length > 0) await log.append(missing);
      return missing.length;
    },
  };
}

export type { CurrentUser } from './types.ts';
export type { UserView } from './users.ts';
export type { UserInfo, AdminRefusal, UserChanges } from './admin.ts';
export type { RefreshTokenView } from './tokens.ts';
export type { OnboardingStep } from './onboarding.ts';
export type { ProviderKey } from './login-flows.ts';
