import { isoformatMicros } from '../../machines/python/isoformat.ts';
import type { TypedArea } from '../area.ts';
import type { Clock } from '../clock.ts';
import type { EntityActors } from '../entities/registry.ts';
import type { EntityState } from '../entities/types.ts';
import { withOverrides, type EntryFollower, type OverridesOf } from '../entities/overrides.ts';
import { stateString } from '../entities/state.ts';
import { slugify } from '../entities/slug.ts';
import type { EntityEntry, EntityInfo, EntityChanges } from '../registries/types.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import { checkLocation, checkSensorRegistration, checkSensorUpdate, looseSensorItem, SENSOR_TYPES, type SensorRegistration, type SensorStateValue, type SensorType } from './sensor-schema.ts';
import { trackerAttributes, trackerDataOf, trackerState, zonesOf, type TrackerData } from './location.ts';
import { EMPTY_OK, type Registration, type RegistrationsView, type WebhookActions, type WebhookCall, type WebhookReply } from './types.ts';

/**
 * The companion app's sensors, binary sensors and device tracker (the original's mobile_app
 * sensor, binary_sensor and device_tracker platforms). A sensor's registration is a record of
 * its own stream; its states, like every entity's, are `state_changed` records of the entity
 * actors, so they show in /api/states, history, templates and the event stream, and survive a
 * restart with the entities.
 */

export const MOBILE_PLATFORM = 'mobile_app';
const SENSOR_PREFIX = 'mobile_app/sensor/';
/** Stream of a sensor's registration records: `<webhook_id>_<unique_id>`. */
export const sensorStream = (storeKey: string) => `${SENSOR_PREFIX}${storeKey}`;

/** A registered sensor as its records hold it. */
export interface StoredSensor extends SensorRegistration {
  webhook_id: string;
}

/** A sensor's records: registered and updated hold its whole registration. */
export type SensorRecord = { type: 'sensor_registered' | 'sensor_updated'; data: StoredSensor } | { type: 'sensor_removed'; data: { webhook_id: string } };
const sensorRecords = typedRecords<SensorRecord>(SENSOR_PREFIX, { sensor_registered: true, sensor_updated: true, sensor_removed: true });

/** What the sensors need of the registries (a subset of Registries). */
export interface SensorRegistries {
  ensureEntity(info: EntityInfo, context?: Context): Promise<EntityEntry>;
  updateEntity(entityId: string, input: EntityChanges, context?: Context): Promise<EntityEntry>;
  removeEntity(entityId: string, context?: Context): Promise<void>;
  getEntity(entityIdOrId: string): EntityEntry | undefined;
  entities(): EntityEntry[];
}

export interface MobileSensorsDeps {
  log: EventLog;
  clock: Clock;
  entities: EntityActors;
  registries: SensorRegistries;
  registrations: RegistrationsView;
  /** the config entry of a registration (its entities belong to it) */
  configEntryOf?(webhookId: string): string | undefined;
  /** the user's overrides of an entity (name, icon, device class) */
  overrides?: OverridesOf;
  logLine?(line: string): void;
}

/** The entity-registry unique id of a sensor. */
export const sensorStoreKey = (webhookId: string, uniqueId: string) => `${webhookId}_${uniqueId}`;

/** Python's truthiness of a JSON value (a binary sensor is on when its value is truthy). */
const truthy = (v: SensorStateValue) => !(v === null || v === false || v === 0 || v === '');

/**
 * A timestamp as the original's parse_datetime reads it, in UTC ISO form with `+00:00`
 * (microseconds only when there are any); undefined when it has no zone or does not parse.
 */
