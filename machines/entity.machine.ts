import { fromTransition, type AnyActorRef } from 'xstate';
import type { EntityState } from './entity-state.ts';
import { applyWrite, type StateWrite } from './entity-rules.ts';

type Context = EntityState['context'];

/** What the entity's last event decided, for the actor layer to record. */
export type EntityDecision =
  | { type: 'state_changed'; old: EntityState | null; next: EntityState | null }
  | { type: 'state_reported'; old: EntityState; next: EntityState };

/** The entity's life: `current` is null while it does not exist (before its first write, after a removal). */
export interface EntityContext {
  entityId: string;
  current: EntityState | null;
  /** the fact the last event decided; null when it changed nothing (removing an absent entity) */
  decided: EntityDecision | null;
}

export type EntityEvent =
  | ({ type: 'write' } & StateWrite)
  | { type: 'remove'; context: Context; time: number };

/** The entity's next context after `event`: the original's timestamp rules, and the fact to record. */
export function entityTransition(context: EntityContext, event: EntityEvent): EntityContext {
  const { entityId, current } = context;
  if (event.type === 'remove') {
    return { entityId, current: null, decided: current === null ? null : { type: 'state_changed', old: current, next: null } };
  }
  const outcome = applyWrite(entityId, current, event);
  const decided: EntityDecision =
    outcome.kind === 'reported'
      ? { type: 'state_reported', old: current!, next: outcome.next }
      : { type: 'state_changed', old: current, next: outcome.next };
  return { entityId, current: outcome.next, decided };
}

// An entity has one state (it exists or it does not) and every write of every entity goes
// through it, so its actor logic is a transition function rather than a statechart: the same
// xstate actor (mailbox, snapshot, inspection) without the statechart's per-event work, which
// cost several times the rules themselves.
/** One entity as xstate actor logic: applies writes and removals, and decides the fact to record. */
export const entityMachine = fromTransition(
  entityTransition,
  ({ input }: { input: { entityId: string; current: EntityState | null } }): EntityContext => ({
    entityId: input.entityId,
    current: input.current,
    decided: null,
  }),
);

/** What the entities' own actor is told: put an entity's actor to sleep. */
export type EntitiesEvent = { type: 'sleep'; entity: AnyActorRef };

/**
 * The parent of every entity actor: they share its actor system, so waking an entity costs an
 * actor, not an actor and a system (half the memory and time), and only a parent may stop its
 * children.
 */
export const entitiesMachine = fromTransition((count: number, event: EntitiesEvent, { stopChild }) => {
  if (event.type !== 'sleep') return count;
  stopChild(event.entity);
  return count + 1;
}, 0);
