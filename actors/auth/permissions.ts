/**
 * The original's permission policies (homeassistant/auth/permissions): a policy per group, a
 * user's policies merged, the merged entity policy compiled once into a checker.
 *
 * A policy is `{ entities: <category> }`, where the category is `true` (everything) or a
 * mapping of sub-categories looked up in this order: `entity_ids` (by entity id), `device_ids`,
 * `area_ids`, `domains` (by the entity's domain), `all`. Each value there is `true` or a
 * mapping of entity or domain → `true` or `{read, control, edit}`. The first sub-category that
 * has an opinion about the entity decides.
 *
 * `false` grants nothing: it reads as if the key were absent. The original's schema accepts only
 * `true`, and its merge cannot take `false`; reading it as "no opinion" keeps the merge "the
 * most permissive wins" and keeps `readAll` exact.
 */

export type Category = 'read' | 'control' | 'edit';

/** What one entity (or domain, or everything) is granted: all categories, or some. */
export type Grant = boolean | { read?: boolean; control?: boolean; edit?: boolean };

/** A sub-category: `true` for every entity, or grants by key (entity id, domain, device, area). */
export type Lookup = boolean | Record<string, Grant>;

export interface EntityPolicy {
  entity_ids?: Lookup;
  /** accepted, but Hearth has no device registry yet (issue 9): a mapping here grants nothing */
  device_ids?: Lookup;
  /** accepted, but Hearth has no area registry yet (issue 9): a mapping here grants nothing */
  area_ids?: Lookup;
  domains?: Lookup;
  all?: Grant;
}

export interface Policy {
  entities?: boolean | EntityPolicy | null;
}

/**
 * Where an entity sits, as the registries know it (device_ids and area_ids are asked through
 * it when a check runs, so a move in the registries counts at once).
 */
export interface EntityPlacement {
  /** the entity's device id */
  deviceOf(entityId: string): string | undefined;
  /** the entity's area id: its own, else its device's */
  areaIdOf(entityId: string): string | undefined;
}

/** No registries: no entity is on a device or in an area. */
export const NOWHERE: EntityPlacement = { deviceOf: () => undefined, areaIdOf: () => undefined };

/** A compiled entity policy. */
export interface EntityPermissions {
  /** every category of every entity: owners, admins, `entities: true` */
  readonly all: boolean;
  /** every entity may be read (the original's access_all_entities('read')), so no per-entity check is needed */
  readonly readAll: boolean;
  check(entityId: string, category: Category): boolean;
  canRead(entityId: string): boolean;
  canControl(entityId: string): boolean;
}

/** The system groups' policies (the original's system_policies.py). */
export const ADMIN_POLICY: Policy = { entities: true };
export const USER_POLICY: Policy = { entities: true };
export const READ_ONLY_POLICY: Policy = { entities: { all: { read: true } } };

const yes = () => true;
const no = () => false;

/** Everything allowed: one shared object, so the admin path is one boolean read. */
export const ALL: EntityPermissions = Object.freeze({ all: true, readAll: true, check: yes, canRead: yes, canControl: yes });

/** Nothing allowed. */
export const NONE: EntityPermissions = Object.freeze({ all: false, readAll: false, check: no, canRead: no, canControl: no });

type Mapping = Record<string, unknown>;
const isMapping = (v: unknown): v is Mapping => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An opinion: allowed, or undefined for "ask the next sub-category". */
type Test = (entityId: string, category: Category) => true | undefined;

/** What a grant says about a category: only `true` is an opinion. */
function grants(grant: unknown, category: Category): true | undefined {
  if (grant === true) return true;
  return isMapping(grant) && grant[category] === true ? true : undefined;
}

/** The order of the original's compile_entities: the most precise first. */
const SUB_CATEGORIES = ['entity_ids', 'device_ids', 'area_ids', 'domains', 'all'] as const;

