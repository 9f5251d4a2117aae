import { Type } from '@sinclair/typebox';
import type { ReadDeps } from '../core.ts';
import { CommandError } from './connection.ts';
import type { Command, CommandTable } from './command.ts';
import { coreCommands } from './commands.ts';
import { readCommands } from './read-commands.ts';

const readTable = new Map(Object.entries(readCommands));

/**
 * The WebSocket commands of a read replica: the read commands as the primary serves them; a
 * command of the primary that changes the home is refused with the original's `not_supported`
 * and a message that says where to send it; anything else is an unknown command, as anywhere.
 */
export function replicaCommands(stream: string): CommandTable<ReadDeps> {
  const refused = new Map<string, Command<ReadDeps>>();
  const get = (type: string) => {
    const read = readTable.get(type);
    if (read) return read;
    if (!coreCommands.get(type)) return undefined;
    let command = refused.get(type);
    if (!command) {
      command = {
        // the refusal does not depend on the message's fields
        schema: Type.Object({ id: Type.Integer({ minimum: 1 }), type: Type.String() }),
        handle() {
          throw new CommandError('not_supported', `${type} is not served by a read replica (it follows stream ${stream}): send it to the primary`);
        },
      };
      refused.set(type, command);
    }
    return command;
  };
  // the refused ones are no part of what a replica serves
  return { get, types: () => readTable.keys() };
}
