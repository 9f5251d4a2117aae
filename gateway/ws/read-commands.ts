// The commands that only read (states, events, entities, history): all a read replica serves.
// They reach only ReadDeps.
import { Type } from '@sinclair/typebox';
import type { ReadDeps } from '../core.ts';
import { globMatcher } from '../../streams/glob.ts';
import { commandSchema, type Command } from './command.ts';
import { CommandError } from './connection.ts';
import { toJson } from '../../actors/entities/state.ts';
import { eventJson } from '../../streams/event-json.ts';
import { compressedState } from '../../streams/compressed.ts';
import { readableEntities, readableStateChanged, readableStatesJson } from '../../streams/readable.ts';
import type { EventRecord } from '../../store/types.ts';
import type { EntityState } from '../../actors/entities/types.ts';
import { historyCommands } from './history-commands.ts';

/** Event types a non-admin may subscribe to (the original's allow-list). */
const SUBSCRIBE_ALLOWLIST = new Set([
  'area_registry_updated', 'category_registry_updated', 'component_loaded', 'core_config_updated',
  'device_registry_updated', 'entity_registry_updated', 'floor_registry_updated', 'label_registry_updated',
  'lovelace_updated', 'panels_updated', 'recorder_5min_statistics_generated', 'recorder_hourly_statistics_generated',
  'repairs_issue_registry_updated', 'service_registered', 'service_removed', 'shopping_list_updated',
  'state_changed', 'themes_updated',
]);

const EntityFilter = Type.Object(
  {
    domains: Type.Optional(Type.Array(Type.String())),
    entity_globs: Type.Optional(Type.Array(Type.String())),
    entities: Type.Optional(Type.Array(Type.String())),
  },
  { additionalProperties: false },
);


/** The entity filter of subscribe_entities: explicit ids, then include/exclude as the original applies them. */
function entityMatcher(msg: any): (id: string) => boolean {
  const ids: Set<string> | undefined = msg.entity_ids ? new Set(msg.entity_ids) : undefined;
  const compile = (filter: any) =>
    filter && {
      domains: new Set<string>(filter.domains ?? []),
      entities: new Set<string>(filter.entities ?? []),
      globs: (filter.entity_globs ?? []).map(globMatcher) as Array<(id: string) => boolean>,
    };
  const inc = compile(msg.include);
  const exc = compile(msg.exclude);
  const hit = (filter: ReturnType<typeof compile>, id: string) =>
    !!filter && (filter.entities.has(id) || filter.domains.has(id.slice(0, id.indexOf('.'))) || filter.globs.some((matches: (id: string) => boolean) => matches(id)));
  return (id) => {
    if (ids && !ids.has(id)) return false;
    if (inc && !hit(inc, id)) return false;
    if (exc && hit(exc, id) && !(inc && inc.entities.has(id))) return false;
    return true;
  };
}

/** The commands that only read, by type. */
export const readCommands: Record<string, Command<ReadDeps>> = {
  ping: {
    schema: commandSchema(),
    handle(conn, msg) {
      conn.send(`{"id":${msg.id},"type":"pong"}`);
    },
  },

  supported_features: {
    schema: commandSchema({ features: Type.Record(Type.String(), Type.Integer()) }),
    handle(conn, msg) {
      conn.coalesce = msg.features.coalesce_messages === 1;
      conn.result(msg.id, 'null');
    },
  },

  get_states: {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      conn.result(msg.id, readableStatesJson(deps.entities, conn.principal!.permissions));
    },
  },

  get_config: {
    schema: commandSchema(),
    handle(conn, msg, deps) {
      conn.result(msg.id, JSON.stringify(deps.coreConfig.asDict(deps.runState())));
    },
  },

  subscribe_events: {
    schema: commandSchema({ event_type: Type.Optional(Type.String()) }),
    handle(conn, msg, deps) {
      const eventType: string = msg.event_type ?? '*';
      if (!conn.principal!.isAdmin && !SUBSCRIBE_ALLOWLIST.has(eventType)) throw new CommandError('unauthorized', 'Unauthorized');
      const release = deps.bus.countListener(eventType);
      const send = (record: EventRecord) => conn.event(msg.id, eventJson(record));
      // state changes go only to those who may read the entity; other events to all who may subscribe
      const readable = eventType === 'state_changed' ? readableStateChanged(conn.principal!.permissions) : undefined;
      const forward = readable
        ? (record: EventRecord) => {
            if (readable(record)) send(record);
          }
        : send;
      const sub = deps.bus.listen(eventType, `subscribe_events of ${conn.ip}`, forward);
      conn.subscribe(msg.id, () => {
        sub.unsubscribe();
        release();
      });
      conn.result(msg.id, 'null');
    },
  },

  unsubscribe_events: {
    schema: commandSchema({ subscription: Type.Integer({ minimum: 1 }) }),
    handle(conn, msg) {
      const unsubscribe = conn.subscriptions.get(msg.subscription);
      if (!unsubscribe) throw new CommandError('not_found', 'Subscription not found.');
      unsubscribe();
      conn.subscriptions.delete(msg.subscription);
      conn.result(msg.id, 'null');
    },
  },

  subscribe_entities: {
    schema: commandSchema({
      entity_ids: Type.Optional(Type.Array(Type.String())),
      include: Type.Optional(EntityFilter),
      exclude: Type.Optional(EntityFilter),
    }),
    handle(conn, msg, deps) {
      const matches = readableEntities(conn.principal!.permissions, entityMatcher(msg));
      const release = deps.bus.countListener('state_changed');
      // subscribe before the snapshot so no change can fall between them
      const stop = deps.entityFanout.subscribe(matches, (payload) => conn.event(msg.id, payload));
      conn.subscribe(msg.id, () => {
        stop();
        release();
      });
      conn.result(msg.id, 'null');
      const parts: string[] = [];
      for (const state of deps.entities.states() as IterableIterator<EntityState>) {
        if (matches(state.entity_id)) parts.push(`${JSON.stringify(state.entity_id)}:${toJson(compressedState(state))}`);
      }
      conn.event(msg.id, `{"a":{${parts.join(',')}}}`);
    },
  },
  ...historyCommands,
};
