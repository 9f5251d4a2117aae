// The commands of the user's own account (`auth/*`: tokens, MFA, signed paths) and of user
// administration (`config/auth*`), answered with the original's error codes and messages.
import { Type, type TSchema } from '@sinclair/typebox';
import type { CoreDeps } from '../core.ts';
import { commandSchema, type Command } from './command.ts';
import { CommandError, type Connection } from './connection.ts';
import type { AdminOutcome, AdminRefusal } from '../../actors/auth/admin.ts';

/** The original's error messages of the user-administration commands, by code. */
const ADMIN_REFUSALS: Record<AdminRefusal, [code: string, message: string]> = {
  not_found: ['not_found', 'User not found'],
  user_not_found: ['user_not_found', 'User not found'],
  no_delete_self: ['no_delete_self', 'Unable to delete your own account'],
  cannot_modify_system_generated: ['cannot_modify_system_generated', 'Unable to update system generated users.'],
  cannot_deactivate_owner: ['cannot_deactivate_owner', 'Unable to deactivate owner.'],
  // an unknown group is a bare ValueError in the original, answered as an unknown error
  invalid_group: ['unknown_error', 'Unknown error'],
  system_generated: ['system_generated', 'Cannot add credentials to a system generated user.'],
  username_exists: ['username_exists', 'Username already exists'],
  auth_not_found: ['auth_not_found', 'Given username was not found.'],
  credentials_not_found: ['credentials_not_found', 'Credentials not found'],
  invalid_current_password: ['invalid_current_password', 'Invalid current password'],
};

/** The value of a user-administration outcome, or the original's error for its refusal. */
function settled<T>(outcome: AdminOutcome<T>): T {
  if (outcome.ok) return outcome.value;
  const [code, message] = ADMIN_REFUSALS[outcome.reason];
  throw new CommandError(code, message);
}

/**
 * The original's `require_admin`: checked after the schema, on the user as it is now (a user
 * demoted or deactivated since the connection authenticated is refused at once).
 */
function requireAdmin(conn: Connection, deps: CoreDeps, ownerOnly = false) {
  const user = deps.auth.user(conn.principal!.userId);
  if (!user?.isAdmin || (ownerOnly && !user.isOwner)) throw new CommandError('unauthorized', 'Unauthorized');
  return user;
}

/** The original's answer for a refresh token id the user does not have. */
const invalidTokenId = () => new CommandError('invalid_token_id', 'Received invalid token');

/** A user-administration command answered with null: the caller must be an admin, the outcome is settled. */
function adminAction(props: Record<string, TSchema>, act: (adminId: string, msg: any, deps: CoreDeps) => Promise<AdminOutcome<unknown>>): Command {
  return {
    schema: commandSchema(props),
    async handle(conn, msg, deps) {
      const admin = requireAdmin(conn, deps);
      settled(await act(admin.id, msg, deps));
      conn.result(msg.id, 'null');
    },
  };
}

