import { join } from 'node:path';
import type { Context, EventLog } from '../../store/types.ts';
import { withSource, type ContextSource } from '../../store/context-token.ts';
import type { Area } from '../area.ts';
import type { Clock, Ids } from '../clock.ts';
import type { EntityActors } from '../entities/registry.ts';
import type { EntryFollower } from '../entities/overrides.ts';
import type { Logger } from '../logging/logs.ts';
import type { Registries } from '../registries/index.ts';
import type { ServiceRegistry } from '../services/registry.ts';
import type { Templates } from '../templates/index.ts';
import type { FlowHandler } from '../supervisor-client/discovery-flows.ts';
import { MqttClient } from './client.ts';
import { readMqttSection, settingsFor, type MqttSettings, type MqttYaml } from './config.ts';
import { DebugInfo } from './debug-info.ts';
import { Discovery } from './discovery/index.ts';
import { DiscoveryRecords } from './discovery/records.ts';
import { MqttEntities } from './entity/manager.ts';
import { MessageBatch } from './entity/batch.ts';
import { MqttTemplates } from './entity/templates.ts';
import { MqttConfigEntries, configEntryJson, type MqttConfigEntry } from './entry.ts';
import { mqttHassioFlow } from './hassio-flow.ts';
import { MQTT_PLATFORMS } from './platforms/index.ts';
import { mqttServices } from './services.ts';
import type { RawMessage } from './subscriptions.ts';
import { applyYamlEntities } from './yaml.ts';

/** Hearth's own broker (`mqtt: broker: embedded`), which actors/mqtt/embedded-broker.ts provides. */
export type StartEmbeddedBroker = (options: { port: number; host: string; username?: string; password?: string }) => Promise<{ port: number; close(): Promise<void> | void }>;

/** What MQTT's records need, before the instance restores its areas. */
export interface MqttBase {
  log: EventLog;
  clock: Clock;
  ids: Ids;
}

/** What MQTT needs to run, once the instance is restored. */
export interface MqttDeps extends MqttBase {
  entities: EntityActors;
  registries: Registries;
  services: ServiceRegistry;
  templates: Templates;
  logger: Logger;
  /** the data directory (configuration.yaml's, where mqtt.dump writes mqtt_dump.txt) */
  configDir: string;
  /** the `mqtt:` section as configuration.yaml has it now (for mqtt.reload) */
  readSection(): Promise<unknown>;
  fireEvent(eventType: string, data: Record<string, unknown>, context: Context): Promise<unknown>;
  /** what `broker: embedded` starts Hearth's own broker with */
  embeddedBroker: StartEmbeddedBroker;
}

/** What runs while MQTT is set up: the connection and everything made on it. */
interface Running {
  settings: MqttSettings;
  client: MqttClient;
  entities: MqttEntities;
  discovery?: Discovery;
  stopDiscovery?: () => void;
  /** stops following the entity registry's removals */
  stopFollowing?: () => void;
  embedded?: { close(): Promise<void> | void };
}

/**
 * The MQTT integration: a connection configured in configuration.yaml or handed over by the
 * supervisor (its discovery flow makes the config entry, kept as records), discovery, the YAML
 * entities, the platforms' entities, and the mqtt services. Until one broker is known nothing
 * connects; the flow's entry connects at once, and again at every start.
 */
export class Mqtt {
  readonly records: DiscoveryRecords;
  readonly entries: MqttConfigEntries;
  readonly debug = new DebugInfo();
  private running: Running | undefined;
  private yaml: MqttYaml = { discovery: true, discoveryPrefix: 'homeassistant', items: [] };
  private readonly yamlKeys = new Set<string>();
  private deps!: MqttDeps;

  constructor(private readonly base: MqttBase) {
    this.records = new DiscoveryRecords({ log: base.log, clock: base.clock });
    this.entries = new MqttConfigEntries(base);
  }

  /** The areas to restore before start: recorded discovery configs and the config entry. */
  areas(): Area[] {
    return [this.records, this.entries];
  }

