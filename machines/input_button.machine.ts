import { assertEvent, assign, emit, setup } from 'xstate';

/** An input_button item of configuration.yaml. */
export interface InputButtonConfig {
  name?: string;
  icon?: string;
}

/** What the machine starts from: its config and the state it last showed (kept verbatim). */
export interface InputButtonInput {
  entityId: string;
  config: InputButtonConfig;
  /** the restored state text (an ISO time), or null for `unknown` */
  restored: string | null;
}

export interface InputButtonContext {
  entityId: string;
  config: InputButtonConfig;
  /** epoch ms of the last press handled by this machine */
  pressedAt: number | null;
  /** the state shown before the first press here: the restored text, or null for `unknown` */
  restored: string | null;
}

/** `time` is the epoch ms of the press, supplied by the actor layer (the machine reads no clock). */
export type InputButtonEvent = { type: 'press'; time: number } | { type: 'configure'; config: InputButtonConfig };

/** Only a press that arrives without its time is refused: that is a fault of the caller, not the user. */
export type InputButtonEmitted = { type: 'rejected'; message: string; code: 'unknown_error' };

/** A button whose state is the time it was last pressed. */
export const inputButtonMachine = setup({
  types: {
    context: {} as InputButtonContext,
    events: {} as InputButtonEvent,
    emitted: {} as InputButtonEmitted,
    input: {} as InputButtonInput,
  },
  actions: {
    recordPress: assign({
      pressedAt: ({ event }) => {
        assertEvent(event, 'press');
        return event.time;
      },
    }),
    rejectUntimedPress: emit(({ context }) => ({
      type: 'rejected' as const,
      code: 'unknown_error' as const,
      message: `Press of ${context.entityId} carries no time`,
    })),
    applyConfig: assign({
      config: ({ event }) => {
        assertEvent(event, 'configure');
        return event.config;
      },
    }),
  },
  guards: {
    timed: ({ event }) => {
      assertEvent(event, 'press');
      return typeof event.time === 'number' && Number.isFinite(event.time);
    },
  },
}).createMachine({
  id: 'input_button',
  context: ({ input }) => ({ entityId: input.entityId, config: input.config, pressedAt: null, restored: input.restored }),
  initial: 'active',
  states: {
    active: {
      on: {
        press: [{ guard: 'timed', actions: 'recordPress' }, { actions: 'rejectUntimedPress' }],
        configure: { actions: 'applyConfig' },
      },
    },
  },
});
