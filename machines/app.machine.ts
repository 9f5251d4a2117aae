import { setup } from 'xstate';

/**
 * One installed app's lifecycle as the original reports it (supervisor-wire §8.7): `unknown`
 * (not installed, or no image), `stopped`, `startup` (running, not yet healthy), `started`,
 * `error` (a start or stop failed, or the container died unasked with a non-zero exit). The
 * machine is pure: the app actor tells it what the engine did, it says which state follows.
 * `installing`, `starting` and `stopping` are the transitional states a job holds meanwhile;
 * they are reported as the state they came from (the original shows no state for them).
 */

export type AppMachineEvent =
  | { type: 'installed' }
  | { type: 'uninstalled' }
  | { type: 'start' }
  /** the container runs; `healthy` false while an image healthcheck has not passed yet */
  | { type: 'running'; healthy: boolean }
  | { type: 'healthy' }
  | { type: 'stop' }
  /** the container is gone or ended as asked */
  | { type: 'stopped' }
  /** a start or stop failed */
  | { type: 'failed' }
  /** the container ended without being asked to */
  | { type: 'died'; exitCode: number };

export const appMachine = setup({
  types: { events: {} as AppMachineEvent },
}).createMachine({
  id: 'app',
  initial: 'unknown',
  on: {
    uninstalled: '.unknown',
    failed: '.error',
    running: [{ guard: ({ event }) => event.healthy, target: '.started' }, { target: '.startup' }],
    stopped: '.stopped',
  },
  states: {
    unknown: { on: { installed: 'stopped' } },
    stopped: { on: { start: 'starting' } },
    starting: {},
    startup: { on: { healthy: 'started', stop: 'stopping', died: 'error' } },
    started: {
      on: {
        stop: 'stopping',
        start: 'starting',
        // the original: exit code 0 is a stop, any other a failure
        died: [{ guard: ({ event }) => event.exitCode === 0, target: 'stopped' }, { target: 'error' }],
      },
    },
    stopping: {},
    error: { on: { start: 'starting', stop: 'stopping' } },
  },
});

export type AppMachineState = 'unknown' | 'stopped' | 'starting' | 'startup' | 'started' | 'stopping' | 'error';

/** Whether the API shows this state as it is (the transitional ones show the last stable state). */
export function isStable(state: AppMachineState): state is 'unknown' | 'stopped' | 'startup' | 'started' | 'error' {
  return state !== 'starting' && state !== 'stopping';
}
