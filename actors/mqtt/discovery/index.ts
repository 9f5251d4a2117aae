import { jsonEqual } from '../../entities/state.ts';
import type { Logger } from '../../logging/logs.ts';
import type { Context } from '../../../store/types.ts';
import type { ContextSource } from '../../../store/context-token.ts';
import type { DebugInfo } from '../debug-info.ts';
import { readEntityConfig } from '../entity/config.ts';
import type { Broker } from '../entity/host.ts';
import type { MqttEntities } from '../entity/manager.ts';
import { MQTT_PLATFORMS } from '../platforms/index.ts';
import { Invalid } from '../schema.ts';
import { readDiscoveryMessage, type ComponentDiscovery } from './payload.ts';
import type { DiscoveredConfig, DiscoveryRecords } from './records.ts';

export interface DiscoveryDeps {
  prefix: string;
  records: DiscoveryRecords;
  entities: MqttEntities;
  log: Logger;
  debug: DebugInfo;
  newContext(source?: ContextSource): Context;
}

const logged = (config: Record<string, unknown>) => JSON.stringify(config);

/**
 * MQTT discovery: the configs on `<prefix>/<component>/[<node_id>/]<object_id>/config` and
 * `<prefix>/device/<id>/config` become entities (a config per component, recorded), an empty
 * payload removes them, a changed one updates them in place, an unchanged one changes nothing.
 * A config that cannot be used is logged with its topic and the fault, never more.
 */
export class Discovery {
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: DiscoveryDeps) {}

  /** Makes the entities of the recorded configs (before the broker sends them again). */
  async restore(): Promise<void> {
    for (const d of this.deps.records.all()) {
      const platform = MQTT_PLATFORMS.get(d.component);
      if (!platform) continue;
      try {
        const config = readEntityConfig(platform, d.config, 'remove');
        await this.deps.entities.apply(this.keyOf(d.component, d.discovery_id), platform, config, this.deps.newContext({ via: 'mqtt', topic: d.topic }), d.topic);
      } catch (err) {
        this.deps.log.error(`Recorded MQTT discovery config of ${d.component} ${d.discovery_id} not restored: ${(err as Error).message}`);
      }
    }
  }

  /** Subscribes to the discovery topics. */
  start(broker: Broker): () => void {
    const { prefix } = this.deps;
    const unsubscribe = [`${prefix}/+/+/config`, `${prefix}/+/+/+/config`].map((filter) =>
      broker.subscribe(filter, 0, (m) => {
        const text = m.payload.toString('utf8');
        this.queue = this.queue.then(() => this.message(m.topic, text)).catch((err) => this.deps.log.error(`MQTT discovery message on ${m.topic} failed: ${(err as Error).message}`));
      }),
    );
    return () => unsubscribe.forEach((u) => u());
  }

  /** Resolves once every message received so far is handled. */
  settled(): Promise<unknown> {
    return this.queue;
  }

  private keyOf(component: string, discoveryId: string): string {
    return `${component} ${discoveryId}`;
  }

  private async message(topic: string, payload: string): Promise<void> {
    const read = readDiscoveryMessage(this.deps.prefix, topic, payload);
    if (read.kind === 'ignored') return;
    if (read.kind === 'invalid') return this.deps.log.warning(read.warning);
    if (read.kind === 'device_removed') {
      const gone = this.deps.records.all().filter((d) => d.from_device && d.topic === read.topic);
      if (gone.length === 0) return this.deps.log.warning(`No device components to cleanup for ${read.deviceNodeId}`);
      for (const d of gone) await this.component({ component: d.component, discoveryId: d.discovery_id, topic: d.topic, config: {}, fromDevice: true });
      return;
    }
    for (const item of read.items) await this.component(item);
  }

  private async component(item: ComponentDiscovery): Promise<void> {
    const { records, entities, log } = this.deps;
    const recorded = records.get(item.component, item.discoveryId);
    const context = this.deps.newContext({ via: 'mqtt', topic: item.topic });
    const key = this.keyOf(item.component, item.discoveryId);
    if (recorded && recorded.topic !== item.topic) {
      log.warning(
        `Received a conflicting MQTT discovery message for ${item.component} '${item.discoveryId}' which was previously discovered on topic ${recorded.topic}; ` +
          `the conflicting discovery message was received on topic ${item.topic}`,
      );
      return;
    }
    const platform = MQTT_PLATFORMS.get(item.component);
    if (Object.keys(item.config).length === 0) {
      if (!recorded) return;
      if (platform) await entities.apply(key, platform, undefined, context);
      await records.removed(recorded, context);
      return;
    }
    if (!platform) return log.warning(`MQTT ${item.component} is not supported by Hearth yet: ${item.component} ${item.discoveryId} from ${item.topic} is left out`);
    if (recorded && jsonEqual(recorded.config, item.config)) return;
    let config;
    try {
      config = readEntityConfig(platform, item.config, 'remove');
    } catch (err) {
      if (!(err instanceof Invalid)) throw err;
      log.error(`Error '${err.message}' when processing MQTT discovery message topic: '${item.topic}', message: '${logged(item.config)}'`);
      return;
    }
    const entry: DiscoveredConfig = { component: item.component, discovery_id: item.discoveryId, topic: item.topic, config: item.config, from_device: item.fromDevice };
    log.info(`${recorded ? 'Updating' : 'Found new'} component: ${item.component} ${item.discoveryId}`);
    // the record and the entity's registry entries go to the log together (one commit, not one after the other)
    await Promise.all([records.updated(entry, context), entities.apply(key, platform, config, context, item.topic)]);
    const entityId = entities.entityIdOf(key);
    if (entityId) this.deps.debug.discovered(entityId, item.topic, item.config);
  }
}
