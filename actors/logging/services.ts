import { Type } from '@sinclair/typebox';
import type { Context } from '../../store/types.ts';
import type { ServiceSpec } from '../services/types.ts';
import { SEVERITY_PATTERN, SEVERITY_REFUSAL, severityOf, type LevelName } from './levels.ts';
import type { Logs } from './logs.ts';

/** The logger `system_log.write` uses when the call names none (the original's `<package>.external`). */
export const EXTERNAL_LOGGER = 'hearth.system_log.external';

const SEVERITY = Type.String({ pattern: SEVERITY_PATTERN, refusal: SEVERITY_REFUSAL });
const WRITE_LEVELS: LevelName[] = ['debug', 'info', 'warning', 'error', 'critical'];
const levelSelector = (options: string[]) => ({ select: { options, translation_key: 'level' } });

/**
 * The `logger` services (admin only, as the original registers them) and the `system_log`
 * services. A change of levels fires `logging_changed`, as the original does.
 */
export function loggingServices(deps: {
  logs: Logs;
  fireEvent(eventType: string, data: Record<string, unknown>, origin: 'LOCAL', context: Context): Promise<unknown>;
}): ServiceSpec[] {
  const { logs } = deps;
  return [
    {
      domain: 'logger',
      service: 'set_default_level',
      description: {
        name: 'Set logger default level',
        description: 'Sets the default log level for integrations.',
        fields: {
          level: { name: 'Level', description: 'Default severity level for all integrations.', selector: levelSelector(['debug', 'info', 'warning', 'error', 'fatal', 'critical']) },
        },
      },
      schema: Type.Object({ level: SEVERITY }, { additionalProperties: false }),
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => {
        logs.setDefaultLevel(severityOf(call.data.level)!);
        await deps.fireEvent('logging_changed', {}, 'LOCAL', call.context);
      },
    },
    {
      domain: 'logger',
      service: 'set_level',
      description: { name: 'Set logger level', description: 'Sets the log level for one or more integrations.', fields: {} },
      schema: Type.Record(Type.String(), SEVERITY),
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => {
        logs.setLevels(Object.fromEntries(Object.entries(call.data).map(([name, level]) => [name, severityOf(level)!])));
        await deps.fireEvent('logging_changed', {}, 'LOCAL', call.context);
      },
    },
    {
      domain: 'system_log',
      service: 'clear',
      description: { name: 'Clear', description: 'Deletes all log entries.', fields: {} },
      schema: Type.Object({}, { additionalProperties: false }),
      supportsResponse: 'none',
      handler: async () => logs.systemLog.clear(),
    },
    {
      domain: 'system_log',
      service: 'write',
      description: {
        name: 'Write',
        description: 'Write log entry.',
        fields: {
          message: { name: 'Message', description: 'Message to log.', required: true, example: 'Something went wrong', selector: { text: {} } },
          level: { name: 'Level', description: 'Log level.', default: 'error', selector: levelSelector(WRITE_LEVELS) },
          logger: { name: 'Logger', description: `Logger name under which to log the message. Defaults to \`${EXTERNAL_LOGGER}\`.`, example: 'mycomponent.myplatform', selector: { text: {} } },
        },
      },
      schema: Type.Object(
        {
          message: Type.String(),
          level: Type.Optional(Type.String({ pattern: `^(${WRITE_LEVELS.join('|')})$`, refusal: `value must be one of [${[...WRITE_LEVELS].sort().map((l) => `'${l}'`).join(', ')}]`, default: 'error' })),
          logger: Type.Optional(Type.String()),
        },
        { additionalProperties: false },
      ),
      supportsResponse: 'none',
      handler: async (call) => {
        const level = (call.data.level ?? 'error') as LevelName;
        logs.passing(call.data.logger ?? EXTERNAL_LOGGER)[level](call.data.message);
      },
    },
  ];
}
