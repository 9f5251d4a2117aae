import type { EventRecord } from '../store/types.ts';
import type { RecordOf } from '../store/typed-records.ts';
import type { StateChangedData } from '../actors/entities/registry.ts';
import type { EntityState } from '../actors/entities/types.ts';
import { jsonEqual, toJson } from '../actors/entities/state.ts';

const seconds = (ms: number) => ms / 1000;

/** A state in the compressed form of subscribe_entities: `s`, `a`, `c`, `lc`, and `lu` when it differs. */
export function compressedState(s: EntityState): Record<string, unknown> {
  const out: Record<string, unknown> = {
    s: s.state,
    a: s.attributes,
    c: s.context.parent_id === null && s.context.user_id === null ? s.context.id : s.context,
    lc: seconds(s.last_changed),
  };
  if (s.last_updated !== s.last_changed) out.lu = seconds(s.last_updated);
  return out;
}

/** The change between two states of one entity: `{"+": additions, "-": {a: removed}}`. */
export function compressedDiff(old: EntityState, next: EntityState): Record<string, unknown> {
  const add: Record<string, unknown> = {};
  if (old.state !== next.state) add.s = next.state;
  if (old.last_changed !== next.last_changed) add.lc = seconds(next.last_changed);
  else if (old.last_updated !== next.last_updated) add.lu = seconds(next.last_updated);
  const oc = old.context;
  const nc = next.context;
  if (oc.id !== nc.id || oc.parent_id !== nc.parent_id || oc.user_id !== nc.user_id) {
    if (oc.parent_id === nc.parent_id && oc.user_id === nc.user_id) add.c = nc.id;
    else {
      const c: Record<string, unknown> = {};
      if (oc.id !== nc.id) c.id = nc.id;
      if (oc.parent_id !== nc.parent_id) c.parent_id = nc.parent_id;
      if (oc.user_id !== nc.user_id) c.user_id = nc.user_id;
      add.c = c;
    }
  }
  // no prototype: an attribute a client named __proto__ is copied like any other
  const attrs: Record<string, unknown> = Object.create(null);
  let anyAttr = false;
  for (const k in next.attributes) {
    if (!Object.prototype.hasOwnProperty.call(old.attributes, k) || !jsonEqual(old.attributes[k], next.attributes[k])) {
      attrs[k] = next.attributes[k];
      anyAttr = true;
    }
  }
  if (anyAttr) add.a = attrs;
  const diff: Record<string, unknown> = { '+': add };
  const removed = Object.keys(old.attributes).filter((k) => !Object.prototype.hasOwnProperty.call(next.attributes, k));
  if (removed.length) diff['-'] = { a: removed };
  return diff;
}

const payloadCache = new WeakMap<EventRecord, string>();

/**
 * The subscribe_entities event payload for one committed state_changed record, serialised once
 * for all subscribers: `{"a": {...}}` when added, `{"r": [...]}` when removed, `{"c": {...}}` when changed.
 */
export function entityEventPayload(r: RecordOf<{ type: 'state_changed'; data: StateChangedData }>): string {
  let json = payloadCache.get(r);
  if (json !== undefined) return json;
  const { entity_id, old_state, new_state } = r.data;
  const id = JSON.stringify(entity_id);
  if (!new_state) json = `{"r":[${id}]}`;
  else if (!old_state) json = `{"a":{${id}:${toJson(compressedState(new_state))}}}`;
  else json = `{"c":{${id}:${toJson(compressedDiff(old_state, new_state))}}}`;
  payloadCache.set(r, json);
  return json;
}
