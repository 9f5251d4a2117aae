import { Type, type TSchema } from '@sinclair/typebox';
import type { CoreDeps, ReadDeps } from '../core.ts';
import { newContext, eventTypeProblem } from '../core.ts';
import { globMatcher } from '../../streams/glob.ts';
import { CommandError, type Connection } from './connection.ts';
import { validate } from '../../actors/services/validate.ts';
import { ServiceError } from '../../actors/services/types.ts';
import { toJson } from '../../actors/entities/state.ts';
import { eventJson } from '../../streams/event-json.ts';
import { compressedState } from '../../streams/compressed.ts';
import { readableEntities, readableStateChanged, readableStatesJson } from '../../streams/readable.ts';
import type { EventRecord } from '../../store/types.ts';
import type { EntityState } from '../../actors/entities/types.ts';
import type { AdminOutcome, AdminRefusal } from '../../actors/auth/admin.ts';
import { loggingCommands } from './logging-commands.ts';
import { historyCommands } from './history-commands.ts';
import { registryCommands } from './registry-commands.ts';
import { templateCommands } from './template-commands.ts';
import { conversationCommands } from './conversation-commands.ts';
import { mobileCommands } from './mobile-commands.ts';
import { explorerCommands } from './explorer-commands.ts';
import { frontendCommands } from './frontend-commands.ts';
import { flowCommands } from './flow-commands.ts';
import { backupCommands } from './backup-commands.ts';
import { deviceAutomationCommands } from './device-automation-commands.ts';
import { tagCommands } from './tag-commands.ts';
import { mqttCommands } from './mqtt-commands.ts';

/** One command: its schema (with id and type) and its handler. */
export interface Command<D = CoreDeps> {
  schema: TSchema;
  admin?: boolean;
  handle(conn: Connection, msg: any, deps: D): void | Promise<void>;
}

const base = { id: Type.Integer({ minimum: 1 }), type: Type.String() };
const cmd = (props: Record<string, TSchema> = {}) => Type.Object({ ...base, ...props }, { additionalProperties: false });

/** Event types a non-admin may subscribe to (the original's allow-list). */
const SUBSCRIBE_ALLOWLIST = new Set([
  'area_registry_updated', 'category_registry_updated', 'component_loaded', 'core_config_updated',
  'device_registry_updated', 'entity_registry_updated', 'floor_registry_updated', 'label_registry_updated',
  'lovelace_updated', 'panels_updated', 'recorder_5min_statistics_generated', 'recorder_hourly_statistics_generated',
  'repairs_issue_registry_updated', 'service_registered', 'service_removed', 'shopping_list_updated',
  'state_changed', 'themes_updated',
]);

