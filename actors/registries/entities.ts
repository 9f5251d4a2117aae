import { MAX_ENTITY_ID_LENGTH, domainOf, validEntityId } from '../entities/state.ts';
import type { StatesView } from './places.ts';
import type { Plan } from './plan.ts';
import { registryStream, uniqueKey, type RegistryState } from './state.ts';
import { RegistryError, type EntityChanges, type EntityEntry, type EntityInfo } from './types.ts';
import { EVENT, changedFields, distinct, dropEntity, putEntity } from './writes.ts';

/**
 * The entity registry: what platforms report of their entities (found again by domain,
 * platform and unique id), what clients change (config/entity_registry/update), and removal.
 */

const notFound = () => new RegistryError('not_found', 'Entity not found');

/** `preferred`, or `preferred_2`, `_3`... cut to the longest entity id, as the original's async_generate_entity_id. */
function freeEntityId(s: RegistryState, p: Plan, preferred: string): string {
  const free = (id: string) => !s.entities.has(id) && !p.newEntityIds.has(id);
  let candidate = preferred.slice(0, MAX_ENTITY_ID_LENGTH);
  for (let tries = 2; !free(candidate); tries++) {
    const suffix = `_${tries}`;
    candidate = `${preferred.slice(0, MAX_ENTITY_ID_LENGTH - suffix.length)}${suffix}`;
  }
  return candidate;
}

function blankEntity(entityId: string, id: string, info: EntityInfo, now: number): EntityEntry {
  return {
    entity_id: entityId,
    id,
    unique_id: info.unique_id,
    platform: info.platform,
    previous_unique_id: null,
    aliases: [],
    area_id: null,
    categories: {},
    capabilities: null,
    config_entry_id: null,
    config_subentry_id: null,
    device_class: null,
    device_id: null,
    disabled_by: info.disabled_by ?? null,
    entity_category: null,
    hidden_by: info.hidden_by ?? null,
    icon: null,
    has_entity_name: false,
    labels: [],
    name: null,
    options: {},
    original_device_class: null,
    original_icon: null,
    original_name: null,
    supported_features: 0,
    translation_key: null,
    unit_of_measurement: null,
    created_at: now,
    modified_at: now,
  };
}

/** Options a platform sets merged into an entry's: each domain's keys given replace those keys only. */
function withOptions(current: EntityEntry['options'], given: EntityInfo['options']): EntityEntry['options'] | undefined {
  if (!given) return undefined;
  const out = { ...current };
  for (const [domain, values] of Object.entries(given)) out[domain] = { ...current[domain], ...values };
  return out;
}

/** The fields a platform reports (left out: unchanged). */
function reported(info: EntityInfo, current: EntityEntry['options'] = {}): Partial<EntityEntry> {
  return {
    options: withOptions(current, info.options),
    device_id: info.device_id,
    config_entry_id: info.config_entry_id,
    original_name: info.original_name,
    original_icon: info.original_icon,
    original_device_class: info.original_device_class,
    has_entity_name: info.has_entity_name,
    entity_category: info.entity_category,
    capabilities: info.capabilities,
    supported_features: info.supported_features,
    translation_key: info.translation_key,
    unit_of_measurement: info.unit_of_measurement,
  };
}

/**
 * The entry of an entity a platform provides, made or brought up to date (the original's
 * async_get_or_create). Its entity id may differ from the one asked for: the user may have
 * renamed it, or another entry held that id.
 */
