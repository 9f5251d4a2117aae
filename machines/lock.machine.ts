import { emit, setup } from 'xstate';

/** LockEntityFeature. */
export const LOCK_OPEN = 1;

export interface LockConfig {
  features: number;
  /** seconds locking, unlocking and opening take; 0 is at once */
  operation_seconds: number;
  /** simulate a jam: every attempt to lock ends jammed */
  jam: boolean;
  /** the original's code_format: a regular expression a code must match from its start */
  code_format: string | null;
}

export type LockRest = 'locked' | 'unlocked' | 'open' | 'jammed';

export interface LockInput {
  entityId: string;
  config: LockConfig;
  state: LockRest;
}

export type LockContext = LockInput;

export type LockEvent = { type: 'lock'; code?: string } | { type: 'unlock'; code?: string } | { type: 'open'; code?: string };

export type LockEmitted = {
  type: 'rejected';
  code: 'service_validation_error';
  message: string;
  translation: { domain: string; key: string; placeholders: Record<string, string> };
};

/** Whether a code (absent: empty) fits the lock's code_format, as Python's re.match. */
export function codeFits(codeFormat: string | null, code: string | undefined): boolean {
  if (codeFormat === null) return true;
  return new RegExp(`^(?:${codeFormat})`).test(code ?? '');
}

const CODE_CHECK = [{ guard: 'codeMismatch', actions: 'rejectCode' }] as const;

/**
 * A lock: locked, unlocked, open (its latch), jammed; locking, unlocking and opening take
 * `operation_seconds`. With `jam` every attempt to lock ends jammed; any command may be tried
 * again from there.
 */
export const lockMachine = setup({
  types: {
    context: {} as LockContext,
    events: {} as LockEvent,
    emitted: {} as LockEmitted,
    input: {} as LockInput,
  },
  delays: {
    operation: ({ context }) => context.config.operation_seconds * 1000,
  },
  actions: {
    rejectCode: emit(({ context }) => ({
      type: 'rejected' as const,
      code: 'service_validation_error' as const,
      message: `The code for ${context.entityId} doesn't match pattern ${context.config.code_format}.`,
      translation: { domain: 'lock', key: 'add_default_code', placeholders: { entity_id: context.entityId, code_format: String(context.config.code_format) } },
    })),
  },
  guards: {
    codeMismatch: ({ context, event }) => !codeFits(context.config.code_format, event.code),
    slow: ({ context }) => context.config.operation_seconds > 0,
    jams: ({ context }) => context.config.jam,
    restsLocked: ({ context }) => context.state === 'locked',
    restsOpen: ({ context }) => context.state === 'open',
    restsJammed: ({ context }) => context.state === 'jammed',
  },
}).createMachine({
  id: 'lock',
  context: ({ input }) => input,
  initial: 'starting',
  on: {
    lock: [...CODE_CHECK, { guard: 'slow', target: '.locking' }, { guard: 'jams', target: '.jammed' }, { target: '.locked' }],
    unlock: [...CODE_CHECK, { guard: 'slow', target: '.unlocking' }, { target: '.unlocked' }],
    open: [...CODE_CHECK, { guard: 'slow', target: '.opening' }, { target: '.open' }],
  },
  states: {
    starting: {
      always: [
        { guard: 'restsLocked', target: 'locked' },
        { guard: 'restsOpen', target: 'open' },
        { guard: 'restsJammed', target: 'jammed' },
        { target: 'unlocked' },
      ],
    },
    locked: {},
    unlocked: {},
    open: {},
    jammed: {},
    locking: {
      after: { operation: [{ guard: 'jams', target: 'jammed' }, { target: 'locked' }] },
    },
    unlocking: {
      after: { operation: 'unlocked' },
    },
    opening: {
      after: { operation: 'open' },
    },
  },
});
