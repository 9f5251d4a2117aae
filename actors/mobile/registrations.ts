import type { Area } from '../area.ts';
import type { Clock, Ids } from '../clock.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import type { Registries } from '../registries/index.ts';
import { slugify } from '../registries/names.ts';
import type { Registration, RegistrationChange, RegistrationsView } from './types.ts';
import { isObject } from '../json-object.ts';

/**
 * The companion-app registrations (the original's mobile_app config entries). Each is a stream
 * `mobile_app/registration/<webhook_id>`: `registration_created`, `registration_updated`,
 * `encryption_enabled`, `legacy_encryption_retired` carry the whole registration (and its config
 * entry), `registration_deleted` ends it; a deleted webhook id is remembered (410 afterwards).
 */

export const REGISTRATION_PREFIX = 'mobile_app/registration/';
export const DOMAIN = 'mobile_app';
const SNAPSHOT_VERSION = 1;

/** A registration with its config entry. */
export interface RegistrationEntry {
  registration: Registration;
  entry_id: string;
  created_at: number;
  modified_at: number;
}

/** What a client sends to register (already checked by `registrationProblem`). */
export interface RegistrationInput {
  app_id: string;
  app_name: string;
  app_version: string;
  device_name: string;
  manufacturer: string;
  model: string;
  os_name: string;
  os_version?: string;
  device_id?: string;
  supports_encryption?: boolean;
  app_data?: Record<string, unknown>;
}

/** The registration fields an app may change by `update_registration`. */
export interface RegistrationChanges {
  app_version: string;
  device_name: string;
  manufacturer: string;
  model: string;
  os_version?: string;
  app_data?: Record<string, unknown>;
}

/** A registration's records on `mobile_app/registration/<webhook_id>`: each but the deletion holds the whole entry. */
export type RegistrationRecord =
  | { type: 'registration_created' | 'registration_updated' | 'encryption_enabled' | 'legacy_encryption_retired'; data: RegistrationEntry }
  | { type: 'registration_deleted'; data: { webhook_id: string; entry_id: string } };
const registrationRecords = typedRecords<RegistrationRecord>(REGISTRATION_PREFIX, {
  registration_created: true,
  registration_updated: true,
  encryption_enabled: true,
  legacy_encryption_retired: true,
  registration_deleted: true,
});

export class Registrations implements Area<RecordOf<RegistrationRecord>>, RegistrationsView {
  readonly name = 'mobile-registrations';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = REGISTRATION_PREFIX;
  readonly latestSuffices = true;
  private readonly byId = new Map<string, RegistrationEntry>();
  private readonly deleted = new Set<string>();
  private readonly changeListeners: ((change: RegistrationChange) => void)[] = [];

  constructor(private readonly deps: { log: EventLog; clock: Clock; ids: Ids; registries: Registries }) {
    deps.log.onCommit((records) => {
      for (const r of records) {
        if (!this.owns(r)) continue;
        this.evolve(r);
        const type = r.type === 'registration_deleted' ? 'deleted' : r.type === 'registration_created' ? 'created' : 'updated';
        for (const l of this.changeListeners) l({ type, webhookId: r.stream.slice(REGISTRATION_PREFIX.length) });
      }
    });
  }

  owns(record: EventRecord): record is RecordOf<RegistrationRecord> {
    return registrationRecords.owns(record);
  }

  evolve(record: RecordOf<RegistrationRecord>): void {
    const id = record.stream.slice(REGISTRATION_PREFIX.length);
    if (record.type === 'registration_deleted') {
      this.byId.delete(id);
      this.deleted.add(id);
      return;
    }
    this.byId.set(id, record.data);
  }

  snapshot(): unknown {
    return { entries: [...this.byId.values()], deleted: [...this.deleted] };
  }

  restore(data: unknown): void {
    const d = data as { entries: RegistrationEntry[]; deleted: string[] };
    for (const e of d.entries) this.byId.set(e.registration.webhook_id, e);
    for (const id of d.deleted) this.deleted.add(id);
  }

  /** Makes each restored registration's config entry known to the device registry. */
  start(): void {
    for (const e of this.byId.values()) this.announce(e.entry_id);
  }

  /** Called after each committed change: the sensors make a tracker, the push part its notify services. */
  onChange(listener: (change: RegistrationChange) => void): void {
    this.changeListeners.push(listener);
  }

  get(webhookId: string): Registration | undefined {
    return this.byId.get(webhookId)?.registration;
  }

