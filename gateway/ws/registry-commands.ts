import { Type, type TSchema } from '@sinclair/typebox';
import type { CoreDeps } from '../core.ts';
import { newContext } from '../core.ts';
import type { Context } from '../../store/types.ts';
import { CommandError, type Connection } from './connection.ts';
import { commandSchema, type Command } from './command.ts';
import { validEntityId } from '../../actors/entities/state.ts';
import { pyRepr } from '../../machines/python/repr.ts';
import { RegistryError, wire, type EntityChanges } from '../../actors/registries/index.ts';

/**
 * The original's config/area_registry, floor_registry, label_registry, device_registry and
 * entity_registry commands. Lists are open to every user; changes need an admin (checked after
 * the schema, on the user as now, as the original's require_admin). The registries decide;
 * their refusals carry the original's codes and messages.
 */

const opt = Type.Optional;
const Str = Type.String();
const NullableStr = Type.Union([Type.String(), Type.Null()]);
const StrList = Type.Array(Type.String());

function requireAdmin(conn: Connection, deps: CoreDeps): void {
  if (!deps.auth.user(conn.principal!.userId)?.isAdmin) throw new CommandError('unauthorized', 'Unauthorized');
}

/** The registries' answer, or their refusal as the command's error. */
async function settled<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    if (err instanceof RegistryError) throw new CommandError(err.code, err.message);
    throw err;
  }
}

/** A value the original's schema refuses, in humanize_error's words. */
const invalid = (key: string, reason: string, value: unknown) => new CommandError('invalid_format', `${reason} for dictionary value @ data['${key}']. Got ${pyRepr(value)}`);

/** The theme colors a label may have besides #RRGGBB. */
const LABEL_THEME_COLORS = new Set([
  'primary', 'accent', 'disabled', 'red', 'pink', 'purple', 'deep-purple', 'indigo', 'blue', 'light-blue', 'cyan', 'teal', 'green',
  'light-green', 'lime', 'yellow', 'amber', 'orange', 'deep-orange', 'brown', 'light-grey', 'grey', 'dark-grey', 'blue-grey', 'black', 'white',
]);

/** cv.color_hex or a theme color; cv.icon. */
function checkLabel(msg: { color?: string | null; icon?: string | null }): void {
  if (typeof msg.color === 'string' && !/^#[0-9a-f]{6}$/i.test(msg.color) && !LABEL_THEME_COLORS.has(msg.color)) {
    throw invalid('color', 'Color should be in the format #RRGGBB', msg.color);
  }
  if (typeof msg.icon === 'string' && !msg.icon.includes(':')) throw invalid('icon', 'Icons should be specified in the form "prefix:name"', msg.icon);
}

/** cv.entity_id: lower-cased, then it must be a valid entity id. */
function entityIdOf(key: string, value: string): string {
  const id = value.toLowerCase();
  if (!validEntityId(id)) throw invalid(key, `Entity ID ${value} is an invalid entity ID`, value);
  return id;
}

/** Only the keys the client sent (a key absent leaves a field as it is; null clears it). */
function sent<K extends string>(msg: Record<string, unknown>, keys: readonly K[]): Partial<Record<K, any>> {
  return Object.fromEntries(keys.filter((k) => msg[k] !== undefined).map((k) => [k, msg[k]])) as Partial<Record<K, any>>;
}

const AREA_FIELDS = ['name', 'aliases', 'floor_id', 'humidity_entity_id', 'icon', 'labels', 'motion_entity_id', 'picture', 'temperature_entity_id'] as const;
const FLOOR_FIELDS = ['name', 'aliases', 'icon', 'level'] as const;
const LABEL_FIELDS = ['name', 'color', 'description', 'icon'] as const;

const json = (v: unknown) => JSON.stringify(v);

type Registries = CoreDeps['registries'];

/** What differs between the area, floor and label registries' list/create/update/delete commands. */
interface PlaceCommands<E> {
  kind: 'area' | 'floor' | 'label';
  idField: 'area_id' | 'floor_id' | 'label_id';
  fields: readonly string[];
  schemas: { create: TSchema; update: TSchema; delete: TSchema };
  list(r: Registries): E[];
  create(r: Registries, input: any, context: Context): Promise<E>;
  update(r: Registries, id: string, changes: any, context: Context): Promise<E>;
  remove(r: Registries, id: string, context: Context): Promise<unknown>;
  dict(entry: E): unknown;
  /** what a delete answers: the original's area delete says "success", the others null */
  deleted: string;
  /** checks the original's validators make beyond the schema */
  check?(msg: any): void;
}

