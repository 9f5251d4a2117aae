import { Type } from '@sinclair/typebox';
import { commandSchema, type Command } from './command.ts';
import type { ReadDeps } from '../core.ts';
import { CommandError } from './connection.ts';
import { toJson } from '../../actors/entities/state.ts';
import { duringPeriodRequest, streamRequest } from '../../actors/history/request.ts';
import { openHistoryStream } from '../../streams/history-stream.ts';
import { historyContext } from '../routes/history.ts';

/** The fields of both history commands (the original's schema: entity_ids required). */
const HISTORY_FIELDS = {
  start_time: Type.String(),
  end_time: Type.Optional(Type.String()),
  entity_ids: Type.Array(Type.String()),
  include_start_time_state: Type.Optional(Type.Boolean()),
  significant_changes_only: Type.Optional(Type.Boolean()),
  minimal_response: Type.Optional(Type.Boolean()),
  no_attributes: Type.Optional(Type.Boolean()),
};

/** history/history_during_period and history/stream: any user; unreadable entities are left out. */
export const historyCommands: Record<string, Command<ReadDeps>> = {
  'history/history_during_period': {
    schema: commandSchema(HISTORY_FIELDS),
    async handle(conn, msg, deps) {
      const checked = duringPeriodRequest(msg, historyContext(deps, conn.principal!));
      if (!checked.ok) throw new CommandError(checked.code, checked.message);
      const states = checked.query ? await deps.history.compressed(checked.query) : {};
      conn.result(msg.id, toJson(states));
    },
  },

  'history/stream': {
    schema: commandSchema(HISTORY_FIELDS),
    async handle(conn, msg, deps) {
      const checked = streamRequest(msg, historyContext(deps, conn.principal!));
      if (!checked.ok) throw new CommandError(checked.code, checked.message);
      const permissions = conn.principal!.permissions;
      const stream = openHistoryStream({
        history: deps.history,
        bus: deps.bus,
        query: checked.query,
        now: () => deps.clock.now(),
        canRead: (id) => permissions.readAll || permissions.canRead(id),
        send: (event) => conn.event(msg.id, event),
        who: conn.ip,
        logLine: deps.log,
      });
      conn.subscribe(msg.id, stream.stop);
      conn.result(msg.id, 'null');
      await stream.started;
    },
  },
};
