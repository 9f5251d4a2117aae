import type { Context } from '../../../store/types.ts';
import type { EntryFollower } from '../../entities/overrides.ts';
import { jsonEqual } from '../../entities/state.ts';
import type { ServiceRegistry } from '../../services/registry.ts';
import { ServiceError, type ServiceSpec } from '../../services/types.ts';
import type { MqttEntityConfig, MqttPlatform } from '../platforms/types.ts';
import type { MqttEntityHost } from './host.ts';
import { LiveEntity } from './live.ts';
import { place, unplace } from './registration.ts';

/** An entity the manager keeps: where its config came from, and the entity while it runs. */
interface Kept {
  key: string;
  platform: MqttPlatform;
  config: MqttEntityConfig;
  /** the discovery topic of a discovered entity */
  discoveryTopic?: string;
  live: LiveEntity;
  /** its registry entry is disabled: placed, but not running */
  disabled: boolean;
}

/**
 * Every MQTT entity, discovered or configured in YAML, by a key of its source (`sensor kitchen`
 * for a discovery id, `yaml:sensor:0` for a YAML item). A config for a key adds the entity, a
 * changed config updates it in place (same entity id, registry entries brought up to date, the
 * value it shows kept), none removes it (with its registry entry and, when it was the device's
 * last, the device). Calls of the domains' services reach the entities they target.
 */