/** The account and user-administration commands, by type. */
export const authCommands: Record<string, Command> = {
  'auth/current_user': {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      const user = deps.auth.currentUser(conn.principal!.userId);
      if (!user) throw new CommandError('not_found', 'User not found.');
      conn.result(msg.id, JSON.stringify(user));
    },
  },

  'auth/setup_mfa': {
    schema: commandSchema({ mfa_module_id: Type.Optional(Type.String()), flow_id: Type.Optional(Type.String()), user_input: Type.Optional(Type.Unknown()) }),
    async handle(conn, msg, deps) {
      const byModule = msg.mfa_module_id !== undefined;
      const byFlow = msg.flow_id !== undefined;
      // the original's vol.Exclusive(..., 'module_or_flow_id') and cv.has_at_least_one_key
      if (byModule && byFlow) throw new CommandError('invalid_format', "two or more values in the same group of exclusion 'module_or_flow_id'");
      if (!byModule && !byFlow) throw new CommandError('invalid_format', 'must contain at least one of mfa_module_id, flow_id.');
      const request = byFlow ? { flowId: msg.flow_id!, input: msg.user_input } : { moduleId: msg.mfa_module_id! };
      const outcome = await deps.auth.setupMfa(conn.principal!.userId, request);
      if (!outcome.ok) throw new CommandError(outcome.code, outcome.message);
      conn.result(msg.id, JSON.stringify(outcome.result));
    },
  },

  'auth/depose_mfa': {
    schema: commandSchema({ mfa_module_id: Type.String() }),
    async handle(conn, msg, deps) {
      const outcome = await deps.auth.deposeMfa(conn.principal!.userId, msg.mfa_module_id);
      if (!outcome.ok) throw new CommandError(outcome.code, outcome.message);
      conn.result(msg.id, JSON.stringify(outcome.result));
    },
  },

  'auth/long_lived_access_token': {
    schema: commandSchema({ lifespan: Type.Integer(), client_name: Type.String(), client_icon: Type.Optional(Type.String()) }),
    async handle(conn, msg, deps) {
      const outcome = await deps.auth.createLongLivedToken(conn.principal!.userId, {
        clientName: msg.client_name,
        clientIcon: msg.client_icon ?? null,
        lifespanDays: msg.lifespan,
      });
      // the original raises a bare ValueError for a taken name (and an overflowing lifespan),
      // which its connection answers as an unknown error
      if (!outcome.ok) throw new CommandError('unknown_error', 'Unknown error');
      conn.result(msg.id, JSON.stringify(outcome.accessToken));
    },
  },

  'auth/refresh_tokens': {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      const { userId, refreshTokenId } = conn.principal!;
      conn.result(msg.id, JSON.stringify(deps.auth.refreshTokensOf(userId, refreshTokenId)));
    },
  },

  'auth/delete_refresh_token': {
    schema: commandSchema({ refresh_token_id: Type.String() }),
    async handle(conn, msg, deps) {
      const auth = deps.auth;
      const { userId, refreshTokenId } = conn.principal!;
      const token = auth.userRefreshToken(userId, msg.refresh_token_id);
      if (!token) throw invalidTokenId();
      if (token.id !== refreshTokenId) {
        await auth.revokeRefreshTokens([token.id]);
        return conn.result(msg.id, '{}');
      }
      // revoking the connection's own token closes it: the answer goes out first
      conn.result(msg.id, '{}');
      conn.flush();
      await auth.revokeRefreshTokens([token.id]);
    },
  },

  'auth/delete_all_refresh_tokens': {
    schema: commandSchema({ token_type: Type.Optional(Type.String()), delete_current_token: Type.Optional(Type.Boolean()) }),
    async handle(conn, msg, deps) {
      const auth = deps.auth;
      const { userId, refreshTokenId } = conn.principal!;
      const tokenType: string | undefined = msg.token_type;
      const matches = (token: { type: string }) => tokenType === undefined || token.type === tokenType;
      const all = auth.refreshTokensOf(userId, refreshTokenId);
      const others = all.filter((token) => !token.is_current && matches(token)).map((token) => token.id);
      try {
        await auth.revokeRefreshTokens(others);
        conn.result(msg.id, '{}');
      } catch (err) {
        deps.logs.get('hearth.websocket').error('Error during refresh token removal', err);
        conn.error(msg.id, 'token_removing_error', 'During removal, an error was raised.');
      }
      const current = all.find((token) => token.is_current);
      if (msg.delete_current_token !== false && current && matches(current)) {
        // this closes the connection, so the answer goes out first
        conn.flush();
        await auth.revokeRefreshTokens([current.id]);
      }
    },
  },

  'auth/refresh_token_set_expiry': {
    schema: commandSchema({ refresh_token_id: Type.String(), enable_expiry: Type.Boolean() }),
    async handle(conn, msg, deps) {
      if (!(await deps.auth.setRefreshTokenExpiry(conn.principal!.userId, msg.refresh_token_id, msg.enable_expiry))) throw invalidTokenId();
      conn.result(msg.id, '{}');
    },
  },

  'auth/sign_path': {
    schema: commandSchema({ path: Type.String(), expires: Type.Optional(Type.Integer()) }),
    handle(conn, msg, deps) {
      // signed by the connection's refresh token; the original's default lifetime is 30 seconds
      const path = deps.auth.signPath(conn.principal!.refreshTokenId, msg.path, msg.expires ?? 30);
      // an out-of-range lifetime overflows the original's timedelta: an unknown error there
      if (path === undefined) throw new CommandError('unknown_error', 'Unknown error');
      conn.result(msg.id, JSON.stringify({ path }));
    },
  },

  'config/auth/list': {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      requireAdmin(conn, deps);
      conn.result(msg.id, JSON.stringify(deps.auth.listUsers()));
    },
  },

  'config/auth/create': {
    schema: commandSchema({ name: Type.String(), group_ids: Type.Optional(Type.Array(Type.String())), local_only: Type.Optional(Type.Boolean()) }),
    async handle(conn, msg, deps) {
      const admin = requireAdmin(conn, deps);
      const user = settled(await deps.auth.createUser(admin.id, { name: msg.name, groupIds: msg.group_ids, localOnly: msg.local_only }));
      conn.result(msg.id, JSON.stringify({ user }));
    },
  },

  'config/auth/update': {
    schema: commandSchema({
      user_id: Type.String(),
      name: Type.Optional(Type.String()),
      is_active: Type.Optional(Type.Boolean()),
      group_ids: Type.Optional(Type.Array(Type.String())),
      local_only: Type.Optional(Type.Boolean()),
    }),
    async handle(conn, msg, deps) {
      const admin = requireAdmin(conn, deps);
      const changes = { name: msg.name, isActive: msg.is_active, groupIds: msg.group_ids, localOnly: msg.local_only };
      const user = settled(await deps.auth.updateUser(admin.id, msg.user_id, changes));
      conn.result(msg.id, JSON.stringify({ user }));
    },
  },

  'config/auth/delete': adminAction({ user_id: Type.String() }, (adminId, msg, deps) => deps.auth.deleteUser(adminId, msg.user_id)),

  'config/auth_provider/homeassistant/create': adminAction({ user_id: Type.String(), username: Type.String(), password: Type.String() }, (adminId, msg, deps) =>
    deps.auth.addCoreCredential(adminId, msg.user_id, msg.username, msg.password),
  ),

  'config/auth_provider/homeassistant/delete': adminAction({ username: Type.String() }, (adminId, msg, deps) => deps.auth.removeCoreCredential(adminId, msg.username)),

  'config/auth_provider/homeassistant/change_password': {
    schema: commandSchema({ current_password: Type.String(), new_password: Type.String() }),
    async handle(conn, msg, deps) {
      settled(await deps.auth.changeOwnPassword(conn.principal!.userId, msg.current_password, msg.new_password));
      conn.result(msg.id, 'null');
    },
  },

  'config/auth_provider/homeassistant/admin_change_password': {
    schema: commandSchema({ user_id: Type.String(), password: Type.String() }),
    async handle(conn, msg, deps) {
      // admin only, and then owner only: the original refuses other admins as unauthorized
      const owner = requireAdmin(conn, deps, true);
      settled(await deps.auth.setPassword(owner.id, msg.user_id, msg.password));
      conn.result(msg.id, 'null');
    },
  },
};
