import type { TypedArea } from '../area.ts';
import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog, NewEvent } from '../../store/types.ts';
import type { TargetExpansion, TargetRefs, TargetResolver } from '../services/targets.ts';
import * as devices from './devices.ts';
import * as entities from './entities.ts';
import * as lookups from './lookups.ts';
import { normalizeName } from './names.ts';
import * as places from './places.ts';
import { BUS_STREAM, Plan } from './plan.ts';
import { REGISTRY_PREFIX, RegistryState, registryRecords, type RegistryRecord, type RegistrySnapshot } from './state.ts';
import type { RecordOf } from '../../store/typed-records.ts';
import {
  RegistryError,
  type AreaEntry,
  type AreaInput,
  type ConfigEntryInfo,
  type DeviceChanges,
  type DeviceEntry,
  type DeviceInfo,
  type EntityChanges,
  type EntityEntry,
  type EntityInfo,
  type FloorEntry,
  type FloorInput,
  type LabelEntry,
  type LabelInput,
} from './types.ts';

export * from './types.ts';
export { REGISTRY_PREFIX } from './state.ts';
export type { StatesView } from './places.ts';
export * as wire from './wire.ts';

export interface RegistriesDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  logLine?: (line: string) => void;
  /** current states: an area's sensors are checked against them, and a rename may not take an id in use */
  states?: places.StatesView;
}

/** What the entity registry says about one entity that others show or obey. */
export interface EntityOverrides {
  name: string | null;
  icon: string | null;
  aliases: string[];
  area_id: string | null;
  device_class: string | null;
  disabled: boolean;
  hidden: boolean;
}

/**
 * The area, floor, label, device and entity registries. Every change is a batch of records on
 * `registry/<kind>/<id>` streams (the entry as it now is), together with the original's
 * `*_registry_updated` bus events; the entries are the projection of those records, restored
 * at start like the other areas. Changes run one at a time, each decided against the committed
 * entries, so two clients creating the same name cannot both succeed.
 */
export class Registries implements TargetResolver {
  private readonly state = new RegistryState();
  private readonly configEntries = new Map<string, ConfigEntryInfo>();
  private queue: Promise<unknown> = Promise.resolve();
  readonly area: TypedArea<RecordOf<RegistryRecord>>;

  constructor(private readonly deps: RegistriesDeps) {
    const { owns } = registryRecords;
    deps.log.onCommit((records) => {
      for (const r of records) if (owns(r)) this.state.evolve(r);
    });
    this.area = {
      name: 'registries',
      snapshotVersion: 1,
      streamPrefix: REGISTRY_PREFIX,
      // each record holds its entry whole, but lists keep the order entries were made in, which
      // only the whole history has (registries are small and their records few)
      latestSuffices: false,
      owns,
      evolve: (r) => this.state.evolve(r),
      snapshot: () => this.state.snapshot(),
      restore: (data) => this.state.restore(data as RegistrySnapshot),
    };
  }

  // ---- reading ----

  areas(): AreaEntry[] {
    return [...this.state.areas.values()];
  }

  getArea(areaId: string): AreaEntry | undefined {
    return this.state.areas.get(areaId);
  }

  /** An area by id, else by name (case and spaces ignored). */
  findArea(idOrName: string): AreaEntry | undefined {
    return lookups.findArea(this.state, idOrName);
  }

  floors(): FloorEntry[] {
    return [...this.state.floors.values()];
  }

  getFloor(floorId: string): FloorEntry | undefined {
    return this.state.floors.get(floorId);
  }

  /** A floor by id, else by name. */
  findFloor(idOrName: string): FloorEntry | undefined {
    return this.state.floors.get(idOrName) ?? this.state.floors.first('name', normalizeName(idOrName));
  }

  labels(): LabelEntry[] {
    return [...this.state.labels.values()];
  }

  getLabel(labelId: string): LabelEntry | undefined {
    return this.state.labels.get(labelId);
  }

  /** A label by id, else by name. */
  findLabel(idOrName: string): LabelEntry | undefined {
    return this.state.labels.get(idOrName) ?? this.state.labels.first('name', normalizeName(idOrName));
  }

  devices(): DeviceEntry[] {
    return [...this.state.devices.values()];
  }

  getDevice(deviceId: string): DeviceEntry | undefined {
    return this.state.devices.get(deviceId);
  }

  entities(): EntityEntry[] {
    return [...this.state.entities.values()];
  }

  /** An entity's entry by entity id, or by the registry's own id. */
  getEntity(entityIdOrId: string): EntityEntry | undefined {
    return this.state.entities.get(entityIdOrId) ?? this.state.entities.first('id', entityIdOrId);
  }

