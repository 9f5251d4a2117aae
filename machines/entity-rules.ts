// The original's rules for writing a state: pure functions the entity machine applies.
import type { EntityState } from './entity-state.ts';

type Context = EntityState['context'];

/** Deep equality of JSON-like values (attribute comparison, as the original compares dicts). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) {
    return typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((v, i) => jsonEqual(v, bb[i]));
  }
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k) || !jsonEqual((a as any)[k], (b as any)[k])) return false;
  }
  return true;
}

/** A write of a state as the original's state machine takes it. */
export interface StateWrite {
  state: string;
  attributes: Record<string, unknown>;
  force_update: boolean;
  context: Context;
  time: number;
}

/** What a write does: a change (state_changed) or a report of the same state (state_reported). */
export type WriteOutcome =
  | { kind: 'changed'; next: EntityState }
  | { kind: 'reported'; next: EntityState };

/**
 * The original's rules for a write: same state and attributes without force_update only
 * bumps last_reported; a new state string (or force_update) moves last_changed; any change
 * moves last_updated.
 */
export function applyWrite(entityId: string, old: EntityState | null, w: StateWrite): WriteOutcome {
  if (!old) {
    return {
      kind: 'changed',
      next: { entity_id: entityId, state: w.state, attributes: w.attributes, last_changed: w.time, last_reported: w.time, last_updated: w.time, context: w.context },
    };
  }
  const sameState = old.state === w.state && !w.force_update;
  if (sameState && jsonEqual(old.attributes, w.attributes)) {
    return { kind: 'reported', next: { ...old, last_reported: w.time } };
  }
  return {
    kind: 'changed',
    next: {
      entity_id: entityId,
      state: w.state,
      attributes: w.attributes,
      last_changed: sameState ? old.last_changed : w.time,
      last_reported: w.time,
      last_updated: w.time,
      context: w.context,
    },
  };
}
