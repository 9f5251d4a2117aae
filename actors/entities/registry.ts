import { createActor, type Actor } from 'xstate';
import { entitiesMachine, entityMachine, type EntityDecision } from '../../machines/entity.machine.ts';
import type { TypedArea } from '../area.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import type { Clock } from '../clock.ts';
import type { Context, EventLog, EventRecord, NewEvent } from '../../store/types.ts';
import type { EntityState } from './types.ts';
import { stateJson } from './state.ts';

/** Stream of an entity's records in the log. */
export const entityStream = (entityId: string) => `entity/${entityId}`;

const STREAM_PREFIX = 'entity/';

/** The data of a `state_changed` record (times as epoch ms; the wire form is made when sent). */
export interface StateChangedData {
  entity_id: string;
  old_state: EntityState | null;
  new_state: EntityState | null;
}

/** The data of a `state_reported` record. */
export interface StateReportedData {
  entity_id: string;
  old_last_reported: number;
  new_state: EntityState;
}

/** An entity's records on `entity/<entity_id>` (bus events too: origin LOCAL). */
export type EntityRecord = { type: 'state_changed'; data: StateChangedData } | { type: 'state_reported'; data: StateReportedData };
/** The entities' records; a `state_changed` a client fires goes to `bus` and is none of these. */
export const entityRecords = typedRecords<EntityRecord>(STREAM_PREFIX, { state_changed: true, state_reported: true });

interface Cell {
  /** the committed state, as readers see it */
  state: EntityState;
  /** a live actor while the entity is busy; an idle entity rests as its state */
  actor?: Actor<typeof entityMachine>;
  /** writes decided but not yet committed */
  pending: number;
}

export interface WriteResult {
  /** true when the entity did not exist before the write */
  created: boolean;
  state: EntityState;
  /** false when the write only reported the same state */
  changed: boolean;
}

export interface EntityActorsOptions {
  log: EventLog;
  clock: Clock;
  /** how many entities stay awake as live actors (the rest rest as their state) */
  liveActors?: number;
}

/**
 * Every entity as an xstate actor over the log. Commands wake the entity's actor, its machine
 * decides, the fact it decides is appended, and readers see the new state once it is committed.
 */
export class EntityActors {
  private readonly cells = new Map<string, Cell>();
  private readonly live = new Map<string, Cell>();
  private readonly log: EventLog;
  private readonly clock: Clock;
  private readonly liveCap: number;
  /** the entity actors' parent: one actor system for all of them */
  private readonly parent: Actor<typeof entitiesMachine>;
  /** the JSON of all states, kept until the next committed change */
  private joined: string | undefined;

  constructor(options: EntityActorsOptions) {
    this.parent = createActor(entitiesMachine);
    this.parent.start();
    this.log = options.log;
    this.clock = options.clock;
    this.liveCap = options.liveActors ?? 4096;
    options.log.onCommit((records) => {
      for (const r of records) if (entityRecords.owns(r)) this.project(r);
    });
  }

  /** The committed state of an entity. */
  get(entityId: string): EntityState | undefined {
    return this.cells.get(entityId)?.state;
  }

  has(entityId: string): boolean {
    return this.cells.has(entityId);
  }

  /** Entity ids in insertion order. */
  ids(): IterableIterator<string> {
    return this.cells.keys();
  }

  /** Committed states in insertion order. */
  *states(): IterableIterator<EntityState> {
    for (const cell of this.cells.values()) yield cell.state;
  }

  get size(): number {
    return this.cells.size;
  }

  /** The JSON array of all states, joined from each state's ready JSON. */
  statesJson(filter?: (s: EntityState) => boolean): string {
    if (!filter) {
      // the same string while nothing changed, so its gzip can be kept too
      return (this.joined ??= this.join());
    }
    return this.join(filter);
  }

  private join(filter?: (s: EntityState) => boolean): string {
    const parts: string[] = [];
    for (const cell of this.cells.values()) if (!filter || filter(cell.state)) parts.push(stateJson(cell.state));
    return `[${parts.join(',')}]`;
  }

