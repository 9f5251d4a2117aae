import type { EventRecord } from '../../store/types.ts';
import { ENTITY_STREAM } from './state-at.ts';

/** What a record must be to be shown (every given field must match). */
export interface RecordFilter {
  entityId?: string;
  eventType?: string;
  contextId?: string;
  userId?: string;
}

/**
 * The entities a record is about: its entity stream's, and data.entity_id (one id or a list),
 * as `hearth replay --entity` picks them.
 */
export function entitiesOf(r: EventRecord): string[] {
  const ids: string[] = [];
  if (r.stream.startsWith(ENTITY_STREAM)) ids.push(r.stream.slice(ENTITY_STREAM.length));
  addIds(ids, r.data !== null && typeof r.data === 'object' ? (r.data as { entity_id?: unknown }).entity_id : undefined);
  return ids;
}

function addIds(ids: string[], id: unknown): void {
  if (typeof id === 'string') ids.push(id);
  else if (Array.isArray(id)) for (const item of id) if (typeof item === 'string') ids.push(item);
}

/** The entities a service call names in its data (where a call_service record keeps its target). */
function calledEntities(r: EventRecord): string[] {
  const ids: string[] = [];
  if (r.type !== 'call_service' || r.data === null || typeof r.data !== 'object') return ids;
  const data = (r.data as { service_data?: unknown }).service_data;
  if (data !== null && typeof data === 'object') addIds(ids, (data as { entity_id?: unknown }).entity_id);
  return ids;
}

export function matchesRecord(r: EventRecord, f: RecordFilter): boolean {
  if (f.eventType !== undefined && r.type !== f.eventType) return false;
  if (f.contextId !== undefined && r.context.id !== f.contextId) return false;
  if (f.userId !== undefined && r.context.user_id !== f.userId) return false;
  if (f.entityId !== undefined) {
    // the explorer also shows the calls aimed at the entity, which replay's filter does not
    const id = f.entityId;
    if (!entitiesOf(r).includes(id) && !calledEntities(r).includes(id)) return false;
  }
  return true;
}
