/** The context of a record: which change it was, what caused it, who asked (the original's Context). */
export interface RecordContext {
  id: string;
  parent_id: string | null;
  user_id: string | null;
}

/** An entity's state as the state machine of the original holds it. Times are epoch ms. */
export interface EntityState {
  entity_id: string;
  state: string;
  attributes: Record<string, unknown>;
  last_changed: number;
  last_reported: number;
  last_updated: number;
  context: RecordContext;
}
