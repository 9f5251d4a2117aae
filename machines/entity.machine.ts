import { assign, emit, setup } from 'xstate';
import type { Context } from '../store/types.ts';
import type { EntityState } from '../actors/entities/types.ts';
import { applyWrite, type StateWrite } from '../actors/entities/state.ts';

/** The entity's life: absent until its first write, present until removed. */
export interface EntityContext {
  entityId: string;
  current: EntityState | null;
}

export type EntityEvent =
  | ({ type: 'write' } & StateWrite)
  | { type: 'remove'; context: Context; time: number };

/** What the entity tells the actor layer to record. */
export type EntityEmitted =
  | { type: 'state_changed'; old: EntityState | null; next: EntityState | null; context: Context; time: number }
  | { type: 'state_reported'; old: EntityState; next: EntityState; context: Context; time: number };

/** One entity: applies writes with the original's timestamp rules and emits the facts to record. */
export const entityMachine = setup({
  types: {
    context: {} as EntityContext,
    events: {} as EntityEvent,
    emitted: {} as EntityEmitted,
    input: {} as { entityId: string; current: EntityState | null },
  },
  actions: {
    recordWrite: assign(({ context, event }) => {
      if (event.type !== 'write') return {};
      return { current: applyWrite(context.entityId, context.current, event).next };
    }),
    emitWrite: emit(({ context, event }) => {
      const e = event as Extract<EntityEvent, { type: 'write' }>;
      // evaluated before recordWrite, so context.current is still the old state
      const outcome = applyWrite(context.entityId, context.current, e);
      if (outcome.kind === 'reported') {
        return { type: 'state_reported' as const, old: context.current!, next: outcome.next, context: e.context, time: e.time };
      }
      return { type: 'state_changed' as const, old: context.current, next: outcome.next, context: e.context, time: e.time };
    }),
    emitRemoval: emit(({ context, event }) => ({
      type: 'state_changed' as const,
      old: context.current,
      next: null,
      context: (event as Extract<EntityEvent, { type: 'remove' }>).context,
      time: (event as Extract<EntityEvent, { type: 'remove' }>).time,
    })),
    forget: assign({ current: null }),
  },
}).createMachine({
  id: 'entity',
  context: ({ input }) => ({ entityId: input.entityId, current: input.current }),
  initial: 'absent',
  states: {
    absent: {
      always: { guard: ({ context }) => context.current !== null, target: 'present' },
      on: { write: { target: 'present', actions: ['emitWrite', 'recordWrite'] } },
    },
    present: {
      on: {
        write: { actions: ['emitWrite', 'recordWrite'] },
        remove: { target: 'absent', actions: ['emitRemoval', 'forget'] },
      },
    },
  },
});
