import { Type } from '@sinclair/typebox';
import { commandSchema, type Command } from './command.ts';
import type { CoreDeps } from '../core.ts';
import { newContext } from '../core.ts';
import { CommandError } from './connection.ts';
import type { FrontendUserData } from '../../actors/frontend/user-data.ts';

// the original takes any JSON value, null included
const Json = Type.Union([Type.Null(), Type.Boolean(), Type.Number(), Type.String(), Type.Array(Type.Unknown()), Type.Record(Type.String(), Type.Unknown())]);

function store(deps: CoreDeps): FrontendUserData {
  if (!deps.frontendUserData) throw new CommandError('not_supported', 'Per-user frontend data is not kept here.');
  return deps.frontendUserData;
}

/**
 * The original's per-user frontend data: any signed-in user, always their own data. A read
 * answers `{value}`: one key's value (null when unset), or every key's when no key is given.
 */
export const frontendCommands: Record<string, Command> = {
  // the original lists the panels for any user, hiding admin ones from the others
  get_panels: {
    schema: commandSchema({}),
    handle(conn, msg, deps) {
      const isAdmin = deps.auth.user(conn.principal!.userId)?.isAdmin === true;
      conn.result(msg.id, JSON.stringify(deps.panels?.visibleTo(isAdmin) ?? {}));
    },
  },

  // any signed-in user: the texts of the domains loaded here (or named), English for every language
  'frontend/get_translations': {
    schema: commandSchema({
      language: Type.String(),
      category: Type.String(),
      integration: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
      config_flow: Type.Optional(Type.Boolean()),
    }),
    handle(conn, msg, deps) {
      if (!deps.translations) throw new CommandError('not_supported', 'Translations are not kept here.');
      // cv.ensure_list: one name or a list of them
      const integrations = msg.integration === undefined ? undefined : [msg.integration].flat();
      const resources = deps.translations.resources(msg.language, msg.category, integrations, msg.config_flow);
      conn.result(msg.id, JSON.stringify({ resources }));
    },
  },

  'frontend/get_user_data': {
    schema: commandSchema({ key: Type.Optional(Type.String()) }),
    handle(conn, msg, deps) {
      const data = store(deps);
      const userId = conn.principal!.userId;
      const value = msg.key === undefined ? data.all(userId) : data.get(userId, msg.key);
      conn.result(msg.id, JSON.stringify({ value }));
    },
  },

  'frontend/set_user_data': {
    schema: commandSchema({ key: Type.String(), value: Json }),
    async handle(conn, msg, deps) {
      const userId = conn.principal!.userId;
      const refused = await store(deps).set(userId, msg.key, msg.value, newContext(deps, userId, conn.principal!.refreshTokenId));
      if (refused) throw new CommandError(refused[0], refused[1]);
      conn.result(msg.id, 'null');
    },
  },

  'frontend/subscribe_user_data': {
    schema: commandSchema({ key: Type.Optional(Type.String()) }),
    handle(conn, msg, deps) {
      const data = store(deps);
      const userId = conn.principal!.userId;
      const key: string | undefined = msg.key;
      const send = () => conn.event(msg.id, JSON.stringify({ value: key === undefined ? data.all(userId) : data.get(userId, key) }));
      conn.subscribe(msg.id, data.subscribe(userId, key, send));
      // as the original: the current value first, then the result
      send();
      conn.result(msg.id, 'null');
    },
  },
};
