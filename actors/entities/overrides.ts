import type { Context, EventRecord } from '../../store/types.ts';

/** What the entity registry says of an entity that changes how its owner shows it. */
export interface ShownOverrides {
  name: string | null;
  icon: string | null;
  device_class: string | null;
  disabled: boolean;
}

/** The overrides of an entity, or undefined when it has no registry entry. */
export type OverridesOf = (entityId: string) => ShownOverrides | undefined;

export const noOverrides: OverridesOf = () => undefined;

/** The attributes the original sets last, in its order (helpers/entity.py, `_async_calculate_state`). */
const TAIL = ['device_class', 'entity_picture', 'icon', 'friendly_name', 'supported_features'] as const;

/**
 * The attributes an entity shows once its registry entry is applied: the user's name, icon and
 * device class win over the entity's own, as in the original. The tail attributes are put back
 * in the original's order, so an override that adds one does not move the others.
 */
export function withOverrides(attributes: Record<string, unknown>, overrides: ShownOverrides | undefined): Record<string, unknown> {
  if (!overrides || (overrides.name === null && overrides.icon === null && overrides.device_class === null)) return attributes;
  const tail: Record<string, unknown> = {
    device_class: overrides.device_class ?? attributes.device_class,
    entity_picture: attributes.entity_picture,
    icon: overrides.icon ?? attributes.icon,
    friendly_name: overrides.name ?? attributes.friendly_name,
    supported_features: attributes.supported_features,
  };
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(attributes)) if (!(TAIL as readonly string[]).includes(k)) out[k] = v;
  for (const k of TAIL) if (tail[k] !== undefined) out[k] = tail[k];
  return out;
}

/** An owner of live entities (a helper domain, a virtual platform domain) that follows its registry entries. */
export interface EntryFollower {
  /**
   * The entry of an entity changed (perhaps its id: `oldEntityId`): the owner, if it has the
   * entity, shows it anew, removes it (disabled) or moves it to its new id.
   */
  entryUpdated(entityId: string, oldEntityId: string | undefined, context: Context): Promise<void>;
}

/**
 * Sends each committed `entity_registry_updated` to the owners of live entities, one after the
 * other, as the original's entities listen to their own entry. Runs after the registries have
 * projected the batch (they listen first), so owners read the entry as it now is.
 */
export function followRegistryUpdates(deps: {
  onCommit(listener: (records: EventRecord[]) => void): void;
  followers: () => EntryFollower[];
  newContext(): Context;
  log(line: string): void;
}): void {
  let chain: Promise<void> = Promise.resolve();
  deps.onCommit((records) => {
    for (const r of records) {
      if (r.stream !== 'bus' || r.type !== 'entity_registry_updated') continue;
      const { action, entity_id: entityId, old_entity_id: oldEntityId } = r.data as { action: string; entity_id: string; old_entity_id?: string };
      if (action !== 'update') continue;
      chain = chain.then(async () => {
        const context = deps.newContext();
        for (const f of deps.followers()) {
          try {
            await f.entryUpdated(entityId, oldEntityId, context);
          } catch (err) {
            deps.log(`${entityId}: registry change not shown: ${(err as Error).message}`);
          }
        }
      });
    }
  });
}
