// The core section's auth keys, checked as the original checks them: `auth_mfa_modules`,
// `auth_providers` (each provider's own schema), and Hearth's `auth_groups`; and the checked
// values as the auth actors take them.
import * as cv from '../voluptuous/cv.ts';
import type { Group } from '../auth/groups.ts';
import type { ProviderConfig } from '../auth/providers.ts';
import { listOf, shown } from './config-error.ts';
import { ipNetwork } from './http-config.ts';

// the multi-factor module types Hearth has (the original loads homeassistant.auth.mfa_modules.<type>)
const MFA_MODULE_TYPES = new Set(['totp']);
const MFA_MODULE_KEYS = new Set(['type', 'id', 'name']);

/** An entry of `auth_mfa_modules` or `auth_providers`: a dictionary with a string `type` and, if any, string `id` and `name`. */
function typedEntry(entry: unknown, refuse: (reason: string) => never): Record<string, unknown> {
  if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return refuse('expected a dictionary');
  const item = entry as Record<string, unknown>;
  if (item.type === undefined) return refuse("required key not provided @ data['type']");
  for (const field of ['type', 'id', 'name']) {
    if (item[field] !== undefined && typeof item[field] !== 'string') return refuse(`expected str for dictionary value @ data['${field}']`);
  }
  return item;
}

/**
 * `auth_mfa_modules` as the original checks it: cv.ensure_list of MULTI_FACTOR_AUTH_MODULE_SCHEMA
 * ({type: str, name?: str, id?: str}), no two with the same id (the type when no id), and, as
 * loading the module does, a known type whose CONFIG_SCHEMA (totp: no extra keys) accepts it.
 */
export function validateMfaModules(value: unknown, refuse: (reason: string) => never): Array<{ type: string; id?: string; name?: string }> {
  const seen = new Set<string>();
  return listOf(value).map((entry) => {
    const item = typedEntry(entry, refuse);
    const type = item.type as string;
    if (!MFA_MODULE_TYPES.has(type)) return refuse(`Unable to load mfa module ${type}`);
    const extra = Object.keys(item).find((key) => !MFA_MODULE_KEYS.has(key));
    if (extra !== undefined) return refuse(`Invalid configuration for multi-factor module ${type}: extra keys not allowed @ data['${extra}']`);
    const id = (item.id as string | undefined) ?? type;
    if (seen.has(id)) return refuse(`Duplicate mfa module ${type} found. Please add unique IDs if you want to have the same mfa module twice`);
    seen.add(id);
    const out: { type: string; id?: string; name?: string } = { type };
    if (item.id !== undefined) out.id = item.id as string;
    if (item.name !== undefined) out.name = item.name as string;
    return out;
  });
}

/** The checked `auth_mfa_modules` of a checked core section; undefined when not configured (the default applies). */
export function mfaModulesOfCore(core: Record<string, unknown>): Array<{ type: string; id?: string; name?: string }> | undefined {
  return core.auth_mfa_modules as Array<{ type: string; id?: string; name?: string }> | undefined;
}

/** The checked `auth_groups` of a checked core section: the groups beside the system ones. */
export function authGroupsOfCore(core: Record<string, unknown>): Group[] {
  return (core.auth_groups as Group[] | undefined) ?? [];
}

// the auth providers Hearth has (the original loads homeassistant.auth.providers.<type>)
const PROVIDER_KEYS: Record<string, Set<string>> = {
  core: new Set(['type', 'name']),
  trusted_networks: new Set(['type', 'name', 'id', 'trusted_networks', 'trusted_users', 'allow_bypass_login']),
  command_line: new Set(['type', 'name', 'id', 'command', 'args', 'meta']),
  insecure_example: new Set(['type', 'name', 'id', 'users']),
};

/**
 * `auth_providers` as the original checks it: cv.ensure_list of AUTH_PROVIDER_SCHEMA ({type, name?,
 * id?}), no two with the same type and id, and each provider's own CONFIG_SCHEMA (no extra keys).
 */