const EntityFilter = Type.Object(
  {
    domains: Type.Optional(Type.Array(Type.String())),
    entity_globs: Type.Optional(Type.Array(Type.String())),
    entities: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);


/** The entity filter of subscribe_entities: explicit ids, then include/exclude as the original applies them. */
function entityMatcher(msg: any): (id: string) => boolean {
  const ids: Set<string> | undefined = msg.entity_ids ? new Set(msg.entity_ids) : undefined;
  const compile = (f: any) =>
    f && {
      domains: new Set<string>(f.domains ?? []),
      entities: new Set<string>(f.entities ?? []),
      globs: (f.entity_globs ?? []).map(globMatcher) as Array<(id: string) => boolean>,
    };
  const inc = compile(msg.include);
  const exc = compile(msg.exclude);
  const hit = (f: ReturnType<typeof compile>, id: string) =>
    !!f && (f.entities.has(id) || f.domains.has(id.slice(0, id.indexOf('.'))) || f.globs.some((matches: (id: string) => boolean) => matches(id)));
  return (id) => {
    if (ids && !ids.has(id)) return false;
    if (inc && !hit(inc, id)) return false;
    if (exc && hit(exc, id) && !(inc && inc.entities.has(id))) return false;
    return true;
  };
}

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

function serviceErrorExtra(err: ServiceError): Record<string, unknown> | undefined {
  if (!err.translation) return undefined;
  return {
    translation_key: err.translation.key,
    translation_placeholders: err.translation.placeholders,
    translation_domain: err.translation.domain,
  };
}

/**
 * The commands that only read (states, events, history): all a read replica serves. They reach
 * only ReadDeps.
 */
export const readCommands: Record<string, Command<ReadDeps>> = {
  ping: {
    schema: cmd(),
    handle(conn, msg) {
      conn.send(`{"id":${msg.id},"type":"pong"}`);
    },
  },

  supported_features: {
    schema: cmd({ features: Type.Record(Type.String(), Type.Integer()) }),
    handle(conn, msg) {
      conn.coalesce = msg.features.coalesce_messages === 1;
      conn.result(msg.id, 'null');
    },
  },

  get_states: {
    schema: cmd(),
    handle(conn, msg, deps) {
      conn.result(msg.id, readableStatesJson(deps.entities, conn.principal!.permissions));
    },
  },

  get_config: {
    schema: cmd(),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(deps.coreConfig.asDict(deps.runState())));
    },
  },

  subscribe_events: {
    schema: cmd({ event_type: Type.Optional(Type.String()) }),
    handle(conn, msg, deps) {
      const eventType: string = msg.event_type ?? '*';
      if (!conn.principal!.isAdmin && !SUBSCRIBE_ALLOWLIST.has(eventType)) throw new CommandError('unauthorized', 'Unauthorized');
      const release = deps.bus.countListener(eventType);
      const send = (r: EventRecord) => conn.event(msg.id, eventJson(r));
      // state changes go only to those who may read the entity; other events to all who may subscribe
      const readable = eventType === 'state_changed' ? readableStateChanged(conn.principal!.permissions) : undefined;
      const forward = readable
        ? (r: EventRecord) => {
            if (readable(r)) send(r);
          }
        : send;
      const sub = deps.bus.listen(eventType, `subscribe_events of ${conn.ip}`, forward);
      conn.subscribe(msg.id, () => {
        sub.unsubscribe();
        release();
      });
      conn.result(msg.id, 'null');
    },
  },

  unsubscribe_events: {
    schema: cmd({ subscription: Type.Integer({ minimum: 1 }) }),
    handle(conn, msg) {
      const unsubscribe = conn.subscriptions.get(msg.subscription);
      if (!unsubscribe) throw new CommandError('not_found', 'Subscription not found.');
      unsubscribe();
      conn.subscriptions.delete(msg.subscription);
      conn.result(msg.id, 'null');
    },
  },

  subscribe_entities: {
    schema: cmd({
      entity_ids: Type.Optional(Type.Array(Type.String())),
      include: Type.Optional(EntityFilter),
      exclude: Type.Optional(EntityFilter),
    }),
    handle(conn, msg, deps) {
      const matches = readableEntities(conn.principal!.permissions, entityMatcher(msg));
      const release = deps.bus.countListener('state_changed');
      // subscribe before the snapshot so no change can fall between them
      const stop = deps.entityFanout.subscribe(matches, (payload) => conn.event(msg.id, payload));
      conn.subscribe(msg.id, () => {
        stop();
        release();
      });
      conn.result(msg.id, 'null');
      const parts: string[] = [];
      for (const s of deps.entities.states() as IterableIterator<EntityState>) {
        if (matches(s.entity_id)) parts.push(`${JSON.stringify(s.entity_id)}:${toJson(compressedState(s))}`);
      }
      conn.event(msg.id, `{"a":{${parts.join(',')}}}`);
    },
  },
  ...historyCommands,
};

