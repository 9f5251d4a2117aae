// The core's WebSocket command table: the read commands, then each area's commands, each found
// by its type. The commands themselves sit with their area (read-commands.ts, auth-commands.ts,
// service-commands.ts, registry-commands.ts...); command.ts says what a command is.
import type { Command, CommandTable } from './command.ts';
import { authCommands } from './auth-commands.ts';
import { readCommands } from './read-commands.ts';
import { serviceCommands } from './service-commands.ts';
import { loggingCommands } from './logging-commands.ts';
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

/** The commands of this slice, by type. */
const commands: Record<string, Command> = {
  ...readCommands,
  ...registryCommands,
  ...serviceCommands,
  ...authCommands,
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

const byType = new Map(Object.entries({ ...commands, ...templateCommands }));

/** The core's commands: only those above, never a member every object has. */
export const coreCommands: CommandTable = { get: (type) => byType.get(type), types: () => byType.keys() };