  /** The supervisor's discovery flow of the `mqtt` service. */
  hassioFlow(): FlowHandler {
    return mqttHassioFlow({
      entries: this.entries,
      created: async (entry, context) => {
        if (this.running) return;
        await this.activate(settingsFor({ host: entry.data.broker, port: entry.data.port, username: entry.data.username, password: entry.data.password, protocol: entry.data.protocol }, this.yaml.discovery, this.yaml.discoveryPrefix), context);
      },
    });
  }

  private newContext = (source?: ContextSource): Context => {
    const context = { id: this.base.ids.ulid(this.base.clock.now()), parent_id: null, user_id: null };
    return withSource(context, source);
  };

  /** Reads the section and connects to the broker it names, else to the config entry's. */
  async start(section: unknown, deps: MqttDeps): Promise<void> {
    this.deps = deps;
    const { logger } = deps;
    try {
      this.yaml = readMqttSection(section, new Set(MQTT_PLATFORMS.keys()));
    } catch (err) {
      logger.error(`Invalid config for 'mqtt': ${(err as Error).message}`);
      return;
    }
    const entry = this.entries.entry();
    let settings = this.yaml.settings;
    if (!settings && entry) settings = settingsFor({ host: entry.data.broker, port: entry.data.port, username: entry.data.username, password: entry.data.password, protocol: entry.data.protocol }, entry.data.discovery && this.yaml.discovery, this.yaml.discoveryPrefix);
    if (!settings) {
      if (section !== undefined) logger.warning('MQTT is not set up: configuration.yaml names no broker and the supervisor has handed over none');
      return;
    }
    await this.activate(settings, this.newContext());
  }

  private async activate(given: MqttSettings, context: Context): Promise<void> {
    const { deps } = this;
    let settings = given;
    let embedded: Running['embedded'];
    if (settings.broker === 'embedded') {
      const started = await deps.embeddedBroker({ port: settings.port, host: settings.host ?? '127.0.0.1', username: settings.username, password: settings.password });
      embedded = started;
      // reach it where it listens; a wildcard address is reached on this machine
      const reach = settings.host && settings.host !== '0.0.0.0' && settings.host !== '::' ? settings.host : '127.0.0.1';
      settings = { ...settings, broker: reach, port: started.port };
    }
    const entry = this.entries.entry() ?? (await this.importEntry(settings, context));
    const entities: { current?: MqttEntities } = {};
    const batch = new MessageBatch();
    const client = new MqttClient({
      settings,
      log: deps.logger,
      afterMessage: () => batch.flush(),
      onConnected: () => void entities.current?.refresh(),
      onDisconnected: () => void entities.current?.refresh(),
    });
    const host = {
      entities: deps.entities,
      registries: deps.registries,
      templates: new MqttTemplates(deps.templates, deps.logger.warning),
      broker: client,
      clock: deps.clock,
      log: deps.logger,
      debug: this.debug,
      batch,
      configEntryId: entry.entry_id,
      newContext: this.newContext,
    };
    const manager = (entities.current = new MqttEntities(host, deps.services));
    deps.registries.registerConfigEntry(entry.entry_id, { domain: 'mqtt', removeDevice: (device) => this.deviceRemoved(device.id) });
    const running: Running = { settings, client, entities: manager, embedded };
    this.running = running;
    const specs = mqttServices({
      broker: client,
      templates: deps.templates,
      configDir: deps.configDir,
      reload: (ctx) => this.reload(ctx),
      fireEvent: deps.fireEvent,
      log: deps.logger.warning,
    });
    await Promise.all(specs.map((spec) => deps.services.register(spec, context)));
    if (settings.discovery) {
      running.discovery = new Discovery({ prefix: settings.discovery_prefix, records: this.records, entities: manager, log: deps.logger, debug: this.debug, newContext: this.newContext });
      // the recorded configs first: the entities are there before the broker sends them again
      await running.discovery.restore();
      running.stopDiscovery = running.discovery.start(client);
    }
    await applyYamlEntities(this.yaml.items, manager, this.yamlKeys, deps.logger, context, join(deps.configDir, 'configuration.yaml'));
    running.stopFollowing = this.followRemovals(running);
    client.start();
  }

