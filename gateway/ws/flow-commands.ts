import { Type } from '@sinclair/typebox';
import type { Command } from './command.ts';
import { CommandError } from './connection.ts';

/**
 * `config_entries/flow/progress` (admin): the config flows in progress that no user started —
 * here the discovery flows of the supervisor's apps; none on a core no supervisor runs.
 */
export const flowCommands: Record<string, Command> = {
  'config_entries/flow/progress': {
    schema: Type.Object({ id: Type.Integer({ minimum: 1 }), type: Type.String() }, { additionalProperties: false }),
    handle(conn, msg, deps) {
      const user = deps.auth.user(conn.principal!.userId);
      if (!user?.isAdmin) throw new CommandError('unauthorized', 'Unauthorized');
      conn.result(msg.id, JSON.stringify(deps.discoveryFlows?.progress() ?? []));
    },
  },
};
