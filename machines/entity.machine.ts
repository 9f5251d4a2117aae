import { assign, emit, setup } from 'xstate';
import type { EntityState } from '../actors/entities/types.ts';
import { applyWrite, type StateWrite } from './entity-rules.ts';

type Context = EntityState['context'];

/** The entity's life: absent until its first write, present until removed. */
export interface EntityContext {
  entityId: string;
  current: EntityState | null;
  /** the state before the last write or removal (what the emitted fact reports as old) */
  previous: EntityState | null;
  /** true when the last write changed nothing but last_reported */
  reported: boolean;
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
      const outcome = applyWrite(context.entityId, context.current, event);
      return { previous: context.current, current: outcome.next, reported: outcome.kind === 'reported' };
    }),
    emitWrite: emit(({ context, event }) => {
      const e = event as Extract<EntityEvent, { type: 'write' }>;
      // evaluated after recordWrite: previous is the old state, current the new one
      if (context.reported) {
        return { type: 'state_reported' as const, old: context.previous!, next: context.current!, context: e.context, time: e.time };
      }
      return { type: 'state_changed' as const, old: context.previous, next: context.current, context: e.context, time: e.time };
    }),
    emitRemoval: emit(({ context, event }) => ({
      type: 'state_changed' as const,
      old: context.current,
      next: null,
      context: (event as Extract<EntityEvent, { type: 'remove' }>).context,
      time: (event as Extract<EntityEvent, { type: 'remove' }>).time,
    })),
    forget: assign({ current: null, previous: null }),
  },
}).createMachine({
  id: 'entity',
  context: ({ input }) => ({ entityId: input.entityId, current: input.current, previous: null, reported: false }),
  initial: 'absent',
  states: {
    absent: {
      always: { guard: ({ context }) => context.current !== null, target: 'present' },
      on: { write: { target: 'present', actions: ['recordWrite', 'emitWrite'] } },
    },
    present: {
      on: {
        write: { actions: ['recordWrite', 'emitWrite'] },
        remove: { target: 'absent', actions: ['emitRemoval', 'forget'] },
      },
    },
  },
});