  /** Entity ids in an area: placed there, or on a device there without an area of their own. */
  entitiesOfArea(areaId: string): string[] {
    return lookups.entitiesOfArea(this.state, areaId);
  }

  /** Enabled entity ids of a device. */
  entitiesOfDevice(deviceId: string): string[] {
    return lookups.entitiesOfDevice(this.state, deviceId);
  }

  /** Entity ids in every area of a floor. */
  entitiesOfFloor(floorId: string): string[] {
    return lookups.entitiesOfFloor(this.state, floorId);
  }

  /** Entity ids that carry a label. */
  entitiesOfLabel(labelId: string): string[] {
    return lookups.entitiesOfLabel(this.state, labelId);
  }

  /** Area ids of a floor. */
  floorAreas(floorId: string): string[] {
    return lookups.floorAreas(this.state, floorId);
  }

  /** Device ids in an area. */
  devicesOfArea(areaId: string): string[] {
    return this.state.devices.find('area', areaId).map((d) => d.id);
  }

  /** The area an entity is in: its own, else its device's. */
  areaOf(entityId: string): AreaEntry | undefined {
    return lookups.areaOf(this.state, entityId);
  }

  /**
   * The original's area_name: the name of an area given by id, else of the area of an entity,
   * else of a device.
   */
  areaName(lookup: string): string | undefined {
    const direct = this.state.areas.get(lookup);
    if (direct) return direct.name;
    const ofEntity = lookups.areaOf(this.state, lookup);
    if (ofEntity) return ofEntity.name;
    const areaId = this.state.devices.get(lookup)?.area_id;
    return areaId ? this.state.areas.get(areaId)?.name : undefined;
  }

  /** The device id of an entity. */
  deviceOf(entityId: string): string | undefined {
    return this.state.entities.get(entityId)?.device_id ?? undefined;
  }

  /** What the entity registry overrides of an entity, or undefined when it has no entry. */
  entityOverrides(entityId: string): EntityOverrides | undefined {
    const e = this.state.entities.get(entityId);
    if (!e) return undefined;
    return {
      name: e.name,
      icon: e.icon,
      aliases: e.aliases,
      area_id: e.area_id,
      device_class: e.device_class,
      disabled: e.disabled_by !== null,
      hidden: e.hidden_by !== null,
    };
  }

  // ---- service targets ----

  expand(refs: TargetRefs): TargetExpansion {
    return lookups.expandTargets(this.state, refs);
  }

  isDisabled(entityId: string): boolean {
    const e = this.state.entities.get(entityId);
    return e !== undefined && e.disabled_by !== null;
  }

  // ---- areas, floors, labels ----

  createArea(input: AreaInput & { name: string }, context?: Context): Promise<AreaEntry> {
    return this.change(context, (p) => places.createArea(this.state, p, input, this.deps.states));
  }

  updateArea(areaId: string, input: AreaInput, context?: Context): Promise<AreaEntry> {
    return this.change(context, (p) => places.updateArea(this.state, p, areaId, input, this.deps.states));
  }

  deleteArea(areaId: string, context?: Context): Promise<void> {
    return this.change(context, (p) => places.deleteArea(this.state, p, areaId));
  }

  createFloor(input: FloorInput & { name: string }, context?: Context): Promise<FloorEntry> {
    return this.change(context, (p) => places.createFloor(this.state, p, input));
  }

  updateFloor(floorId: string, input: FloorInput, context?: Context): Promise<FloorEntry> {
    return this.change(context, (p) => places.updateFloor(this.state, p, floorId, input));
  }

  deleteFloor(floorId: string, context?: Context): Promise<void> {
    return this.change(context, (p) => places.deleteFloor(this.state, p, floorId));
  }

  createLabel(input: LabelInput & { name: string }, context?: Context): Promise<LabelEntry> {
    return this.change(context, (p) => places.createLabel(this.state, p, input));
  }

  updateLabel(labelId: string, input: LabelInput, context?: Context): Promise<LabelEntry> {
    return this.change(context, (p) => places.updateLabel(this.state, p, labelId, input));
  }

  deleteLabel(labelId: string, context?: Context): Promise<void> {
    return this.change(context, (p) => places.deleteLabel(this.state, p, labelId));
  }

  // ---- devices ----

  /**
   * Makes a config entry known to the device registry (memory only: platforms register theirs
   * at each start). A device can be removed by a client only through an entry that can say yes.
   */
  registerConfigEntry(entryId: string, info: ConfigEntryInfo): void {
    this.configEntries.set(entryId, info);
  }

