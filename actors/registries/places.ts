import { domainOf } from '../entities/state.ts';
import { normalizeName, uniqueSlug } from './names.ts';
import type { Plan } from './plan.ts';
import { registryStream, type RegistryState } from './state.ts';
import { RegistryError, noSuch, type AreaEntry, type AreaInput, type FloorEntry, type FloorInput, type LabelEntry, type LabelInput } from './types.ts';
import { EVENT, changedFields, distinct, putArea, putDevice, putEntity, touchArea } from './writes.ts';

/**
 * Areas, floors and labels: the original's create, update and delete, with its refusals and the
 * clean-ups that follow a delete (devices and entities leave a deleted area, areas a deleted
 * floor, everything a deleted label).
 */

/** What the registries may ask about current states (an area's sensors must be real sensors). */
export interface StatesView {
  get(entityId: string): { attributes: Record<string, unknown> } | undefined;
  has(entityId: string): boolean;
}

const inUse = (name: string) => new RegistryError('invalid_info', `The name ${name} (${normalizeName(name)}) is already in use`);

/** The original's check that an area's humidity, temperature or motion entity is such a sensor. */
function checkSensor(states: StatesView | undefined, entityId: string, domain: string, deviceClass: string, what: string): void {
  const state = states?.get(entityId);
  if (!state) throw new RegistryError('invalid_info', `Entity ${entityId} does not exist`);
  if (domainOf(entityId) !== domain || state.attributes.device_class !== deviceClass) {
    throw new RegistryError('invalid_info', `Entity ${entityId} is not a ${what}`);
  }
}

function checkAreaSensors(states: StatesView | undefined, a: AreaInput): void {
  if (a.humidity_entity_id) checkSensor(states, a.humidity_entity_id, 'sensor', 'humidity', 'humidity sensor');
  if (a.motion_entity_id) checkSensor(states, a.motion_entity_id, 'binary_sensor', 'motion', 'motion binary_sensor');
  if (a.temperature_entity_id) checkSensor(states, a.temperature_entity_id, 'sensor', 'temperature', 'temperature sensor');
}

/** A rename may not take the name of another entry. */
function checkRename(taken: { name: string } | undefined, oldName: string, name: string | undefined): void {
  if (name === undefined || name === oldName) return;
  if (normalizeName(name) !== normalizeName(oldName) && taken) throw inUse(name);
}

export function createArea(s: RegistryState, p: Plan, input: AreaInput & { name: string }, states?: StatesView): AreaEntry {
  if (s.areas.first('name', normalizeName(input.name))) throw inUse(input.name);
  checkAreaSensors(states, input);
  const area: AreaEntry = {
    area_id: uniqueSlug(input.name, (id) => s.areas.has(id)),
    name: input.name,
    aliases: distinct(input.aliases ?? []),
    floor_id: input.floor_id ?? null,
    humidity_entity_id: input.humidity_entity_id ?? null,
    icon: input.icon ?? null,
    labels: distinct(input.labels ?? []),
    motion_entity_id: input.motion_entity_id ?? null,
    picture: input.picture ?? null,
    temperature_entity_id: input.temperature_entity_id ?? null,
    created_at: p.now,
    modified_at: p.now,
  };
  p.record(registryStream('area', area.area_id), { type: 'area_created', data: area });
  p.event(EVENT.area, { action: 'create', area_id: area.area_id });
  return area;
}

/** Updates an area; the original fires its event even when nothing changed. */
export function updateArea(s: RegistryState, p: Plan, areaId: string, input: AreaInput, states?: StatesView): AreaEntry {
  const old = s.areas.get(areaId);
  if (!old) throw noSuch('Area');
  const wanted = { ...input, aliases: input.aliases && distinct(input.aliases), labels: input.labels && distinct(input.labels) };
  const changes = changedFields(old, wanted);
  checkAreaSensors(states, { humidity_entity_id: changes.humidity_entity_id, motion_entity_id: changes.motion_entity_id, temperature_entity_id: changes.temperature_entity_id });
  checkRename(input.name === undefined ? undefined : s.areas.first('name', normalizeName(input.name)), old.name, changes.name);
  const next = Object.keys(changes).length ? putArea(p, old, changes) : old;
  p.event(EVENT.area, { action: 'update', area_id: areaId });
  return next;
}

