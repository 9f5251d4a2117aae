import type { EntityState } from '../types.ts';

/** The last state, unless it says nothing (`unavailable`, `unknown`): what a restart restores from. */
export function lastKnown(restored: EntityState | undefined): EntityState | undefined {
  if (!restored || restored.state === 'unavailable' || restored.state === 'unknown') return undefined;
  return restored;
}

/** A restored attribute when it is a finite number. */
export function numberAttribute(restored: EntityState | undefined, key: string): number | undefined {
  const value = restored?.attributes[key];
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

/** A restored attribute when it is a string. */
export function stringAttribute(restored: EntityState | undefined, key: string): string | undefined {
  const value = restored?.attributes[key];
  return typeof value === 'string' ? value : undefined;
}
