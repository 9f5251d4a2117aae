import { TemplateError } from './errors.ts';
import { argument, fn, fromJson, type FilterFn, type RenderEnv, type TestFn } from './render-env.ts';
import { DateTime } from './datetime.ts';
import { UTC } from './zones.ts';
import { Callable, MISSING, PyObject, Undefined, dictGet, isDict, isTuple, pyEq, str, strRepr, type Ctx } from './values.ts';
import { validEntityId } from '../entities/state.ts';
import type { EntityState } from '../entities/types.ts';

/**
 * The home as templates read it: `states` (callable, by domain, iterable), state objects, and
 * the original's state functions. Every read is recorded in the render's info, which decides
 * what re-renders a subscribed template: an entity read, a domain iterated, all states iterated.
 */

/** The states a render may read (for a user who may not read all, only theirs). */
export interface StateSource {
  get(entityId: string): EntityState | undefined;
  /** all states, in the order they were created */
  all(): Iterable<EntityState>;
}

/**
 * The registry lookups of the original's area, floor, device and label functions. Until the
 * registries exist the default answers nothing; an implementation plugs in through the
 * Templates service's options (see actors/templates/index.ts).
 */
export interface TemplateHome {
  /** entity ids of an area given by id or name (entities of its devices included) */
  areaEntities(areaIdOrName: string): string[];
  /** the area name of an area id, a device id or an entity id */
  areaName(lookup: string): string | null;
  /** area ids of a floor given by id or name */
  floorAreas(floorIdOrName: string): string[];
  /** entity ids of a device */
  deviceEntities(deviceId: string): string[];
  /** entity ids of a label given by id or name */
  labelEntities(labelIdOrName: string): string[];
}

/** No registries yet: no area, floor, device or label has anything. */
export const NO_REGISTRIES: TemplateHome = {
  areaEntities: () => [],
  areaName: () => null,
  floorAreas: () => [],
  deviceEntities: () => [],
  labelEntities: () => [],
};

const DOMAIN = /^(?!.+__)(?!_)[\da-z_]+(?<!_)$/;
const RESERVED = new Set(['contextfunction', 'evalcontextfunction', 'environmentfunction', 'jinja_pass_arg']);
const COLLECTED = new Set(['state', 'attributes', 'last_changed', 'last_updated', 'last_reported', 'context', 'domain', 'object_id', 'name']);

/** Attribute dicts as templates see them (1.5 a float, nested dicts Maps), made once per state. */
const attributeCache = new WeakMap<EntityState, unknown>();
function templateAttributes(s: EntityState): unknown {
  let a = attributeCache.get(s);
  if (a === undefined) {
    a = fromJson(s.attributes);
    attributeCache.set(s, a);
  }
  return a;
}

const domainOf = (entityId: string) => entityId.slice(0, entityId.indexOf('.'));

/** A state in a template; reading most of its fields marks the entity as read (when `collect`). */
export class TemplateState extends PyObject {
  readonly pyType = 'TemplateState';
  override get typeRepr() {
    return 'homeassistant.helpers.template.states.TemplateState object';
  }
  constructor(
    readonly s: EntityState,
    private readonly collect: boolean,
  ) {
    super();
  }

  private field(name: string): unknown {
    const s = this.s;
    switch (name) {
      case 'state':
        return s.state;
      case 'attributes':
        return templateAttributes(s);
      case 'last_changed':
        return DateTime.fromEpochMs(s.last_changed, UTC);
      case 'last_updated':
        return DateTime.fromEpochMs(s.last_updated, UTC);
      case 'last_reported':
        return DateTime.fromEpochMs(s.last_reported, UTC);
      case 'context':
        return new Map<unknown, unknown>(Object.entries(s.context));
      case 'domain':
        return domainOf(s.entity_id);
      case 'object_id':
        return s.entity_id.slice(s.entity_id.indexOf('.') + 1);
      case 'name': {
        const friendly = s.attributes.friendly_name;
        return typeof friendly === 'string' && friendly ? friendly : s.entity_id.slice(s.entity_id.indexOf('.') + 1).replace(/_/g, ' ');
      }
    }
    return MISSING;
  }

