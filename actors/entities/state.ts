import { isoformat } from '../../machines/python/isoformat.ts';
import { parseIsoTime } from '../../store/time.ts';
import type { EntityState } from './types.ts';

const DOMAIN = /^(?!.+__)(?!_)[\da-z_]+(?<!_)$/;
const OBJECT_ID = /^(?!_)[\da-z_]+(?<!_)$/;

/** The original's longest entity id. */
export const MAX_ENTITY_ID_LENGTH = 255;

/** True for `<domain>.<object_id>` as the original accepts it (at most 255 characters). */
export function validEntityId(entityId: string): boolean {
  if (entityId.length > MAX_ENTITY_ID_LENGTH) return false;
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
    last_changed: isoformat(s.last_changed),
    last_reported: isoformat(s.last_reported),
    last_updated: isoformat(s.last_updated),
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

/**
 * A state dict a client sent inside a `state_changed` event, made a full wire state as the
 * original's `State.from_dict` makes it: `undefined` when the value is no state dict (it then
 * stays as sent), the reason when it is one the original's State refuses. Times it cannot read
 * become `now`, as there.
 */
export function wireStateFromDict(value: unknown, now: number): ReturnType<typeof stateDict> | undefined | string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  const d = value as Record<string, unknown>;
  if (!Object.hasOwn(d, 'entity_id') || !Object.hasOwn(d, 'state')) return undefined;
  if (typeof d.entity_id !== 'string' || !validEntityId(d.entity_id)) return 'invalid entity ID';
  if (typeof d.state !== 'string' || d.state.length > MAX_STATE_LENGTH) return 'the state must be a string of at most 255 characters';
  const attributes = d.attributes ?? {};
  if (typeof attributes !== 'object' || attributes === null || Array.isArray(attributes)) return 'attributes must be an object';
  const time = (v: unknown) => {
    const ms = typeof v === 'string' ? parseIsoTime(v) : NaN;
    return Number.isNaN(ms) ? undefined : ms;
  };
  const lastUpdated = time(d.last_updated) ?? now;
  const ctx = typeof d.context === 'object' && d.context !== null ? (d.context as Record<string, unknown>) : {};
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return stateDict({
    entity_id: d.entity_id,
    state: d.state,
    attributes: attributes as Record<string, unknown>,
    last_changed: time(d.last_changed) ?? lastUpdated,
    last_reported: time(d.last_reported) ?? lastUpdated,
    last_updated: lastUpdated,
    context: { id: text(ctx.id) ?? '', parent_id: text(ctx.parent_id), user_id: text(ctx.user_id) },
  });
}

export { jsonEqual, applyWrite, type StateWrite, type WriteOutcome } from '../../machines/entity-rules.ts';
