import type { EntityState } from '../entities/types.ts';
import type { DeviceEntry, EntityEntry } from '../registries/types.ts';
import { AUTOMATION_PLATFORMS, type AutomationKind, type EntityFacts, type ExtraField } from './platforms.ts';

export type { AutomationKind };

/** A device the device registry does not have (the original's DeviceNotFound). */
export class DeviceNotFound extends Error {
  constructor() {
    super('Device not found');
  }
}

/** What the device automations read: the registries' entries and the current states. */
export interface DeviceAutomationsDeps {
  getDevice(deviceId: string): DeviceEntry | undefined;
  /** enabled entity ids of a device */
  entitiesOfDevice(deviceId: string): string[];
  /** an entity's entry by entity id or by the registry's own id */
  getEntity(entityIdOrId: string): EntityEntry | undefined;
  state(entityId: string): EntityState | undefined;
}

/** The key that says what a listed record is: a trigger's platform, a condition's condition. */
const KIND_KEY: Record<AutomationKind, Record<string, string>> = {
  action: {},
  trigger: { platform: 'device' },
  condition: { condition: 'device' },
};

/**
 * The original's device_automation component over Hearth's devices: what each device's entities
 * offer as actions, triggers and conditions (each record naming the entity by its registry id,
 * as the original now does), and the extra fields one of them takes.
 */
export class DeviceAutomations {
  constructor(private readonly deps: DeviceAutomationsDeps) {}

  /** An entity's features, colour modes and device class: its state's, else its entry's. */
  private facts(entry: EntityEntry): EntityFacts {
    const attributes = this.deps.state(entry.entity_id)?.attributes;
    const modes = attributes?.supported_color_modes ?? entry.capabilities?.supported_color_modes;
    return {
      supportedFeatures: Number(attributes?.supported_features ?? entry.supported_features ?? 0),
      colorModes: Array.isArray(modes) ? modes.map(String) : [],
      deviceClass: (attributes?.device_class as string | undefined) ?? entry.device_class ?? entry.original_device_class,
    };
  }

  /** Every record of `kind` a device's enabled entities offer, with the original's metadata. */
  list(kind: AutomationKind, deviceId: string): Array<Record<string, unknown>> {
    if (!this.deps.getDevice(deviceId)) throw new DeviceNotFound();
    const records: Array<Record<string, unknown>> = [];
    for (const entityId of this.deps.entitiesOfDevice(deviceId)) {
      const entry = this.deps.getEntity(entityId);
      const domain = entityId.slice(0, entityId.indexOf('.'));
      const templates = entry && AUTOMATION_PLATFORMS[domain]?.list[kind]?.(this.facts(entry));
      for (const template of templates ?? []) {
        records.push({
          ...KIND_KEY[kind],
          ...template,
          device_id: deviceId,
          entity_id: entry!.id,
          domain,
          // the original marks what a frontend shows second: config or diagnostic entities, hidden ones
          metadata: { secondary: Boolean(entry!.entity_category || entry!.hidden_by) },
        });
      }
    }
    return records;
  }

  /**
   * The capabilities of one record as a client sends it back: `{extra_fields}` serialized, or
   * `{}` when its domain has no such platform or capabilities.
   */
  capabilities(kind: AutomationKind, config: Record<string, unknown>): { extra_fields?: ExtraField[] } {
    const ask = AUTOMATION_PLATFORMS[String(config.domain)]?.capabilities[kind];
    if (!ask) return {};
    const entry = typeof config.entity_id === 'string' ? this.deps.getEntity(config.entity_id) : undefined;
    return { extra_fields: ask(String(config.type), entry && this.facts(entry)) ?? [] };
  }
}