export function utcTimestamp(text: string): string | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,6})\d*)?)?\s*(Z|[+-]\d{2}(?::?\d{2})?)$/.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, sec = '0', frac = '', tz] = m;
  let offsetMin = 0;
  if (tz !== 'Z') {
    const sign = tz[0] === '-' ? -1 : 1;
    const digits = tz.slice(1).replace(':', '');
    offsetMin = sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2, 4) || '0'));
  }
  const ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec)) - offsetMin * 60_000;
  if (!Number.isFinite(ms)) return undefined;
  return isoformatMicros(BigInt(ms) * 1000n + BigInt(frac.padEnd(6, '0')));
}

/** How a sensor's value shows as a state (the original's sensor and binary_sensor entities). */
function sensorStateText(s: { type: SensorType; device_class?: string | null }, value: SensorStateValue): string {
  if (value === 'unavailable') return 'unavailable';
  if (value === null) return 'unknown';
  if (s.type === 'binary_sensor') return truthy(value) ? 'on' : 'off';
  if (value === 'unknown') return 'unknown';
  if (typeof value === 'string' && (s.device_class === 'timestamp' || s.device_class === 'date')) {
    if (s.device_class === 'date') {
      if (/^\d{4}-\d{2}-\d{2}(?:$|[T ])/.test(value) && !Number.isNaN(Date.parse(value.slice(0, 10)))) return value.slice(0, 10);
    } else {
      const utc = utcTimestamp(value);
      if (utc) return utc;
    }
  }
  return stateString(value);
}

export class MobileSensors implements EntryFollower {
  private readonly sensors = new Map<string, StoredSensor>();
  /** per sensor store key, the state last applied (kept for an entity enabled again) */
  private readonly lastValues = new Map<string, { state: SensorStateValue; attributes: Record<string, unknown>; icon: string | null }>();
  /** per webhook id, the last location the app sent since the start */
  private readonly locations = new Map<string, TrackerData>();
  /** per `<domain>/<unique id>`, the registry id of its entry (found again after a rename) */
  private readonly entryIds = new Map<string, string>();
  /** one change at a time per sensor or tracker, so writes land in the order they came */
  private readonly chains = new Map<string, Promise<unknown>>();

  constructor(private readonly deps: MobileSensorsDeps) {}

  /** The entity domains in the components list: the original sets them up for each registration's entry. */
  components(): string[] {
    return this.deps.registrations.list().length === 0 ? [] : [...SENSOR_TYPES, 'device_tracker'];
  }

  /** what the sensors remember of each registration, to find its tracker once it is deleted */
  private readonly known = new Map<string, { device_id: string; core_device_id: string }>();

  /**
   * After the restore: the actions in the webhook's table, the last values from the restored
   * states, a tracker for every registration, and from now on a tracker for each new one and
   * the entities of a deleted one removed.
   */
  async start(deps: { actions: WebhookActions; newContext(): Context }): Promise<void> {
    this.registerActions(deps.actions);
    this.restoreValues();
    this.deps.registrations.onChange?.((change) => {
      if (change.type === 'created') {
        const reg = this.deps.registrations.get(change.webhookId);
        if (reg) void this.onRegistration(reg, deps.newContext()).catch((err) => this.deps.logLine?.(`device tracker of ${reg.device_name} not made: ${(err as Error).message}`));
      } else if (change.type === 'deleted') {
        void this.onRemoved(change.webhookId, deps.newContext()).catch((err) => this.deps.logLine?.(`entities of a removed registration not removed: ${(err as Error).message}`));
      }
    });
    for (const reg of this.deps.registrations.list()) await this.onRegistration(reg, deps.newContext());
  }