  override attr(name: string, ctx: Ctx): unknown {
    if (name === 'entity_id') return this.s.entity_id;
    if (COLLECTED.has(name)) {
      if (this.collect) ctx.collectEntity(this.s.entity_id);
      return this.field(name);
    }
    if (name === 'state_with_unit') {
      if (this.collect) ctx.collectEntity(this.s.entity_id);
      return withUnit(this.s);
    }
    return MISSING;
  }

  override equals(other: unknown): boolean {
    if (!(other instanceof TemplateState)) return false;
    const a = this.s;
    const b = other.s;
    return a === b || (a.entity_id === b.entity_id && a.state === b.state && a.context.id === b.context.id && pyEq(templateAttributes(a), templateAttributes(b)));
  }

  repr(): string {
    const s = this.s;
    const attrs = Object.entries(s.attributes);
    const shown = attrs.length ? `; ${attrs.map(([k, v]) => `${k}=${str(fromJson(v))}`).join(', ')}` : '';
    return `<template TemplateState(<state ${s.entity_id}=${s.state}${shown} @ ${DateTime.fromEpochMs(s.last_changed, UTC).isoformat()}>)>`;
  }
}

function withUnit(s: EntityState): string {
  const unit = s.attributes.unit_of_measurement;
  return typeof unit === 'string' && unit ? `${s.state} ${unit}` : s.state;
}

/** The original's _get_state: a state object, or None (the entity is still recorded as read). */
function getState(r: RenderEnv, entityId: unknown): TemplateState | null {
  if (typeof entityId !== 'string') return null;
  const s = r.world.states.get(entityId);
  if (!s) {
    r.collectEntity(entityId);
    return null;
  }
  return new TemplateState(s, true);
}

/** _get_state_if_valid: as getState, but an id that cannot exist is an error. */
function getStateIfValid(r: RenderEnv, entityId: string): TemplateState | null {
  const s = r.world.states.get(entityId);
  if (!s && !validEntityId(entityId)) throw new TemplateError('TemplateError', `Invalid entity ID '${entityId}'`);
  if (!s) {
    r.collectEntity(entityId);
    return null;
  }
  return new TemplateState(s, true);
}

/** The states of a domain (or all), as iteration yields them: not recorded one by one. */
function statesOf(r: RenderEnv, domain: string | null): TemplateState[] {
  const out: TemplateState[] = [];
  const prefix = domain === null ? '' : `${domain}.`;
  let seen = 0;
  for (const s of r.world.states.all()) {
    seen++;
    if (s.entity_id.startsWith(prefix)) out.push(new TemplateState(s, false));
  }
  r.charge(seen);
  return out;
}

/** `states.<domain>`: its entities by object id; iterating it re-renders on changes in the domain. */
export class DomainStates extends PyObject {
  readonly pyType = 'DomainStates';
  override get typeRepr() {
    return 'homeassistant.helpers.template.states.DomainStates object';
  }
  constructor(readonly domain: string) {
    super();
  }
  override attr(name: string, ctx: Ctx): unknown {
    return getStateIfValid(ctx as RenderEnv, `${this.domain}.${name}`);
  }
  override iterate(ctx: Ctx): unknown[] {
    const r = ctx as RenderEnv;
    r.info.domains.add(this.domain);
    return statesOf(r, this.domain);
  }
  override length(ctx: Ctx): number {
    const r = ctx as RenderEnv;
    r.info.domainsLifecycle.add(this.domain);
    let n = 0;
    let seen = 0;
    const prefix = `${this.domain}.`;
    for (const s of r.world.states.all()) {
      seen++;
      if (s.entity_id.startsWith(prefix)) n++;
    }
    r.charge(seen);
    return n;
  }
  override equals(other: unknown): boolean {
    return other instanceof DomainStates && other.domain === this.domain;
  }
  repr(): string {
    return `<template DomainStates(${strRepr(this.domain)})>`;
  }
}