  list(): Registration[] {
    return [...this.byId.values()].map((e) => e.registration);
  }

  entries(): RegistrationEntry[] {
    return [...this.byId.values()];
  }

  entryOf(entryId: string): RegistrationEntry | undefined {
    for (const e of this.byId.values()) if (e.entry_id === entryId) return e;
    return undefined;
  }

  wasDeleted(webhookId: string): boolean {
    return this.deleted.has(webhookId);
  }

  private announce(entryId: string): void {
    this.deps.registries.registerConfigEntry(entryId, { domain: DOMAIN, removeDevice: () => false });
  }

  /** Registers an app for `userId`: a config entry, its device, a webhook id (and a secret). */
  async create(input: RegistrationInput, userId: string, context: Context): Promise<RegistrationEntry> {
    const ids = this.deps.ids;
    const deviceId = input.device_id ?? ids.uuidHex();
    // a name without a letter or digit (an emoji) would give no entity ids: the device id stands in
    const deviceName = emptySlug(input.device_name) ? deviceId : input.device_name;
    const supportsEncryption = input.supports_encryption === true;
    const entryId = ids.uuidHex();
    this.announce(entryId);
    const device = await this.deps.registries.ensureDevice(
      {
        identifiers: [[DOMAIN, deviceId]],
        config_entry_id: entryId,
        manufacturer: input.manufacturer,
        model: input.model,
        name: deviceName,
        sw_version: input.os_version ?? null,
      },
      context,
    );
    const registration: Registration = {
      webhook_id: ids.tokenHex(32),
      app_id: input.app_id,
      app_name: input.app_name,
      app_version: input.app_version,
      device_name: deviceName,
      manufacturer: input.manufacturer,
      model: input.model,
      os_name: input.os_name,
      os_version: input.os_version ?? null,
      device_id: deviceId,
      supports_encryption: supportsEncryption,
      secret: supportsEncryption ? ids.tokenHex(32) : null,
      user_id: userId,
      app_data: input.app_data ?? {},
      cloudhook_url: null,
      no_legacy_encryption: false,
      core_device_id: device.id,
    };
    const now = this.deps.clock.now();
    const entry: RegistrationEntry = { registration, entry_id: entryId, created_at: now, modified_at: now };
    await this.write(registration.webhook_id, [{ type: 'registration_created', data: entry }], context);
    return entry;
  }

  /** update_registration: the app's own fields; the device follows. */
  async update(webhookId: string, changes: RegistrationChanges, context: Context): Promise<Registration> {
    const entry = this.must(webhookId);
    const registration: Registration = {
      ...entry.registration,
      app_version: changes.app_version,
      device_name: changes.device_name,
      manufacturer: changes.manufacturer,
      model: changes.model,
      ...(changes.os_version !== undefined ? { os_version: changes.os_version } : {}),
      ...(changes.app_data !== undefined ? { app_data: changes.app_data } : {}),
    };
    // the device follows the app's own description of it
    await this.deps.registries.ensureDevice(
      {
        identifiers: [[DOMAIN, registration.device_id]],
        config_entry_id: entry.entry_id,
        manufacturer: registration.manufacturer,
        model: registration.model,
        name: registration.device_name,
        sw_version: registration.os_version,
      },
      context,
    );
    await this.write(webhookId, [{ type: 'registration_updated', data: this.next(entry, registration) }], context);
    return registration;
  }

  /** enable_encryption: a fresh secret (today's apps use it with the current key derivation). */
  async enableEncryption(webhookId: string, context: Context): Promise<Registration> {
    const entry = this.must(webhookId);
    // as the original, the legacy key still opens until the app first uses the current one
    const registration: Registration = { ...entry.registration, supports_encryption: true, secret: this.deps.ids.tokenHex(32) };
    await this.write(webhookId, [{ type: 'encryption_enabled', data: this.next(entry, registration) }], context);
    return registration;
  }

  /** The app proved it uses the current key: the legacy key stops working for it. */
  async retireLegacyEncryption(webhookId: string, context: Context): Promise<Registration> {
    const entry = this.must(webhookId);
    if (entry.registration.no_legacy_encryption) return entry.registration;
    const registration: Registration = { ...entry.registration, no_legacy_encryption: true };
    await this.write(webhookId, [{ type: 'legacy_encryption_retired', data: this.next(entry, registration) }], context);
    return registration;
  }