/** The four commands of one place registry (config/<kind>_registry/list|create|update|delete). */
function placeCommands<E>(p: PlaceCommands<E>): Record<string, Command> {
  const prefix = `config/${p.kind}_registry`;
  const contextOf = (conn: Connection, deps: CoreDeps) => newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId);
  return {
    [`${prefix}/list`]: {
      schema: commandSchema(),
      handle(conn, msg, deps) {
        conn.result(msg.id, json(p.list(deps.registries).map(p.dict)));
      },
    },
    [`${prefix}/create`]: {
      schema: p.schemas.create,
      async handle(conn, msg, deps) {
        p.check?.(msg);
        requireAdmin(conn, deps);
        const entry = await settled(p.create(deps.registries, sent(msg, p.fields), contextOf(conn, deps)));
        conn.result(msg.id, json(p.dict(entry)));
      },
    },
    [`${prefix}/update`]: {
      schema: p.schemas.update,
      async handle(conn, msg, deps) {
        p.check?.(msg);
        requireAdmin(conn, deps);
        const entry = await settled(p.update(deps.registries, msg[p.idField], sent(msg, p.fields), contextOf(conn, deps)));
        conn.result(msg.id, json(p.dict(entry)));
      },
    },
    [`${prefix}/delete`]: {
      schema: p.schemas.delete,
      async handle(conn, msg, deps) {
        requireAdmin(conn, deps);
        await settled(p.remove(deps.registries, msg[p.idField], contextOf(conn, deps)));
        conn.result(msg.id, p.deleted);
      },
    },
  };
}