/** `states`: callable (`states('light.x')`), by domain (`states.light.x`), iterable (all states). */
export class AllStates extends Callable {
  override readonly pyType = 'AllStates';
  override get typeRepr() {
    return 'homeassistant.helpers.template.states.AllStates object';
  }
  constructor() {
    super('states', (ctx, args, kwargs) => {
      const r = ctx as RenderEnv;
      if (args.length === 1 && kwargs.size === 0 && typeof args[0] === 'string') {
        // the common `states('light.x')`: no state object needed
        r.collectEntity(args[0]);
        return r.world.states.get(args[0])?.state ?? 'unknown';
      }
      const state = getState(r, args[0]);
      if (!state) return 'unknown';
      const rounded = argument(args, kwargs, 1, 'rounded', MISSING);
      const unit = argument(args, kwargs, 2, 'with_unit', false) === true;
      if (unit || (rounded !== MISSING && r.truth(rounded))) {
        r.collectEntity(state.s.entity_id);
        return unit ? withUnit(state.s) : state.s.state;
      }
      return state.attr('state', r);
    });
  }
  override attr(name: string, ctx: Ctx): unknown {
    const r = ctx as RenderEnv;
    if (name.includes('.')) return getStateIfValid(r, name);
    if (RESERVED.has(name)) return null;
    if (!DOMAIN.test(name)) throw new TemplateError('TemplateError', `Invalid domain name '${name}'`);
    return new DomainStates(name);
  }
  override iterate(ctx: Ctx): unknown[] {
    const r = ctx as RenderEnv;
    r.info.allStates = true;
    return statesOf(r, null);
  }
  override length(ctx: Ctx): number {
    const r = ctx as RenderEnv;
    r.info.allStatesLifecycle = true;
    let n = 0;
    for (const _ of r.world.states.all()) n++;
    r.charge(n);
    return n;
  }
  override repr(): string {
    return '<template AllStates>';
  }
}

function isState(r: RenderEnv, entityId: unknown, state: unknown): boolean {
  const s = getState(r, entityId);
  if (!s) return false;
  const current = s.attr('state', r);
  return current === state || (Array.isArray(state) && !isTuple(state) && state.some((x) => pyEq(x, current)));
}

function stateAttr(r: RenderEnv, entityId: unknown, name: unknown): unknown {
  const s = getState(r, entityId);
  if (!s) return null;
  const attrs = s.attr('attributes', r);
  const v = isDict(attrs) ? dictGet(attrs, name) : MISSING;
  return v === MISSING ? null : v;
}

function isStateAttr(r: RenderEnv, entityId: unknown, name: unknown, value: unknown): boolean {
  const s = getState(r, entityId);
  if (!s) return false;
  const attrs = s.attr('attributes', r);
  const v = isDict(attrs) ? dictGet(attrs, name) : MISSING;
  return v !== MISSING && pyEq(v, value);
}

function hasValue(r: RenderEnv, entityId: unknown): boolean {
  const s = getState(r, entityId);
  if (!s) return false;
  const state = s.attr('state', r);
  return state !== 'unavailable' && state !== 'unknown';
}

