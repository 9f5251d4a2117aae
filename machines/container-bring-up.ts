import { containerSetup, effectInput, errorOf, outputOf } from './container-setup.ts';

/** A step that failed ends the bring-up in `down`, its error noted for the caller. */
const failed = { target: 'down', actions: { type: 'noteError', params: errorOf } } as const;

/**
 * Bringing the container up, for a start, a restart and each watchdog attempt: it ends in `up`,
 * `gone` (the watchdog found no container to start) or `down` (with the error noted).
 */
export const bringingUp = containerSetup.createStateConfig({
  initial: 'inspecting',
  states: {
    inspecting: {
      invoke: {
        src: 'inspectContainer',
        input: effectInput,
        onDone: [
          { guard: { type: 'upAlready', params: outputOf }, target: 'up', actions: { type: 'noteOutcome', params: 'alreadyRunning' } },
          { guard: { type: 'removedBehindBack', params: outputOf }, target: 'gone' },
          { target: 'preparing', actions: { type: 'notePresence', params: outputOf } },
        ],
        onError: failed,
      },
    },
    preparing: {
      invoke: {
        src: 'prepareStart',
        input: effectInput,
        onDone: [
          { guard: 'makesNewContainer', target: 'removingOld', actions: { type: 'notePreparation', params: outputOf } },
          { guard: 'containerAbsent', target: 'creating', actions: { type: 'notePreparation', params: outputOf } },
          { guard: 'restartsExisting', target: 'restartingContainer', actions: { type: 'notePreparation', params: outputOf } },
          { target: 'launching', actions: { type: 'notePreparation', params: outputOf } },
        ],
        onError: failed,
      },
    },
    removingOld: {
      invoke: { src: 'removeContainer', input: effectInput, onDone: 'creating', onError: failed },
    },
    creating: {
      invoke: { src: 'createContainer', input: effectInput, onDone: { target: 'launching', actions: { type: 'noteOutcome', params: 'created' } }, onError: failed },
    },
    launching: {
      invoke: { src: 'startContainer', input: effectInput, onDone: { target: 'waitingHealthy', actions: 'noteLaunched' }, onError: failed },
    },
    restartingContainer: {
      invoke: { src: 'restartContainer', input: effectInput, onDone: { target: 'waitingHealthy', actions: { type: 'noteOutcome', params: 'restarted' } }, onError: failed },
    },
    waitingHealthy: {
      invoke: { src: 'waitHealthy', input: effectInput, onDone: 'up', onError: failed },
    },
    up: { type: 'final' },
    gone: { type: 'final', entry: { type: 'noteOutcome', params: 'gone' } },
    down: { type: 'final' },
  },
});