  /**
   * An entry the user removes from the entity registry: the entity goes, and its discovery
   * topic is cleared on the broker (an empty retained message) so it is not discovered again at
   * the next start, as the original does.
   */
  private followRemovals(running: Running): () => void {
    return this.base.log.onCommit((records) => {
      for (const r of records) {
        if (r.stream !== 'bus' || r.type !== 'entity_registry_updated' || r.data?.action !== 'remove') continue;
        void running.entities
          .registryRemoved(r.data.entity_id, this.newContext())
          .then(async (topic) => {
            if (topic && this.running === running) await running.client.publish(topic, '', { qos: 0, retain: true });
          })
          .catch((err) => this.deps.logger.warning(`${r.data.entity_id}: its discovery topic was not cleared: ${(err as Error).message}`));
      }
    });
  }

  /** configuration.yaml's broker as the config entry devices belong to (the original imported it so). */
  private importEntry(settings: MqttSettings, context: Context): Promise<MqttConfigEntry> {
    return this.entries.create(settings.broker, 'import', { broker: settings.broker, port: settings.port, username: settings.username, password: settings.password, protocol: settings.protocol, discovery: settings.discovery }, context);
  }

  /** mqtt.reload: the YAML entities set up anew from configuration.yaml. */
  private async reload(context: Context): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.yaml = readMqttSection(await this.deps.readSection(), new Set(MQTT_PLATFORMS.keys()));
    await applyYamlEntities(this.yaml.items, running.entities, this.yamlKeys, this.deps.logger, context, join(this.deps.configDir, 'configuration.yaml'));
  }

  /**
   * The user removes a device: its discovery topics are cleared on the broker (an empty retained
   * message), so its entities go and do not come back at the next start, as in the original.
   */
  private async deviceRemoved(deviceId: string): Promise<boolean> {
    const running = this.running;
    if (!running) return true;
    for (const topic of running.entities.discoveryTopicsOfDevice(deviceId)) {
      await running.client.publish(topic, '', { qos: 0, retain: true }).catch(() => undefined);
    }
    return true;
  }

  /** `mqtt` and the domains of its entities, for the components list. */
  components(): string[] {
    return this.running ? ['mqtt', ...this.running.entities.domains()] : [];
  }

  /** The owner of MQTT entities that follows their registry entries. */
  follower(): EntryFollower {
    return { entryUpdated: async (entityId, oldEntityId, context) => this.running?.entities.entryUpdated(entityId, oldEntityId, context) };
  }

  /** Whether MQTT is set up (a broker is known). */
  get active(): boolean {
    return this.running !== undefined;
  }

  /** Listens to a topic filter for a client (`mqtt/subscribe`); undefined when MQTT is not set up. */
  subscribe(topic: string, qos: 0 | 1 | 2, deliver: (message: RawMessage) => void): (() => void) | undefined {
    return this.running?.client.subscribe(topic, qos, deliver);
  }

  /** The debug info of a device's entities (`mqtt/device/debug_info`), times as ISO text by `iso`. */
  deviceDebugInfo(deviceId: string, iso: (ms: number) => string): { entities: unknown[]; triggers: unknown[] } {
    const ids = this.running?.entities.entitiesOfDevice(deviceId) ?? [];
    return { entities: ids.map((id) => this.debug.entity(id, iso)), triggers: [] };
  }

  /** The config entry as the config entries API lists it (none, or one). */
  configEntryJson(): Array<Record<string, unknown>> {
    const entry = this.entries.entry();
    return entry ? [configEntryJson(entry, this.running ? 'loaded' : 'not_loaded')] : [];
  }

  /** Resolves once every discovery message received so far is handled (tests). */
  settled(): Promise<unknown> {
    return this.running?.discovery?.settled() ?? Promise.resolve();
  }

  /** Stops the entities, then the connection (publishing the will message), then an embedded broker. */
  async stop(): Promise<void> {
    const running = this.running;
    if (!running) return;
    this.running = undefined;
    running.stopDiscovery?.();
    running.stopFollowing?.();
    await running.entities.stop();
    await running.client.stop();
    await running.embedded?.close();
  }
}