  /** A registration is gone: its sensors and tracker leave the states and the entity registry. */
  async onRemoved(webhookId: string, context: Context): Promise<void> {
    const known = this.known.get(webhookId);
    this.known.delete(webhookId);
    const prefix = `${webhookId}_`;
    const gone = this.deps.registries.entities().filter(
      (e) => e.platform === MOBILE_PLATFORM && (e.unique_id.startsWith(prefix) || (known !== undefined && e.unique_id === known.device_id && e.device_id === known.core_device_id && e.entity_id.startsWith('device_tracker.'))),
    );
    for (const e of gone) {
      if (this.deps.entities.has(e.entity_id)) await this.deps.entities.remove(e.entity_id, context);
      if (this.deps.registries.getEntity(e.entity_id)) await this.deps.registries.removeEntity(e.entity_id, context);
    }
    const sensors = [...this.sensors.entries()].filter(([, s]) => s.webhook_id === webhookId);
    if (sensors.length) {
      await this.deps.log.append(sensors.map(([key]) => sensorRecords.make(sensorStream(key), { type: 'sensor_removed', data: { webhook_id: webhookId } }, context, this.deps.clock.now())));
      for (const [key] of sensors) {
        this.sensors.delete(key);
        this.lastValues.delete(key);
      }
    }
    this.locations.delete(webhookId);
  }

  /** Registers register_sensor, update_sensor_states and update_location with the webhook. */
  registerActions(actions: WebhookActions): void {
    actions.register('register_sensor', (call) => this.registerSensor(call));
    actions.register('update_sensor_states', (call) => this.updateSensorStates(call));
    actions.register('update_location', (call) => this.updateLocation(call));
  }

  // ---- sensors ----

  /** register_sensor: 201 `{"success": true}`, also when the sensor was registered before. */
  async registerSensor(call: WebhookCall): Promise<WebhookReply> {
    const checked = checkSensorRegistration(call.data);
    if (!checked.ok) return EMPTY_OK;
    const reg = call.registration;
    const given = checked.value;
    const key = sensorStoreKey(reg.webhook_id, given.unique_id);
    const name = `${reg.device_name} ${given.name}`;
    await this.serial(key, async () => {
      const entry = this.findEntry(given.type, key);
      const before = this.sensors.get(key);
      // a re-registration is merged into what the sensor had, as the original updates its config
      const s: StoredSensor = { ...(entry && before ? before : {}), webhook_id: reg.webhook_id, ...given };
      await this.deps.log.append([sensorRecords.make(sensorStream(key), { type: entry && before ? 'sensor_updated' : 'sensor_registered', data: s }, call.context, this.deps.clock.now())]);
      this.sensors.set(key, s);
      this.lastValues.set(key, { state: s.state, attributes: s.attributes, icon: s.icon });
      let ensured: EntityEntry;
      if (!entry) {
        ensured = await this.deps.registries.ensureEntity(
          {
            entity_id: `${s.type}.${slugify(name) || 'unknown'}`,
            unique_id: key,
            platform: MOBILE_PLATFORM,
            device_id: reg.core_device_id,
            config_entry_id: this.deps.configEntryOf?.(reg.webhook_id) ?? null,
            original_name: name,
            original_icon: s.icon,
            original_device_class: s.device_class ?? null,
            entity_category: s.entity_category ?? null,
            unit_of_measurement: s.unit_of_measurement ?? null,
            capabilities: s.type === 'sensor' && s.state_class ? { state_class: s.state_class } : null,
            ...(s.disabled ? { disabled_by: 'integration' as const } : {}),
          },
          call.context,
        );
      } else {
        // what the original's re-registration changes: the name, and the keys the app sent
        const info: EntityInfo = { entity_id: entry.entity_id, unique_id: key, platform: MOBILE_PLATFORM, original_name: name, original_icon: given.icon };
        if ('unit_of_measurement' in given) info.unit_of_measurement = given.unit_of_measurement ?? null;
        if ('entity_category' in given) info.entity_category = given.entity_category ?? null;
        ensured = await this.deps.registries.ensureEntity(info, call.context);
        const changes: EntityChanges = {};
        if ('device_class' in given && ensured.device_class !== (given.device_class ?? null)) changes.device_class = given.device_class ?? null;
        if (given.disabled !== undefined && given.disabled !== (ensured.disabled_by !== null)) changes.disabled_by = given.disabled ? 'integration' : null;
        if (Object.keys(changes).length) ensured = await this.deps.registries.updateEntity(ensured.entity_id, changes, call.context);
      }
      await this.show(ensured, s, call.context);
    });
    return { status: 201, body: { success: true } };
  }