  /** Removes a registration (its config entry) and its device; false when there is none. */
  async delete(webhookId: string, context: Context): Promise<boolean> {
    const entry = this.byId.get(webhookId);
    if (!entry) return false;
    await this.write(webhookId, [{ type: 'registration_deleted', data: { webhook_id: webhookId, entry_id: entry.entry_id } }], context);
    if (this.deps.registries.getDevice(entry.registration.core_device_id)) await this.deps.registries.removeDevice(entry.registration.core_device_id, context);
    return true;
  }

  private next(entry: RegistrationEntry, registration: Registration): RegistrationEntry {
    return { ...entry, registration, modified_at: this.deps.clock.now() };
  }

  private must(webhookId: string): RegistrationEntry {
    const entry = this.byId.get(webhookId);
    if (!entry) throw new Error(`no registration with webhook id ${webhookId}`);
    return entry;
  }

  private async write(webhookId: string, records: RegistrationRecord[], context: Context): Promise<void> {
    const time = this.deps.clock.now();
    await this.deps.log.append(records.map((r) => registrationRecords.make(REGISTRATION_PREFIX + webhookId, r, context, time)));
  }
}

/** True when a name slugifies to nothing (slugify says `unknown` then). */
function emptySlug(name: string): boolean {
  const slug = slugify(name);
  return slug === '' || (slug === 'unknown' && !name.toLowerCase().includes('unknown'));
}

// ---- the registration schema (core-wire §6.1) ----

const REQUIRED = ['app_id', 'app_name', 'app_version', 'device_name', 'manufacturer', 'model', 'os_name'] as const;
const OPTIONAL_STRINGS = ['os_version', 'device_id'] as const;


/** A URL as the original's cv.url takes it: http(s) with a host. */
export function isUrl(v: unknown): boolean {
  if (typeof v !== 'string') return false;
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** Why `app_data` is refused (the push keys), in voluptuous words, or undefined. */
export function appDataProblem(appData: unknown, path: string): string | undefined {
  if (!isObject(appData)) return `expected a dictionary for dictionary value @ ${path}`;
  const hasToken = appData.push_token !== undefined;
  const hasUrl = appData.push_url !== undefined;
  if (hasToken !== hasUrl) return `some but not all values in the same group of inclusion 'push_cloud' @ ${path}[<push_cloud>]`;
  if (hasToken && typeof appData.push_token !== 'string') return `expected str for dictionary value @ ${path}['push_token']`;
  if (hasUrl && !isUrl(appData.push_url)) return `invalid url for dictionary value @ ${path}['push_url']`;
  if (appData.push_websocket_channel !== undefined && typeof appData.push_websocket_channel !== 'boolean') {
    return `expected bool for dictionary value @ ${path}['push_websocket_channel']`;
  }
  return undefined;
}

/** The registration a body asks for (unknown keys dropped), or the voluptuous message. */
export function registrationInputOf(body: unknown): { ok: true; input: RegistrationInput } | { ok: false; message: string } {
  if (!isObject(body)) return { ok: false, message: 'expected a dictionary' };
  const input: Record<string, unknown> = {};
  for (const key of REQUIRED) {
    if (body[key] === undefined) return { ok: false, message: `required key not provided @ data['${key}']` };
    if (typeof body[key] !== 'string') return { ok: false, message: `expected str for dictionary value @ data['${key}']` };
    input[key] = body[key];
  }
  for (const key of OPTIONAL_STRINGS) {
    if (body[key] === undefined) continue;
    if (typeof body[key] !== 'string') return { ok: false, message: `expected str for dictionary value @ data['${key}']` };
    input[key] = body[key];
  }
  if (body.supports_encryption !== undefined) {
    if (typeof body.supports_encryption !== 'boolean') return { ok: false, message: `expected bool for dictionary value @ data['supports_encryption']` };
    input.supports_encryption = body.supports_encryption;
  }
  if (body.app_data !== undefined) {
    const problem = appDataProblem(body.app_data, "data['app_data']");
    if (problem) return { ok: false, message: problem };
    input.app_data = body.app_data;
  }
  return { ok: true, input: input as unknown as RegistrationInput };
}

/** The registration as `update_registration` answers it: no webhook id, secret or cloudhook. */
export function safeRegistration(r: Registration): Record<string, unknown> {
  return {
    app_data: r.app_data,
    app_id: r.app_id,
    app_name: r.app_name,
    app_version: r.app_version,
    device_name: r.device_name,
    manufacturer: r.manufacturer,
    model: r.model,
    os_version: r.os_version,
    supports_encryption: r.supports_encryption,
  };
}
