import type { PlatformRegistrar } from '../entities/platforms/types.ts';
import type { Registries } from './index.ts';

/**
 * The registries as the virtual platform registers its entities: a device per unique_id and an
 * entity-registry entry whose entity id (perhaps renamed by the user, or a free `_2` variant)
 * is the one the entity lives under.
 */
export function platformRegistrarOf(registries: Registries): PlatformRegistrar {
  return {
    async ensureDevice(device, context) {
      return (await registries.ensureDevice(device, context)).id;
    },
    async ensureEntity(entity, context) {
      const entry = await registries.ensureEntity(
        {
          entity_id: entity.suggested_entity_id,
          unique_id: entity.unique_id,
          platform: entity.platform,
          device_id: entity.device_id ?? null,
          original_name: entity.original_name,
          original_icon: entity.original_icon,
          original_device_class: entity.original_device_class,
          supported_features: entity.supported_features,
          unit_of_measurement: entity.unit_of_measurement,
        },
        context,
      );
      return entry.entity_id;
    },
  };
}
