import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import { normalizeName } from './names.ts';
import { Table } from './table.ts';
import type { AreaEntry, DeviceEntry, EntityEntry, FloorEntry, LabelEntry, Pair } from './types.ts';

/** Every registry stream starts with this; none is ever pruned. */
export const REGISTRY_PREFIX = 'registry/';

/** The stream of one entry: `registry/area/<area_id>`, `registry/entity/<entity_id>`... */
export const registryStream = (kind: 'area' | 'floor' | 'label' | 'device' | 'entity', id: string) => `${REGISTRY_PREFIX}${kind}/${id}`;

/** The data of `entity_entry_removed`: the entry, and where it went when it was renamed. */
export interface EntityRemovedData {
  entity_id: string;
  entry: EntityEntry;
  new_entity_id: string | null;
}

/**
 * The registries' records. Created and updated records hold the whole entry as it is now, a
 * removal what was removed, so each stream's last record is its whole state. An entity's
 * records are `entity_entry_*` (an `entity_*` type would read as a state's).
 */
export type RegistryRecord =
  | { type: 'area_created' | 'area_updated'; data: AreaEntry }
  | { type: 'area_removed'; data: { area_id: string } }
  | { type: 'floor_created' | 'floor_updated'; data: FloorEntry }
  | { type: 'floor_removed'; data: { floor_id: string } }
  | { type: 'label_created' | 'label_updated'; data: LabelEntry }
  | { type: 'label_removed'; data: { label_id: string } }
  | { type: 'device_created' | 'device_updated' | 'device_removed'; data: DeviceEntry }
  | { type: 'entity_entry_created' | 'entity_entry_updated'; data: EntityEntry }
  | { type: 'entity_entry_removed'; data: EntityRemovedData };
export const registryRecords = typedRecords<RegistryRecord>(REGISTRY_PREFIX, {
  area_created: true,
  area_updated: true,
  area_removed: true,
  floor_created: true,
  floor_updated: true,
  floor_removed: true,
  label_created: true,
  label_updated: true,
  label_removed: true,
  device_created: true,
  device_updated: true,
  device_removed: true,
  entity_entry_created: true,
  entity_entry_updated: true,
  entity_entry_removed: true,
});

/** A removed entity's registry id, kept so the same (domain, platform, unique_id) gets it back. */
export interface DeletedEntity {
  id: string;
  entity_id: string;
}

export const pairKey = (p: Pair) => `${p[0]}\u0000${p[1]}`;
/** What an entity is known by to its platform. */
export const uniqueKey = (domain: string, platform: string, uniqueId: string) => `${domain}\u0000${platform}\u0000${uniqueId}`;
export const entityKey = (e: EntityEntry) => uniqueKey(e.entity_id.slice(0, e.entity_id.indexOf('.')), e.platform, e.unique_id);

const one = (v: string | null) => (v === null ? [] : [v]);

/** The five registries' entries, with the indexes their lookups need. */
export class RegistryState {
  readonly areas = new Table<AreaEntry>((a) => a.area_id, { name: (a) => [normalizeName(a.name)], floor: (a) => one(a.floor_id), label: (a) => a.labels });
  readonly floors = new Table<FloorEntry>((f) => f.floor_id, { name: (f) => [normalizeName(f.name)] });
  readonly labels = new Table<LabelEntry>((l) => l.label_id, { name: (l) => [normalizeName(l.name)] });
  readonly devices = new Table<DeviceEntry>((d) => d.id, {
    area: (d) => one(d.area_id),
    label: (d) => d.labels,
    identifier: (d) => d.identifiers.map(pairKey),
    connection: (d) => d.connections.map(pairKey),
    via: (d) => one(d.via_device_id),
  });
  readonly entities = new Table<EntityEntry>((e) => e.entity_id, {
    id: (e) => [e.id],
    unique: (e) => [entityKey(e)],
    device: (e) => one(e.device_id),
    area: (e) => one(e.area_id),
    label: (e) => e.labels,
  });
  /** removed devices by id: a platform that brings one back gets its id, area, labels and name */
  readonly deletedDevices = new Map<string, DeviceEntry>();
  /** removed entities by (domain, platform, unique_id) */
  readonly deletedEntities = new Map<string, DeletedEntity>();

  /** Applies one committed registry record. */
  evolve(r: RecordOf<RegistryRecord>): void {
    switch (r.type) {
      case 'area_created':
      case 'area_updated':
        return this.areas.put(r.data);
      case 'area_removed':
        this.areas.delete(r.data.area_id);
        return;
      case 'floor_created':
      case 'floor_updated':
        return this.floors.put(r.data);
      case 'floor_removed':
        this.floors.delete(r.data.floor_id);
        return;
      case 'label_created':
      case 'label_updated':
        return this.labels.put(r.data);
      case 'label_removed':
        this.labels.delete(r.data.label_id);
        return;
      case 'device_created':
      case 'device_updated':
        this.deletedDevices.delete(r.data.id);
        return this.devices.put(r.data);
      case 'device_removed':
        this.devices.delete(r.data.id);
        this.deletedDevices.set(r.data.id, r.data);
        return;
      case 'entity_entry_created':
      case 'entity_entry_updated':
        this.deletedEntities.delete(entityKey(r.data));
        return this.entities.put(r.data);
      case 'entity_entry_removed': {
        const { entity_id, entry, new_entity_id } = r.data;
        // a stream's last record may be a removal that a later entry under that id outlived
        if (this.entities.get(entity_id)?.id === entry.id) this.entities.delete(entity_id);
        if (new_entity_id === null) this.deletedEntities.set(entityKey(entry), { id: entry.id, entity_id });
        return;
      }
    }
  }

  /** All entries as JSON-able data. */
  snapshot(): RegistrySnapshot {
    return {
      areas: [...this.areas.values()],
      floors: [...this.floors.values()],
      labels: [...this.labels.values()],
      devices: [...this.devices.values()],
      entities: [...this.entities.values()],
      deletedDevices: [...this.deletedDevices.values()],
      deletedEntities: [...this.deletedEntities],
    };
  }

  restore(s: RegistrySnapshot): void {
    for (const t of [this.areas, this.floors, this.labels, this.devices, this.entities] as Table<unknown>[]) t.clear();
    this.deletedDevices.clear();
    this.deletedEntities.clear();
    for (const a of s.areas) this.areas.put(a);
    for (const f of s.floors) this.floors.put(f);
    for (const l of s.labels) this.labels.put(l);
    for (const d of s.devices) this.devices.put(d);
    for (const e of s.entities) this.entities.put(e);
    for (const d of s.deletedDevices) this.deletedDevices.set(d.id, d);
    for (const [k, v] of s.deletedEntities) this.deletedEntities.set(k, v);
  }
}

export interface RegistrySnapshot {
  areas: AreaEntry[];
  floors: FloorEntry[];
  labels: LabelEntry[];
  devices: DeviceEntry[];
  entities: EntityEntry[];
  deletedDevices: DeviceEntry[];
  deletedEntities: [string, DeletedEntity][];
}
