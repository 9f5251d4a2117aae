import { timingSafeEqual } from 'node:crypto';
import { isIP, type BlockList } from 'node:net';
import { canonicalIp, proxyList } from './ip-bans.ts';
import { checkCommandLogin, type CommandLineConfig } from './command-line.ts';
import { CORE_PROVIDER, GROUP_ADMIN, type Credential, type Users } from './users.ts';
import type { SchemaField } from './login-flows.ts';
import type { PasswordHasher } from './passwords.ts';

/** What a provider says about the user a new credential of its creates (the original's UserMeta). */
export interface UserMeta {
  name: string | null;
  /** a group id, or null for the default (administrators) */
  group: string | null;
  localOnly: boolean;
}

/**
 * Who the init step found:
 * - `existing`: a credential already linked to a user;
 * - `link`: a credential to create for an existing user when the flow finishes (trusted_networks);
 * - `fresh`: a credential nobody owns yet; exchanging its code creates the user, or
 *   POST /auth/link_user attaches it to the caller.
 */
export type Found =
  | { kind: 'existing'; credential: Credential }
  | { kind: 'link'; userId: string; data: Record<string, string> }
  | { kind: 'fresh'; data: Record<string, string>; meta: UserMeta };

/** A provider's answer to an init submission: who it found, a refusal (`invalid_auth`), or an abort. */
export type InitCheck = Found | { kind: 'invalid' } | { kind: 'abort'; reason: string };

/** How a login flow of this provider opens for a client at `ip`. */
export type Opening = { kind: 'abort'; reason: string } | { kind: 'form'; schema: SchemaField[]; bypass?: Record<string, string> };

/** One configured auth provider (an entry of `auth_providers:`). */
export interface LoginProvider {
  readonly type: string;
  readonly id: string | null;
  readonly name: string;
  /** trusted_networks logs in without a second factor, as the original's does */
  readonly supportsMfa: boolean;
  /** command_line with `meta: true`: a login refreshes the user's name, group and local_only */
  readonly refreshesMeta: boolean;
  /** whether GET /auth/providers lists it to a client at `ip` */
  listedFor(ip: string): boolean;
  open(ip: string): Opening;
  /** checks the fields of the init form (already matching its schema) */
  check(fields: Record<string, string>, ip: string): Promise<InitCheck>;
  /** why an access token may not be minted for a refresh token of this provider, or undefined */
  refreshRefusal(ip: string | null): string | undefined;
  /** the user meta for an existing credential at its next login (refreshesMeta providers only) */
  metaOf?(credential: Credential): UserMeta | undefined;
}

/** What providers read: the users, the password hasher, the proxies of `http:`. */
export interface ProviderContext {
  users: Users;
  hasher: PasswordHasher;
  trustedProxies: readonly string[];
  logLine: (line: string) => void;
  /** the title of the `core` provider when the configuration names none */
  coreTitle: string;
}

/** One checked entry of `auth_providers:` (actors/core/configuration.ts). */
export type ProviderConfig =
  | { type: 'core'; name?: string }
  | { type: 'trusted_networks'; name?: string; id?: string; trusted_networks: string[]; trusted_users: Record<string, Array<string | { group: string[] }>>; allow_bypass_login: boolean }
  | ({ type: 'command_line'; name?: string; id?: string } & CommandLineConfig)
  | { type: 'insecure_example'; name?: string; id?: string; users: Array<{ username: string; password: string; name?: string }> };

const PASSWORD_FORM: SchemaField[] = [
  { type: 'string', name: 'username', required: true },
  { type: 'string', name: 'password', required: true },
];

/** The providers of the configuration, in its order; the `core` provider alone when none is configured. */
export function createProviders(configs: ProviderConfig[] | undefined, ctx: ProviderContext): LoginProvider[] {
  const list = configs ?? [{ type: 'core' }];
  return list.map((config) => {
    switch (config.type) {
      case 'core':
        return coreProvider(config.name ?? ctx.coreTitle, ctx);
      case 'trusted_networks':
        return trustedNetworksProvider(config, ctx);
      case 'command_line':
        return commandLineProvider(config, ctx);
      case 'insecure_example':
        ctx.logLine(
          `Auth provider insecure_example${config.id ? ` (${config.id})` : ''} is enabled: its passwords sit in configuration.yaml in plain text; use it for development only`,
        );
        return insecureExampleProvider(config, ctx);
    }
  });
}

const passwordProvider = {
  supportsMfa: true,
  refreshesMeta: false,
  listedFor: () => true,
  open: (): Opening => ({ kind: 'form', schema: PASSWORD_FORM }),
  refreshRefusal: () => undefined,
};

function coreProvider(name: string, { users, hasher }: ProviderContext): LoginProvider {
  return {
    ...passwordProvider,
    type: CORE_PROVIDER,
    id: null,
    name,
    async check({ username, password }) {
      const credential = users.coreCredential(username);
      const hash = credential && users.passwordHash(credential.id);
      if (!credential || hash === undefined) {
        await hasher.burn(password); // an unknown username costs the same as a wrong password
        return { kind: 'invalid' };
      }
      return (await hasher.verify(password, hash)) ? { kind: 'existing', credential } : { kind: 'invalid' };
    },
  };
}

