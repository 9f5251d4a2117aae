import type { EntityState } from '../entities/types.ts';
import type { AreaEntry, EntityEntry, FloorEntry, Registries } from '../registries/index.ts';
import { MatchFailedError, type MatchConstraints } from './errors.ts';
import type { MatchFailedReason } from './types.ts';

/**
 * Target matching (the original's async_match_targets, core-wire §5.3): which entity states an
 * intent's name, area, floor, domains, device classes, features and states reach. Filters run in
 * the original's order, each failing with its own reason: domain, state, (nothing more asked:
 * done), name, supported features, device class, floor, area, exposure, duplicate names.
 */

/** Where to look: current states and the registries. */
export interface TargetHome {
  entities: { states(): Iterable<EntityState>; get(entityId: string): EntityState | undefined };
  registries: Pick<Registries, 'areas' | 'floors' | 'getArea' | 'getEntity' | 'areaOf'>;
}

/** How duplicate names are told apart: the asking device's area and floor. */
export interface MatchPreferences {
  areaId?: string | null;
  floorId?: string | null;
}

/** What matched: the states, and the areas and floors the constraints named. */
export interface MatchResult {
  states: EntityState[];
  areas: AreaEntry[];
  floors: FloorEntry[];
}

/** Keeps a candidate in an area filter (CoreClimateGetTemperature: an area's temperature sensor). */
export type AreaCandidateFilter = (state: EntityState, possibleAreaIds: ReadonlySet<string>) => boolean;

/** The original's `_normalize_name`: trimmed and case folded. */
export function normalizeTargetName(name: string): string {
  return name.trim().toLowerCase().replaceAll('ß', 'ss');
}

/** A state's name as the original's State.name: its friendly_name, else its object id with spaces. */
export function stateName(state: EntityState): string {
  const friendly = state.attributes.friendly_name;
  if (typeof friendly === 'string') return friendly;
  return state.entity_id.slice(state.entity_id.indexOf('.') + 1).replaceAll('_', ' ');
}

const domainOf = (entityId: string) => entityId.slice(0, entityId.indexOf('.'));

// States and registry entries are never changed in place, so their normalised names are kept
// beside them: a second search over 10k entities folds no string again.
const stateNames = new WeakMap<EntityState, string>();
const entryNames = new WeakMap<EntityEntry, string[]>();

function normalisedStateName(state: EntityState): string {
  let n = stateNames.get(state);
  if (n === undefined) {
    n = normalizeTargetName(stateName(state));
    stateNames.set(state, n);
  }
  return n;
}

function normalisedEntryNames(entry: EntityEntry): string[] {
  let n = entryNames.get(entry);
  if (n === undefined) {
    n = [...(entry.name ? [entry.name] : []), ...entry.aliases].map(normalizeTargetName);
    entryNames.set(entry, n);
  }
  return n;
}

/** Whether an assistant may see an entity: yes, unless its registry entry's options say no. */
function exposed(entry: EntityEntry | undefined, assistant: string): boolean {
  const opts = entry?.options?.[assistant] as { should_expose?: unknown } | undefined;
  return opts?.should_expose !== false;
}

/** Areas named `name`: by id, by name, by alias (the original's find_areas). */
export function findAreas(registries: TargetHome['registries'], name: string): AreaEntry[] {
  const norm = normalizeTargetName(name);
  return registries.areas().filter((a) => a.area_id === name || normalizeTargetName(a.name) === norm || a.aliases.some((x) => normalizeTargetName(x) === norm));
}

/** Floors named `name`: by id, by name, by alias (find_floors). */
export function findFloors(registries: TargetHome['registries'], name: string): FloorEntry[] {
  const norm = normalizeTargetName(name);
  return registries.floors().filter((f) => f.floor_id === name || normalizeTargetName(f.name) === norm || f.aliases.some((x) => normalizeTargetName(x) === norm));
}

/** A failed match, with the areas and floors the constraints named (a query lists them still). */
export class TargetsNotMatched extends MatchFailedError {
  constructor(
    reason: MatchFailedReason,
    constraints: MatchConstraints,
    detail: string | undefined,
    readonly areas: AreaEntry[],
    readonly floors: FloorEntry[],
  ) {
    super(reason, constraints, detail);
  }
}

interface Candidate {
  state: EntityState;
  entry?: EntityEntry;
  area?: AreaEntry | null;
}

/**
 * The states the constraints reach; throws MatchFailedError naming the first filter nothing
 * passed. `states` limits the search to those states (else all current states).
 */
