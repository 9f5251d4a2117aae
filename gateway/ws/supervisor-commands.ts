import { Type } from '@sinclair/typebox';
import type { Command, CommandTable } from './command.ts';
import { CommandError } from './connection.ts';
import { SupervisorApiError } from '../../actors/supervisor-client/client.ts';

/**
 * Endpoints a user who is no admin may call (the original's list): what an app's ingress panel
 * needs, since an app may show its panel to every user. The empty alternative is the original's.
 */
const NO_ADMIN_ENDPOINTS = /^(?:|\/ingress\/(session|validate_session)|\/addons\/[^/]+\/info)$/;

/** `supervisor/api`: a call to the supervisor that runs this core, with the core's token. */
export const supervisorApiCommand: Command = {
  schema: Type.Object(
    {
      id: Type.Integer({ minimum: 1 }),
      type: Type.String(),
      endpoint: Type.String(),
      method: Type.String(),
      data: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      timeout: Type.Optional(Type.Union([Type.Number(), Type.Null()])),
    },
    { additionalProperties: false },
  ),
  async handle(conn, msg, deps) {
    const user = deps.auth.user(conn.principal!.userId);
    if (!user?.isAdmin && !NO_ADMIN_ENDPOINTS.test(msg.endpoint)) throw new CommandError('unauthorized', 'Unauthorized');
    if (!deps.supervisor) throw new CommandError('unknown_command', 'Unknown command.');
    if (typeof msg.timeout === 'number' && msg.timeout < 0) throw new CommandError('invalid_format', `Invalid timeout: ${msg.timeout} is below 0`);
    const data: Record<string, unknown> = { ...(msg.data ?? {}) };
    // the supervisor ties an ingress session to the user who opened it
    if (msg.endpoint === '/ingress/session') data.user_id = conn.principal!.userId;
    let result: unknown;
    try {
      result = await deps.supervisor.send(msg.endpoint, { method: msg.method, data, timeout: msg.timeout, source: 'core.websocket_api' });
    } catch (err) {
      if (err instanceof SupervisorApiError) throw new CommandError('unknown_error', err.message);
      throw err;
    }
    conn.result(msg.id, JSON.stringify(result ?? {}));
  },
};

/**
 * The command table with `supervisor/api` added, for a core a supervisor runs; a core without
 * one keeps the table as it is, so the command is unknown there as in the original.
 */
export function withSupervisorCommands(table: CommandTable): CommandTable {
  return {
    get: (type) => (type === 'supervisor/api' ? supervisorApiCommand : table.get(type)),
    types: () => [...table.types(), 'supervisor/api'],
  };
}