function insecureExampleProvider(config: Extract<ProviderConfig, { type: 'insecure_example' }>, { users }: ProviderContext): LoginProvider {
  const id = config.id ?? null;
  return {
    ...passwordProvider,
    type: 'insecure_example',
    id,
    name: config.name ?? 'Example',
    async check({ username, password }) {
      // every configured user is compared, so the time taken does not tell which names exist
      let found: (typeof config.users)[number] | undefined;
      for (const user of config.users) if (sameText(username, user.username)) found = user;
      const passwordOk = sameText(password, found?.password ?? '') && found !== undefined;
      if (!found || !passwordOk) return { kind: 'invalid' };
      const existing = users.credentialOf({ type: 'insecure_example', id }, 'username', found.username);
      if (existing) return { kind: 'existing', credential: existing };
      return { kind: 'fresh', data: { username: found.username }, meta: { name: found.name ?? null, group: null, localOnly: false } };
    },
  };
}

function commandLineProvider(config: Extract<ProviderConfig, { type: 'command_line' }>, ctx: ProviderContext): LoginProvider {
  const id = config.id ?? null;
  // what the command said of each username at its last successful login (meta: true)
  const metas = new Map<string, Record<string, string>>();
  const metaFrom = (lines: Record<string, string> | undefined): UserMeta => ({
    name: lines?.name ?? null,
    group: lines?.group ?? null,
    localOnly: lines?.local_only === 'true',
  });
  return {
    ...passwordProvider,
    type: 'command_line',
    id,
    name: config.name ?? 'Command Line Authentication',
    refreshesMeta: config.meta,
    async check(fields) {
      const username = fields.username.trim();
      const result = await checkCommandLogin(config, username, fields.password);
      if (!result.ok) {
        ctx.logLine(`User ${JSON.stringify(username)} failed to authenticate: ${result.reason}`);
        return { kind: 'invalid' };
      }
      if (config.meta) metas.set(username, result.meta);
      const existing = ctx.users.credentialOf({ type: 'command_line', id }, 'username', username);
      if (existing) return { kind: 'existing', credential: existing };
      return { kind: 'fresh', data: { username }, meta: metaFrom(metas.get(username)) };
    },
    metaOf: (credential) => (config.meta ? metaFrom(metas.get(credential.data.username)) : undefined),
  };
}

function trustedNetworksProvider(config: Extract<ProviderConfig, { type: 'trusted_networks' }>, ctx: ProviderContext): LoginProvider {
  const id = config.id ?? null;
  const trusted = proxyList(config.trusted_networks);
  const proxies = proxyList(ctx.trustedProxies);
  const perNetwork = Object.entries(config.trusted_users).map(([network, who]) => ({
    list: proxyList([network]),
    users: who.filter((w): w is string => typeof w === 'string'),
    groups: who.flatMap((w) => (typeof w === 'string' ? [] : w.group)),
  }));

  /** The original's async_validate_access: the reason an address may not use this provider. */
  const refusal = (ip: string): string | undefined => {
    if (config.trusted_networks.length === 0) return 'trusted_networks is not configured';
    if (!inList(trusted, ip)) return 'Not in trusted_networks';
    if (inList(proxies, ip)) return "Can't allow access from a proxy server";
    return undefined;
  };

  /** Active, not system-generated users; narrowed by the first `trusted_users` network holding the address. */
  const candidates = (ip: string): Array<[string, string]> => {
    let list = ctx.users.all().filter((u) => u.isActive && !u.systemGenerated);
    const rule = perNetwork.find((entry) => inList(entry.list, ip));
    if (rule) list = list.filter((u) => rule.users.includes(u.id) || u.groupIds.some((g) => rule.groups.includes(g)));
    return list.map((u) => [u.id, u.name ?? '']);
  };

  return {
    type: 'trusted_networks',
    id,
    name: config.name ?? 'Trusted Networks',
    supportsMfa: false,
    refreshesMeta: false,
    listedFor: (ip) => refusal(ip) === undefined,
    open(ip) {
      if (refusal(ip) !== undefined) return { kind: 'abort', reason: 'not_allowed' };
      const options = candidates(ip);
      const schema: SchemaField[] = [{ type: 'select', options, name: 'user', required: true }];
      if (config.allow_bypass_login && options.length === 1) return { kind: 'form', schema, bypass: { user: options[0][0] } };
      return { kind: 'form', schema };
    },
    async check({ user: userId }, ip) {
      // the address and the user are checked again: both may have changed since the form was shown
      if (refusal(ip) !== undefined) return { kind: 'abort', reason: 'not_allowed' };
      if (!candidates(ip).some(([candidate]) => candidate === userId)) return { kind: 'abort', reason: 'not_allowed' };
      const existing = ctx.users.credentialOf({ type: 'trusted_networks', id }, 'user_id', userId);
      if (existing) return { kind: 'existing', credential: existing };
      return { kind: 'link', userId, data: { user_id: userId } };
    },
    refreshRefusal(ip) {
      if (ip === null) return "Unknown remote ip can't be used for trusted network provider.";
      return refusal(ip);
    },
  };
}

function inList(list: BlockList, ip: string): boolean {
  const address = canonicalIp(ip);
  const kind = isIP(address);
  return kind !== 0 && list.check(address, kind === 4 ? 'ipv4' : 'ipv6');
}

/** Compares two strings in time that depends on their lengths only. */
function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  // compared against itself when the lengths differ, so the work is the same either way
  return timingSafeEqual(x, x.length === y.length ? y : x) && x.length === y.length;
}

/** A new user's group from the provider's meta: the original's default is the administrators. */
export function groupOf(meta: UserMeta): string {
  return meta.group ?? GROUP_ADMIN;
}