/** The commands of this slice, by type. */
const commands: Record<string, Command> = {
  ...readCommands,
  ...registryCommands,
  get_services: {
    schema: cmd(),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(deps.services.describe()));
    },
  },

  'auth/current_user': {
    schema: cmd(),
    handle(conn, msg, deps) {
      const user = deps.auth.currentUser(conn.principal!.userId);
      if (!user) throw new CommandError('not_found', 'User not found.');
      conn.result(msg.id, JSON.stringify(user));
    },
  },

  'auth/setup_mfa': {
    schema: cmd({ mfa_module_id: Type.Optional(Type.String()), flow_id: Type.Optional(Type.String()), user_input: Type.Optional(Type.Unknown()) }),
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
    schema: cmd({ mfa_module_id: Type.String() }),
    async handle(conn, msg, deps) {
      const outcome = await deps.auth.deposeMfa(conn.principal!.userId, msg.mfa_module_id);
      if (!outcome.ok) throw new CommandError(outcome.code, outcome.message);
      conn.result(msg.id, JSON.stringify(outcome.result));
    },
  },

  'auth/long_lived_access_token': {
    schema: cmd({ lifespan: Type.Integer(), client_name: Type.String(), client_icon: Type.Optional(Type.String()) }),
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
    schema: cmd(),
    handle(conn, msg, deps) {
      const { userId, refreshTokenId } = conn.principal!;
      conn.result(msg.id, JSON.stringify(deps.auth.refreshTokensOf(userId, refreshTokenId)));
    },
  },

  'auth/delete_refresh_token': {
    schema: cmd({ refresh_token_id: Type.String() }),
    async handle(conn, msg, deps) {
      const auth = deps.auth;
      const { userId, refreshTokenId } = conn.principal!;
      const rt = auth.userRefreshToken(userId, msg.refresh_token_id);
      if (!rt) throw invalidTokenId();
      if (rt.id !== refreshTokenId) {
        await auth.revokeRefreshTokens([rt.id]);
        return conn.result(msg.id, '{}');
      }
      // revoking the connection's own token closes it: the answer goes out first
      conn.result(msg.id, '{}');
      conn.flush();
      await auth.revokeRefreshTokens([rt.id]);
    },
  },

  'auth/delete_all_refresh_tokens': {
    schema: cmd({ token_type: Type.Optional(Type.String()), delete_current_token: Type.Optional(Type.Boolean()) }),
    async handle(conn, msg, deps) {
      const auth = deps.auth;
      const { userId, refreshTokenId } = conn.principal!;
      const tokenType: string | undefined = msg.token_type;
      const matches = (rt: { type: string }) => tokenType === undefined || rt.type === tokenType;
      const all = auth.refreshTokensOf(userId, refreshTokenId);
      const others = all.filter((rt) => !rt.is_current && matches(rt)).map((rt) => rt.id);
      try {
        await auth.revokeRefreshTokens(others);
        conn.result(msg.id, '{}');
      } catch (err) {
        deps.logs.get('hearth.websocket').error('Error during refresh token removal', err);
        conn.error(msg.id, 'token_removing_error', 'During removal, an error was raised.');
      }
      const current = all.find((rt) => rt.is_current);
      if (msg.delete_current_token !== false && current && matches(current)) {
        // this closes the connection, so the answer goes out first
        conn.flush();
        await auth.revokeRefreshTokens([current.id]);
      }
    },
  },

  'auth/refresh_token_set_expiry': {
    schema: cmd({ refresh_token_id: Type.String(), enable_expiry: Type.Boolean() }),
    async handle(conn, msg, deps) {
      if (!(await deps.auth.setRefreshTokenExpiry(conn.principal!.userId, msg.refresh_token_id, msg.enable_expiry))) throw invalidTokenId();
      conn.result(msg.id, '{}');
    },
  },

  'auth/sign_path': {
    schema: cmd({ path: Type.String(), expires: Type.Optional(Type.Integer()) }),
    handle(conn, msg, deps) {
      // signed by the connection's refresh token; the original's default lifetime is 30 seconds
      const path = deps.auth.signPath(conn.principal!.refreshTokenId, msg.path, msg.expires ?? 30);
      // an out-of-range lifetime overflows the original's timedelta: an unknown error there
      if (path === undefined) throw new CommandError('unknown_error', 'Unknown error');
      conn.result(msg.id, JSON.stringify({ path }));
    },
  },

  'config/auth/list': {
    schema: cmd(),
    handle(conn, msg, deps) {
      requireAdmin(conn, deps);
      conn.result(msg.id, JSON.stringify(deps.auth.listUsers()));
    },
  },

  'config/auth/create': {
    schema: cmd({ name: Type.String(), group_ids: Type.Optional(Type.Array(Type.String())), local_only: Type.Optional(Type.Boolean()) }),
    async handle(conn, msg, deps) {
      const admin = requireAdmin(conn, deps);
      const user = settled(await deps.auth.createUser(admin.id, { name: msg.name, groupIds: msg.group_ids, localOnly: msg.local_only }));
      conn.result(msg.id, JSON.stringify({ user }));
    },
  },

  'config/auth/update': {
    schema: cmd({
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

  'config/auth/delete': {
    schema: cmd({ user_id: Type.String() }),
    async handle(conn, msg, deps) {
      const admin = requireAdmin(conn, deps);
      settled(await deps.auth.deleteUser(admin.id, msg.user_id));
      conn.result(msg.id, 'null');
    },
  },

  'config/auth_provider/homeassistant/create': {
    schema: cmd({ user_id: Type.String(), username: Type.String(), password: Type.String() }),
    async handle(conn, msg, deps) {
      const admin = requireAdmin(conn, deps);
      settled(await deps.auth.addCoreCredential(admin.id, msg.user_id, msg.username, msg.password));
      conn.result(msg.id, 'null');
    },
  },

  'config/auth_provider/homeassistant/delete': {
    schema: cmd({ username: Type.String() }),
    async handle(conn, msg, deps) {
      const admin = requireAdmin(conn, deps);
      settled(await deps.auth.removeCoreCredential(admin.id, msg.username));
      conn.result(msg.id, 'null');
    },
  },

  'config/auth_provider/homeassistant/change_password': {
    schema: cmd({ current_password: Type.String(), new_password: Type.String() }),
    async handle(conn, msg, deps) {
      settled(await deps.auth.changeOwnPassword(conn.principal!.userId, msg.current_password, msg.new_password));
      conn.result(msg.id, 'null');
    },
  },

  'config/auth_provider/homeassistant/admin_change_password': {
    schema: cmd({ user_id: Type.String(), password: Type.String() }),
    async handle(conn, msg, deps) {
      // admin only, and then owner only: the original refuses other admins as unauthorized
      const owner = requireAdmin(conn, deps, true);
      settled(await deps.auth.setPassword(owner.id, msg.user_id, msg.password));
      conn.result(msg.id, 'null');
    },
  },

  call_service: {
    schema: cmd({
      domain: Type.String(),
      service: Type.String(),
      service_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      target: Type.Optional(
        Type.Object(
          {
            entity_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
            device_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
            area_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
            floor_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
            label_id: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
          },
          { additionalProperties: false },
        ),
      ),
      return_response: Type.Optional(Type.Boolean()),
    }),
    async handle(conn, msg, deps) {
      const target = msg.target as Record<string, unknown> | undefined;
      if (target && Object.values(target).some((v) => (Array.isArray(v) ? v : [v]).some((x) => typeof x === 'string' && /\{\{|\{%/.test(x)))) {
        throw new CommandError('invalid_format', 'Templates are not supported here');
      }
      const context = newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId);
      try {
        const result = await deps.services.call({
          domain: msg.domain,
          service: msg.service,
          data: msg.service_data ?? {},
          target,
          context,
          returnResponse: msg.return_response === true,
        });
        const response = msg.return_response ? `,"response":${JSON.stringify(result.response ?? {})}` : '';
        conn.result(msg.id, `{"context":${JSON.stringify(context)}${response}}`);
      } catch (err) {
        if (err instanceof ServiceError) {
          const message = err.code === 'service_validation_error' ? `Validation error: ${err.message}` : err.message;
          throw new CommandError(err.code, message, serviceErrorExtra(err));
        }
        throw err;
      }
    },
  },

  fire_event: {
    schema: cmd({ event_type: Type.String(), event_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
    admin: true,
    async handle(conn, msg, deps) {
      const problem = eventTypeProblem(msg.event_type);
      if (problem) throw new CommandError(problem.code, problem.message);
      const context = newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId);
      await deps.fireEvent(msg.event_type, msg.event_data ?? {}, 'LOCAL', context);
      conn.result(msg.id, `{"context":${JSON.stringify(context)}}`);
    },
  },
  ...loggingCommands,
  ...conversationCommands,
  ...mobileCommands,
  ...explorerCommands,
  ...frontendCommands,
  ...flowCommands,
  ...backupCommands,
  ...deviceAutomationCommands,
  ...tagCommands,
  ...mqttCommands,
};

/** The commands a WebSocket server answers: each found by its type, and all of them listed. */
export interface CommandTable<D = CoreDeps> {
  get(type: string): Command<D> | undefined;
  types(): Iterable<string>;
}

const byType = new Map(Object.entries({ ...commands, ...templateCommands }));

/** The core's commands: only those above, never a member every object has. */
export const coreCommands: CommandTable = { get: (type) => byType.get(type), types: () => byType.keys() };

/**
 * Validates a command message against its schema as it is, without converting anything, so the
 * handler runs on exactly what was checked; the message of the original's format error otherwise.
 */
export function checkCommand(command: Pick<Command, 'schema'>, msg: unknown): string | undefined {
  const r = validate(command.schema, msg, { convert: false });
  return r.ok ? undefined : r.message;
}