export const registryCommands: Record<string, Command> = {
  ...placeCommands({
    kind: 'area',
    idField: 'area_id',
    fields: AREA_FIELDS,
    schemas: {
      create: commandSchema({
        name: Str,
        aliases: opt(StrList),
        floor_id: opt(Str),
        humidity_entity_id: opt(NullableStr),
        icon: opt(Str),
        labels: opt(StrList),
        motion_entity_id: opt(NullableStr),
        picture: opt(NullableStr),
        temperature_entity_id: opt(NullableStr),
      }),
      update: commandSchema({
        area_id: Str,
        name: opt(Str),
        aliases: opt(StrList),
        floor_id: opt(NullableStr),
        humidity_entity_id: opt(NullableStr),
        icon: opt(NullableStr),
        labels: opt(StrList),
        motion_entity_id: opt(NullableStr),
        picture: opt(NullableStr),
        temperature_entity_id: opt(NullableStr),
      }),
      delete: commandSchema({ area_id: Str }),
    },
    list: (r) => r.areas(),
    create: (r, input, context) => r.createArea(input, context),
    update: (r, id, changes, context) => r.updateArea(id, changes, context),
    remove: (r, id, context) => r.deleteArea(id, context),
    dict: wire.areaDict,
    deleted: '"success"',
  }),
  ...placeCommands({
    kind: 'floor',
    idField: 'floor_id',
    fields: FLOOR_FIELDS,
    schemas: {
      create: commandSchema({ name: Str, aliases: opt(StrList), icon: opt(NullableStr), level: opt(Type.Union([Type.Integer(), Type.Null()])) }),
      update: commandSchema({ floor_id: Str, name: opt(Str), aliases: opt(StrList), icon: opt(NullableStr), level: opt(Type.Union([Type.Integer(), Type.Null()])) }),
      delete: commandSchema({ floor_id: Str }),
    },
    list: (r) => r.floors(),
    create: (r, input, context) => r.createFloor(input, context),
    update: (r, id, changes, context) => r.updateFloor(id, changes, context),
    remove: (r, id, context) => r.deleteFloor(id, context),
    dict: wire.floorDict,
    deleted: 'null',
  }),
  ...placeCommands({
    kind: 'label',
    idField: 'label_id',
    fields: LABEL_FIELDS,
    schemas: {
      create: commandSchema({ name: Str, color: opt(NullableStr), description: opt(NullableStr), icon: opt(NullableStr) }),
      update: commandSchema({ label_id: Str, name: opt(Str), color: opt(NullableStr), description: opt(NullableStr), icon: opt(NullableStr) }),
      delete: commandSchema({ label_id: Str }),
    },
    list: (r) => r.labels(),
    create: (r, input, context) => r.createLabel(input, context),
    update: (r, id, changes, context) => r.updateLabel(id, changes, context),
    remove: (r, id, context) => r.deleteLabel(id, context),
    dict: wire.labelDict,
    deleted: 'null',
    check: checkLabel,
  }),

  'config/device_registry/list': {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      conn.result(msg.id, json(deps.registries.devices().map(wire.deviceDict)));
    },
  },

  'config/device_registry/update': {
    schema: commandSchema({
      device_id: Str,
      area_id: opt(NullableStr),
      // a client may disable a device as the user, or enable it, nothing else
      disabled_by: opt(Type.Union([Type.Literal('user'), Type.Null()])),
      labels: opt(StrList),
      name_by_user: opt(NullableStr),
    }),
    async handle(conn, msg, deps) {
      requireAdmin(conn, deps);
      const changes = sent(msg, ['area_id', 'disabled_by', 'labels', 'name_by_user'] as const);
      const device = await settled(deps.registries.updateDevice(msg.device_id, changes, newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId)));
      conn.result(msg.id, json(wire.deviceDict(device)));
    },
  },

  'config/device_registry/remove_config_entry': {
    schema: commandSchema({ config_entry_id: Str, device_id: Str }),
    async handle(conn, msg, deps) {
      requireAdmin(conn, deps);
      const context = newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId);
      const device = await settled(deps.registries.removeConfigEntryFromDevice(msg.config_entry_id, msg.device_id, context));
      conn.result(msg.id, device ? json(wire.deviceDict(device)) : 'null');
    },
  },

  'config/entity_registry/list': {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      conn.result(msg.id, json(deps.registries.entities().map(wire.entityPartialDict)));
    },
  },

  'config/entity_registry/list_for_display': {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      const shown = deps.registries.entities().filter((e) => e.disabled_by === null);
      conn.result(msg.id, json({ entity_categories: wire.ENTITY_CATEGORIES, entities: shown.map(wire.entityDisplayDict) }));
    },
  },

  'config/entity_registry/get': {
    schema: commandSchema({ entity_id: Str }),
    handle(conn, msg, deps) {
      const entry = deps.registries.getEntity(entityIdOf('entity_id', msg.entity_id));
      if (!entry) throw new CommandError('not_found', 'Entity not found');
      conn.result(msg.id, json(wire.entityExtendedDict(entry)));
    },
  },

  'config/entity_registry/get_entries': {
    schema: commandSchema({ entity_ids: Type.Union([Str, StrList]) }),
    handle(conn, msg, deps) {
      // cv.entity_ids: a list, or one string of comma-separated ids
      const given: string[] = typeof msg.entity_ids === 'string' ? msg.entity_ids.split(',').map((s: string) => s.trim()).filter(Boolean) : msg.entity_ids;
      const out: Record<string, unknown> = {};
      for (const id of given.map((v) => entityIdOf('entity_ids', v))) {
        const entry = deps.registries.getEntity(id);
        out[id] = entry ? wire.entityExtendedDict(entry) : null;
      }
      conn.result(msg.id, json(out));
    },
  },

  'config/entity_registry/update': {
    schema: commandSchema({
      entity_id: Str,
      aliases: opt(StrList),
      area_id: opt(NullableStr),
      categories: opt(Type.Record(Type.String(), NullableStr)),
      device_class: opt(NullableStr),
      icon: opt(NullableStr),
      labels: opt(StrList),
      name: opt(NullableStr),
      new_entity_id: opt(Str),
      disabled_by: opt(Type.Union([Type.Literal('user'), Type.Null()])),
      hidden_by: opt(Type.Union([Type.Literal('user'), Type.Null()])),
      options_domain: opt(Str),
      options: opt(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
    }),
    async handle(conn, msg, deps) {
      const entityId = entityIdOf('entity_id', msg.entity_id);
      if ((msg.options_domain === undefined) !== (msg.options === undefined)) {
        throw new CommandError('invalid_format', "some but not all values in the same group of inclusion 'entity_option' @ data[<entity_option>]");
      }
      for (const scope of Object.keys(msg.categories ?? {})) {
        if (!/^[a-z0-9]+(?:_[a-z0-9]+)*$/.test(scope)) throw invalid('categories', `invalid slug ${scope}`, msg.categories);
      }
      requireAdmin(conn, deps);
      const changes: EntityChanges = sent(msg, ['aliases', 'area_id', 'categories', 'device_class', 'disabled_by', 'hidden_by', 'icon', 'labels', 'name', 'new_entity_id'] as const);
      if (msg.options_domain !== undefined) changes.options = { domain: msg.options_domain, options: msg.options };
      const entry = await settled(deps.registries.updateEntity(entityId, changes, newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId)));
      const result: Record<string, unknown> = { entity_entry: wire.entityExtendedDict(entry) };
      // an entity enabled again appears after its config entry reloads, or after a restart
      if (msg.disabled_by === null) {
        if (entry.config_entry_id === null) result.require_restart = true;
        else result.reload_delay = 30;
      }
      conn.result(msg.id, json(result));
    },
  },

  'config/entity_registry/remove': {
    schema: commandSchema({ entity_id: Str }),
    async handle(conn, msg, deps) {
      const entityId = entityIdOf('entity_id', msg.entity_id);
      requireAdmin(conn, deps);
      await settled(deps.registries.removeEntity(entityId, newContext(deps, conn.principal!.userId, conn.principal!.refreshTokenId)));
      conn.result(msg.id, 'null');
    },
  },
};