  /** update_sensor_states: per sensor success, not_registered or invalid_format, keyed by the app's unique id. */
  async updateSensorStates(call: WebhookCall): Promise<WebhookReply> {
    const items = Array.isArray(call.data) ? call.data : [call.data];
    const loose = items.map(looseSensorItem);
    if (loose.some((l) => l === undefined)) return EMPTY_OK;
    const reg = call.registration;
    // keyed by the app's own ids: a plain object would take `__proto__` as its prototype
    const body: Record<string, unknown> = Object.create(null);
    const writes: Promise<void>[] = [];
    for (let i = 0; i < items.length; i++) {
      const { type, unique_id: uniqueId } = loose[i]!;
      const key = sensorStoreKey(reg.webhook_id, uniqueId);
      const entry = this.findEntry(type, key);
      const stored = this.sensors.get(key);
      if (!entry || !stored || stored.type !== type) {
        body[uniqueId] = { success: false, error: { code: 'not_registered', message: `${type} ${uniqueId} is not registered` } };
        continue;
      }
      const checked = checkSensorUpdate(items[i] as Record<string, unknown>);
      if (!checked.ok) {
        body[uniqueId] = { success: false, error: { code: 'invalid_format', message: checked.message } };
        continue;
      }
      const u = checked.value;
      // the batch's sensors are written together (one group commit), each in its own order
      body[uniqueId] = { success: true };
      writes.push(
        this.serial(key, async () => {
          this.lastValues.set(key, { state: u.state, attributes: u.attributes, icon: u.icon });
          const now = this.findEntry(type, key);
          if (now) await this.show(now, stored, call.context);
        }).then(() => {
          if (this.findEntry(type, key)?.disabled_by) body[uniqueId] = { success: true, is_disabled: true };
        }),
      );
    }
    await Promise.all(writes);
    return { status: 200, body };
  }

  /** Writes a sensor's state under its registry entry's entity id, unless the entry is disabled. */
  private async show(entry: EntityEntry, s: StoredSensor, context: Context): Promise<void> {
    if (entry.disabled_by !== null) {
      if (this.deps.entities.has(entry.entity_id)) await this.deps.entities.remove(entry.entity_id, context);
      return;
    }
    const key = sensorStoreKey(s.webhook_id, s.unique_id);
    const value = this.lastValues.get(key) ?? { state: s.state, attributes: s.attributes, icon: s.icon };
    const reg = this.deps.registrations.get(s.webhook_id);
    const attributes: Record<string, unknown> = {};
    if (s.type === 'sensor' && s.state_class) attributes.state_class = s.state_class;
    // an unavailable entity shows no state attributes of its own
    if (value.state !== 'unavailable') Object.assign(attributes, value.attributes);
    if (s.unit_of_measurement != null) attributes.unit_of_measurement = s.unit_of_measurement;
    if (s.device_class) attributes.device_class = s.device_class;
    if (value.icon) attributes.icon = value.icon;
    attributes.friendly_name = `${reg?.device_name ?? ''} ${s.name}`.trim();
    const shown = withOverrides(attributes, this.overridesOf(entry.entity_id));
    await this.deps.entities.write(entry.entity_id, { state: sensorStateText(s, value.state), attributes: shown, force_update: false }, context);
  }

  private overridesOf(entityId: string) {
    return (this.deps.overrides ?? ((id: string) => this.fromRegistry(id)))(entityId);
  }

  private fromRegistry(entityId: string) {
    const e = this.deps.registries.getEntity(entityId);
    return e ? { name: e.name, icon: e.icon, device_class: e.device_class, disabled: e.disabled_by !== null } : undefined;
  }

