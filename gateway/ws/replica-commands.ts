import { Type } from '@sinclair/typebox';
import type { ReadDeps } from '../core.ts';
import { CommandError } from './connection.ts';
import { commandFor, readCommands, type Command } from './commands.ts';

const readTable = new Map(Object.entries(readCommands));

/**
 * The WebSocket commands of a read replica: the read commands as the primary serves them; a
 * command of the primary that changes the home is refused with the original's `not_supported`
 * and a message that says where to send it; anything else is an unknown command, as anywhere.
 */
export function replicaCommands(stream: string): (type: string) => Command<ReadDeps> | undefined {
  const refused = new Map<string, Command<ReadDeps>>();
  return (type) => {
    const read = readTable.get(type);
    if (read) return read;
    if (!commandFor(type)) return undefined;
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
}
