import { evolveOnCommit, type Area } from '../../area.ts';
import type { Clock } from '../../clock.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';

export const DISCOVERY_PREFIX = 'mqtt/discovery/';

/** A discovered component as recorded: where its config came from and the config (abbreviations spelled out). */
export interface DiscoveredConfig {
  component: string;
  discovery_id: string;
  topic: string;
  config: Record<string, unknown>;
  from_device: boolean;
}

/** A component's discovery records on `mqtt/discovery/<component>/<discovery id>`. */
export type DiscoveryRecord =
  | { type: 'mqtt_discovery_updated'; data: DiscoveredConfig }
  | { type: 'mqtt_discovery_removed'; data: Pick<DiscoveredConfig, 'component' | 'discovery_id' | 'topic'> };
const discoveryRecords = typedRecords<DiscoveryRecord>(DISCOVERY_PREFIX, { mqtt_discovery_updated: true, mqtt_discovery_removed: true });

const keyOf = (component: string, discoveryId: string) => `${component} ${discoveryId}`;
const streamOf = (d: Pick<DiscoveredConfig, 'component' | 'discovery_id'>) => `${DISCOVERY_PREFIX}${d.component}/${d.discovery_id}`;

/**
 * The discovery configs the entities were made from, one stream per component
 * (`mqtt/discovery/<component>/<discovery id>`): `mqtt_discovery_updated` holds the whole config,
 * `mqtt_discovery_removed` ends it. Restored at start, so the entities are back (unavailable until
 * the broker answers) before the broker sends its retained configs again; an unchanged config
 * sent again writes nothing.
 */
export class DiscoveryRecords implements Area<RecordOf<DiscoveryRecord>> {
  readonly name = 'mqtt_discovery';
  readonly snapshotVersion = 1;
  readonly streamPrefix = DISCOVERY_PREFIX;
  readonly latestSuffices = true;
  private readonly configs = new Map<string, DiscoveredConfig>();

  constructor(private readonly deps: { log: EventLog; clock: Clock }) {
    evolveOnCommit(deps.log, this);
  }

  owns(r: EventRecord): r is RecordOf<DiscoveryRecord> {
    return discoveryRecords.owns(r);
  }

  evolve(r: RecordOf<DiscoveryRecord>): void {
    if (r.type === 'mqtt_discovery_updated') this.configs.set(keyOf(r.data.component, r.data.discovery_id), r.data);
    else this.configs.delete(keyOf(r.data.component, r.data.discovery_id));
  }

  snapshot(): unknown {
    return [...this.configs.values()];
  }

  restore(data: unknown): void {
    this.configs.clear();
    for (const d of data as DiscoveredConfig[]) this.configs.set(keyOf(d.component, d.discovery_id), d);
  }

  get(component: string, discoveryId: string): DiscoveredConfig | undefined {
    return this.configs.get(keyOf(component, discoveryId));
  }

  all(): DiscoveredConfig[] {
    return [...this.configs.values()];
  }

  /** Records a component's config (resolves once committed). */
  async updated(d: DiscoveredConfig, context: Context): Promise<void> {
    await this.record({ type: 'mqtt_discovery_updated', data: d }, context);
  }

  /** Records a component's removal. */
  async removed(d: DiscoveredConfig, context: Context): Promise<void> {
    await this.record({ type: 'mqtt_discovery_removed', data: { component: d.component, discovery_id: d.discovery_id, topic: d.topic } }, context);
  }

  private async record(kind: DiscoveryRecord, context: Context): Promise<void> {
    await this.deps.log.append([discoveryRecords.make(streamOf(kind.data), kind, context, this.deps.clock.now())]);
  }
}
