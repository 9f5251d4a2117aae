import { isoTime, parseIsoTime } from '../../store/time.ts';
import type { EntityState } from './types.ts';

const DOMAIN = /^(?!.+__)(?!_)[\da-z_]+(?<!_)$/;
const OBJECT_ID = /^(?!_)[\da-z_]+(?<!_)$/;

/** True for `<domain>.<object_id>` as the original accepts it. */
export function validEntityId(entityId: string): boolean {
  const dot = entityId.indexOf('.');
  if (dot <= 0 || dot !== entityId.lastIndexOf('.')) return false;
  return DOMAIN.test(entityId.slice(0, dot)) && OBJECT_ID.test(entityId.slice(dot + 1));
}

/** The domain part of an entity id. */
export function domainOf(entityId: string): string {
  return entityId.slice(0, entityId.indexOf('.'));
}

export const MAX_STATE_LENGTH = 255;

/**
 * A JSON value as the original stringifies a state: Python's str(), so `true` is `True`,
 * `0.0` stays `0.0` when the client sent it so (we only see the parsed number, so integers
 * print without a fraction).
 */
export function stateString(value: unknown): string {
  if (value === true) return 'True';
  if (value === false) return 'False';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : value > 0 ? 'inf' : value < 0 ? '-inf' : 'nan';
  return JSON.stringify(value);
}

/** JSON as the original sends it: NaN and Infinity become null (JSON.stringify already does so). */
export function toJson(value: unknown): string {
  return JSON.stringify(value);
}

/** The wire dict of a state (key order of the original's as_dict). */
export function stateDict(s: EntityState) {
  return {
    entity_id: s.entity_id,
    state: s.state,
    attributes: s.attributes,
    last_changed: isoTime(s.last_changed),
    last_reported: isoTime(s.last_reported),
    last_updated: isoTime(s.last_updated),
    context: s.context,
  };
}

const jsonCache = new WeakMap<EntityState, string>();

/** The wire dict of a state, serialised once per state object (states are never mutated). */
export function stateJson(s: EntityState): string {
  let json = jsonCache.get(s);
  if (json === undefined) {
    json = toJson(stateDict(s));
    jsonCache.set(s, json);
  }
  return json;
}

/** Reads a state dict of the log or the wire back into an EntityState. */
export function fromStateDict(d: any): EntityState {
  const ctx = d.context ?? {};
  return {
    entity_id: d.entity_id,
    state: String(d.state),
    attributes: d.attributes ?? {},
    last_changed: parseIsoTime(d.last_changed),
    last_reported: parseIsoTime(d.last_reported ?? d.last_updated),
    last_updated: parseIsoTime(d.last_updated),
    context: { id: ctx.id ?? '', parent_id: ctx.parent_id ?? null, user_id: ctx.user_id ?? null },
  };
}

export { jsonEqual, applyWrite, type StateWrite, type WriteOutcome } from '../../machines/entity-rules.ts';
