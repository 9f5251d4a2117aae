import type { DeviceInfo, Pair } from '../../registries/types.ts';

/**
 * The device block of an MQTT entity's config as the device registry takes it (the original's
 * device_info_from_specifications): identifiers under the `mqtt` domain, connections as given,
 * `via_device` an identifier of another MQTT device.
 */
export function deviceInfoOf(device: Record<string, unknown>, configEntryId: string | undefined): DeviceInfo {
  const text = (key: string) => (typeof device[key] === 'string' ? (device[key] as string) : undefined);
  const info: DeviceInfo = {
    identifiers: (device.identifiers as string[]).map((id): Pair => ['mqtt', id]),
    connections: device.connections as Pair[],
  };
  if (configEntryId !== undefined) info.config_entry_id = configEntryId;
  for (const key of ['manufacturer', 'model', 'model_id', 'name', 'hw_version', 'serial_number', 'sw_version', 'configuration_url'] as const) {
    const value = text(key);
    if (value !== undefined) info[key] = value;
  }
  const via = text('via_device');
  if (via !== undefined) info.via_device = ['mqtt', via];
  const area = text('suggested_area');
  if (area !== undefined) info.suggested_area = area;
  return info;
}