export function validateAuthProviders(value: unknown, refuse: (reason: string) => never): ProviderConfig[] {
  const seen = new Set<string>();
  return listOf(value).map((entry): ProviderConfig => {
    const item = typedEntry(entry, refuse);
    const type = item.type as string;
    const keys = PROVIDER_KEYS[type];
    if (!keys) return refuse(`Unable to load auth provider ${type}: no such provider (Hearth has ${Object.keys(PROVIDER_KEYS).join(', ')})`);
    const bad = (reason: string): never => refuse(`Invalid configuration for auth provider ${type}: ${reason}`);
    if (type === 'core' && item.id !== undefined) bad('ID is not allowed for the core auth provider.');
    const extra = Object.keys(item).find((key) => !keys.has(key));
    if (extra !== undefined) bad(`extra keys not allowed @ data['${extra}']`);
    const key = `${type}\n${item.id ?? ''}`;
    if (seen.has(key)) refuse(`Duplicate auth provider ${type} found. Please add unique IDs if you want to have the same provider twice`);
    seen.add(key);
    const head = { ...(item.name !== undefined && { name: item.name as string }), ...(item.id !== undefined && { id: item.id as string }) };
    const bool = (field: string): boolean => {
      if (item[field] === undefined) return false;
      try {
        return cv.convert(cv.boolean, item[field]);
      } catch {
        return bad(`expected boolean @ data['${field}']`);
      }
    };
    const strings = (field: string, list: unknown): string[] =>
      listOf(list).map((entry) => (typeof entry === 'string' ? entry : bad(`expected str @ data['${field}']`)));
    switch (type) {
      case 'core':
        return { type: 'core', ...head };
      case 'trusted_networks': {
        if (item.trusted_networks === undefined) bad("required key not provided @ data['trusted_networks']");
        const networks = listOf(item.trusted_networks).map((network) => ipNetwork(network) ?? bad(`invalid IP network ${shown(network)} @ data['trusted_networks']`));
        const usersMap = item.trusted_users ?? {};
        if (typeof usersMap !== 'object' || usersMap === null || Array.isArray(usersMap)) return bad("expected a dictionary @ data['trusted_users']");
        // kept in the configuration's own shape (network → users and {group}), so checking it again agrees
        const trusted_users: Record<string, Array<string | { group: string[] }>> = {};
        for (const [network, list] of Object.entries(usersMap)) {
          const net = ipNetwork(network) ?? bad(`invalid IP network ${shown(network)} @ data['trusted_users']`);
          trusted_users[net] = listOf(list).map((who) => {
            if (typeof who === 'string') return who;
            if (typeof who === 'object' && who !== null && !Array.isArray(who) && Object.keys(who).join() === 'group') {
              return { group: strings('trusted_users', (who as { group: unknown }).group) };
            }
            return bad(`expected a user id or {group: <group id>} @ data['trusted_users'][${shown(network)}]`);
          });
        }
        return { type: 'trusted_networks', ...head, trusted_networks: networks, trusted_users, allow_bypass_login: bool('allow_bypass_login') };
      }
      case 'command_line': {
        if (typeof item.command !== 'string') return bad("required key not provided @ data['command'] (a string)");
        if (!item.command.startsWith('/')) bad(`command must be an absolute path @ data['command'] (got ${shown(item.command)})`);
        return { type: 'command_line', ...head, command: item.command, args: item.args == null ? [] : strings('args', item.args), meta: bool('meta') };
      }
      default: {
        if (!Array.isArray(item.users)) return bad("required key not provided @ data['users'] (a list)");
        const users = item.users.map((given, at) => {
          if (typeof given !== 'object' || given === null || Array.isArray(given)) return bad(`expected a dictionary @ data['users'][${at}]`);
          const user = given as Record<string, unknown>;
          for (const field of Object.keys(user)) if (!['username', 'password', 'name'].includes(field)) bad(`extra keys not allowed @ data['users'][${at}]['${field}']`);
          for (const field of ['username', 'password']) if (typeof user[field] !== 'string') bad(`required key not provided @ data['users'][${at}]['${field}'] (a string)`);
          if (user.name !== undefined && typeof user.name !== 'string') bad(`expected str @ data['users'][${at}]['name']`);
          return { username: user.username as string, password: user.password as string, ...(user.name !== undefined && { name: user.name as string }) };
        });
        return { type: 'insecure_example', ...head, users };
      }
    }
  });
}

/** The checked `auth_providers` of a checked core section; undefined when not configured (`core` alone). */
export function authProvidersOfCore(core: Record<string, unknown>): ProviderConfig[] | undefined {
  return core.auth_providers as ProviderConfig[] | undefined;
}