export function ensureEntity(s: RegistryState, p: Plan, info: EntityInfo, newId: () => string): EntityEntry {
  if (!validEntityId(info.entity_id)) throw new RegistryError('invalid_info', `Invalid entity ID: ${info.entity_id}`);
  if (typeof info.unique_id !== 'string' || typeof info.platform !== 'string' || info.platform === '') {
    throw new RegistryError('invalid_info', `unique_id and platform must be strings (entity ${info.entity_id})`);
  }
  const key = uniqueKey(domainOf(info.entity_id), info.platform, info.unique_id);
  const existing = s.entities.first('unique', key);
  if (existing) {
    const changes = changedFields(existing, reported(info, existing.options));
    return Object.keys(changes).length ? putEntity(p, existing, changes) : existing;
  }
  const entityId = freeEntityId(s, p, info.entity_id);
  p.newEntityIds.add(entityId);
  const blank = blankEntity(entityId, s.deletedEntities.get(key)?.id ?? newId(), info, p.now);
  // a new entity of a device the user disabled starts disabled with it, as in the original
  const device = info.device_id ? s.devices.get(info.device_id) : undefined;
  if (info.disabled_by === undefined && device?.disabled_by && device.disabled_by !== 'config_entry') blank.disabled_by = 'device';
  const entry: EntityEntry = { ...blank, ...changedFields(blank, reported(info)) };
  p.record(registryStream('entity', entityId), { type: 'entity_entry_created', data: entry });
  p.event(EVENT.entity, { action: 'create', entity_id: entityId });
  return entry;
}

/**
 * What a client changes (config/entity_registry/update), with the original's refusals:
 * enabling an entity of a disabled device, and a new entity id that is taken, invalid or of
 * another domain. Aliases are trimmed and empty ones dropped; categories and options change
 * per scope and per domain.
 */
export function updateEntity(s: RegistryState, p: Plan, entityId: string, input: EntityChanges, states?: StatesView): EntityEntry {
  const old = s.entities.get(entityId);
  if (!old) throw notFound();
  if (input.disabled_by === null && old.device_id !== null && s.devices.get(old.device_id)?.disabled_by) {
    throw new RegistryError('invalid_info', 'Device is disabled');
  }
  const wanted: Partial<EntityEntry> = {
    area_id: input.area_id,
    device_class: input.device_class,
    disabled_by: input.disabled_by,
    hidden_by: input.hidden_by,
    icon: input.icon,
    name: input.name,
    aliases: input.aliases && distinct(input.aliases.map((a) => a.trim()).filter(Boolean)),
    labels: input.labels && distinct(input.labels),
  };
  if (input.categories) {
    const categories = { ...old.categories };
    for (const [scope, id] of Object.entries(input.categories)) {
      if (id === null) delete categories[scope];
      else categories[scope] = id;
    }
    wanted.categories = categories;
  }
  if (input.options) {
    const options = { ...old.options };
    if (input.options.options === null) delete options[input.options.domain];
    else options[input.options.domain] = input.options.options;
    wanted.options = options;
  }
  const changes = changedFields(old, wanted);
  const renameTo = input.new_entity_id;
  if (renameTo !== undefined && renameTo !== old.entity_id) {
    if (s.entities.has(renameTo) || states?.has(renameTo)) throw new RegistryError('invalid_info', 'Entity with this ID is already registered');
    if (!validEntityId(renameTo)) throw new RegistryError('invalid_info', 'Invalid entity ID');
    if (domainOf(renameTo) !== domainOf(old.entity_id)) throw new RegistryError('invalid_info', 'New entity ID should be same domain');
    changes.entity_id = renameTo;
  }
  return Object.keys(changes).length ? putEntity(p, old, changes) : old;
}

export function removeEntity(s: RegistryState, p: Plan, entityId: string): void {
  const entry = s.entities.get(entityId);
  if (!entry) throw notFound();
  dropEntity(p, entry);
}

/**
 * A platform's whole set of entities (a helper domain after its configuration was read): each
 * is ensured, and entries of the platform it no longer provides are removed, as the original
 * removes a YAML helper's entry when the item leaves the configuration.
 */
export function syncPlatform(s: RegistryState, p: Plan, platform: string, infos: EntityInfo[], newId: () => string): EntityEntry[] {
  const kept = new Set<string>();
  const entries = infos.map((info) => {
    const entry = ensureEntity(s, p, { ...info, platform }, newId);
    kept.add(entry.id);
    return entry;
  });
  for (const e of [...s.entities.values()]) if (e.platform === platform && !kept.has(e.id)) dropEntity(p, e);
  return entries;
}