export function matchTargets(
  home: TargetHome,
  constraints: MatchConstraints,
  preferences: MatchPreferences = {},
  options: { states?: EntityState[]; areaCandidateFilter?: AreaCandidateFilter; allowDuplicateNames?: boolean } = {},
): MatchResult {
  let targetedAreas: AreaEntry[] = [];
  let targetedFloors: FloorEntry[] = [];
  const fail = (reason: MatchFailedReason, detail?: string): never => {
    throw new TargetsNotMatched(reason, constraints, detail, targetedAreas, targetedFloors);
  };
  const { registries } = home;
  const domains = constraints.domains?.length ? new Set(constraints.domains) : null;
  let candidates: Candidate[] = [];
  for (const state of options.states ?? home.entities.states()) {
    if (domains && !domains.has(domainOf(state.entity_id))) continue;
    candidates.push({ state });
  }
  if (candidates.length === 0) fail('DOMAIN');

  if (constraints.states?.length) {
    const wanted = new Set(constraints.states);
    candidates = candidates.filter((c) => wanted.has(c.state.state));
    if (candidates.length === 0) fail('STATE');
  }

  const assistant = constraints.assistant ?? null;
  const isExposed = (c: Candidate) => exposed(c.entry ?? registries.getEntity(c.state.entity_id), assistant!);
  if (!(constraints.name || constraints.features || constraints.deviceClasses?.length || constraints.areaName || constraints.floorName || constraints.singleTarget)) {
    if (assistant) {
      candidates = candidates.filter(isExposed);
      if (candidates.length === 0) fail('ASSISTANT');
    }
    return { states: candidates.map((c) => c.state), areas: [], floors: [] };
  }

  for (const c of candidates) c.entry = registries.getEntity(c.state.entity_id);

  if (constraints.name) {
    const name = constraints.name;
    const norm = normalizeTargetName(name);
    candidates = candidates.filter(
      (c) => c.state.entity_id === name || normalisedStateName(c.state) === norm || (c.entry !== undefined && normalisedEntryNames(c.entry).includes(norm)),
    );
    if (candidates.length === 0) fail('NAME');
  }

  if (constraints.features) {
    const wanted = constraints.features;
    candidates = candidates.filter((c) => ((Number(c.state.attributes.supported_features) || 0) & wanted) === wanted);
    if (candidates.length === 0) fail('FEATURE');
  }

  if (constraints.deviceClasses?.length) {
    const wanted = new Set(constraints.deviceClasses);
    candidates = candidates.filter((c) => wanted.has(c.state.attributes.device_class as string));
    if (candidates.length === 0) fail('DEVICE_CLASS');
  }

  // an entity's own area, else its device's
  const areaOf = (c: Candidate): AreaEntry | null => {
    if (c.area === undefined) c.area = registries.areaOf(c.state.entity_id) ?? null;
    return c.area;
  };
  if (constraints.floorName || constraints.areaName) {
    let possibleAreaIds: Set<string>;
    if (constraints.floorName) {
      targetedFloors = findFloors(registries, constraints.floorName);
      if (targetedFloors.length === 0) fail('INVALID_FLOOR', constraints.floorName);
      const floorIds = new Set(targetedFloors.map((f) => f.floor_id));
      possibleAreaIds = new Set(registries.areas().filter((a) => a.floor_id !== null && floorIds.has(a.floor_id)).map((a) => a.area_id));
      candidates = candidates.filter((c) => {
        const area = areaOf(c);
        return area !== null && possibleAreaIds.has(area.area_id);
      });
      if (candidates.length === 0) fail('FLOOR');
    } else {
      possibleAreaIds = new Set(registries.areas().map((a) => a.area_id));
    }
    if (constraints.areaName) {
      targetedAreas = findAreas(registries, constraints.areaName);
      if (targetedAreas.length === 0) fail('INVALID_AREA', constraints.areaName);
      const named = new Set(targetedAreas.map((a) => a.area_id));
      possibleAreaIds = new Set([...possibleAreaIds].filter((id) => named.has(id)));
      if (options.areaCandidateFilter) {
        const filter = options.areaCandidateFilter;
        candidates = candidates.filter((c) => filter(c.state, possibleAreaIds));
      } else {
        candidates = candidates.filter((c) => {
          const area = areaOf(c);
          return area !== null && possibleAreaIds.has(area.area_id);
        });
      }
      if (candidates.length === 0) fail('AREA');
    }
  }

  if (assistant) {
    candidates = candidates.filter(isExposed);
    if (candidates.length === 0) fail('ASSISTANT');
  }

  // every candidate matched the one name asked: more than one is a duplicate, unless the
  // asking device's floor, then its area, leaves at most one
  if (constraints.name && !options.allowDuplicateNames && candidates.length > 1) {
    let group = candidates;
    let settled = false;
    if (preferences.floorId) {
      group = group.filter((c) => areaOf(c)?.floor_id === preferences.floorId);
      settled = group.length < 2;
    }
    if (!settled && preferences.areaId) {
      group = group.filter((c) => areaOf(c)?.area_id === preferences.areaId);
      settled = group.length < 2;
    }
    if (!settled) fail('DUPLICATE_NAME', constraints.name);
    if (group.length === 0) fail('NAME');
    candidates = group;
  }

  if (constraints.singleTarget && candidates.length > 1) {
    if (!preferences.areaId && !preferences.floorId) fail('MULTIPLE_TARGETS');
    let filtered = candidates;
    if (preferences.areaId) filtered = candidates.filter((c) => areaOf(c)?.area_id === preferences.areaId);
    if (filtered.length > 1 && preferences.floorId) filtered = candidates.filter((c) => areaOf(c)?.floor_id === preferences.floorId);
    if (filtered.length !== 1) fail('MULTIPLE_TARGETS');
    candidates = filtered;
  }

  return { states: candidates.map((c) => c.state), areas: targetedAreas, floors: targetedFloors };
}

/** Reasons that mean "nothing there" (a query answers them empty) rather than a bad request. */
export function isNoEntitiesReason(reason: MatchFailedReason): boolean {
  return reason !== 'INVALID_AREA' && reason !== 'INVALID_FLOOR' && reason !== 'DUPLICATE_NAME';
}
