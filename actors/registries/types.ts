/**
 * The entries of the five registries (areas, floors, labels, devices, entities) as they are kept
 * and recorded: the original's fields, times as epoch milliseconds (the wire has seconds), sets
 * as arrays. Entries are never changed in place: a change makes a new entry.
 */

export interface AreaEntry {
  area_id: string;
  name: string;
  aliases: string[];
  floor_id: string | null;
  humidity_entity_id: string | null;
  icon: string | null;
  labels: string[];
  motion_entity_id: string | null;
  picture: string | null;
  temperature_entity_id: string | null;
  created_at: number;
  modified_at: number;
}

export interface FloorEntry {
  floor_id: string;
  name: string;
  aliases: string[];
  icon: string | null;
  level: number | null;
  created_at: number;
  modified_at: number;
}

export interface LabelEntry {
  label_id: string;
  name: string;
  color: string | null;
  description: string | null;
  icon: string | null;
  created_at: number;
  modified_at: number;
}

/** `[domain, id]`, as the original's identifier and connection tuples. */
export type Pair = [string, string];

/** What disabled a device: `user` is the only one a client may set. */
export type DeviceDisabler = 'config_entry' | 'integration' | 'user';

export interface DeviceEntry {
  id: string;
  area_id: string | null;
  config_entries: string[];
  config_entries_subentries: Record<string, (string | null)[]>;
  configuration_url: string | null;
  connections: Pair[];
  created_at: number;
  disabled_by: DeviceDisabler | null;
  entry_type: 'service' | null;
  hw_version: string | null;
  identifiers: Pair[];
  labels: string[];
  manufacturer: string | null;
  model: string | null;
  model_id: string | null;
  modified_at: number;
  name_by_user: string | null;
  name: string | null;
  primary_config_entry: string | null;
  serial_number: string | null;
  sw_version: string | null;
  via_device_id: string | null;
}

/** What disabled an entity: `user` is the only one a client may set; `device` follows its device. */
export type EntityDisabler = 'config_entry' | 'device' | 'hass' | 'integration' | 'user';
export type EntityHider = 'integration' | 'user';

export interface EntityEntry {
  entity_id: string;
  /** the registry's own id (uuid hex), which survives a rename */
  id: string;
  unique_id: string;
  platform: string;
  previous_unique_id: string | null;
  aliases: string[];
  area_id: string | null;
  categories: Record<string, string>;
  capabilities: Record<string, unknown> | null;
  config_entry_id: string | null;
  config_subentry_id: string | null;
  device_class: string | null;
  device_id: string | null;
  disabled_by: EntityDisabler | null;
  entity_category: 'config' | 'diagnostic' | null;
  hidden_by: EntityHider | null;
  icon: string | null;
  has_entity_name: boolean;
  labels: string[];
  name: string | null;
  options: Record<string, Record<string, unknown>>;
  original_device_class: string | null;
  original_icon: string | null;
  original_name: string | null;
  supported_features: number;
  translation_key: string | null;
  unit_of_measurement: string | null;
  created_at: number;
  modified_at: number;
}

/**
 * A refusal with the original's WebSocket code and message: `invalid_info` for a value the
 * registry refuses, `not_found`, `home_assistant_error`.
 */
export class RegistryError extends Error {
  constructor(
    readonly code: 'invalid_info' | 'not_found' | 'home_assistant_error',
    message: string,
  ) {
    super(message);
  }
}

/**
 * An update of an id no entry has. The original looks it up unchecked and answers the KeyError
 * as `unknown_error`, which reads as a crash; here it is the refusal its delete commands give
 * (`invalid_info`, "Area ID doesn't exist"), and for a device the `not_found` of its device commands.
 */
export const noSuch = (kind: 'Area' | 'Floor' | 'Label') => new RegistryError('invalid_info', `${kind} ID doesn't exist`);
export const noDevice = () => new RegistryError('not_found', 'Device not found');

/** Fields of an area a client may set. */
export interface AreaInput {
  name?: string;
  aliases?: string[];
  floor_id?: string | null;
  humidity_entity_id?: string | null;
  icon?: string | null;
  labels?: string[];
  motion_entity_id?: string | null;
  picture?: string | null;
  temperature_entity_id?: string | null;
}

export interface FloorInput {
  name?: string;
  aliases?: string[];
  icon?: string | null;
  level?: number | null;
}

export interface LabelInput {
  name?: string;
  color?: string | null;
  description?: string | null;
  icon?: string | null;
}

/** Fields of a device a client may set. */
export interface DeviceChanges {
  area_id?: string | null;
  disabled_by?: DeviceDisabler | null;
  labels?: string[];
  name_by_user?: string | null;
}

/** Fields of an entity a client may set (config/entity_registry/update). */
export interface EntityChanges {
  aliases?: string[];
  area_id?: string | null;
  categories?: Record<string, string>;
  device_class?: string | null;
  disabled_by?: EntityDisabler | null;
  hidden_by?: EntityHider | null;
  icon?: string | null;
  labels?: string[];
  name?: string | null;
  new_entity_id?: string;
  /** one domain's options, or null to drop them */
  options?: { domain: string; options: Record<string, unknown> | null };
}

/**
 * What a platform tells the device registry about a device (the original's DeviceInfo): at
 * least one identifier or connection; a device is found again by any of them.
 */
export interface DeviceInfo {
  identifiers?: Pair[];
  connections?: Pair[];
  /** the config entry the device belongs to (see `registerConfigEntry`) */
  config_entry_id?: string;
  name?: string | null;
  manufacturer?: string | null;
  model?: string | null;
  model_id?: string | null;
  sw_version?: string | null;
  hw_version?: string | null;
  serial_number?: string | null;
  configuration_url?: string | null;
  entry_type?: 'service' | null;
  /** the identifier of the device this one talks through */
  via_device?: Pair;
  /** an area name: a new device is placed there (the area is made if there is none) */
  suggested_area?: string;
  disabled_by?: DeviceDisabler | null;
}

/**
 * What a platform tells the entity registry about one of its entities: found again by
 * (domain, platform, unique_id). `entity_id` is the id the platform would like; a new entry gets
 * it unless another entry holds it (then `_2`, `_3`...). Fields left out keep what the entry has.
 */
export interface EntityInfo {
  entity_id: string;
  unique_id: string;
  platform: string;
  device_id?: string | null;
  config_entry_id?: string | null;
  original_name?: string | null;
  original_icon?: string | null;
  original_device_class?: string | null;
  has_entity_name?: boolean;
  entity_category?: 'config' | 'diagnostic' | null;
  capabilities?: Record<string, unknown> | null;
  supported_features?: number;
  translation_key?: string | null;
  unit_of_measurement?: string | null;
  /** options the platform sets, per domain key (a sensor's `suggested_display_precision`); the user's other keys stay */
  options?: Record<string, Record<string, unknown>>;
  /** only for a new entry: created disabled (`integration`) or hidden */
  disabled_by?: EntityDisabler | null;
  hidden_by?: EntityHider | null;
}

/** A config entry that owns devices, as far as the device registry asks about it. */
export interface ConfigEntryInfo {
  domain: string;
  /**
   * Asked before a client removes a device of this entry (the integration's
   * async_remove_config_entry_device); without it the entry does not support removal.
   */
  removeDevice?: (device: DeviceEntry) => boolean | Promise<boolean>;
}
