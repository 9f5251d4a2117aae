import { createActor, initialTransition, transition, type AnyActor, type EventObject } from 'xstate';
import type { Context, EventRecord } from '../../../store/types.ts';
import type { Clock } from '../../clock.ts';
import type { EntityActors } from '../registry.ts';
import { jsonEqual } from '../state.ts';
import { ServiceError, type ServiceCall, type ServiceSpec } from '../../services/types.ts';
import { withOverrides, type EntryFollower, type OverridesOf } from '../overrides.ts';
import type { PlatformDomain, PlatformEntry, PlatformRegistrar, PlatformService } from './types.ts';

/** How long after a call the entity's own later writes still carry the call's context (the original's 5 s). */
const CONTEXT_RECENT_MS = 5_000;

interface BusEvent {
  event_type: string;
  data: Record<string, unknown>;
}

/** What one write puts in the log: the entity's view and the bus events that go with it. */
interface Taken {
  shown: { state: string; attributes: Record<string, unknown> };
  announced: BusEvent[];
}

interface LiveEntity {
  entry: PlatformEntry;
  actor: AnyActor;
  /** once stopped, nothing more is written for it */
  stopped: boolean;
  /** while a start or a command is sent: the sender writes the state itself */
  quiet: boolean;
  /** bus events the machine announced, fired after the next write */
  announced: BusEvent[];
  /** the entity's writes, one after the other */
  chain: Promise<void>;
  /** the last call: the effects that follow it (a cover still moving) carry its context for a while */
  recent?: { context: Context; at: number };
}

/** What the actors of a platform domain need from the instance. */
export interface PlatformDeps {
  entities: EntityActors;
  clock: Clock;
  log(line: string): void;
  /** a fresh context for a change nobody asked for */
  newContext(): Context;
  fireEvent(eventType: string, data: Record<string, unknown>, context: Context): Promise<unknown>;
  registrar: PlatformRegistrar;
  /** listens to every committed batch of the log (for entities that follow others) */
  onCommit?(listener: (records: EventRecord[]) => void): void;
  /** what the entity registry overrides (name, icon, device class, disabled) */
  overrides?: OverridesOf;
}

/** The attributes every entity shows after its domain's own, in the original's order. */
function commonAttributes(entry: PlatformEntry, features: number | undefined, unit: string | undefined): Record<string, unknown> {
  const attributes: Record<string, unknown> = {};
  if (unit !== undefined) attributes.unit_of_measurement = unit;
  if (entry.deviceClass !== undefined) attributes.device_class = entry.deviceClass;
  if (entry.icon !== undefined) attributes.icon = entry.icon;
  if (entry.name !== undefined) attributes.friendly_name = entry.name;
  if (features !== undefined) attributes.supported_features = features;
  return attributes;
}

/**
 * The entities of one platform domain: one live machine per configured entry. A service call
 * sends each target's machine its event and writes what the machine then shows; a machine that
 * moves on its own (a cover travelling, a timer running out) has that written as it happens.
 */
export class PlatformActors implements EntryFollower {
  private readonly live = new Map<string, LiveEntity>();

  constructor(
    readonly domain: PlatformDomain,
    private readonly deps: PlatformDeps,
  ) {
    if (domain.watches && deps.onCommit) deps.onCommit((records) => this.follow(records));
  }

  /** Whether an entry follows an entity. */
  private watching(entry: PlatformEntry, entityId: string): boolean {
    const watched = this.domain.watches?.(entry);
    if (!watched) return false;
    return (watched.entityIds?.includes(entityId) ?? false) || (watched.domains?.includes(entityId.slice(0, entityId.indexOf('.'))) ?? false);
  }

  /** Sends each followed entity's committed change to the machines that follow it. */
  private follow(records: EventRecord[]): void {
    // most homes follow nothing: a batch costs nothing then
    if (this.live.size === 0) return;
    for (const r of records) {
      if (r.type !== 'state_changed' || !r.stream.startsWith('entity/')) continue;
      const entityId: string = r.data.entity_id;
      for (const live of this.live.values()) {
        if (live.stopped || live.entry.entityId === entityId || !this.watching(live.entry, entityId)) continue;
        live.actor.send(this.domain.watchEvent!(entityId, r.data.new_state ?? undefined));
      }
    }
  }

  /** The current states of what an entry follows, as its machine's first events. */
  private catchUp(live: LiveEntity): void {
    if (!this.domain.watches) return;
    for (const id of [...this.deps.entities.ids()]) {
      if (id !== live.entry.entityId && this.watching(live.entry, id)) live.actor.send(this.domain.watchEvent!(id, this.deps.entities.get(id)));
    }
  }

  /** Entity ids of the configured entries. */
  entityIds(): string[] {
    return [...this.live.keys()];
  }

