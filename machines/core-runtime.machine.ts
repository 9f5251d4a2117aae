import { assign, setup } from 'xstate';

/**
 * The core watchdog's budget: a crashed core is restarted unless it already crashed more than
 * 10 times in the last 30 minutes (the original's limit). `crash` carries the time (the clock
 * is the caller's); the machine says `watching` (restart it) or `givenUp` (leave it stopped).
 */

export const WATCHDOG_WINDOW_MS = 30 * 60_000;
export const WATCHDOG_MAX_RESTARTS = 10;

export interface WatchdogContext {
  /** times of the crashes within the window, oldest first */
  crashes: number[];
}

export type WatchdogEvent = { type: 'crash'; at: number };

export const watchdogMachine = setup({
  types: { context: {} as WatchdogContext, events: {} as WatchdogEvent },
  actions: {
    noteCrash: assign({
      crashes: ({ context, event }) => [...context.crashes.filter((t) => event.at - t < WATCHDOG_WINDOW_MS), event.at],
    }),
  },
  guards: {
    overBudget: ({ context }) => context.crashes.length > WATCHDOG_MAX_RESTARTS,
  },
}).createMachine({
  id: 'coreWatchdog',
  context: { crashes: [] },
  initial: 'watching',
  states: {
    watching: {
      on: { crash: { target: 'judging', actions: 'noteCrash' } },
    },
    judging: {
      always: [{ guard: 'overBudget', target: 'givenUp' }, { target: 'watching' }],
    },
    givenUp: {
      on: { crash: { target: 'judging', actions: 'noteCrash' } },
    },
  },
});