  /** The registry entry of a mobile_app entity by domain and unique id. */
  private findEntry(domain: string, uniqueId: string): EntityEntry | undefined {
    const known = this.entryIds.get(`${domain}/${uniqueId}`);
    const cached = known ? this.deps.registries.getEntity(known) : undefined;
    if (cached && cached.platform === MOBILE_PLATFORM && cached.unique_id === uniqueId) return cached;
    const found = this.deps.registries.entities().find((e) => e.platform === MOBILE_PLATFORM && e.unique_id === uniqueId && e.entity_id.startsWith(`${domain}.`));
    if (found) this.entryIds.set(`${domain}/${uniqueId}`, found.id);
    else this.entryIds.delete(`${domain}/${uniqueId}`);
    return found;
  }

  // ---- device tracker ----

  /** Makes the registration's device tracker (state unknown until a location comes); called when a registration appears. */
  async onRegistration(reg: Registration, context: Context): Promise<void> {
    this.known.set(reg.webhook_id, { device_id: reg.device_id, core_device_id: reg.core_device_id });
    await this.serial(`tracker/${reg.webhook_id}`, async () => {
      const entry = await this.trackerEntry(reg, context);
      const shown = this.deps.entities.get(entry.entity_id);
      if (shown && !this.locations.has(reg.webhook_id)) this.locations.set(reg.webhook_id, trackerDataOf(shown));
      if (entry.disabled_by !== null || shown) return;
      await this.showTracker(entry, reg, context);
    });
  }

  /** update_location: 200 `{}` once the tracker shows the new location. */
  async updateLocation(call: WebhookCall): Promise<WebhookReply> {
    const checked = checkLocation(call.data);
    if (!checked.ok) return EMPTY_OK;
    const reg = call.registration;
    this.known.set(reg.webhook_id, { device_id: reg.device_id, core_device_id: reg.core_device_id });
    await this.serial(`tracker/${reg.webhook_id}`, async () => {
      this.locations.set(reg.webhook_id, checked.value);
      const entry = await this.trackerEntry(reg, call.context);
      if (entry.disabled_by === null) await this.showTracker(entry, reg, call.context);
    });
    return EMPTY_OK;
  }

  private trackerEntry(reg: Registration, context: Context): Promise<EntityEntry> {
    return this.deps.registries.ensureEntity(
      {
        entity_id: `device_tracker.${slugify(reg.device_name) || 'unknown'}`,
        unique_id: reg.device_id,
        platform: MOBILE_PLATFORM,
        device_id: reg.core_device_id,
        config_entry_id: this.deps.configEntryOf?.(reg.webhook_id) ?? null,
        original_name: reg.device_name,
      },
      context,
    );
  }

  private async showTracker(entry: EntityEntry, reg: Registration, context: Context): Promise<void> {
    const data = this.locations.get(reg.webhook_id);
    const state = trackerState(data, zonesOf(this.deps.entities.states()));
    const attributes = withOverrides(trackerAttributes(data, reg.device_name), this.overridesOf(entry.entity_id));
    await this.deps.entities.write(entry.entity_id, { state, attributes, force_update: false }, context);
  }

  // ---- get_config ----

  /** get_config's `entities`: each sensor by the app's unique id, the tracker by the device id. */
  entitiesOf(reg: Registration): Record<string, { disabled: boolean }> {
    const out: Record<string, { disabled: boolean }> = Object.create(null);
    const prefix = `${reg.webhook_id}_`;
    for (const e of this.deps.registries.entities()) {
      if (e.platform !== MOBILE_PLATFORM) continue;
      if (e.unique_id.startsWith(prefix) && (e.entity_id.startsWith('sensor.') || e.entity_id.startsWith('binary_sensor.'))) out[e.unique_id.slice(prefix.length)] = { disabled: e.disabled_by !== null };
      else if (e.unique_id === reg.device_id && e.entity_id.startsWith('device_tracker.') && e.device_id === reg.core_device_id) out[e.unique_id] = { disabled: e.disabled_by !== null };
    }
    return out;
  }

