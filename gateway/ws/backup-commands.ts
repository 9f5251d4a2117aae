import { Type } from '@sinclair/typebox';
import type { Command } from './command.ts';
import { CommandError } from './connection.ts';
import { messageOf } from '../../store/errors.ts';

const base = { id: Type.Integer({ minimum: 1 }), type: Type.String() };

/**
 * `backup/start` and `backup/end` (admin; the original allows only its Supervisor user), as
 * the supervisor sends them around archiving the core's data. Start answers once the log
 * export is written; `exclude_database` (Hearth's addition: the original's supervisor leaves
 * the database files out itself) asks for the current state without history.
 */
export const backupCommands: Record<string, Command> = {
  'backup/start': {
    schema: Type.Object({ ...base, exclude_database: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
    admin: true,
    async handle(conn, msg, deps) {
      if (!deps.coreBackup) throw new CommandError('unknown_command', 'Unknown command.');
      try {
        await deps.coreBackup.start({ excludeDatabase: msg.exclude_database === true });
      } catch (err) {
        throw new CommandError('pre_backup_actions_failed', `Error during pre-backup: ${messageOf(err)}`);
      }
      conn.result(msg.id, 'null');
    },
  },
  'backup/end': {
    schema: Type.Object(base, { additionalProperties: false }),
    admin: true,
    async handle(conn, msg, deps) {
      if (!deps.coreBackup) throw new CommandError('unknown_command', 'Unknown command.');
      try {
        await deps.coreBackup.end();
      } catch (err) {
        throw new CommandError('post_backup_actions_failed', `Error during post-backup: ${messageOf(err)}`);
      }
      conn.result(msg.id, 'null');
    },
  },
};
