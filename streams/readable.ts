import type { EntityPermissions } from '../actors/auth/permissions.ts';
import type { EntityActors } from '../actors/entities/registry.ts';
import type { EventRecord } from '../store/types.ts';

/**
 * What a user may see of the states, as the original's API and WebSocket commands filter them
 * by the `read` permission. Each helper asks `readAll` first, so an admin (or a user whose
 * policy reads everything) costs one boolean; `permissions` is the user's live object, so a
 * change of the user's groups applies to subscriptions already open.
 */

/** The JSON array of the states the user may read (the shared joined string when it may read all). */
export function readableStatesJson(entities: EntityActors, permissions: EntityPermissions): string {
  if (permissions.readAll) return entities.statesJson();
  return entities.statesJson((s) => permissions.canRead(s.entity_id));
}

/** `matches`, narrowed to the entities the user may read. */
export function readableEntities(permissions: EntityPermissions, matches: (entityId: string) => boolean): (entityId: string) => boolean {
  return (entityId) => matches(entityId) && (permissions.readAll || permissions.canRead(entityId));
}

/**
 * Whether a `state_changed` bus event may go to the user. One a client fired without an entity
 * id reaches only users who may read everything (the original fails on the missing key).
 */
export function readableStateChanged(permissions: EntityPermissions): (r: EventRecord) => boolean {
  return (r) => {
    if (permissions.readAll) return true;
    const entityId = (r.data as { entity_id?: unknown } | null)?.entity_id;
    return typeof entityId === 'string' && permissions.canRead(entityId);
  };
}
