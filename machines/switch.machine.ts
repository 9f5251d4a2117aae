import { setup } from 'xstate';

/** What a switch starts from: on or off (restored, else its `initial`). */
export interface SwitchInput {
  on: boolean;
}

export interface SwitchContext {
  /** read once, by the `starting` state */
  startedOn: boolean;
}

export type SwitchEvent = { type: 'turn_on' } | { type: 'turn_off' } | { type: 'toggle' };

/** A switch: `on` / `off`. Turning on what is on changes nothing (the call still writes a report). */
export const switchMachine = setup({
  types: {
    context: {} as SwitchContext,
    events: {} as SwitchEvent,
    input: {} as SwitchInput,
  },
  guards: {
    startedOn: ({ context }) => context.startedOn,
  },
}).createMachine({
  id: 'switch',
  context: ({ input }) => ({ startedOn: input.on }),
  initial: 'starting',
  states: {
    starting: {
      always: [{ guard: 'startedOn', target: 'on' }, { target: 'off' }],
    },
    on: {
      on: { turn_off: 'off', toggle: 'off' },
    },
    off: {
      on: { turn_on: 'on', toggle: 'on' },
    },
  },
});
