import { assign, emit, enqueueActions, setup } from 'xstate';
import { codeFits, type LockEvent } from '../lock.machine.ts';
import type { MqttPublishRequest } from './switch.machine.ts';
import { runningOnMessages } from './running-machine.ts';

/** What an MQTT lock says of itself: null is unknown; the moving and open states stand over locked. */
export interface MqttLockState {
  locked: boolean | null;
  locking: boolean;
  unlocking: boolean;
  opening: boolean;
  open: boolean;
  jammed: boolean;
}

export interface MqttLockInput {
  entityId: string;
  /** no state topic, or optimistic: true */
  optimistic: boolean;
  /** code_format: a code must match it */
  codeFormat: string | null;
  lock: MqttLockState;
}

export interface MqttLockContext extends MqttLockInput {}

export type MqttLockEvent = { type: 'message'; lock: MqttLockState } | LockEvent;

export type MqttLockEmitted = MqttPublishRequest | { type: 'rejected'; message: string; code: 'service_validation_error' };

export const UNKNOWN_LOCK: MqttLockState = { locked: null, locking: false, unlocking: false, opening: false, open: false, jammed: false };

/** LockEntity.state: jammed, opening, locking, open, unlocking, then locked or unlocked (or unknown). */
export function lockStateOf(l: MqttLockState): string | null {
  if (l.jammed) return 'jammed';
  if (l.opening) return 'opening';
  if (l.locking) return 'locking';
  if (l.open) return 'open';
  if (l.unlocking) return 'unlocking';
  if (l.locked === null) return null;
  return l.locked ? 'locked' : 'unlocked';
}

const PAYLOAD: Record<string, string> = { lock: 'payload_lock', unlock: 'payload_unlock', open: 'payload_open' };

/**
 * An MQTT lock: its state topic names one of its states (or resets it); lock, unlock and open
 * publish their payloads through the command template, which sees the call's `code`. A code
 * that does not match code_format is refused, as the original's lock services refuse it.
 */
export const mqttLockMachine = setup({
  types: {
    context: {} as MqttLockContext,
    events: {} as MqttLockEvent,
    input: {} as MqttLockInput,
    emitted: {} as MqttLockEmitted,
  },
  actions: {
    take: assign(({ event }) => (event.type === 'message' ? { lock: event.lock } : {})),
    rejectCode: emit(({ context }) => ({
      type: 'rejected' as const,
      code: 'service_validation_error' as const,
      message: `The code for ${context.entityId} doesn't match pattern ${context.codeFormat}.`,
    })),
    command: enqueueActions(({ context, event, enqueue }) => {
      if (event.type === 'message') return;
      enqueue.emit({ type: 'publish', topic: 'command_topic', payload: PAYLOAD[event.type], template: 'command_template', variables: { code: event.code ?? null } });
      if (!context.optimistic) return;
      const lock: MqttLockState =
        event.type === 'open' ? { ...UNKNOWN_LOCK, locked: false, open: true } : { ...UNKNOWN_LOCK, locked: event.type === 'lock' };
      enqueue.assign({ lock });
    }),
  },
  guards: {
    badCode: ({ context, event }) => {
      if (context.codeFormat === null || event.type === 'message') return false;
      return !codeFits(context.codeFormat, event.code);
    },
  },
}).createMachine(
  runningOnMessages('mqtt_lock', {
    lock: [{ guard: 'badCode', actions: 'rejectCode' }, { actions: 'command' }],
    unlock: [{ guard: 'badCode', actions: 'rejectCode' }, { actions: 'command' }],
    open: [{ guard: 'badCode', actions: 'rejectCode' }, { actions: 'command' }],
  }),
);
