import { evolveOnCommit, type Area } from '../area.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import { configEntryJson as entryJson } from '../config-entry-json.ts';
import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';

export const ENTRY_PREFIX = 'mqtt/config_entry/';

/** The broker an entry names (the original's config entry data). */
export interface MqttEntryData {
  broker: string;
  port: number;
  username?: string;
  password?: string;
  protocol?: string;
  discovery: boolean;
}

/** The MQTT config entry (one at most, as the original allows one). */
export interface MqttConfigEntry {
  entry_id: string;
  title: string;
  /** `hassio` (the supervisor's broker, through its discovery flow) or `import` (configuration.yaml's broker) */
  source: 'hassio' | 'import';
  data: MqttEntryData;
  created_at: number;
  modified_at: number;
}

/** The entry's records on `mqtt/config_entry/<entry_id>`. */
export type MqttEntryRecord = { type: 'config_entry_created'; data: MqttConfigEntry } | { type: 'config_entry_removed'; data: { entry_id: string } };
const entryRecords = typedRecords<MqttEntryRecord>(ENTRY_PREFIX, { config_entry_created: true, config_entry_removed: true });

/**
 * The MQTT config entry as records: `config_entry_created` on `mqtt/config_entry/<entry_id>`
 * holds the whole entry (its password is a secret, redacted when printed), so the connection a
 * finished flow made comes back after a restart. Devices of MQTT entities belong to it.
 */
export class MqttConfigEntries implements Area<RecordOf<MqttEntryRecord>> {
  readonly name = 'mqtt_config_entry';
  readonly snapshotVersion = 1;
  readonly streamPrefix = ENTRY_PREFIX;
  readonly latestSuffices = true;
  private current: MqttConfigEntry | undefined;

  constructor(private readonly deps: { log: EventLog; clock: Clock; ids: Ids }) {
    evolveOnCommit(deps.log, this);
  }

  owns(r: EventRecord): r is RecordOf<MqttEntryRecord> {
    return entryRecords.owns(r);
  }

  evolve(r: RecordOf<MqttEntryRecord>): void {
    if (r.type === 'config_entry_created') this.current = r.data;
    else if (this.current?.entry_id === r.data.entry_id) this.current = undefined;
  }

  snapshot(): unknown {
    return this.current ?? null;
  }

  restore(data: unknown): void {
    this.current = (data as MqttConfigEntry | null) ?? undefined;
  }

  entry(): MqttConfigEntry | undefined {
    return this.current;
  }

  /** Records a new entry; resolves to it once committed. */
  async create(title: string, source: MqttConfigEntry['source'], data: MqttEntryData, context: Context): Promise<MqttConfigEntry> {
    const now = this.deps.clock.now();
    const entry: MqttConfigEntry = { entry_id: this.deps.ids.ulid(now), title, source, data, created_at: now, modified_at: now };
    await this.deps.log.append([entryRecords.make(`${ENTRY_PREFIX}${entry.entry_id}`, { type: 'config_entry_created', data: entry }, context, now)]);
    return entry;
  }
}

/** The entry as the config entries API lists it. */
export function configEntryJson(e: MqttConfigEntry, state: 'loaded' | 'not_loaded' | 'setup_retry'): Record<string, unknown> {
  const { entry_id, title, source, created_at, modified_at } = e;
  return entryJson({ entry_id, domain: 'mqtt', title, source, created_at, modified_at, state, supports_options: true, supports_remove_device: true, supports_reconfigure: true });
}
