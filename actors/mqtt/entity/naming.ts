import { slugify } from '../../entities/slug.ts';
import type { MqttEntityConfig, MqttPlatform } from '../platforms/types.ts';

/**
 * An MQTT entity's names, as the original names entities with `has_entity_name`: its own name
 * (the config's; absent: its device class's name or the platform's default; null or empty: none,
 * the entity is its device's main feature), the friendly name made with its device's, and the
 * entity id a new entity asks for.
 */

/** The entity's own name; null when it has none and shows its device's. */
export function entityName(config: MqttEntityConfig, platform: MqttPlatform): string | null {
  if (Object.hasOwn(config, 'name')) return config.name ? config.name : null;
  if (platform.deviceClassNames && config.device_class) return platform.deviceClassNames[config.device_class] ?? null;
  return platform.defaultName;
}

/** The friendly name: the device's name before the entity's, or the device's alone; undefined when neither. */
export function friendlyName(name: string | null, deviceName: string | null | undefined): string | undefined {
  if (deviceName) return name === null ? deviceName : `${deviceName} ${name}`;
  return name ?? undefined;
}

/**
 * The entity id the entity asks for: `default_entity_id` (of its own domain), else
 * `<domain>.<object_id>`, else made from the friendly name (the original's suggested object id),
 * else from the platform and unique id.
 */
export function suggestedEntityId(domain: string, config: MqttEntityConfig, name: string | null, deviceName: string | null | undefined): string {
  const own = config.default_entity_id;
  if (typeof own === 'string' && own.startsWith(`${domain}.`) && own.length > domain.length + 1) return `${domain}.${slugify(own.slice(domain.length + 1))}`;
  if (config.object_id !== undefined) return `${domain}.${slugify(config.object_id)}`;
  const friendly = friendlyName(name, deviceName);
  if (friendly) return `${domain}.${slugify(friendly)}`;
  if (config.unique_id !== undefined) return `${domain}.mqtt_${slugify(config.unique_id)}`;
  return `${domain}.unnamed_device`;
}
