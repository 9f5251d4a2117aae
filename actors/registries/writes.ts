import type { Plan } from './plan.ts';
import { registryStream, type EntityRemovedData } from './state.ts';
import type { AreaEntry, DeviceEntry, EntityEntry } from './types.ts';
import { deviceDict } from './wire.ts';

/**
 * The records of one entry's change and the bus event the original fires for it. Decisions
 * (areas, devices, entities) call these with only the fields that change.
 */

export const EVENT = {
  area: 'area_registry_updated',
  floor: 'floor_registry_updated',
  label: 'label_registry_updated',
  device: 'device_registry_updated',
  entity: 'entity_registry_updated',
} as const;

/** True for two values the registry treats as the same (string lists compare as sets, as the original's sets do). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b) && a.every((x) => typeof x === 'string') && b.every((x) => typeof x === 'string')) {
    const set = new Set(a as string[]);
    return set.size === new Set(b as string[]).size && (b as string[]).every((x) => set.has(x));
  }
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The fields of `wanted` (undefined: not asked for) whose value differs from `old`'s. */
export function changedFields<E extends object>(old: E, wanted: Partial<E>): Partial<E> {
  const out: Partial<E> = {};
  for (const [k, v] of Object.entries(wanted) as [keyof E, E[keyof E]][]) {
    if (v !== undefined && !sameValue(old[k], v)) out[k] = v;
  }
  return out;
}

/** A list without repeats, in first-seen order (the original keeps these as sets). */
export const distinct = <T>(list: readonly T[]): T[] => [...new Set(list)];

function oldValues<E extends object>(old: E, changes: Partial<E>): Record<string, unknown> {
  return Object.fromEntries(Object.keys(changes).map((k) => [k, old[k as keyof E]]));
}

/** An area with some fields changed. The bus event is the caller's: the original fires it even for no change. */
export function putArea(p: Plan, old: AreaEntry, changes: Partial<AreaEntry>): AreaEntry {
  const next: AreaEntry = { ...old, ...changes, modified_at: p.now };
  p.record(registryStream('area', old.area_id), { type: 'area_updated', data: next });
  return next;
}

/** An area cleared of a floor or label that went, with its event. */
export function touchArea(p: Plan, old: AreaEntry, changes: Partial<AreaEntry>): void {
  putArea(p, old, changes);
  p.event(EVENT.area, { action: 'update', area_id: old.area_id });
}

/** A device with some fields changed: `device_updated` and the event with the old values. */
export function putDevice(p: Plan, old: DeviceEntry, changes: Partial<DeviceEntry>): DeviceEntry {
  const next: DeviceEntry = { ...old, ...changes, modified_at: p.now };
  p.record(registryStream('device', old.id), { type: 'device_updated', data: next });
  p.event(EVENT.device, { action: 'update', device_id: old.id, changes: oldValues(old, changes) });
  return next;
}

/** A device that goes: what the original's event carries is the device as it was. */
export function dropDevice(p: Plan, device: DeviceEntry): void {
  p.record(registryStream('device', device.id), { type: 'device_removed', data: device });
  p.event(EVENT.device, { action: 'remove', device_id: device.id, device: deviceDict(device) });
}

/**
 * An entity with some fields changed. A new entity id moves the entry to its new stream: the
 * old one ends with a removal naming where it went.
 */
export function putEntity(p: Plan, old: EntityEntry, changes: Partial<EntityEntry>): EntityEntry {
  const next: EntityEntry = { ...old, ...changes, modified_at: p.now };
  const renamed = next.entity_id !== old.entity_id;
  if (renamed) {
    const gone: EntityRemovedData = { entity_id: old.entity_id, entry: old, new_entity_id: next.entity_id };
    p.record(registryStream('entity', old.entity_id), { type: 'entity_entry_removed', data: gone });
  }
  p.record(registryStream('entity', next.entity_id), { type: 'entity_entry_updated', data: next });
  const data: Record<string, unknown> = { action: 'update', entity_id: next.entity_id, changes: oldValues(old, changes) };
  if (renamed) data.old_entity_id = old.entity_id;
  p.event(EVENT.entity, data);
  return next;
}

export function dropEntity(p: Plan, entry: EntityEntry): void {
  const gone: EntityRemovedData = { entity_id: entry.entity_id, entry, new_entity_id: null };
  p.record(registryStream('entity', entry.entity_id), { type: 'entity_entry_removed', data: gone });
  p.event(EVENT.entity, { action: 'remove', entity_id: entry.entity_id });
}