  /**
   * Serialises every state ahead of the first read (the start awaits it before listening), in
   * slices that leave the event loop free, so the first GET /api/states after a restart is a
   * join of ready JSON, as every later one is.
   */
  async warmJson(slice = 2000): Promise<void> {
    let n = 0;
    for (const cell of [...this.cells.values()]) {
      stateJson(cell.state);
      if (++n % slice === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    this.statesJson();
  }

  /** Writes a state; resolves once the resulting record is committed. */
  async write(entityId: string, w: { state: string; attributes: Record<string, unknown>; force_update: boolean }, context: Context): Promise<WriteResult> {
    const cell = this.cells.get(entityId);
    const time = this.clock.now();
    const decided = this.decide(entityId, cell, { type: 'write', ...w, context, time });
    if (!decided || !decided.next) throw new Error(`HEARTH_ENTITY: write to ${entityId} decided nothing`);
    await this.commit(entityId, toRecord(entityId, decided, context, time));
    return { created: decided.old === null, state: decided.next, changed: decided.type === 'state_changed' };
  }

  /** Removes an entity; false when it does not exist. */
  async remove(entityId: string, context: Context): Promise<boolean> {
    const cell = this.cells.get(entityId);
    if (!cell) return false;
    const time = this.clock.now();
    const decided = this.decide(entityId, cell, { type: 'remove', context, time });
    if (!decided) return false;
    await this.commit(entityId, toRecord(entityId, decided, context, time));
    return true;
  }

  private decide(entityId: string, cell: Cell | undefined, event: Parameters<Actor<typeof entityMachine>['send']>[0]): EntityDecision | null {
    const actor = this.wake(entityId, cell);
    actor.send(event);
    return actor.getSnapshot().context.decided;
  }

  private wake(entityId: string, cell: Cell | undefined): Actor<typeof entityMachine> {
    const key = entityId;
    let holder = cell ?? this.pendingCells.get(key);
    if (holder?.actor) {
      // keep the live set in least-recently-used order
      this.live.delete(key);
      this.live.set(key, holder);
      return holder.actor;
    }
    const actor = createActor(entityMachine, { input: { entityId, current: holder?.state ?? null }, parent: this.parent });
    actor.start();
    if (!holder) {
      // an entity being created has no committed state yet: it lives in pendingCells until then
      holder = { state: null as unknown as EntityState, pending: 0 };
      this.pendingCells.set(key, holder);
    }
    holder.actor = actor;
    this.live.set(key, holder);
    // never the one just woken: it is about to decide (with every older actor busy, it would be
    // the first idle one, and a stopped actor decides nothing sound)
    this.evictIdle(key);
    return actor;
  }

  private readonly pendingCells = new Map<string, Cell>();

  /** Stops an entity's actor, if it has one (an idle entity rests as its state). */
  private sleep(cell: Cell): void {
    if (!cell.actor) return;
    this.parent.send({ type: 'sleep', entity: cell.actor });
    cell.actor = undefined;
  }

  private evictIdle(keep: string): void {
    if (this.live.size <= this.liveCap) return;
    for (const [key, cell] of this.live) {
      if (this.live.size <= this.liveCap) break;
      if (cell.pending > 0 || key === keep) continue;
      this.sleep(cell);
      this.live.delete(key);
    }
  }

  private async commit(entityId: string, record: NewEvent): Promise<void> {
    const holder = this.cells.get(entityId) ?? this.pendingCells.get(entityId)!;
    holder.pending++;
    try {
      await this.log.append([record]);
    } catch (err) {
      holder.pending--;
      this.forget(entityId, holder);
      throw err;
    }
    holder.pending--;
  }

  /**
   * After a write the log refused: the actor had moved on to a state that was never
   * committed, so it is dropped, and the next write starts again from the committed state.
   */
  private forget(entityId: string, holder: Cell): void {
    this.sleep(holder);
    this.live.delete(entityId);
    // an entity whose creation failed does not exist
    if (holder.pending === 0 && this.pendingCells.get(entityId) === holder) this.pendingCells.delete(entityId);
  }

  /** Applies a committed record to the readers' view. */
  private project(r: RecordOf<EntityRecord>): void {
    // the join of all states is stale now: let it go rather than hold it until the next read
    this.joined = undefined;
    // the id the state itself holds: a slice of the stream name would keep that name alive too
    const entityId: string = r.data?.entity_id ?? r.stream.slice(STREAM_PREFIX.length);
    if (r.type === 'state_changed') {
      const next = r.data.new_state;
      if (next === null) {
        const cell = this.cells.get(entityId);
        if (cell && cell.pending === 0) {
          this.sleep(cell);
          this.live.delete(entityId);
        }
        this.cells.delete(entityId);
        if (cell && cell.pending > 0) this.pendingCells.set(entityId, cell);
        return;
      }
      let cell = this.cells.get(entityId);
      if (!cell) {
        cell = this.pendingCells.get(entityId) ?? { state: next, pending: 0 };
        this.pendingCells.delete(entityId);
        this.cells.set(entityId, cell);
      }
      cell.state = next;
    } else {
      const next = r.data.new_state;
      const cell = this.cells.get(entityId);
      // a restore from each stream's last record may meet a report first
      if (cell) cell.state = next;
      else this.cells.set(entityId, { state: next, pending: 0 });
    }
  }

  /** Restoration: snapshot plus log tail. */
  readonly area: TypedArea<RecordOf<EntityRecord>> = {
    name: 'entities',
    snapshotVersion: 1,
    streamPrefix: STREAM_PREFIX,
    // state_changed and state_reported carry the entity's whole new state
    latestSuffices: true,
    owns: entityRecords.owns,
    evolve: (r) => this.project(r),
    snapshot: () => [...this.cells.values()].map((c) => c.state),
    restore: (data) => {
      this.joined = undefined;
      this.cells.clear();
      for (const s of data as EntityState[]) this.cells.set(s.entity_id, { state: s, pending: 0 });
    },
  };
}

function toRecord(entityId: string, d: EntityDecision, context: Context, time: number): NewEvent {
  if (d.type === 'state_reported') {
    const data: StateReportedData = { entity_id: entityId, old_last_reported: d.old.last_reported, new_state: d.next };
    return { ...entityRecords.make(entityStream(entityId), { type: 'state_reported', data }, context, time), origin: 'LOCAL' };
  }
  const data: StateChangedData = { entity_id: entityId, old_state: d.old, new_state: d.next };
  const record: NewEvent = { ...entityRecords.make(entityStream(entityId), { type: 'state_changed', data }, context, time), origin: 'LOCAL' };
  // the old state is the new state of the stream's last record: the log keeps a reference
  if (d.old !== null) record.inherit = OLD_STATE;
  return record;
}

const OLD_STATE = { field: 'old_state', from: 'new_state' };
