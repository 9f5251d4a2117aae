import { ADMIN_POLICY, READ_ONLY_POLICY, USER_POLICY, mergePolicies, type Grant, type Lookup, type Policy } from './permissions.ts';
import { validEntityId } from '../entities/state.ts';

/** The system groups of the original; admins may use every admin route. */
export const GROUP_ADMIN = 'system-admin';
/** Regular users. */
export const GROUP_USERS = 'system-users';
/** Users that may only read. */
export const GROUP_READ_ONLY = 'system-read-only';

/** A group: a name and the policy its members get. */
export interface Group {
  id: string;
  name: string | null;
  policy: Policy;
}

/** The original's system groups, which always exist. */
export const SYSTEM_GROUPS: readonly Group[] = [
  { id: GROUP_ADMIN, name: 'Administrators', policy: ADMIN_POLICY },
  { id: GROUP_USERS, name: 'Users', policy: USER_POLICY },
  { id: GROUP_READ_ONLY, name: 'Read Only', policy: READ_ONLY_POLICY },
];

/**
 * The groups users may be put in: the system groups, then those of `core: auth_groups` (a Hearth
 * extension: the original keeps its groups in storage only). Read at start, as the original
 * processes its auth settings only then.
 */
export class Groups {
  private readonly byId = new Map<string, Group>();

  constructor(configured: readonly Group[] = []) {
    for (const g of [...SYSTEM_GROUPS, ...configured]) this.byId.set(g.id, g);
  }

  has(id: string): boolean {
    return this.byId.has(id);
  }

  /**
   * The merged policy of these groups. A group that is gone (removed from the configuration
   * since the user was put in it) gives nothing.
   */
  policyOf(ids: readonly string[]): Policy {
    const policies: Policy[] = [];
    for (const id of ids) {
      const group = this.byId.get(id);
      if (group) policies.push(group.policy);
    }
    return mergePolicies(policies);
  }
}

/** Why an `auth_groups` entry is refused: where in it (`[0].policy.entities`) and what is wrong. */
export class GroupConfigError extends Error {}

type Mapping = Record<string, unknown>;
const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);
const shown = (v: unknown) => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > 60 ? `${text.slice(0, 59)}…` : text;
};

const GROUP_KEYS = new Set(['id', 'name', 'policy']);
const CATEGORIES = new Set(['read', 'control', 'edit']);
const LOOKUPS = ['entity_ids', 'device_ids', 'area_ids', 'domains'] as const;
const ENTITY_KEYS = new Set<string>([...LOOKUPS, 'all']);
const DOMAIN = /^(?!.+__)(?!_)[\da-z_]+(?<!_)$/;

function refuse(path: string, reason: string): never {
  throw new GroupConfigError(`${path}: ${reason}`);
}

function checkGrant(value: unknown, path: string): Grant {
  if (typeof value === 'boolean') return value;
  if (!isMapping(value)) refuse(path, `expected true, false or a mapping of read, control, edit (got ${shown(value)})`);
  const out: { read?: boolean; control?: boolean; edit?: boolean } = {};
  for (const [key, v] of Object.entries(value)) {
    if (!CATEGORIES.has(key)) refuse(`${path}.${key}`, 'extra keys not allowed: a grant has read, control and edit');
    if (typeof v !== 'boolean') refuse(`${path}.${key}`, `expected a boolean (got ${shown(v)})`);
    out[key as 'read'] = v;
  }
  return out;
}

function checkLookup(kind: (typeof LOOKUPS)[number], value: unknown, path: string): Lookup {
  if (typeof value === 'boolean') return value;
  if (!isMapping(value)) refuse(path, `expected true, false or a mapping (got ${shown(value)})`);
  const entries = Object.entries(value).map(([key, grant]): [string, Grant] => {
    // a key here is data (an entity id has a dot of its own), so it is quoted
    const at = `${path}[${JSON.stringify(key)}]`;
    if (kind === 'entity_ids' && !validEntityId(key)) refuse(at, 'not a valid entity id (lower case <domain>.<object_id>)');
    if (kind === 'domains' && !DOMAIN.test(key)) refuse(at, 'not a valid domain');
    return [key, checkGrant(grant, at)];
  });
  return Object.fromEntries(entries);
}

function checkPolicy(value: unknown, path: string): Policy {
  if (value === undefined || value === null) return {};
  if (!isMapping(value)) refuse(path, `expected a mapping (got ${shown(value)})`);
  for (const key of Object.keys(value)) if (key !== 'entities') refuse(`${path}.${key}`, 'extra keys not allowed: a policy has entities only');
  const entities = value.entities;
  if (entities === undefined || entities === null) return {};
  if (typeof entities === 'boolean') return { entities };
  if (!isMapping(entities)) refuse(`${path}.entities`, `expected true, false or a mapping (got ${shown(entities)})`);
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(entities)) {
    if (!ENTITY_KEYS.has(key)) refuse(`${path}.entities.${key}`, 'extra keys not allowed: entities has entity_ids, device_ids, area_ids, domains and all');
    out[key] = key === 'all' ? checkGrant(v, `${path}.entities.all`) : checkLookup(key as (typeof LOOKUPS)[number], v, `${path}.entities.${key}`);
  }
  return { entities: out };
}

/**
 * The `core: auth_groups` list checked: each entry `{id, name?, policy?}`, ids unique and none
 * of the system groups'. Throws a GroupConfigError naming the entry and the key. Checking a
 * result again gives the same result.
 */
export function checkGroups(value: unknown): Group[] {
  if (value === null || value === undefined) return [];
  if (!Array.isArray(value)) refuse('auth_groups', 'expected a list of groups');
  const seen = new Set<string>(SYSTEM_GROUPS.map((g) => g.id));
  return value.map((entry, i) => {
    const at = `auth_groups[${i}]`;
    if (!isMapping(entry)) refuse(at, `expected a mapping with id, name and policy (got ${shown(entry)})`);
    for (const key of Object.keys(entry)) if (!GROUP_KEYS.has(key)) refuse(`${at}.${key}`, 'extra keys not allowed: a group has id, name and policy');
    const { id, name } = entry;
    if (typeof id !== 'string' || id.trim() === '') refuse(`${at}.id`, `expected a non-empty string (got ${shown(id)})`);
    const where = `${at} (${id})`;
    if (SYSTEM_GROUPS.some((g) => g.id === id)) refuse(`${where}.id`, 'is a system group; choose another id');
    if (seen.has(id)) refuse(`${where}.id`, 'another group has this id');
    seen.add(id);
    if (name !== undefined && name !== null && typeof name !== 'string') refuse(`${where}.name`, `expected a string (got ${shown(name)})`);
    return { id, name: typeof name === 'string' ? name : null, policy: checkPolicy(entry.policy, `${where}.policy`) };
  });
}
