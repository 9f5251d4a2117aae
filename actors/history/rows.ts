/**
 * What a history answer holds for one entity, and its wire forms: the REST rows (ISO times) and
 * the compressed rows of the WebSocket commands (`s`, `a`, `lu`, `lc`, epoch seconds), as the
 * original's recorder shapes them (recorder/history/modern.py, recorder/models/state.py).
 */
import { isoformat } from '../../machines/python/isoformat.ts';
import { domainOf, toJson } from '../entities/state.ts';
import type { EntityState } from '../entities/types.ts';

/** Domains whose attribute-only changes count as significant (thermostat curves and the like). */
export const SIGNIFICANT_DOMAINS: ReadonlySet<string> = new Set(['climate', 'device_tracker', 'humidifier', 'thermostat', 'water_heater']);

/** Domains whose rows keep their attributes even in a minimal answer. */
export const NEED_ATTRIBUTE_DOMAINS: ReadonlySet<string> = new Set(['climate', 'humidifier', 'input_datetime', 'thermostat', 'water_heater']);

/**
 * One recorded state of an entity. `lastChanged` is undefined where the original has no
 * last_changed of its own for the row and shows last_updated: the state at the window's start,
 * a removal, and every row of a query for significant changes only (which does not select it).
 */
export interface Point {
  state: string;
  attributes: Record<string, unknown>;
  lastUpdated: number;
  lastChanged: number | undefined;
  /** the record it came from (0 for none): a live stream skips what the history already sent */
  seq: number;
}

/** How the rows of an answer are shaped (the request's flags). */
export interface Shape {
  minimal: boolean;
  noAttributes: boolean;
}

const EMPTY = Object.freeze({}) as Record<string, unknown>;

/**
 * The point a recorded new state stands for: a removal (null) is the original's row with an
 * empty state and no attributes at the time of the removal.
 */
export function pointOf(state: EntityState | null, time: number, seq: number, keepLastChanged: boolean): Point {
  if (state === null) return { state: '', attributes: EMPTY, lastUpdated: time, lastChanged: undefined, seq };
  return {
    state: state.state,
    attributes: state.attributes,
    lastUpdated: state.last_updated,
    lastChanged: keepLastChanged && state.last_changed !== state.last_updated ? state.last_changed : undefined,
    seq,
  };
}

/**
 * Whether a recorded state counts for a query of significant changes only: a change of the
 * state string (last_changed moved with last_updated), a removal, or any change of an entity of
 * the significant domains.
 */
export function isSignificant(entityId: string, state: EntityState | null): boolean {
  return state === null || state.last_changed === state.last_updated || SIGNIFICANT_DOMAINS.has(domainOf(entityId));
}

/** The JSON of one entity's rows in the REST form: full state dicts, or minimal ones after the first. */
export function restRowsJson(entityId: string, points: Point[], shape: Shape): string {
  const full = (p: Point) =>
    `{"entity_id":${JSON.stringify(entityId)},"state":${JSON.stringify(p.state)},"attributes":${shape.noAttributes ? '{}' : toJson(p.attributes)},` +
    `"last_changed":"${isoformat(p.lastChanged ?? p.lastUpdated)}","last_updated":"${isoformat(p.lastUpdated)}"}`;
  if (!shape.minimal || NEED_ATTRIBUTE_DOMAINS.has(domainOf(entityId))) return `[${points.map(full).join(',')}]`;
  // minimal: the first row whole, then only changes of the state string, each with its time
  const parts = [full(points[0])];
  let previous = points[0].state;
  for (let i = 1; i < points.length; i++) {
    const p = points[i];
    if (p.state === previous) continue;
    previous = p.state;
    parts.push(`{"state":${JSON.stringify(p.state)},"last_changed":"${isoformat(p.lastUpdated)}"}`);
  }
  return `[${parts.join(',')}]`;
}

const seconds = (ms: number) => ms / 1000;

/** One row in the compressed form: `a` is left out only where `withAttributes` is false. */
function compressedRow(p: Point, attributes: Record<string, unknown> | undefined): Record<string, unknown> {
  const row: Record<string, unknown> = { s: p.state };
  if (attributes !== undefined) row.a = attributes;
  row.lu = seconds(p.lastUpdated);
  if (p.lastChanged !== undefined && p.lastChanged !== p.lastUpdated) row.lc = seconds(p.lastChanged);
  return row;
}

/** One entity's rows in the compressed form of history/history_during_period and history/stream. */
export function compressedRows(entityId: string, points: Point[], shape: Shape): Record<string, unknown>[] {
  // a full row always carries `a`: the original selects no attributes then, and decodes them as {}
  const full = (p: Point) => compressedRow(p, shape.noAttributes ? EMPTY : p.attributes);
  if (!shape.minimal || NEED_ATTRIBUTE_DOMAINS.has(domainOf(entityId))) return points.map(full);
  const rows = [compressedRow(points[0], shape.noAttributes ? undefined : points[0].attributes)];
  let previous = points[0].state;
  for (let i = 1; i < points.length; i++) {
    const p = points[i];
    if (p.state === previous) continue;
    previous = p.state;
    rows.push({ s: p.state, lu: seconds(p.lastUpdated) });
  }
  return rows;
}

/** A live state in the compressed form of history/stream (the original's `_history_compressed_state`). */
export function liveCompressedState(state: EntityState, noAttributes: boolean): Record<string, unknown> {
  const row: Record<string, unknown> = { s: state.state };
  if (!noAttributes || NEED_ATTRIBUTE_DOMAINS.has(domainOf(state.entity_id))) row.a = state.attributes;
  row.lu = seconds(state.last_updated);
  if (state.last_changed !== state.last_updated) row.lc = seconds(state.last_changed);
  return row;
}

/**
 * Whether the live stream forwards a change: both states present, and with significant changes
 * only (or a minimal answer) the state string moved or the entity is of a significant domain.
 */
export function forwardsLive(entityId: string, oldState: EntityState | null, newState: EntityState | null, significantOnly: boolean): boolean {
  if (newState === null || oldState === null) return false;
  return !significantOnly || newState.state !== oldState.state || SIGNIFICANT_DOMAINS.has(domainOf(entityId));
}
