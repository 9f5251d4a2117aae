import { assign, setup } from 'xstate';
import type { RecordsOfEvents } from './event-records.ts';

/** The original's three kinds of refresh token. */
export type RefreshTokenType = 'normal' | 'long_lived_access_token' | 'system';

/** The non-secret data of a `refresh_token_created` record (times epoch ms, durations seconds). */
export interface RefreshTokenCreated {
  id: string;
  user_id: string;
  client_id: string | null;
  client_name: string | null;
  client_icon: string | null;
  token_type: RefreshTokenType;
  created_at: number;
  access_token_expiration: number;
  expire_at: number | null;
  credential_id: string | null;
  version: string;
}

/** A token's state; the secrets stay with the actor layer. */
export interface RefreshTokenContext {
  id: string;
  userId: string;
  clientId: string | null;
  clientName: string | null;
  clientIcon: string | null;
  tokenType: RefreshTokenType;
  createdAt: number;
  accessTokenExpiration: number;
  lastUsedAt: number | null;
  lastUsedIp: string | null;
  expireAt: number | null;
  credentialId: string | null;
  version: string;
}

/** The token's log records after `refresh_token_created`, used as the machine's events. */
export type RefreshTokenEvent =
  | { type: 'refresh_token_used'; last_used_at: number; last_used_ip: string | null }
  | { type: 'refresh_token_expiry_set'; enable_expiry: boolean; at: number }
  | { type: 'refresh_token_revoked'; reason?: string };

/** The token's records after `refresh_token_created` on `auth/refresh_token/<id>`, as the log holds them. */
export type RefreshTokenStepRecord = RecordsOfEvents<RefreshTokenEvent>;

/** The machine's event for a step record. */
export function refreshTokenEventOf(record: RefreshTokenStepRecord): RefreshTokenEvent {
  switch (record.type) {
    case 'refresh_token_used':
      return { ...record.data, type: record.type };
    case 'refresh_token_expiry_set':
      return { ...record.data, type: record.type };
    case 'refresh_token_revoked':
      return { ...record.data, type: record.type };
  }
}

/** A normal token expires 90 days after its last use. */
export const REFRESH_TOKEN_EXPIRATION_MS = 90 * 24 * 3600 * 1000;

/**
 * A refresh token: active until revoked. Each use (an access token minted) records when and
 * from where, and slides the expiry forward when expiry is on. Time comes in the events.
 */
export const refreshTokenMachine = setup({
  types: {
    context: {} as RefreshTokenContext,
    events: {} as RefreshTokenEvent,
    input: {} as RefreshTokenCreated,
  },
  guards: {
    notExpiredAtUse: ({ context, event }) =>
      event.type !== 'refresh_token_used' || context.expireAt === null || event.last_used_at < context.expireAt,
  },
  actions: {
    recordUse: assign(({ context, event }) => {
      if (event.type !== 'refresh_token_used') return {};
      return {
        lastUsedAt: event.last_used_at,
        lastUsedIp: event.last_used_ip,
        expireAt: context.expireAt === null ? null : event.last_used_at + REFRESH_TOKEN_EXPIRATION_MS,
      };
    }),
    setExpiry: assign(({ context, event }) => {
      if (event.type !== 'refresh_token_expiry_set') return {};
      if (!event.enable_expiry) return { expireAt: null };
      // turning expiry on keeps a running expiry as it is
      return { expireAt: context.expireAt ?? (context.lastUsedAt ?? event.at) + REFRESH_TOKEN_EXPIRATION_MS };
    }),
  },
}).createMachine({
  id: 'refreshToken',
  context: ({ input }) => ({
    id: input.id,
    userId: input.user_id,
    clientId: input.client_id,
    clientName: input.client_name,
    clientIcon: input.client_icon,
    tokenType: input.token_type,
    createdAt: input.created_at,
    accessTokenExpiration: input.access_token_expiration,
    lastUsedAt: null,
    lastUsedIp: null,
    expireAt: input.expire_at,
    credentialId: input.credential_id,
    version: input.version,
  }),
  initial: 'active',
  states: {
    active: {
      on: {
        refresh_token_used: { guard: 'notExpiredAtUse', actions: 'recordUse' },
        refresh_token_expiry_set: { actions: 'setExpiry' },
        refresh_token_revoked: { target: 'revoked' },
      },
    },
    revoked: { type: 'final' },
  },
});
