import type { EventLog, EventRecord } from '../store/types.ts';

/**
 * One area of the actor system (entities, auth, ...) as the composition root restores it:
 * the latest snapshot first, then every committed record of the log tail in sequence order.
 */
export interface Area<R extends EventRecord = EventRecord> {
  /** snapshot name in the store, also the area's name in logs */
  readonly name: string;
  /** format version of this area's snapshot data */
  readonly snapshotVersion: number;
  /** every stream this area owns starts with this */
  readonly streamPrefix: string;
  /** true when a stream's last record holds its whole state, so a restore needs only that one */
  readonly latestSuffices: boolean;
  /** true for records of streams this area owns; an area with typed records (`store/typed-records.ts`) narrows to them */
  owns(record: EventRecord): boolean;
  /** applies one committed record the area owns while restoring (no effects, no appends) */
  evolve(record: R): void;
  /** the area's whole state as JSON-able data */
  snapshot(): unknown;
  /** loads a snapshot written by snapshot() with the same version */
  restore(data: unknown): void;
}

/** An area whose `owns` narrows a record to the area's own (`store/typed-records.ts`), so `evolve` takes only those. */
export interface TypedArea<R extends EventRecord> extends Area<R> {
  owns(record: EventRecord): record is R;
}

/**
 * Keeps `area` current while it runs: every committed record it owns evolves it, as a restore
 * does. Answers the unsubscribe.
 */
export function evolveOnCommit(log: Pick<EventLog, 'onCommit'>, area: Pick<Area, 'owns' | 'evolve'>): () => void {
  return log.onCommit((records) => {
    for (const record of records) if (area.owns(record)) area.evolve(record);
  });
}
