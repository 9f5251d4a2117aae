import { assign, setup } from 'xstate';
import type { EntityState } from '../actors/entities/types.ts';
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

// One state and one assign per event: every write of every entity goes through this machine, and
// xstate's cost grows with each state entered, action run and emitted event. The decision is
// part of the context the assign returns, so the actor reads it from the snapshot.
/** One entity: applies writes with the original's timestamp rules and decides the fact to record. */
export const entityMachine = setup({
  types: {
    context: {} as EntityContext,
    events: {} as EntityEvent,
    input: {} as { entityId: string; current: EntityState | null },
  },
  actions: {
    write: assign(({ context, event }) => {
      const outcome = applyWrite(context.entityId, context.current, event as Extract<EntityEvent, { type: 'write' }>);
      const decided: EntityDecision =
        outcome.kind === 'reported'
          ? { type: 'state_reported', old: context.current!, next: outcome.next }
          : { type: 'state_changed', old: context.current, next: outcome.next };
      return { current: outcome.next, decided };
    }),
    remove: assign(({ context }) => ({
      current: null,
      decided: context.current === null ? null : { type: 'state_changed' as const, old: context.current, next: null },
    })),
  },
}).createMachine({
  id: 'entity',
  context: ({ input }) => ({ entityId: input.entityId, current: input.current, decided: null }),
  on: {
    write: { actions: 'write' },
    remove: { actions: 'remove' },
  },
});
