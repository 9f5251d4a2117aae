import { evolveOnCommit, type Area } from '../area.ts';
import type { Clock } from '../clock.ts';
import type { Context, EventLog, EventRecord } from '../../store/types.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';

/**
 * The supervisor's settings, one section per subject (`supervisor`, `core`, `docker`,
 * `security`, `jobs`, ...), each kept as whole-state records `settings_changed` on
 * `supervisor/settings/<section>`: the last record of a stream is the section.
 */

export const SETTINGS_PREFIX = 'supervisor/settings/';
const SNAPSHOT_VERSION = 1;

/** A settings section's records: each holds the whole section (the docker registries are the `docker` section's). */
export type SettingsRecord = { type: 'settings_changed'; data: Record<string, unknown> };
const settingsRecords = typedRecords<SettingsRecord>(SETTINGS_PREFIX, { settings_changed: true });

export class Settings implements Area<RecordOf<SettingsRecord>> {
  readonly name = 'supervisor-settings';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = SETTINGS_PREFIX;
  readonly latestSuffices = true;
  private readonly stored = new Map<string, Record<string, unknown>>();

  constructor(private readonly deps: { log: EventLog; clock: Clock }) {
    evolveOnCommit(deps.log, this);
  }

  owns(record: EventRecord): record is RecordOf<SettingsRecord> {
    return settingsRecords.owns(record);
  }

  evolve(record: RecordOf<SettingsRecord>): void {
    this.stored.set(record.stream.slice(SETTINGS_PREFIX.length), record.data);
  }

  snapshot(): unknown {
    return Object.fromEntries(this.stored);
  }

  restore(data: unknown): void {
    for (const [k, v] of Object.entries(data as Record<string, Record<string, unknown>>)) this.stored.set(k, v);
  }

  /** A section: its stored values over `defaults`. */
  section<T extends Record<string, unknown>>(name: string, defaults: T): SettingsSection<T> {
    return new SettingsSection(this, name, defaults);
  }

  /** @internal */
  read(name: string): Record<string, unknown> | undefined {
    return this.stored.get(name);
  }

  /** @internal writes the whole section; resolves once committed */
  async write(name: string, value: Record<string, unknown>, context: Context): Promise<void> {
    await this.deps.log.append([settingsRecords.make(SETTINGS_PREFIX + name, { type: 'settings_changed', data: value }, context, this.deps.clock.now())]);
  }
}

export class SettingsSection<T extends Record<string, unknown>> {
  constructor(
    private readonly settings: Settings,
    readonly name: string,
    private readonly defaults: T,
  ) {}

  get(): T {
    return { ...this.defaults, ...(this.settings.read(this.name) as Partial<T> | undefined) };
  }

  /** Changes some values (a value of `undefined` is left as it is); resolves to the new section. */
  async set(patch: Partial<T>, context: Context): Promise<T> {
    const next: Record<string, unknown> = { ...this.get() };
    for (const [k, v] of Object.entries(patch)) if (v !== undefined) next[k] = v;
    await this.settings.write(this.name, next, context);
    return next as T;
  }

  /** Back to the defaults. */
  async reset(context: Context): Promise<T> {
    await this.settings.write(this.name, { ...this.defaults }, context);
    return this.get();
  }
}