  /** Applies parsed entries: new ones start, changed ones restart from their state, removed ones go. */
  async apply(entries: PlatformEntry[], context: Context): Promise<void> {
    const seen = new Set<string>();
    for (const parsed of entries) {
      const entry = { ...parsed, entityId: await this.register(parsed, context) };
      if (seen.has(entry.entityId)) {
        this.deps.log(`${this.domain.domain}[${entry.index}] skipped: its entity id ${entry.entityId} is taken by another entry`);
        continue;
      }
      seen.add(entry.entityId);
      const existing = this.live.get(entry.entityId);
      if (existing && jsonEqual({ ...existing.entry, index: 0 }, { ...entry, index: 0 })) continue;
      if (existing) await this.retire(existing);
      await this.start(entry, context);
    }
    for (const [entityId, live] of [...this.live]) {
      if (seen.has(entityId)) continue;
      await this.retire(live);
      await this.deps.entities.remove(entityId, context);
    }
  }

  /** Stops every machine (pending delays included) once its writes are done. */
  async stop(): Promise<void> {
    await Promise.all([...this.live.values()].map((l) => this.retire(l)));
  }

  private async register(entry: PlatformEntry, context: Context): Promise<string> {
    if (entry.uniqueId === undefined) return entry.entityId;
    const { registrar } = this.deps;
    const deviceId = await registrar.ensureDevice(
      { identifiers: [['virtual', entry.uniqueId]], name: entry.name ?? entry.entityId, manufacturer: 'Hearth', model: `Virtual ${entry.domain}` },
      context,
    );
    const [initial] = initialTransition(this.domain.machine, this.domain.input(entry, undefined, this.deps.clock.now()));
    const view = this.domain.render(initial, entry);
    return registrar.ensureEntity(
      {
        domain: entry.domain,
        platform: 'virtual',
        unique_id: entry.uniqueId,
        suggested_entity_id: entry.entityId,
        original_name: entry.name ?? entry.entityId,
        original_icon: entry.icon ?? null,
        original_device_class: entry.deviceClass ?? null,
        supported_features: this.domain.supportedFeatures(entry) ?? 0,
        unit_of_measurement: view.unit_of_measurement ?? null,
        device_id: deviceId,
      },
      context,
    );
  }

  private async start(entry: PlatformEntry, context: Context): Promise<void> {
    const restored = this.deps.entities.get(entry.entityId);
    const live = this.spawn(entry, { input: this.domain.input(entry, restored, this.deps.clock.now()) });
    await this.flush(live, false, context);
  }

  /** Starts an entry's machine; what it does on its own from then on is written as it happens. */
  private spawn(entry: PlatformEntry, options: { input: unknown; snapshot?: any }): LiveEntity {
    const actor = createActor(this.domain.machine, options);
    const live: LiveEntity = { entry, actor, stopped: false, quiet: true, announced: [], chain: Promise.resolve() };
    actor.subscribe({
      next: () => {
        if (live.quiet || live.stopped) return;
        this.flush(live, false).catch((err) => this.deps.log(`${entry.entityId}: state not written: ${(err as Error).message}`));
      },
      error: (err) => this.deps.log(`${entry.entityId}: machine stopped: ${(err as Error).message}`),
    });
    actor.on('bus_event', (e: BusEvent) => live.announced.push({ event_type: e.event_type, data: e.data }));
    this.live.set(entry.entityId, live);
    actor.start();
    this.catchUp(live);
    live.quiet = false;
    return live;
  }

  private async retire(live: LiveEntity): Promise<void> {
    live.stopped = true;
    live.actor.stop();
    this.live.delete(live.entry.entityId);
    await live.chain;
  }

  /** The entity state the machine shows now. */
  private show(live: LiveEntity): { state: string; attributes: Record<string, unknown> } {
    const view = this.domain.render(live.actor.getSnapshot(), live.entry);
    const features = this.domain.supportedFeatures(live.entry);
    const attributes = { ...view.attributes, ...commonAttributes(live.entry, features, view.unit_of_measurement) };
    return { state: view.state, attributes: withOverrides(attributes, this.deps.overrides?.(live.entry.entityId)) };
  }

  /** Whether the user disabled the entity: it then has no state and takes no calls, as in the original. */
  private disabled(live: LiveEntity): boolean {
    return this.deps.overrides?.(live.entry.entityId)?.disabled === true;
  }