/** The original's expand: entity ids, states, lists, groups (and zones' persons) to states, sorted by entity id. */
export function expand(r: RenderEnv, args: unknown[]): TemplateState[] {
  const search = [...args];
  const found = new Map<string, TemplateState>();
  while (search.length) {
    r.charge(1);
    let entity = search.pop();
    let entityId: string;
    if (typeof entity === 'string') {
      entityId = entity;
      entity = getState(r, entity);
      if (!entity) continue;
    } else if (entity instanceof TemplateState) {
      entityId = entity.s.entity_id;
    } else if (Array.isArray(entity) || entity instanceof AllStates || entity instanceof DomainStates) {
      search.push(...r.iterate(entity));
      continue;
    } else continue;
    if (found.has(entityId)) continue;
    const state = entity as TemplateState;
    const domain = domainOf(entityId);
    if (domain === 'group' || domain === 'zone') {
      const attrs = state.attr('attributes', r);
      const members = isDict(attrs) ? dictGet(attrs, domain === 'group' ? 'entity_id' : 'persons') : MISSING;
      if (Array.isArray(members) && members.length) search.push(...members);
      continue;
    }
    r.collectEntity(entityId);
    found.set(entityId, state);
  }
  return [...found.values()].sort((a, b) => (a.s.entity_id < b.s.entity_id ? -1 : a.s.entity_id > b.s.entity_id ? 1 : 0));
}

/** A state from an entity id or a state object, as the original's _resolve_state. */
export function resolveState(r: RenderEnv, v: unknown): TemplateState | null {
  if (v instanceof TemplateState) return v;
  if (typeof v === 'string') return getState(r, v);
  return null;
}

function registryLookup(name: string, lookup: (r: RenderEnv, key: string) => unknown) {
  return fn(name, (r, args) => {
    const key = args[0];
    if (key instanceof Undefined) throw new TemplateError('UndefinedError', key.message);
    return lookup(r, str(key));
  });
}

const REGISTRY: Record<string, Callable> = {
  area_entities: registryLookup('area_entities', (r, k) => [...r.world.home.areaEntities(k)]),
  area_name: registryLookup('area_name', (r, k) => r.world.home.areaName(k)),
  floor_areas: registryLookup('floor_areas', (r, k) => [...r.world.home.floorAreas(k)]),
  device_entities: registryLookup('device_entities', (r, k) => [...r.world.home.deviceEntities(k)]),
  label_entities: registryLookup('label_entities', (r, k) => [...r.world.home.labelEntities(k)]),
};

const STATES = new AllStates();

export const STATE_GLOBALS: Record<string, unknown> = {
  states: STATES,
  is_state: fn('is_state', (r, a) => isState(r, a[0], a[1])),
  state_attr: fn('state_attr', (r, a) => stateAttr(r, a[0], a[1])),
  is_state_attr: fn('is_state_attr', (r, a) => isStateAttr(r, a[0], a[1], a[2])),
  has_value: fn('has_value', (r, a) => hasValue(r, a[0])),
  expand: fn('expand', (r, a) => expand(r, a)),
  state_translated: fn('state_translated', (r, a) => {
    const s = getStateIfValid(r, str(a[0]));
    return s ? s.attr('state', r) : 'unknown';
  }),
  is_hidden_entity: fn('is_hidden_entity', () => false),
  ...REGISTRY,
};

export const STATE_FILTERS: Record<string, FilterFn> = {
  states: (r, v, a, k) => STATES.call(r, [v, ...a], k),
  state_attr: (r, v, a) => stateAttr(r, v, a[0]),
  is_state: (r, v, a) => isState(r, v, a[0]),
  is_state_attr: (r, v, a) => isStateAttr(r, v, a[0], a[1]),
  has_value: (r, v) => hasValue(r, v),
  expand: (r, v, a) => expand(r, [v, ...a]),
  state_translated: (r, v) => (STATE_GLOBALS.state_translated as Callable).call(r, [v], new Map()),
  ...Object.fromEntries(Object.entries(REGISTRY).map(([name, f]) => [name, ((r, v) => f.call(r, [v], new Map())) as FilterFn])),
};

export const STATE_TESTS: Record<string, TestFn> = {
  is_state: (r, v, a) => isState(r, v, a[0]),
  is_state_attr: (r, v, a) => isStateAttr(r, v, a[0], a[1]),
  has_value: (r, v) => hasValue(r, v),
  is_hidden_entity: () => false,
};
