import { createActor, transition, type AnyActor, type EventObject } from 'xstate';
import { Type } from '@sinclair/typebox';
import type { Context } from '../../store/types.ts';
import type { EntityActors } from './registry.ts';
import type { Clock } from '../clock.ts';
import type { HelperDomain, HelperEnv, HelperItem } from './types.ts';
import { ServiceError, type ServiceSpec } from '../services/types.ts';
import { domainOf, jsonEqual } from './state.ts';
import { noOverrides, withOverrides, type EntryFollower, type OverridesOf } from './overrides.ts';

interface HelperEntity {
  item: HelperItem;
  actor: AnyActor;
}

/**
 * The actors of one helper domain (input_boolean, counter, ...): one live machine per configured
 * item; a service call sends the machine its event, and what the machine then renders is
 * written as the entity's state.
 */
export class HelperActors implements EntryFollower {
  private readonly items = new Map<string, HelperEntity>();

  constructor(
    readonly domain: HelperDomain,
    private readonly entities: EntityActors,
    private readonly clock: Clock,
    private readonly log: (line: string) => void,
    private readonly overrides: OverridesOf = noOverrides,
    private readonly timeZone: () => string = () => 'UTC',
  ) {}

  private env(): HelperEnv {
    return { now: this.clock.now(), timeZone: this.timeZone() };
  }

  /**
   * Applies a (re)loaded configuration: new items start, changed ones reconfigure, removed ones
   * go. `entityIdOf` gives an item's entity id (its registry entry's, which the user may have renamed).
   */
  async configure(section: unknown, context: Context, entityIdOf?: (objectId: string) => string | undefined): Promise<void> {
    const items = section === undefined || section === null ? [] : this.domain.parseConfig(section);
    const seen = new Set<string>();
    for (const item of items) {
      const entityId = entityIdOf?.(item.objectId) ?? `${this.domain.domain}.${item.objectId}`;
      seen.add(entityId);
      const existing = this.items.get(entityId);
      if (existing) {
        existing.item = item;
        existing.actor.send({ type: 'configure', config: item.config } as EventObject);
      } else {
        const restored = this.entities.get(entityId);
        const actor = createActor(this.domain.machine, { input: this.domain.input(item, restored, this.env()) });
        actor.start();
        this.items.set(entityId, { item, actor });
      }
      await this.render(entityId, context);
    }
    for (const entityId of [...this.items.keys()]) {
      if (seen.has(entityId)) continue;
      this.items.get(entityId)!.actor.stop();
      this.items.delete(entityId);
      await this.entities.remove(entityId, context);
    }
  }

  private async render(entityId: string, context: Context) {
    const h = this.items.get(entityId)!;
    const overrides = this.overrides(entityId);
    const current = this.entities.get(entityId);
    // a disabled entity has no state, as the original removes it; its machine lives on
    if (overrides?.disabled) {
      if (current) await this.entities.remove(entityId, context);
      return;
    }
    const rendered = this.domain.render(h.actor.getSnapshot(), h.item, this.env());
    const shown = { state: rendered.state, attributes: withOverrides(rendered.attributes, overrides) };
    // a restart with unchanged state writes nothing, so the log does not grow at each start
    if (current && current.state === shown.state && jsonEqual(current.attributes, shown.attributes)) return;
    await this.entities.write(entityId, { state: shown.state, attributes: shown.attributes, force_update: false }, context);
  }

  /** Sends a command to each target; rejects (writing nothing) if any target's machine refuses. */
  async command(entityIds: string[], command: EventObject, context: Context): Promise<void> {
    // machines never read a clock: the time of a command comes in with it
    const event = { time: this.clock.now(), ...command };
    const present = (id: string) => this.items.has(id) && !this.overrides(id)?.disabled;
    const targets = entityIds.filter((id) => domainOf(id) === this.domain.domain && present(id));
    const missing = entityIds.filter((id) => !present(id));
    if (missing.length) this.log(`Referenced entities ${missing.join(', ')} are missing or not currently available`);
    // every target's machine is asked first (a pure transition), so a refusal anywhere
    // leaves all of them as they were
    for (const id of targets) {
      const { actor } = this.items.get(id)!;
      const [, actions] = transition(this.domain.machine, actor.getSnapshot(), event);
      const refusal = actions.find((a: any) => a.type === 'xstate.emit' && a.params?.event?.type === 'rejected') as any;
      if (refusal) {
        const { message, code } = refusal.params.event;
        throw new ServiceError(code ?? 'service_validation_error', String(message));
      }
    }
    const before = targets.map((id) => this.items.get(id)!.actor.getPersistedSnapshot());
    for (const id of targets) this.items.get(id)!.actor.send(event);
    const written = await Promise.allSettled(targets.map((id) => this.render(id, context)));
    const refused = written.findIndex((w) => w.status === 'rejected');
    if (refused < 0) return;
    // the log refused a state: its machine goes back to what it was, so it matches the log
    written.forEach((w, i) => w.status === 'rejected' && this.rewind(targets[i], before[i]));
    throw (written[refused] as PromiseRejectedResult).reason;
  }

  async entryUpdated(entityId: string, oldEntityId: string | undefined, context: Context): Promise<void> {
    if (oldEntityId !== undefined && oldEntityId !== entityId && this.items.has(oldEntityId)) {
      // the original removes the entity and adds it again under its new id
      this.items.set(entityId, this.items.get(oldEntityId)!);
      this.items.delete(oldEntityId);
      if (this.entities.has(oldEntityId)) await this.entities.remove(oldEntityId, context);
    }
    if (this.items.has(entityId)) await this.render(entityId, context);
  }

  private rewind(entityId: string, snapshot: unknown): void {
    const h = this.items.get(entityId);
    if (!h) return;
    h.actor.stop();
    h.actor = createActor(this.domain.machine, { snapshot: snapshot as any, input: this.domain.input(h.item, this.entities.get(entityId), this.env()) });
    h.actor.start();
  }

  /** The domain's services as registry specs, plus `reload`. */
  specs(reload: (context: Context) => Promise<void>): ServiceSpec[] {
    const domain = this.domain.domain;
    const specs: ServiceSpec[] = this.domain.services.map((s) => ({
      domain,
      service: s.service,
      description: s.description,
      schema: s.schema,
      supportsResponse: 'none' as const,
      access: 'entity' as const,
      handler: async (call) => {
        const problem = s.refine?.(call.data);
        if (problem) throw new ServiceError('invalid_format', problem);
        return this.command(call.entityIds, s.toEvent(call.data, this.env()), call.context);
      },
    }));
    specs.push({
      domain,
      service: 'reload',
      description: { name: 'Reload', description: `Reloads helpers from the YAML-configuration.`, fields: {} },
      schema: Type.Object({}, { additionalProperties: false }),
      supportsResponse: 'none',
      access: 'admin',
      handler: async (call) => reload(call.context),
    });
    return specs;
  }
}