/** Deletes an area: its devices and entities are cleared of it first, as the original does. */
export function deleteArea(s: RegistryState, p: Plan, areaId: string): void {
  if (!s.areas.has(areaId)) throw noSuch('Area');
  for (const device of s.devices.find('area', areaId)) putDevice(p, device, { area_id: null });
  for (const entity of s.entities.find('area', areaId)) putEntity(p, entity, { area_id: null });
  p.record(registryStream('area', areaId), { type: 'area_removed', data: { area_id: areaId } });
  p.event(EVENT.area, { action: 'remove', area_id: areaId });
}

export function createFloor(s: RegistryState, p: Plan, input: FloorInput & { name: string }): FloorEntry {
  if (s.floors.first('name', normalizeName(input.name))) throw inUse(input.name);
  const floor: FloorEntry = {
    floor_id: uniqueSlug(input.name, (id) => s.floors.has(id)),
    name: input.name,
    aliases: distinct(input.aliases ?? []),
    icon: input.icon ?? null,
    level: input.level ?? null,
    created_at: p.now,
    modified_at: p.now,
  };
  p.record(registryStream('floor', floor.floor_id), { type: 'floor_created', data: floor });
  p.event(EVENT.floor, { action: 'create', floor_id: floor.floor_id });
  return floor;
}

/** Updates a floor; no change, no record and no event. */
export function updateFloor(s: RegistryState, p: Plan, floorId: string, input: FloorInput): FloorEntry {
  const old = s.floors.get(floorId);
  if (!old) throw noSuch('Floor');
  const changes = changedFields(old, { ...input, aliases: input.aliases && distinct(input.aliases) });
  if (!Object.keys(changes).length) return old;
  checkRename(input.name === undefined ? undefined : s.floors.first('name', normalizeName(input.name)), old.name, changes.name);
  const next: FloorEntry = { ...old, ...changes, modified_at: p.now };
  p.record(registryStream('floor', floorId), { type: 'floor_updated', data: next });
  p.event(EVENT.floor, { action: 'update', floor_id: floorId });
  return next;
}

/** Deletes a floor; its areas are then on no floor. */
export function deleteFloor(s: RegistryState, p: Plan, floorId: string): void {
  if (!s.floors.has(floorId)) throw noSuch('Floor');
  p.record(registryStream('floor', floorId), { type: 'floor_removed', data: { floor_id: floorId } });
  p.event(EVENT.floor, { action: 'remove', floor_id: floorId });
  for (const area of s.areas.find('floor', floorId)) touchArea(p, area, { floor_id: null });
}

export function createLabel(s: RegistryState, p: Plan, input: LabelInput & { name: string }): LabelEntry {
  if (s.labels.first('name', normalizeName(input.name))) throw inUse(input.name);
  const label: LabelEntry = {
    label_id: uniqueSlug(input.name, (id) => s.labels.has(id)),
    name: input.name,
    color: input.color ?? null,
    description: input.description ?? null,
    icon: input.icon ?? null,
    created_at: p.now,
    modified_at: p.now,
  };
  p.record(registryStream('label', label.label_id), { type: 'label_created', data: label });
  p.event(EVENT.label, { action: 'create', label_id: label.label_id });
  return label;
}

export function updateLabel(s: RegistryState, p: Plan, labelId: string, input: LabelInput): LabelEntry {
  const old = s.labels.get(labelId);
  if (!old) throw noSuch('Label');
  const changes = changedFields(old, input);
  if (!Object.keys(changes).length) return old;
  checkRename(input.name === undefined ? undefined : s.labels.first('name', normalizeName(input.name)), old.name, changes.name);
  const next: LabelEntry = { ...old, ...changes, modified_at: p.now };
  p.record(registryStream('label', labelId), { type: 'label_updated', data: next });
  p.event(EVENT.label, { action: 'update', label_id: labelId });
  return next;
}

/** Deletes a label; areas, devices and entities then no longer carry it. */
export function deleteLabel(s: RegistryState, p: Plan, labelId: string): void {
  if (!s.labels.has(labelId)) throw noSuch('Label');
  p.record(registryStream('label', labelId), { type: 'label_removed', data: { label_id: labelId } });
  p.event(EVENT.label, { action: 'remove', label_id: labelId });
  const without = (labels: string[]) => labels.filter((l) => l !== labelId);
  for (const area of s.areas.find('label', labelId)) touchArea(p, area, { labels: without(area.labels) });
  for (const device of s.devices.find('label', labelId)) putDevice(p, device, { labels: without(device.labels) });
  for (const entity of s.entities.find('label', labelId)) putEntity(p, entity, { labels: without(entity.labels) });
}
