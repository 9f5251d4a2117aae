import { createArea } from './places.ts';
import { normalizeName } from './names.ts';
import type { Plan } from './plan.ts';
import { pairKey, registryStream, type RegistryState } from './state.ts';
import { RegistryError, noDevice, type DeviceChanges, type DeviceEntry, type DeviceInfo, type Pair } from './types.ts';
import { EVENT, changedFields, distinct, dropDevice, dropEntity, putDevice, putEntity } from './writes.ts';

/**
 * Devices: what platforms report (found again by any identifier or connection, as the
 * original's async_get_or_create finds them), what clients may change (area, labels, name,
 * disabled by the user), and removal. A device's entities follow it: disabled with it, enabled
 * with it, removed with it.
 */

/** The original's format_mac: a MAC address in lower case with colons, however it was written. */
export function formatMac(mac: string): string {
  let hex = mac;
  if (hex.length === 17 && hex.split(':').length === 6) return hex.toLowerCase();
  if (hex.length === 17 && hex.split('-').length === 6) hex = hex.replaceAll('-', '');
  else if (hex.length === 14 && hex.split('.').length === 3) hex = hex.replaceAll('.', '');
  if (hex.length === 12) return hex.toLowerCase().match(/../g)!.join(':');
  return mac;
}

const distinctPairs = (pairs: Pair[]) => [...new Map(pairs.map((p) => [pairKey(p), p])).values()];
const normalizeConnections = (pairs: Pair[]): Pair[] => distinctPairs(pairs.map(([k, v]) => [k, k === 'mac' ? formatMac(v) : v]));

function findDevice(s: RegistryState, identifiers: Pair[], connections: Pair[]): DeviceEntry | undefined {
  for (const p of identifiers) {
    const d = s.devices.first('identifier', pairKey(p));
    if (d) return d;
  }
  for (const p of connections) {
    const d = s.devices.first('connection', pairKey(p));
    if (d) return d;
  }
  return undefined;
}

function findDeleted(s: RegistryState, identifiers: Pair[], connections: Pair[]): DeviceEntry | undefined {
  const keys = new Set([...identifiers, ...connections].map(pairKey));
  for (const d of s.deletedDevices.values()) {
    if ([...d.identifiers, ...d.connections].some((p) => keys.has(pairKey(p)))) return d;
  }
  return undefined;
}

function blankDevice(id: string, now: number): DeviceEntry {
  return {
    id,
    area_id: null,
    config_entries: [],
    config_entries_subentries: {},
    configuration_url: null,
    connections: [],
    created_at: now,
    disabled_by: null,
    entry_type: null,
    hw_version: null,
    identifiers: [],
    labels: [],
    manufacturer: null,
    model: null,
    model_id: null,
    modified_at: now,
    name_by_user: null,
    name: null,
    primary_config_entry: null,
    serial_number: null,
    sw_version: null,
    via_device_id: null,
  };
}

const mergePairs = (old: Pair[], more: Pair[]) => distinctPairs([...old, ...more]);

/**
 * The device a platform describes, made or brought up to date. A device removed before comes
 * back with its id, area, labels and user's name, as the original restores a deleted device.
 */
