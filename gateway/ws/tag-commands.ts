import { Type } from '@sinclair/typebox';
import { commandSchema, type Command } from './command.ts';
import type { CoreDeps } from '../core.ts';
import { newContext } from '../core.ts';
import { CommandError, type Connection } from './connection.ts';
import { TagError, tagTime, tagWire, type TagFields, type Tags } from '../../actors/tags/tags.ts';

// the original's UPDATE_FIELDS; CREATE_FIELDS add tag_id
const FIELDS = {
  name: Type.Optional(Type.String({ minLength: 1, refusal: 'length of value must be at least 1' })),
  description: Type.Optional(Type.String()),
  last_scanned: Type.Optional(Type.String()),
  device_id: Type.Optional(Type.String()),
};

function tags(deps: CoreDeps): Tags {
  if (!deps.tags) throw new CommandError('not_supported', 'Tags are not kept here.');
  return deps.tags;
}

/** The fields a message sets, last_scanned read as cv.datetime reads it. */
function fieldsOf(msg: Record<string, unknown>): TagFields {
  const fields: TagFields = {};
  for (const key of ['name', 'description', 'device_id'] as const) if (typeof msg[key] === 'string') fields[key] = msg[key] as string;
  if (typeof msg.last_scanned === 'string') {
    const time = tagTime(msg.last_scanned);
    if (!time) throw new CommandError('invalid_format', `Invalid datetime specified: ${msg.last_scanned} for dictionary value @ data['last_scanned']`);
    fields.last_scanned = time;
  }
  return fields;
}

/** Runs a change, its refusal answered with the original's code. */
async function changing<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof TagError) throw new CommandError(err.code, err.message);
    throw err;
  }
}

const contextOf = (conn: Connection, deps: CoreDeps) => newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId);

/** The tag component's storage collection commands: anyone lists and follows, admins change. */
export const tagCommands: Record<string, Command> = {
  'tag/list': {
    schema: commandSchema({}),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(tags(deps).list().map(tagWire)));
    },
  },

  'tag/create': {
    schema: commandSchema({ tag_id: Type.Optional(Type.String()), ...FIELDS }),
    admin: true,
    async handle(conn, msg, deps) {
      const tag = await changing(() => tags(deps).create(msg.tag_id, fieldsOf(msg), contextOf(conn, deps)));
      conn.result(msg.id, JSON.stringify(tagWire(tag)));
    },
  },

  'tag/update': {
    schema: commandSchema({ tag_id: Type.String(), ...FIELDS }),
    admin: true,
    async handle(conn, msg, deps) {
      const tag = await changing(() => tags(deps).update(msg.tag_id, fieldsOf(msg), contextOf(conn, deps)));
      conn.result(msg.id, JSON.stringify(tagWire(tag)));
    },
  },

  'tag/delete': {
    schema: commandSchema({ tag_id: Type.String() }),
    admin: true,
    async handle(conn, msg, deps) {
      await changing(() => tags(deps).remove(msg.tag_id, contextOf(conn, deps)));
      conn.result(msg.id, 'null');
    },
  },

  // as the original's collection: the result, then every tag as added, then each change
  'tag/subscribe': {
    schema: commandSchema({}),
    handle(conn, msg, deps) {
      const collection = tags(deps);
      conn.subscribe(msg.id, collection.subscribe((changes) => conn.event(msg.id, JSON.stringify(changes))));
      conn.result(msg.id, 'null');
      conn.event(msg.id, JSON.stringify(collection.list().map((tag) => ({ change_type: 'added', tag_id: tag.tag_id, item: tagWire(tag) }))));
    },
  },
};
