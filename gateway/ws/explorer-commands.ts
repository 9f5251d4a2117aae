import { Type } from '@sinclair/typebox';
import { commandSchema, type Command } from './command.ts';
import type { CoreDeps } from '../core.ts';
import { CommandError, type Connection } from './connection.ts';
import { stateJson } from '../../actors/entities/state.ts';
import type { EntityState } from '../../actors/entities/types.ts';
import { DEFAULT_LOG_LIMIT, MAX_LOG_LIMIT, type Explorer, type LogQuery } from '../../actors/explorer/explorer.ts';
import { isoformat } from '../../machines/python/isoformat.ts';
import { parseIsoTime } from '../../store/time.ts';

/** The log holds everyone's doings: only an admin (as the user is now, not when the connection opened) reads it. */
function explorerOf(conn: Connection, deps: CoreDeps): Explorer {
  if (!deps.auth.user(conn.principal!.userId)?.isAdmin) throw new CommandError('unauthorized', 'Unauthorized');
  if (!deps.explorer) throw new CommandError('not_supported', 'The log explorer is not available here.');
  return deps.explorer;
}

function timeField(msg: Record<string, unknown>, field: string): number | undefined {
  const text = msg[field];
  if (text === undefined) return undefined;
  const time = parseIsoTime(String(text));
  if (Number.isNaN(time)) throw new CommandError('invalid_format', `Invalid ${field}: ${JSON.stringify(text)} is no ISO time like 2025-01-02T03:04:05Z`);
  return time;
}

/** hearth/state_at, hearth/log, hearth/context: the log explorer of the dashboard (admin only). */
export const explorerCommands: Record<string, Command> = {
  'hearth/state_at': {
    schema: commandSchema({ time: Type.String() }),
    admin: true,
    async handle(conn, msg, deps) {
      const explorer = explorerOf(conn, deps);
      const at = timeField(msg, 'time')!;
      const { seq, states } = await explorer.stateAt(at);
      // the states are joined as they are serialised: 10k of them are one string, built once
      const parts = states.map((s) => stateJson(s as unknown as EntityState));
      conn.result(msg.id, `{"time":${JSON.stringify(isoformat(at))},"seq":${seq},"states":[${parts.join(',')}]}`);
    },
  },

  'hearth/log': {
    schema: commandSchema({
      start_time: Type.Optional(Type.String()),
      end_time: Type.Optional(Type.String()),
      entity_id: Type.Optional(Type.String()),
      event_type: Type.Optional(Type.String()),
      context_id: Type.Optional(Type.String()),
      user_id: Type.Optional(Type.String()),
      limit: Type.Optional(Type.Integer()),
      before_seq: Type.Optional(Type.Integer()),
      after_seq: Type.Optional(Type.Integer()),
    }),
    admin: true,
    async handle(conn, msg, deps) {
      const explorer = explorerOf(conn, deps);
      const limit = msg.limit ?? DEFAULT_LOG_LIMIT;
      if (limit < 1 || limit > MAX_LOG_LIMIT) throw new CommandError('invalid_format', `Invalid limit: ${limit} is not between 1 and ${MAX_LOG_LIMIT}`);
      for (const field of ['before_seq', 'after_seq'] as const) {
        if (msg[field] !== undefined && msg[field] < 0) throw new CommandError('invalid_format', `Invalid ${field}: ${msg[field]} is below 0`);
      }
      const query: LogQuery = {
        start: timeField(msg, 'start_time'),
        end: timeField(msg, 'end_time'),
        entityId: msg.entity_id,
        eventType: msg.event_type,
        contextId: msg.context_id,
        userId: msg.user_id,
        limit,
        afterSeq: msg.after_seq,
        beforeSeq: msg.before_seq,
      };
      if (query.start !== undefined && query.end !== undefined && query.start > query.end) {
        throw new CommandError('invalid_format', 'Invalid end_time: it is before start_time');
      }
      const page = await explorer.log(query);
      conn.result(msg.id, `{"records":[${page.records.join(',')}],"more":${page.more},"cursor":${page.cursor}}`);
    },
  },

  'hearth/context': {
    schema: commandSchema({ context_id: Type.String({ minLength: 1 }) }),
    admin: true,
    async handle(conn, msg, deps) {
      const explorer = explorerOf(conn, deps);
      const { chain } = await explorer.context(msg.context_id);
      const links = chain.map(
        (l) =>
          `{"context":${JSON.stringify(l.context)},"cause":${l.cause ?? 'null'},"records":[${l.records.join(',')}],"more":${l.more},` +
          `"user":${JSON.stringify(l.user)},"token":${JSON.stringify(l.token)},"source":${JSON.stringify(l.source)}}`,
      );
      conn.result(msg.id, `{"chain":[${links.join(',')}]}`);
    },
  },
};
