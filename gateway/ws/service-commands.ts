// The commands of services and events: list the services, call one (its errors as the
// original's, translation included), fire an event.
import { Type } from '@sinclair/typebox';
import { newContext, eventTypeProblem } from '../core.ts';
import { commandSchema, type Command } from './command.ts';
import { CommandError } from './connection.ts';
import { ServiceError } from '../../actors/services/types.ts';

/** The translation of a service's error, as the original sends it beside the message. */
function serviceErrorExtra(err: ServiceError): Record<string, unknown> | undefined {
  if (!err.translation) return undefined;
  return {
    translation_key: err.translation.key,
    translation_placeholders: err.translation.placeholders,
    translation_domain: err.translation.domain,
  };
}

/** The service and event commands, by type. */
export const serviceCommands: Record<string, Command> = {
  get_services: {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(deps.services.describe()));
    },
  },

  call_service: {
    schema: commandSchema({
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
      if (target && Object.values(target).some((ids) => (Array.isArray(ids) ? ids : [ids]).some((id) => typeof id === 'string' && /\{\{|\{%/.test(id)))) {
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
    schema: commandSchema({ event_type: Type.String(), event_data: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
    admin: true,
    async handle(conn, msg, deps) {
      const problem = eventTypeProblem(msg.event_type);
      if (problem) throw new CommandError(problem.code, problem.message);
      const context = newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId);
      await deps.fireEvent(msg.event_type, msg.event_data ?? {}, 'LOCAL', context);
      conn.result(msg.id, `{"context":${JSON.stringify(context)}}`);
    },
  },
};
