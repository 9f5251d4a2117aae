import { assertEvent, assign, setup } from 'xstate';

/** An input_boolean item of configuration.yaml, validated. */
export interface InputBooleanConfig {
  name?: string;
  initial?: boolean;
  icon?: string;
}

/** What the machine starts from: its config and whether it is on (initial, else restored). */
export interface InputBooleanInput {
  entityId: string;
  config: InputBooleanConfig;
  on: boolean;
}

export interface InputBooleanContext {
  entityId: string;
  config: InputBooleanConfig;
  /** whether the entity started on; read once, by the `starting` state */
  startedOn: boolean;
}

export type InputBooleanEvent =
  | { type: 'turn_on' }
  | { type: 'turn_off' }
  | { type: 'toggle' }
  | { type: 'configure'; config: InputBooleanConfig };

/** A user-controlled switch: `on` / `off`. A reload changes its name and icon, never its state. */
export const inputBooleanMachine = setup({
  types: {
    context: {} as InputBooleanContext,
    events: {} as InputBooleanEvent,
    input: {} as InputBooleanInput,
  },
  actions: {
    applyConfig: assign({
      config: ({ event }) => {
        assertEvent(event, 'configure');
        return event.config;
      },
    }),
  },
  guards: {
    startedOn: ({ context }) => context.startedOn,
  },
}).createMachine({
  id: 'input_boolean',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, startedOn: input.on }),
  initial: 'starting',
  on: {
    configure: { actions: 'applyConfig' },
  },
  states: {
    starting: {
      always: [{ guard: 'startedOn', target: 'on' }, { target: 'off' }],
    },
    // turning on what is on (or off what is off) changes nothing; the entity layer still records
    // the call's write, as the original does
    on: {
      on: { turn_off: 'off', toggle: 'off' },
    },
    off: {
      on: { turn_on: 'on', toggle: 'on' },
    },
  },
});
