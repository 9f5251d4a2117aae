import type { EventRecord } from '../../store/types.ts';
import { normalizeName } from './names.ts';
import { Table } from './table.ts';
import type { AreaEntry, DeviceEntry, EntityEntry, FloorEntry, LabelEntry, Pair } from './types.ts';

/** Every registry stream starts with this; none is ever pruned. */
export const REGISTRY_PREFIX = 'registry/';

/** The stream of one entry: `registry/area/<area_id>`, `registry/entity/<entity_id>`... */
export const registryStream = (kind: 'area' | 'floor' | 'label' | 'device' | 'entity', id: string) => `${REGISTRY_PREFIX}${kind}/${id}`;

/**
 * The record types. Created and updated records hold the whole entry as it is now, a removal
 * what was removed, so each stream's last record is its whole state. An entity's records are
 * `entity_entry_*` (an `entity_*` type would read as a state's).
 */
export const RECORD = {
  areaCreated: 'area_created',
  areaUpdated: 'area_updated',
  areaRemoved: 'area_removed',
  floorCreated: 'floor_created',
  floorUpdated: 'floor_updated',
  floorRemoved: 'floor_removed',
  labelCreated: 'label_created',
  labelUpdated: 'label_updated',
  labelRemoved: 'label_removed',
  deviceCreated: 'device_created',
  deviceUpdated: 'device_updated',
  deviceRemoved: 'device_removed',
  entityCreated: 'entity_entry_created',
  entityUpdated: 'entity_entry_updated',
  entityRemoved: 'entity_entry_removed',
} as const;

/** The data of `entity_entry_removed`: the entry, and where it went when it was renamed. */
export interface EntityRemovedData {
  entity_id: string;
  entry: EntityEntry;
  new_entity_id: string | null;
}

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
  evolve(r: EventRecord): void {
    const d = r.data;
    switch (r.type) {
      case RECORD.areaCreated:
      case RECORD.areaUpdated:
        return this.areas.put(d as AreaEntry);
      case RECORD.areaRemoved:
        this.areas.delete(d.area_id);
        return;
      case RECORD.floorCreated:
      case RECORD.floorUpdated:
        return this.floors.put(d as FloorEntry);
      case RECORD.floorRemoved:
        this.floors.delete(d.floor_id);
        return;
      case RECORD.labelCreated:
      case RECORD.labelUpdated:
        return this.labels.put(d as LabelEntry);
      case RECORD.labelRemoved:
        this.labels.delete(d.label_id);
        return;
      case RECORD.deviceCreated:
      case RECORD.deviceUpdated:
        this.deletedDevices.delete(d.id);
        return this.devices.put(d as DeviceEntry);
      case RECORD.deviceRemoved:
        this.devices.delete(d.id);
        this.deletedDevices.set(d.id, d as DeviceEntry);
        return;
      case RECORD.entityCreated:
      case RECORD.entityUpdated:
        this.deletedEntities.delete(entityKey(d as EntityEntry));
        return this.entities.put(d as EntityEntry);
      case RECORD.entityRemoved: {
        const { entity_id, entry, new_entity_id } = d as EntityRemovedData;
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