export class MqttEntities implements EntryFollower {
  private readonly byKey = new Map<string, Kept>();
  private readonly byEntityId = new Map<string, Kept>();
  private readonly registeredDomains = new Set<string>();
  /** how many entities of each domain there are (the components list asks often) */
  private readonly domainCounts = new Map<string, number>();
  /** the key of each platform's unique_id (a duplicate is refused) */
  private readonly byUniqueId = new Map<MqttPlatform, Map<string, string>>();
  /** changes run one after the other */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly host: MqttEntityHost,
    private readonly services: ServiceRegistry,
  ) {}

  private serial<T>(work: () => Promise<T>): Promise<T> {
    const run = this.queue.then(work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  /** The domains with MQTT entities (for the components list). */
  domains(): string[] {
    return [...this.domainCounts.keys()];
  }

  private keep(kept: Kept): void {
    this.byKey.set(kept.key, kept);
    const { domain } = kept.platform;
    this.domainCounts.set(domain, (this.domainCounts.get(domain) ?? 0) + 1);
    if (kept.config.unique_id === undefined) return;
    let ids = this.byUniqueId.get(kept.platform);
    if (!ids) this.byUniqueId.set(kept.platform, (ids = new Map()));
    ids.set(kept.config.unique_id, kept.key);
  }

  private drop(kept: Kept): void {
    if (this.byKey.get(kept.key) !== kept) return;
    this.byKey.delete(kept.key);
    const { domain } = kept.platform;
    const n = (this.domainCounts.get(domain) ?? 0) - 1;
    if (n > 0) this.domainCounts.set(domain, n);
    else this.domainCounts.delete(domain);
    const ids = this.byUniqueId.get(kept.platform);
    if (kept.config.unique_id !== undefined && ids?.get(kept.config.unique_id) === kept.key) ids.delete(kept.config.unique_id);
  }

  has(key: string): boolean {
    return this.byKey.has(key);
  }

  /** The entity id of a key's entity. */
  entityIdOf(key: string): string | undefined {
    return this.byKey.get(key)?.live.entityId;
  }

  /** The live entity of an entity id. */
  entity(entityId: string): LiveEntity | undefined {
    return this.byEntityId.get(entityId)?.live;
  }

  /** The entity ids on a device. */
  entitiesOfDevice(deviceId: string): string[] {
    return [...this.byKey.values()].filter((k) => k.live.deviceId === deviceId).map((k) => k.live.entityId);
  }

  /** The discovery topics of the entities on a device (cleared when the user removes the device). */
  discoveryTopicsOfDevice(deviceId: string): string[] {
    return [...this.byKey.values()].filter((k) => k.live.deviceId === deviceId && k.discoveryTopic).map((k) => k.discoveryTopic!);
  }

  /** Sets (or, with config undefined, removes) the entity of a key. */
  apply(key: string, platform: MqttPlatform, config: MqttEntityConfig | undefined, context: Context, discoveryTopic?: string): Promise<void> {
    return this.serial(async () => {
      const kept = this.byKey.get(key);
      if (config === undefined) return kept && this.remove(kept, context);
      if (kept && kept.platform === platform && jsonEqual(kept.config, config)) return;
      const holder = config.unique_id === undefined ? undefined : this.byUniqueId.get(platform)?.get(config.unique_id);
      const duplicate = holder !== undefined && holder !== key;
      if (duplicate) {
        this.host.log.error(`Platform mqtt does not generate unique IDs. ID ${config.unique_id} already exists - ignoring ${platform.domain} ${key}`);
        return;
      }
      const carried = kept?.live.context();
      if (kept) await this.retire(kept);
      // an entity updated in place keeps its id: its own is not taken
      const own = kept?.live.entityId;
      const taken = (id: string) => id !== own && (this.byEntityId.has(id) || this.host.entities.has(id));
      const at = await place(this.host, platform, config, context, taken);
      const live = new LiveEntity(this.host, platform, config, at.entityId, at.name, at.deviceId);
      const next: Kept = { key, platform, config, discoveryTopic, live, disabled: at.disabled };
      this.keep(next);
      this.byEntityId.set(at.entityId, next);
      await this.ensureServices(platform, context);
      if (kept && kept.live.entityId !== at.entityId && this.host.entities.has(kept.live.entityId)) await this.host.entities.remove(kept.live.entityId, context);
      if (at.disabled) {
        if (this.host.entities.has(at.entityId)) await this.host.entities.remove(at.entityId, context);
        return;
      }
      live.start(carried);
      await live.schedule(context, false);
    });
  }

  private async retire(kept: Kept): Promise<void> {
    await kept.live.stop();
    this.drop(kept);
    if (this.byEntityId.get(kept.live.entityId) === kept) this.byEntityId.delete(kept.live.entityId);
  }

  private async remove(kept: Kept, context: Context): Promise<void> {
    await this.retire(kept);
    const { entityId, deviceId } = kept.live;
    this.host.log.info(`Removing component: ${entityId}`);
    this.host.debug.forget(entityId);
    try {
      await unplace(this.host, entityId, deviceId, context);
    } finally {
      // the state goes even when the registry could not be brought along
      if (this.host.entities.has(entityId)) await this.host.entities.remove(entityId, context);
    }
  }

  /**
   * The user removed an entity's registry entry: the entity goes (its state too) and resolves to
   * its discovery topic, which the caller clears on the broker so it is not discovered again.
   */
  registryRemoved(entityId: string, context: Context): Promise<string | undefined> {
    return this.serial(async () => {
      const kept = this.byEntityId.get(entityId);
      if (!kept) return undefined;
      await this.retire(kept);
      this.host.debug.forget(entityId);
      if (this.host.entities.has(entityId)) await this.host.entities.remove(entityId, context);
      return kept.discoveryTopic;
    });
  }

  /** Writes every entity anew where what it shows changed (the connection came or went). */
  async refresh(): Promise<void> {
    const context = this.host.newContext();
    await Promise.all([...this.byKey.values()].filter((k) => !k.disabled).map((k) => k.live.schedule(context, false)));
  }

  /** Stops every entity; nothing is written afterwards. */
  async stop(): Promise<void> {
    await this.queue;
    await Promise.all([...this.byKey.values()].map((k) => k.live.stop()));
  }

  /** The domain's services, registered the first time it has an entity (shared with other platforms of the domain). */
  private async ensureServices(platform: MqttPlatform, context: Context): Promise<void> {
    if (this.registeredDomains.has(platform.domain)) return;
    this.registeredDomains.add(platform.domain);
    const owns = (entityId: string) => this.byEntityId.get(entityId)?.platform === platform;
    const specs: ServiceSpec[] = platform.services.map((s) => ({
      domain: platform.domain,
      service: s.service,
      description: s.description,
      schema: s.schema,
      supportsResponse: 'none',
      access: 'entity',
      owns,
      handler: async (call) => {
        const problem = s.refine?.(call.data);
        if (problem) throw new ServiceError('invalid_format', problem);
        const event = { ...s.toEvent(call.data), time: this.host.clock.now() };
        const targets = call.entityIds.map((id) => this.byEntityId.get(id)?.live).filter((live): live is LiveEntity => live !== undefined);
        // the original's required_features: every target must support one of the masks
        for (const live of targets) {
          // as the original, an unavailable entity is not asked what it supports
          if (!s.requiredFeatures || !live.available() || live.supports(s.requiredFeatures)) continue;
          const { entityId } = live;
          throw new ServiceError('service_validation_error', `Entity ${entityId} does not support action ${platform.domain}.${s.service}.`, {
            domain: 'homeassistant',
            key: 'service_not_supported',
            placeholders: { entity_id: entityId, domain: platform.domain, service: s.service },
          });
        }
        await Promise.all(targets.map((live) => live.command(event, call.context)));
      },
    }));
    await Promise.all(specs.map((spec) => this.services.register(spec, context)));
  }

  /** The registry entry of an entity changed: renamed (moves), disabled (stops), enabled (starts), or shown anew. */
  entryUpdated(entityId: string, oldEntityId: string | undefined, context: Context): Promise<void> {
    return this.serial(async () => {
      const kept = this.byEntityId.get(oldEntityId ?? entityId) ?? this.byEntityId.get(entityId);
      if (!kept) return;
      if (oldEntityId !== undefined && oldEntityId !== entityId && kept.live.entityId === oldEntityId) {
        const carried = kept.live.context();
        await kept.live.stop();
        if (this.host.entities.has(oldEntityId)) await this.host.entities.remove(oldEntityId, context);
        this.byEntityId.delete(oldEntityId);
        this.host.debug.forget(oldEntityId, entityId);
        kept.live = new LiveEntity(this.host, kept.platform, kept.config, entityId, kept.live.name, kept.live.deviceId);
        this.byEntityId.set(entityId, kept);
        if (!kept.disabled) kept.live.start(carried);
      }
      const disabled = this.host.registries.getEntity(entityId)?.disabled_by != null;
      if (disabled && !kept.disabled) {
        kept.disabled = true;
        await kept.live.stop();
        if (this.host.entities.has(entityId)) await this.host.entities.remove(entityId, context);
        return;
      }
      if (!disabled && kept.disabled) {
        kept.disabled = false;
        kept.live = new LiveEntity(this.host, kept.platform, kept.config, entityId, kept.live.name, kept.live.deviceId);
        kept.live.start();
      }
      if (!kept.disabled) await kept.live.schedule(context, false);
    });
  }
}
