import { Type } from '@sinclair/typebox';
import { commandSchema, type Command } from './command.ts';
import type { CoreDeps } from '../core.ts';
import { CommandError } from './connection.ts';
import { DeviceNotFound, type AutomationKind, type DeviceAutomations } from '../../actors/device-automation/index.ts';

function automations(deps: CoreDeps): DeviceAutomations {
  if (!deps.deviceAutomations) throw new CommandError('not_supported', 'Device automations are not kept here.');
  return deps.deviceAutomations;
}

/** `device_automation/<kind>/list`: what a device offers, or the original's not_found. */
function listCommand(kind: AutomationKind): Command {
  return {
    schema: commandSchema({ device_id: Type.String() }),
    handle(conn, msg, deps) {
      try {
        conn.result(msg.id, JSON.stringify(automations(deps).list(kind, msg.device_id)));
      } catch (err) {
        if (err instanceof DeviceNotFound) throw new CommandError('not_found', err.message);
        throw err;
      }
    },
  };
}

/** `device_automation/<kind>/capabilities`: the record comes back under its kind's name. */
function capabilitiesCommand(kind: AutomationKind): Command {
  return {
    schema: commandSchema({ [kind]: Type.Record(Type.String(), Type.Unknown()) }),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(automations(deps).capabilities(kind, msg[kind])));
    },
  };
}

/** The original's device_automation commands, open to any signed-in user as there. */
export const deviceAutomationCommands: Record<string, Command> = Object.fromEntries(
  (['action', 'trigger', 'condition'] as const).flatMap((kind) => [
    [`device_automation/${kind}/list`, listCommand(kind)],
    [`device_automation/${kind}/capabilities`, capabilitiesCommand(kind)],
  ]),
);