  /** The device a platform describes, made or brought up to date; resolves once recorded. */
  ensureDevice(info: DeviceInfo, context?: Context): Promise<DeviceEntry> {
    return this.change(context, (p) => devices.ensureDevice(this.state, p, info, () => this.deps.ids.uuidHex()));
  }

  updateDevice(deviceId: string, input: DeviceChanges, context?: Context): Promise<DeviceEntry> {
    return this.change(context, (p) => devices.updateDevice(this.state, p, deviceId, input));
  }

  /**
   * The original's config/device_registry/remove_config_entry: the config entry must be known
   * and support removal, the device must belong to it, and its integration must agree. A device
   * left with no config entry is removed (resolves to undefined), else resolves to the device.
   */
  async removeConfigEntryFromDevice(configEntryId: string, deviceId: string, context?: Context): Promise<DeviceEntry | undefined> {
    const entry = this.configEntries.get(configEntryId);
    if (!entry) throw new RegistryError('home_assistant_error', 'Unknown config entry');
    if (!entry.removeDevice) throw new RegistryError('home_assistant_error', 'Config entry does not support device removal');
    const device = this.state.devices.get(deviceId);
    if (!device) throw new RegistryError('home_assistant_error', 'Unknown device');
    if (!device.config_entries.includes(configEntryId)) throw new RegistryError('home_assistant_error', 'Config entry not in device');
    // asked outside the queue: the integration may change the registries itself meanwhile
    if (!(await entry.removeDevice(device))) throw new RegistryError('home_assistant_error', 'Failed to remove device entry, rejected by integration');
    return this.change(context, (p) => devices.removeConfigEntry(this.state, p, deviceId, configEntryId));
  }

  /**
   * A config entry's integration lets go of a device itself (the original's
   * async_update_device(remove_config_entry_id=...), as MQTT does when a device's last entity
   * goes); a device left with no config entry is removed (resolves to undefined).
   */
  leaveDevice(deviceId: string, configEntryId: string, context?: Context): Promise<DeviceEntry | undefined> {
    return this.change(context, (p) => devices.removeConfigEntry(this.state, p, deviceId, configEntryId));
  }

  /** Removes a device and its entities. */
  removeDevice(deviceId: string, context?: Context): Promise<void> {
    return this.change(context, (p) => devices.removeDevice(this.state, p, deviceId));
  }

  // ---- entities ----

  /** The entry of an entity a platform provides (use the entity id it resolves to). */
  ensureEntity(info: EntityInfo, context?: Context): Promise<EntityEntry> {
    return this.change(context, (p) => {
      const entry = entities.ensureEntity(this.state, p, info, () => this.deps.ids.uuidHex());
      if (p.newEntityIds.has(entry.entity_id)) this.deps.logLine?.(`Registered new ${entry.entity_id.split('.')[0]}.${entry.platform} entity: ${entry.entity_id}`);
      return entry;
    });
  }

  /** A platform's entities, all at once: ensured, and the platform's other entries removed. */
  syncPlatform(platform: string, infos: EntityInfo[], context?: Context): Promise<EntityEntry[]> {
    return this.change(context, (p) => entities.syncPlatform(this.state, p, platform, infos, () => this.deps.ids.uuidHex()));
  }

  updateEntity(entityId: string, input: EntityChanges, context?: Context): Promise<EntityEntry> {
    return this.change(context, (p) => entities.updateEntity(this.state, p, entityId, input, this.deps.states));
  }

  removeEntity(entityId: string, context?: Context): Promise<void> {
    return this.change(context, (p) => entities.removeEntity(this.state, p, entityId));
  }

  // ---- the queue ----

  /**
   * Runs one change after those before it: decides against the committed entries, appends the
   * records and events as one batch, and resolves once they are committed (and projected).
   */
  private change<T>(context: Context | undefined, decide: (plan: Plan) => T): Promise<T> {
    const run = this.queue.then(async () => {
      const plan = new Plan(this.deps.clock.now());
      const result = decide(plan);
      if (plan.steps.length === 0) return result;
      const own = context ?? this.freshContext(plan.now);
      const batch: NewEvent[] = plan.steps.map((s) =>
        s.stream === BUS_STREAM
          ? // the original fires registry events with a context of their own
            { time: plan.now, stream: s.stream, type: s.type, data: s.data, context: this.freshContext(plan.now), origin: 'LOCAL' }
          : { time: plan.now, stream: s.stream, type: s.type, data: s.data, context: own },
      );
      await this.deps.log.append(batch);
      return result;
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private freshContext(time: number): Context {
    return { id: this.deps.ids.ulid(time), parent_id: null, user_id: null };
  }
}
