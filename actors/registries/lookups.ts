import type { TargetExpansion, TargetRefs } from '../services/targets.ts';
import { normalizeName } from './names.ts';
import type { RegistryState } from './state.ts';
import type { AreaEntry, EntityEntry } from './types.ts';

/**
 * Questions about where things are: which entities an area, device, floor or label holds, and
 * which area an entity is in. The answers follow the original's template functions
 * (area_entities, device_entities, floor_areas, label_entities, area_id, area_name) and its
 * target expansion.
 */

const ids = (entries: Iterable<EntityEntry>) => [...entries].map((e) => e.entity_id);

/** An area by id, else by name (case and spaces ignored). */
export function findArea(s: RegistryState, idOrName: string): AreaEntry | undefined {
  return s.areas.get(idOrName) ?? s.areas.first('name', normalizeName(idOrName));
}

/** Entities of a device, disabled ones left out (the original's async_entries_for_device). */
export function entitiesOfDevice(s: RegistryState, deviceId: string): string[] {
  return ids(s.entities.find('device', deviceId).filter((e) => e.disabled_by === null));
}

/** Entities placed in an area, then those of its devices that have no area of their own. */
export function entitiesOfArea(s: RegistryState, areaId: string): string[] {
  const out = ids(s.entities.find('area', areaId));
  for (const device of s.devices.find('area', areaId)) {
    for (const e of s.entities.find('device', device.id)) if (e.area_id === null && e.disabled_by === null) out.push(e.entity_id);
  }
  return out;
}

/** Area ids of a floor. */
export function floorAreas(s: RegistryState, floorId: string): string[] {
  return s.areas.find('floor', floorId).map((a) => a.area_id);
}

/** Entities of every area of a floor. */
export function entitiesOfFloor(s: RegistryState, floorId: string): string[] {
  return floorAreas(s, floorId).flatMap((areaId) => entitiesOfArea(s, areaId));
}

/** Entities that carry a label themselves. */
export function entitiesOfLabel(s: RegistryState, labelId: string): string[] {
  return ids(s.entities.find('label', labelId));
}

/** The area of an entity: its own, else its device's. */
export function areaOf(s: RegistryState, entityId: string): AreaEntry | undefined {
  const e = s.entities.get(entityId);
  if (!e) return undefined;
  if (e.area_id !== null) return s.areas.get(e.area_id);
  const areaId = e.device_id === null ? null : (s.devices.get(e.device_id)?.area_id ?? null);
  return areaId === null ? undefined : s.areas.get(areaId);
}

/**
 * The entities a call reaches through devices, areas, floors and labels, as the original's
 * async_extract_referenced_entity_ids has them: a label reaches its entities, devices and
 * areas; a floor its areas; an area its entities and those of its devices without an area of
 * their own; a device its enabled entities. Hidden entities, and through devices and areas
 * configuration and diagnostic entities, are not reached.
 */
export function expandTargets(s: RegistryState, refs: TargetRefs): TargetExpansion {
  const missing: TargetExpansion['missing'] = { floors: [], areas: [], devices: [], labels: [] };
  const reached = new Set<string>();
  const devices = new Set<string>();
  const areas = new Set<string>();
  for (const id of refs.floor_id) if (!s.floors.has(id)) missing.floors.push(id);
  for (const id of refs.area_id) if (!s.areas.has(id)) missing.areas.push(id);
  for (const id of refs.device_id) {
    if (!s.devices.has(id)) missing.devices.push(id);
    devices.add(id);
  }
  for (const id of refs.label_id) {
    if (!s.labels.has(id)) missing.labels.push(id);
    for (const e of s.entities.find('label', id)) if (e.hidden_by === null) reached.add(e.entity_id);
    for (const d of s.devices.find('label', id)) devices.add(d.id);
    for (const a of s.areas.find('label', id)) areas.add(a.area_id);
  }
  for (const id of refs.floor_id) for (const a of s.areas.find('floor', id)) areas.add(a.area_id);
  for (const id of refs.area_id) areas.add(id);

  const primary = (e: EntityEntry) => e.hidden_by === null && e.entity_category === null;
  for (const id of devices) {
    for (const e of s.entities.find('device', id)) if (e.disabled_by === null && primary(e)) reached.add(e.entity_id);
  }
  const devicesOfAreas = [...areas].flatMap((id) => s.devices.find('area', id).map((d) => d.id));
  for (const id of areas) for (const e of s.entities.find('area', id)) if (primary(e)) reached.add(e.entity_id);
  for (const id of devicesOfAreas) {
    for (const e of s.entities.find('device', id)) if (e.disabled_by === null && primary(e) && e.area_id === null) reached.add(e.entity_id);
  }
  return { entityIds: [...reached], missing };
}
