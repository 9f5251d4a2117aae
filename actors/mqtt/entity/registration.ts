import type { Context } from '../../../store/types.ts';
import { uniqueId } from '../../entities/slug.ts';
import type { MqttEntityConfig, MqttPlatform } from '../platforms/types.ts';
import { deviceInfoOf } from './device.ts';
import type { MqttEntityHost } from './host.ts';
import { entityName, suggestedEntityId } from './naming.ts';

/** Where an entity lives: its entity id, its own name and its device. */
export interface Placement {
  entityId: string;
  name: string | null;
  deviceId: string | undefined;
  /** its registry entry is disabled: it has no state and no subscriptions */
  disabled: boolean;
}

/**
 * An entity's device and entity-registry entry, made or brought up to date (the original does
 * this as the entity is added: the device from the `device` block, an entry by platform `mqtt` and
 * `unique_id` whose entity id, perhaps the user's, is the one the entity lives under). An entity
 * without a unique_id has neither: it takes a free id from its names.
 */
export async function place(host: MqttEntityHost, platform: MqttPlatform, config: MqttEntityConfig, context: Context, taken: (id: string) => boolean): Promise<Placement> {
  const name = entityName(config, platform);
  const { registries } = host;
  if (config.unique_id === undefined) {
    const preferred = suggestedEntityId(platform.domain, config, name, undefined);
    const free = uniqueId(preferred, (id) => taken(id) || registries.getEntity(id) !== undefined);
    return { entityId: free, name, deviceId: undefined, disabled: false };
  }
  const device = config.device ? await registries.ensureDevice(deviceInfoOf(config.device, host.configEntryId), context) : undefined;
  const deviceName = device ? (device.name_by_user ?? device.name) : undefined;
  const info = platform.registryInfo?.(config) ?? {};
  const entry = await registries.ensureEntity(
    {
      entity_id: suggestedEntityId(platform.domain, config, name, deviceName),
      unique_id: config.unique_id,
      platform: 'mqtt',
      device_id: device?.id ?? null,
      config_entry_id: host.configEntryId ?? null,
      original_name: name,
      original_icon: config.icon ?? null,
      original_device_class: config.device_class ?? null,
      has_entity_name: true,
      entity_category: config.entity_category ?? null,
      capabilities: info.capabilities ?? null,
      supported_features: info.supported_features ?? 0,
      unit_of_measurement: info.unit_of_measurement ?? null,
      options: info.options,
      disabled_by: config.enabled_by_default ? undefined : 'integration',
    },
    context,
  );
  return { entityId: entry.entity_id, name, deviceId: device?.id, disabled: entry.disabled_by !== null };
}

/**
 * Removes an entity's registry entry, and lets go of its device when no enabled entity of it is
 * left (the original's cleanup_device_registry): a device of no other config entry goes with it.
 */
export async function unplace(host: MqttEntityHost, entityId: string, deviceId: string | undefined, context: Context): Promise<void> {
  const { registries } = host;
  // the user may remove the entry (or its device) meanwhile: one already gone is fine
  if (registries.getEntity(entityId)) {
    await registries.removeEntity(entityId, context).catch((err) => {
      if (registries.getEntity(entityId)) throw err;
    });
  }
  if (deviceId === undefined || host.configEntryId === undefined || !registries.getDevice(deviceId)) return;
  if (registries.entitiesOfDevice(deviceId).length === 0) await registries.leaveDevice(deviceId, host.configEntryId, context);
}