  /**
   * Writes what the entity shows, after its earlier writes: always for a command (the original
   * writes the state after every call, a report when nothing changed), else only on a change;
   * then fires the bus events the machine announced, with the same context.
   */
  private flush(live: LiveEntity, always: boolean, given?: Context, taken?: Taken): Promise<void> {
    const run = live.chain.then(async () => {
      if (live.stopped) return;
      const context = given ?? this.recentContext(live);
      // a command's view is taken when its event is sent: a later call must not overtake it
      const { shown, announced } = taken ?? this.take(live);
      const id = live.entry.entityId;
      const current = this.deps.entities.get(id);
      if (this.disabled(live)) {
        if (current) await this.deps.entities.remove(id, context);
        return;
      }
      if (always || !current || current.state !== shown.state || !jsonEqual(current.attributes, shown.attributes)) {
        await this.deps.entities.write(id, { ...shown, force_update: this.domain.forceUpdate === true }, context);
      }
      for (const e of announced) await this.deps.fireEvent(e.event_type, e.data, context);
    });
    live.chain = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** What the entity shows now and the bus events announced since the last write. */
  private take(live: LiveEntity): Taken {
    return { shown: this.show(live), announced: live.announced.splice(0) };
  }

  private recentContext(live: LiveEntity): Context {
    const recent = live.recent;
    if (recent && this.deps.clock.now() - recent.at <= CONTEXT_RECENT_MS) return recent.context;
    return this.deps.newContext();
  }

  private supports(live: LiveEntity, required: number[]): boolean {
    const features = this.domain.supportedFeatures(live.entry) ?? 0;
    return required.some((mask) => (features & mask) === mask);
  }

  /**
   * Runs a call on its targets. Every target is checked first (its features, then a pure
   * transition of its machine), so a refusal anywhere leaves all of them as they were.
   */
  async command(service: PlatformService, call: ServiceCall): Promise<void> {
    const problem = service.refine?.(call.data);
    if (problem) throw new ServiceError('invalid_format', problem);
    const now = this.deps.clock.now();
    // machines never read a clock: the time of a command comes in with it
    const event = { ...service.toEvent(call.data), time: now } as EventObject;
    const targets: LiveEntity[] = [];
    const missing: string[] = [];
    for (const id of call.entityIds) {
      const live = this.live.get(id);
      if (live && !this.disabled(live)) targets.push(live);
      else missing.push(id);
    }
    if (missing.length) this.deps.log(`Referenced entities ${missing.join(', ')} are missing or not currently available`);
    const { domain } = this.domain;
    for (const live of targets) {
      if (service.requiredFeatures && !this.supports(live, service.requiredFeatures)) {
        const entityId = live.entry.entityId;
        throw new ServiceError('service_validation_error', `Entity ${entityId} does not support action ${domain}.${service.service}.`, {
          domain: 'homeassistant',
          key: 'service_not_supported',
          placeholders: { entity_id: entityId, domain, service: service.service },
        });
      }
    }
    for (const live of targets) {
      const [, actions] = transition(this.domain.machine, live.actor.getSnapshot(), event);
      const refusal = actions.find((a: any) => a.type === 'xstate.emit' && a.params?.event?.type === 'rejected') as any;
      if (refusal) {
        const { message, code, translation } = refusal.params.event;
        throw new ServiceError(code ?? 'service_validation_error', String(message), translation);
      }
    }
    const before = targets.map((live) => live.actor.getPersistedSnapshot());
    const taken: Taken[] = [];
    for (const live of targets) {
      live.quiet = true;
      try {
        live.actor.send(event);
      } finally {
        live.quiet = false;
      }
      live.recent = { context: call.context, at: now };
      // each call writes the state it made, as the original does, even when the next call
      // reaches the machine before this one's write has run
      taken.push(this.take(live));
    }
    const written = await Promise.allSettled(targets.map((live, i) => this.flush(live, true, call.context, taken[i])));
    const refused = written.findIndex((w) => w.status === 'rejected');
    if (refused < 0) return;
    // the log refused a state: its machine goes back to what it was, so it matches the log
    written.forEach((w, i) => w.status === 'rejected' && this.rewind(targets[i], before[i]));
    throw (written[refused] as PromiseRejectedResult).reason;
  }

  async entryUpdated(entityId: string, oldEntityId: string | undefined, context: Context): Promise<void> {
    if (oldEntityId !== undefined && oldEntityId !== entityId && this.live.has(oldEntityId)) {
      const old = this.live.get(oldEntityId)!;
      // the original removes the entity, then adds it under its new id: the machine goes on
      // from where it was (its context names the entity, for the events it fires)
      const snapshot = old.actor.getPersistedSnapshot() as any;
      if (snapshot.context?.entityId === oldEntityId) snapshot.context = { ...snapshot.context, entityId };
      await this.retire(old);
      if (this.deps.entities.has(oldEntityId)) await this.deps.entities.remove(oldEntityId, context);
      const entry = { ...old.entry, entityId };
      const again = this.spawn(entry, { snapshot, input: this.domain.input(entry, this.deps.entities.get(oldEntityId), this.deps.clock.now()) });
      again.recent = old.recent;
    }
    const live = this.live.get(entityId);
    if (live && !live.stopped) await this.flush(live, false, context);
  }

  private rewind(live: LiveEntity, snapshot: unknown): void {
    if (live.stopped) return;
    live.stopped = true;
    live.actor.stop();
    const { entry } = live;
    const again = this.spawn(entry, { snapshot, input: this.domain.input(entry, this.deps.entities.get(entry.entityId), this.deps.clock.now()) });
    again.recent = live.recent;
  }

  /** The domain's services as registry specs. */
  specs(): ServiceSpec[] {
    return this.domain.services.map((s) => ({
      domain: this.domain.domain,
      service: s.service,
      description: s.description,
      schema: s.schema,
      supportsResponse: 'none' as const,
      access: 'entity' as const,
      handler: async (call) => this.command(s, call),
    }));
  }
}
