import { assign, setup } from 'xstate';

export interface ZoneInput {
  /** the state a person in this zone shows: `home` for the home zone, else the zone's name */
  presence: string;
}

export interface ZoneContext extends ZoneInput {
  /** every person's state */
  persons: Record<string, string>;
}

export type ZoneEvent = { type: 'person_changed'; entity_id: string; state: string | null };

/** The persons in a zone, sorted. */
export function personsIn(context: ZoneContext): string[] {
  return Object.keys(context.persons)
    .filter((id) => context.persons[id] === context.presence)
    .sort();
}

/** A zone: its state is how many persons are in it. */
export const zoneMachine = setup({
  types: {
    context: {} as ZoneContext,
    events: {} as ZoneEvent,
    input: {} as ZoneInput,
  },
  actions: {
    track: assign({
      persons: ({ context, event }) => {
        const next = { ...context.persons };
        if (event.state === null) delete next[event.entity_id];
        else next[event.entity_id] = event.state;
        return next;
      },
    }),
  },
}).createMachine({
  id: 'zone',
  context: ({ input }) => ({ ...input, persons: {} }),
  initial: 'counting',
  states: {
    counting: {
      on: { person_changed: { actions: 'track' } },
    },
  },
});