  /** The registered sensors of a registration. */
  sensorsOf(webhookId: string): StoredSensor[] {
    return [...this.sensors.values()].filter((s) => s.webhook_id === webhookId);
  }

  // ---- registry changes ----

  /** The user changed an entry (disabled, renamed, new id): the entity shows it. */
  async entryUpdated(entityId: string, oldEntityId: string | undefined, context: Context): Promise<void> {
    const first = this.deps.registries.getEntity(entityId);
    if (!first || first.platform !== MOBILE_PLATFORM) return;
    const sensorKey = this.sensors.has(first.unique_id) ? first.unique_id : undefined;
    const reg = sensorKey ? undefined : this.deps.registrations.list().find((r) => r.device_id === first.unique_id && r.core_device_id === first.device_id);
    const chain = sensorKey ?? (reg ? `tracker/${reg.webhook_id}` : undefined);
    if (!chain) return;
    // the entry is read again in turn: changes queued before this one may have changed it since
    await this.serial(chain, async () => {
      const entry = this.deps.registries.getEntity(first.id);
      if (oldEntityId && oldEntityId !== entityId && this.deps.entities.has(oldEntityId)) await this.deps.entities.remove(oldEntityId, context);
      if (!entry) return;
      if (entry.disabled_by !== null) {
        if (this.deps.entities.has(entry.entity_id)) await this.deps.entities.remove(entry.entity_id, context);
        return;
      }
      const sensor = sensorKey ? this.sensors.get(sensorKey) : undefined;
      if (sensor && entry.entity_id.startsWith(`${sensor.type}.`)) await this.show(entry, sensor, context);
      else if (reg && entry.entity_id.startsWith('device_tracker.')) await this.showTracker(entry, reg, context);
    });
  }

  private serial<T>(key: string, work: () => Promise<T>): Promise<T> {
    const prev = this.chains.get(key) ?? Promise.resolve();
    const next = prev.then(work, work);
    const tail = next.catch(() => undefined);
    this.chains.set(key, tail);
    void tail.then(() => {
      if (this.chains.get(key) === tail) this.chains.delete(key);
    });
    return next;
  }

  // ---- restore ----

  readonly area: TypedArea<RecordOf<SensorRecord>> = {
    name: 'mobile_sensors',
    snapshotVersion: 1,
    streamPrefix: SENSOR_PREFIX,
    // each record holds the sensor's whole registration
    latestSuffices: true,
    owns: sensorRecords.owns,
    evolve: (r) => {
      const key = r.stream.slice(SENSOR_PREFIX.length);
      if (r.type === 'sensor_removed') this.sensors.delete(key);
      else this.sensors.set(key, r.data);
    },
    snapshot: () => [...this.sensors.entries()],
    restore: (data) => {
      this.sensors.clear();
      for (const [key, s] of data as [string, StoredSensor][]) this.sensors.set(key, s);
    },
  };

  /** The sensors' last values from their entity states after a restart (so an enabled-again entity has its state). */
  restoreValues(): void {
    for (const [key, s] of this.sensors) {
      if (this.lastValues.has(key)) continue;
      const entry = this.findEntry(s.type, key);
      const state: EntityState | undefined = entry ? this.deps.entities.get(entry.entity_id) : undefined;
      if (!state) continue;
      const { state_class: _sc, unit_of_measurement: _u, device_class: _d, icon, friendly_name: _f, ...attributes } = state.attributes;
      const value: SensorStateValue = state.state === 'unknown' ? null : s.type === 'binary_sensor' ? (state.state === 'on' ? true : state.state === 'off' ? false : state.state) : state.state;
      this.lastValues.set(key, { state: value, attributes, icon: typeof icon === 'string' ? icon : s.icon });
    }
  }
}