function testFor(key: (typeof SUB_CATEGORIES)[number], value: Mapping, placement: EntityPlacement): Test {
  switch (key) {
    case 'entity_ids': {
      const byId = new Map(Object.entries(value));
      return (id, category) => grants(byId.get(id), category);
    }
    case 'domains': {
      const byDomain = new Map(Object.entries(value));
      return (id, category) => {
        const dot = id.indexOf('.');
        return grants(byDomain.get(dot < 0 ? id : id.slice(0, dot)), category);
      };
    }
    case 'device_ids': {
      const byDevice = new Map(Object.entries(value));
      return (id, category) => {
        const device = placement.deviceOf(id);
        return device === undefined ? undefined : grants(byDevice.get(device), category);
      };
    }
    case 'area_ids': {
      const byArea = new Map(Object.entries(value));
      return (id, category) => {
        const area = placement.areaIdOf(id);
        return area === undefined ? undefined : grants(byArea.get(area), category);
      };
    }
    case 'all':
      return (_id, category) => grants(value, category);
  }
}

/** The original's test_all: whether the policy grants `category` on every entity through `all`. */
function grantsAll(policy: unknown, category: Category): boolean {
  if (!isMapping(policy)) return policy === true;
  const all = policy.all;
  if (!isMapping(all)) return all === true;
  return all[category] === true;
}

/** Compiles the `entities` part of a (merged) policy into a checker. */
export function compileEntities(policy: unknown, placement: EntityPlacement = NOWHERE): EntityPermissions {
  if (policy === true) return ALL;
  if (!isMapping(policy)) return NONE;
  const tests: Test[] = [];
  for (const key of SUB_CATEGORIES) {
    const value = policy[key];
    // as in the original, `true` for any sub-category allows everything, whatever came before it
    if (value === true) return ALL;
    if (!isMapping(value)) continue;
    tests.push(testFor(key, value, placement));
  }
  if (tests.length === 0) return NONE;
  const check = (entityId: string, category: Category): boolean => {
    for (const test of tests) if (test(entityId, category) === true) return true;
    return false;
  };
  return Object.freeze({
    all: false,
    readAll: grantsAll(policy, 'read'),
    check,
    canRead: (entityId: string) => check(entityId, 'read'),
    canControl: (entityId: string) => check(entityId, 'control'),
  });
}

/** Compiles a whole (merged) policy. */
export function compilePolicy(policy: Policy, placement: EntityPlacement = NOWHERE): EntityPermissions {
  return compileEntities(policy.entities, placement);
}

/**
 * The original's merge_policies: per key, the most permissive wins — `true` over a mapping over
 * nothing — and mappings merge key by key.
 */
export function mergePolicies(policies: readonly Policy[]): Policy {
  return (mergeValues(policies) ?? {}) as Policy;
}

function mergeValues(sources: readonly unknown[]): unknown {
  let merged: Mapping | undefined;
  for (const source of sources) {
    if (source === true) return true;
    if (!isMapping(source)) continue; // null, absent, false: no opinion
    merged ??= Object.create(null) as Mapping;
    for (const key of Object.keys(source)) {
      if (Object.hasOwn(merged, key)) continue;
      merged[key] = mergeValues(sources.map((s) => (isMapping(s) ? s[key] : undefined)));
    }
  }
  return merged;
}

/**
 * A user's permissions as they are now: one object per user, pointed at a new compiled policy
 * when the user's groups change, so a long-lived subscription sees the change without looking
 * the user up on every event (the original re-reads `user.permissions` for each one).
 */
export class UserPermissions implements EntityPermissions {
  #current: EntityPermissions;

  constructor(current: EntityPermissions) {
    this.#current = current;
  }

  set(next: EntityPermissions): void {
    this.#current = next;
  }

  get all(): boolean {
    return this.#current.all;
  }

  get readAll(): boolean {
    return this.#current.readAll;
  }

  check(entityId: string, category: Category): boolean {
    return this.#current.check(entityId, category);
  }

  canRead(entityId: string): boolean {
    return this.#current.canRead(entityId);
  }

  canControl(entityId: string): boolean {
    return this.#current.canControl(entityId);
  }
}
