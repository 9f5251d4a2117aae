import type { AreaEntry, DeviceEntry, EntityEntry, FloorEntry, LabelEntry } from './types.ts';

/**
 * Entries as the original's WebSocket API sends them (key order of its dicts, times as epoch
 * seconds).
 */

const seconds = (ms: number) => ms / 1000;

export function areaDict(a: AreaEntry) {
  return {
    aliases: a.aliases,
    area_id: a.area_id,
    floor_id: a.floor_id,
    humidity_entity_id: a.humidity_entity_id,
    icon: a.icon,
    labels: a.labels,
    motion_entity_id: a.motion_entity_id,
    name: a.name,
    picture: a.picture,
    temperature_entity_id: a.temperature_entity_id,
    created_at: seconds(a.created_at),
    modified_at: seconds(a.modified_at),
  };
}

export function floorDict(f: FloorEntry) {
  return {
    aliases: f.aliases,
    created_at: seconds(f.created_at),
    floor_id: f.floor_id,
    icon: f.icon,
    level: f.level,
    name: f.name,
    modified_at: seconds(f.modified_at),
  };
}

export function labelDict(l: LabelEntry) {
  return {
    color: l.color,
    created_at: seconds(l.created_at),
    description: l.description,
    icon: l.icon,
    label_id: l.label_id,
    name: l.name,
    modified_at: seconds(l.modified_at),
  };
}

/** The original's DeviceEntry.dict_repr. */
export function deviceDict(d: DeviceEntry) {
  return {
    area_id: d.area_id,
    configuration_url: d.configuration_url,
    config_entries: d.config_entries,
    config_entries_subentries: d.config_entries_subentries,
    connections: d.connections,
    created_at: seconds(d.created_at),
    disabled_by: d.disabled_by,
    entry_type: d.entry_type,
    hw_version: d.hw_version,
    id: d.id,
    identifiers: d.identifiers,
    labels: d.labels,
    manufacturer: d.manufacturer,
    model: d.model,
    model_id: d.model_id,
    modified_at: seconds(d.modified_at),
    name_by_user: d.name_by_user,
    name: d.name,
    primary_config_entry: d.primary_config_entry,
    serial_number: d.serial_number,
    sw_version: d.sw_version,
    via_device_id: d.via_device_id,
  };
}

/** The original's RegistryEntry.as_partial_dict (config/entity_registry/list). */
export function entityPartialDict(e: EntityEntry) {
  return {
    area_id: e.area_id,
    categories: e.categories,
    config_entry_id: e.config_entry_id,
    config_subentry_id: e.config_subentry_id,
    created_at: seconds(e.created_at),
    device_id: e.device_id,
    disabled_by: e.disabled_by,
    entity_category: e.entity_category,
    entity_id: e.entity_id,
    has_entity_name: e.has_entity_name,
    hidden_by: e.hidden_by,
    icon: e.icon,
    id: e.id,
    labels: e.labels,
    modified_at: seconds(e.modified_at),
    name: e.name,
    options: e.options,
    original_name: e.original_name,
    platform: e.platform,
    translation_key: e.translation_key,
    unique_id: e.unique_id,
  };
}

/** The original's RegistryEntry.extended_dict (config/entity_registry/get and update). */
export function entityExtendedDict(e: EntityEntry) {
  return {
    ...entityPartialDict(e),
    aliases: e.aliases,
    capabilities: e.capabilities,
    device_class: e.device_class,
    original_device_class: e.original_device_class,
    original_icon: e.original_icon,
  };
}

/** The original's entity categories by index, as list_for_display numbers them. */
export const ENTITY_CATEGORIES = { 0: 'config', 1: 'diagnostic' } as const;

/** The original's display dict (config/entity_registry/list_for_display): short keys, only what is set. */
export function entityDisplayDict(e: EntityEntry): Record<string, unknown> {
  const d: Record<string, unknown> = { ei: e.entity_id, pl: e.platform };
  if (e.area_id !== null) d.ai = e.area_id;
  d.lb = e.labels;
  if (e.device_id !== null) d.di = e.device_id;
  if (e.icon !== null) d.ic = e.icon;
  if (e.translation_key !== null) d.tk = e.translation_key;
  if (e.entity_category !== null) d.ec = e.entity_category === 'config' ? 0 : 1;
  if (e.hidden_by !== null) d.hb = true;
  if (!e.name && e.has_entity_name) d.en = e.original_name;
  const sensor = e.entity_id.startsWith('sensor.') ? e.options.sensor : undefined;
  const precision = sensor?.display_precision ?? sensor?.suggested_display_precision;
  if (precision !== undefined && precision !== null) d.dp = precision;
  return d;
}
