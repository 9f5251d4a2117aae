import { Type } from '@sinclair/typebox';
import type { Command } from './command.ts';

/** `system_log/list` (admin): the captured warnings and errors, newest first, in the original's entry shape. */
export const loggingCommands: Record<string, Command> = {
  'system_log/list': {
    schema: Type.Object({ id: Type.Integer({ minimum: 1 }), type: Type.String() }, { additionalProperties: false }),
    admin: true,
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(deps.logs.systemLog.list()));
    },
  },
};
