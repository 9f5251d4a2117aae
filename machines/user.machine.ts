import { assign, setup } from 'xstate';
import type { RecordsOfEvents } from './event-records.ts';

/** The data of a `user_created` record (times epoch ms). */
export interface UserCreated {
  id: string;
  name: string | null;
  is_owner: boolean;
  is_active: boolean;
  system_generated: boolean;
  local_only: boolean;
  group_ids: string[];
  created_at: number;
}

/** A user's state; activity is the machine state, not a field. */
export interface UserContext {
  id: string;
  name: string | null;
  isOwner: boolean;
  systemGenerated: boolean;
  localOnly: boolean;
  groupIds: string[];
  createdAt: number;
  /** enabled multi-factor modules: module id → its secret (totp); absent in snapshots older than MFA */
  mfa?: Record<string, string>;
}

/** The data of a `user_updated` record: only what changed. */
export interface UserUpdated {
  name?: string | null;
  group_ids?: string[];
  local_only?: boolean;
}

/** The user's log records after `user_created`, used as the machine's events. */
export type UserEvent =
  | { type: 'user_activated' }
  | { type: 'user_deactivated' }
  | ({ type: 'user_updated' } & UserUpdated)
  | { type: 'user_owner_set'; is_owner: boolean }
  | { type: 'user_deleted' }
  /** a multi-factor module set up for the user (again: the new secret replaces the old) */
  | { type: 'mfa_enabled'; module_id: string; secret: string }
  | { type: 'mfa_disabled'; module_id: string };

/** The user's records after `user_created` on `auth/user/<id>`, as the log holds them. */
export type UserStepRecord = RecordsOfEvents<UserEvent>;

/** The machine's event for a step record. */
export function userEventOf(record: UserStepRecord): UserEvent {
  switch (record.type) {
    case 'user_updated':
      return { ...record.data, type: record.type };
    case 'user_owner_set':
      return { ...record.data, type: record.type };
    case 'mfa_enabled':
      return { ...record.data, type: record.type };
    case 'mfa_disabled':
      return { ...record.data, type: record.type };
    default:
      return { type: record.type };
  }
}

/**
 * A user of the auth system: active or inactive, owner flag, group membership.
 * Events are the user's own log records, so live commands and replay share one set of rules.
 */
export const userMachine = setup({
  types: {
    context: {} as UserContext,
    events: {} as UserEvent,
    input: {} as UserCreated,
  },
  guards: {
    // the first transition runs on xstate's init event, which carries the input
    createdActive: ({ event }) => (event as unknown as { input?: UserCreated }).input?.is_active !== false,
    // the original refuses to make a system user an owner; an owner stays unique by the actor layer
    notSystemGenerated: ({ context }) => !context.systemGenerated,
    // the original refuses to deactivate the owner
    notOwner: ({ context }) => !context.isOwner,
  },
  actions: {
    applyUpdate: assign(({ context, event }) => {
      if (event.type !== 'user_updated') return {};
      return {
        name: event.name === undefined ? context.name : event.name,
        groupIds: event.group_ids ?? context.groupIds,
        localOnly: event.local_only ?? context.localOnly,
      };
    }),
    enableMfa: assign({
      mfa: ({ context, event }) => (event.type === 'mfa_enabled' ? { ...context.mfa, [event.module_id]: event.secret } : context.mfa),
    }),
    disableMfa: assign({
      mfa: ({ context, event }) => {
        if (event.type !== 'mfa_disabled') return context.mfa;
        const { [event.module_id]: _gone, ...rest } = context.mfa ?? {};
        return rest;
      },
    }),
    setOwner: assign({ isOwner: ({ event }) => (event.type === 'user_owner_set' ? event.is_owner : false) }),
  },
}).createMachine({
  id: 'user',
  context: ({ input }) => ({
    id: input.id,
    name: input.name,
    isOwner: input.is_owner,
    systemGenerated: input.system_generated,
    localOnly: input.local_only,
    groupIds: [...input.group_ids],
    createdAt: input.created_at,
    mfa: {},
  }),
  initial: 'starting',
  states: {
    starting: {
      always: [
        { guard: 'createdActive', target: 'active' },
        { target: 'inactive' },
      ],
    },
    active: {
      on: {
        user_deactivated: { guard: 'notOwner', target: 'inactive' },
        user_updated: { actions: 'applyUpdate' },
        user_owner_set: { guard: 'notSystemGenerated', actions: 'setOwner' },
        user_deleted: { target: 'deleted' },
        mfa_enabled: { actions: 'enableMfa' },
        mfa_disabled: { actions: 'disableMfa' },
      },
    },
    inactive: {
      on: {
        user_activated: { target: 'active' },
        user_updated: { actions: 'applyUpdate' },
        user_owner_set: { guard: 'notSystemGenerated', actions: 'setOwner' },
        user_deleted: { target: 'deleted' },
        mfa_enabled: { actions: 'enableMfa' },
        mfa_disabled: { actions: 'disableMfa' },
      },
    },
    // removed with its credentials and refresh tokens; nothing applies to it any more
    deleted: { type: 'final' },
  },
});
