import type { TypedArea } from '../area.ts';
import { typedRecords, type RecordOf } from '../../store/typed-records.ts';
import type { Clock } from '../clock.ts';
import type { Context, EventLog } from '../../store/types.ts';
import { CORE_VERSION } from '../version.ts';
import { validateCore } from './core-section.ts';
import { LoadedComponents } from './components.ts';

const METRIC = { length: 'km', accumulated_precipitation: 'mm', area: 'm²', mass: 'g', pressure: 'Pa', temperature: '°C', volume: 'L', wind_speed: 'm/s' };
const US_CUSTOMARY = { length: 'mi', accumulated_precipitation: 'in', area: 'ft²', mass: 'lb', pressure: 'psi', temperature: '°F', volume: 'gal', wind_speed: 'mph' };

/** Values of the core section that set_location may override. */
interface Location {
  latitude: number;
  longitude: number;
  elevation: number;
}

const STREAM = 'core/config';

/** The recorded changes of the core configuration (`set_location`), also bus events. */
export type CoreConfigRecord = { type: 'core_config_updated'; data: Partial<Location> };
const coreConfigRecords = typedRecords<CoreConfigRecord>(STREAM, { core_config_updated: true });

/**
 * The location keys of a recorded change, and nothing else: Object.assign of a parsed record
 * would also run setters such as __proto__.
 */
function locationOf(data: unknown): Partial<Location> {
  const loc: Partial<Location> = {};
  if (data === null || typeof data !== 'object') return loc;
  for (const key of ['latitude', 'longitude', 'elevation'] as const) {
    const value = Object.hasOwn(data, key) ? (data as Record<string, unknown>)[key] : undefined;
    if (typeof value === 'number' && Number.isFinite(value)) loc[key] = value;
  }
  return loc;
}

/** The core configuration: the `core:` section of configuration.yaml plus changes recorded in the log. */
export class CoreConfig {
  private yaml: Record<string, unknown> = {};
  private fromYaml = false;
  private overrides: Partial<Location> = {};
  /** what this instance has loaded: its parts add themselves as sources */
  readonly components = new LoadedComponents();

  constructor(private readonly deps: { log: EventLog; clock: Clock; configDir: string }) {}

  /**
   * Loads (or reloads) the core section; throws ConfigurationError naming a bad value, and then
   * keeps the configuration it had.
   */
  load(section: Record<string, unknown>, fromYaml: boolean): void {
    this.yaml = validateCore(section);
    this.fromYaml = fromYaml;
  }

  /** The configured time zone (IANA name): times given without an offset are its wall-clock times. */
  timeZone(): string {
    return (this.yaml.time_zone as string | undefined) ?? 'UTC';
  }

  /** The original's set_location: recorded, so it survives a restart. */
  async setLocation(loc: Partial<Location>, context: Context): Promise<void> {
    const data = locationOf(loc);
    await this.deps.log.append([{ ...coreConfigRecords.make(STREAM, { type: 'core_config_updated', data }, context, this.deps.clock.now()), origin: 'LOCAL' }]);
    Object.assign(this.overrides, data);
  }

  /** What a template render reads of the config: time zone, location and unit system, as asDict has them. */
  templateBasics(): Record<string, unknown> {
    const y = this.yaml;
    return {
      latitude: this.overrides.latitude ?? (y.latitude as number | undefined) ?? 52.3731339,
      longitude: this.overrides.longitude ?? (y.longitude as number | undefined) ?? 4.8903147,
      time_zone: y.time_zone ?? 'UTC',
      unit_system: y.unit_system === 'us_customary' || y.unit_system === 'imperial' ? US_CUSTOMARY : METRIC,
    };
  }

  /** The config dict of GET /api/config and get_config. */
  asDict(state: string): Record<string, unknown> {
    const y = this.yaml;
    const dirs = (y.allowlist_external_dirs ?? y.whitelist_external_dirs ?? []) as string[];
    const pick = <T>(key: keyof Location, fallback: T) => (this.overrides[key] ?? (y[key] as T | undefined) ?? fallback);
    return {
      allowlist_external_dirs: dirs,
      allowlist_external_urls: (y.allowlist_external_urls as string[] | undefined) ?? [],
      components: this.components.list(),
      config_dir: this.deps.configDir,
      config_source: this.fromYaml ? 'yaml' : 'default',
      country: y.country ?? null,
      currency: y.currency ?? 'EUR',
      debug: y.debug ?? false,
      elevation: pick('elevation', 0),
      external_url: y.external_url ?? null,
      internal_url: y.internal_url ?? null,
      language: y.language ?? 'en',
      latitude: pick('latitude', 52.3731339),
      location_name: y.name ?? 'Home',
      longitude: pick('longitude', 4.8903147),
      radius: y.radius ?? 100,
      recovery_mode: false,
      safe_mode: false,
      state,
      time_zone: y.time_zone ?? 'UTC',
      unit_system: y.unit_system === 'us_customary' || y.unit_system === 'imperial' ? US_CUSTOMARY : METRIC,
      version: CORE_VERSION,
      whitelist_external_dirs: dirs,
    };
  }

  readonly area: TypedArea<RecordOf<CoreConfigRecord>> = {
    name: 'core_config',
    snapshotVersion: 1,
    streamPrefix: STREAM,
    latestSuffices: false,
    owns: coreConfigRecords.owns,
    // only the location keys, as written: a parsed `__proto__` key must not reach Object.assign
    evolve: (r) => Object.assign(this.overrides, locationOf(r.data)),
    snapshot: () => this.overrides,
    restore: (data) => {
      this.overrides = locationOf(data);
    },
  };
}