export function ensureDevice(s: RegistryState, p: Plan, info: DeviceInfo, newId: () => string): DeviceEntry {
  const identifiers = distinctPairs(info.identifiers ?? []);
  const connections = normalizeConnections(info.connections ?? []);
  if (identifiers.length === 0 && connections.length === 0) {
    throw new RegistryError('home_assistant_error', 'Invalid device info: device info must include at least one of identifiers or connections');
  }
  if (info.configuration_url && !/^(https?|homeassistant):\/\/[^/]/.test(info.configuration_url)) {
    throw new RegistryError('home_assistant_error', `invalid configuration_url '${info.configuration_url}'`);
  }
  const found = findDevice(s, identifiers, connections);
  let base = found;
  if (!base) {
    const deleted = findDeleted(s, identifiers, connections);
    base = blankDevice(deleted?.id ?? newId(), p.now);
    if (deleted) {
      Object.assign(base, { area_id: deleted.area_id, labels: deleted.labels, name_by_user: deleted.name_by_user, created_at: deleted.created_at, disabled_by: deleted.disabled_by });
    } else if (info.suggested_area) {
      const area = s.areas.first('name', normalizeName(info.suggested_area)) ?? createArea(s, p, { name: info.suggested_area });
      base.area_id = area.area_id;
    }
  }
  const wanted: Partial<DeviceEntry> = {
    identifiers: mergePairs(base.identifiers, identifiers),
    connections: mergePairs(base.connections, connections),
    name: info.name,
    manufacturer: info.manufacturer,
    model: info.model,
    model_id: info.model_id,
    sw_version: info.sw_version,
    hw_version: info.hw_version,
    serial_number: info.serial_number,
    configuration_url: info.configuration_url,
    entry_type: info.entry_type,
    // a platform names how a new device starts; a device the user disabled stays so
    disabled_by: found ? undefined : info.disabled_by,
  };
  const entryId = info.config_entry_id;
  if (entryId !== undefined && !base.config_entries.includes(entryId)) {
    wanted.config_entries = [...base.config_entries, entryId];
    wanted.config_entries_subentries = { ...base.config_entries_subentries, [entryId]: [null] };
    if (base.primary_config_entry === null) wanted.primary_config_entry = entryId;
  }
  // an unknown via_device is left out, as the original leaves it (with a log line there)
  if (info.via_device) {
    const via = s.devices.first('identifier', pairKey(info.via_device));
    if (via) wanted.via_device_id = via.id;
  }
  const changes = changedFields(base, wanted);
  if (found) return Object.keys(changes).length ? putDevice(p, found, changes) : found;
  const device: DeviceEntry = { ...base, ...changes, modified_at: p.now };
  p.record(registryStream('device', device.id), { type: 'device_created', data: device });
  p.event(EVENT.device, { action: 'create', device_id: device.id });
  return device;
}

/** A device's entities follow it when it is disabled or enabled (the original's async_device_modified). */
function followDisabled(s: RegistryState, p: Plan, device: DeviceEntry): void {
  const entities = s.entities.find('device', device.id);
  if (device.disabled_by === null) {
    for (const e of entities) if (e.disabled_by === 'device') putEntity(p, e, { disabled_by: null });
  } else if (device.disabled_by !== 'config_entry') {
    for (const e of entities) if (e.disabled_by === null) putEntity(p, e, { disabled_by: 'device' });
  }
}

/** What a client may change of a device (config/device_registry/update). */
export function updateDevice(s: RegistryState, p: Plan, deviceId: string, input: DeviceChanges): DeviceEntry {
  const old = s.devices.get(deviceId);
  if (!old) throw noDevice();
  const changes = changedFields(old, { ...input, labels: input.labels && distinct(input.labels) });
  if (!Object.keys(changes).length) return old;
  const next = putDevice(p, old, changes);
  if ('disabled_by' in changes) followDisabled(s, p, next);
  return next;
}

/**
 * Removes a device: devices that talked through it no longer do, and its entities go with it
 * (the original's entity registry removes them when it hears of the removal).
 */
export function removeDevice(s: RegistryState, p: Plan, deviceId: string): void {
  const device = s.devices.get(deviceId);
  if (!device) throw new RegistryError('home_assistant_error', 'Unknown device');
  for (const other of s.devices.find('via', deviceId)) putDevice(p, other, { via_device_id: null });
  dropDevice(p, device);
  for (const e of s.entities.find('device', deviceId)) dropEntity(p, e);
}

/**
 * A device leaves a config entry; a device left with none is removed (undefined), as the
 * original's async_update_device(remove_config_entry_id=...) does.
 */
export function removeConfigEntry(s: RegistryState, p: Plan, deviceId: string, entryId: string): DeviceEntry | undefined {
  const device = s.devices.get(deviceId);
  // the integration may have removed it already, which is fine
  if (!device) return undefined;
  if (!device.config_entries.includes(entryId)) return device;
  const left = device.config_entries.filter((id) => id !== entryId);
  if (left.length === 0) return void removeDevice(s, p, deviceId);
  const changes: Partial<DeviceEntry> = {
    config_entries: left,
    config_entries_subentries: Object.fromEntries(Object.entries(device.config_entries_subentries).filter(([id]) => id !== entryId)),
  };
  if (device.primary_config_entry === entryId) changes.primary_config_entry = null;
  return putDevice(p, device, changes);
}
