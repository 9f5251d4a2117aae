import { Type } from '@sinclair/typebox';
import type { Context } from '../../../store/types.ts';
import type { ServiceRegistry } from '../../services/registry.ts';
import { ServiceError } from '../../services/types.ts';
import { PlatformActors, type PlatformDeps } from './actors.ts';
import { parsePlatformSection, VIRTUAL } from './config.ts';
import type { EntryFollower } from '../overrides.ts';
import { noRegistrar, type PlatformDomain, type PlatformEntry } from './types.ts';
import { switchDomain } from './switch.ts';
import { lightDomain } from './light.ts';
import { fanDomain } from './fan.ts';
import { coverDomain } from './cover.ts';
import { valveDomain } from './valve.ts';
import { lockDomain } from './lock.ts';
import { buttonDomain } from './button.ts';
import { binarySensorDomain, sensorDomain } from './sensor.ts';
import { climateDomain } from './climate.ts';
import { mediaPlayerDomain } from './media_player.ts';
import { timerDomain } from './timer.ts';
import { sceneDomain } from './scene.ts';
import { homeZone, personDomain, zoneDomain } from './presence.ts';

/** The domains the virtual platform provides, in the order they are set up. */
export const platformDomains: PlatformDomain[] = [switchDomain, lightDomain, fanDomain, coverDomain, valveDomain, lockDomain, buttonDomain, sensorDomain, binarySensorDomain, climateDomain, mediaPlayerDomain, sceneDomain, timerDomain, personDomain, zoneDomain];

export interface VirtualPlatformsDeps extends Omit<PlatformDeps, 'registrar'> {
  services: ServiceRegistry;
  /** the sections of configuration.yaml as it is now (for `virtual.reload`) */
  readSections(): Promise<Record<string, unknown>>;
  registrar?: PlatformDeps['registrar'];
  /** platforms other parts of Hearth set up: their entries are left to them */
  elsewhere?: ReadonlySet<string>;
  /** the core location, for zone.home */
  coreLocation?(): { name: string; latitude: number; longitude: number; radius: number };
}

/**
 * The `virtual` platform: every domain's `- platform: virtual` entries as live machines, the
 * services of each configured domain, and `virtual.reload`.
 */
export class VirtualPlatforms {
  private readonly actors = new Map<string, PlatformActors>();
  private readonly registered = new Set<string>();
  private readonly elsewhere: ReadonlySet<string>;
  /** the sections last applied (zone.home is made again from them when the location moves) */
  private sections: Record<string, unknown> = {};

  constructor(private readonly deps: VirtualPlatformsDeps) {
    const platformDeps: PlatformDeps = { ...deps, registrar: deps.registrar ?? noRegistrar };
    for (const domain of platformDomains) this.actors.set(domain.domain, new PlatformActors(domain, platformDeps));
    this.elsewhere = deps.elsewhere ?? new Set();
    // set_location and reload_core_config move the home zone, as the original's core config update does
    deps.onCommit?.((records) => {
      if (!this.deps.coreLocation || !records.some((r) => r.type === 'core_config_updated')) return;
      // the core config takes the new location once its record is committed: read it after
      setImmediate(() => {
        const zones = this.entries(zoneDomain, this.sections);
        this.actors.get('zone')!.apply(zones, this.deps.newContext()).catch((err) => this.deps.log(`zone.home not updated: ${(err as Error).message}`));
      });
    });
  }

  /** A domain's entries; the zones begin with zone.home, which the original's core always has. */
  private entries(domain: PlatformDomain, sections: Record<string, unknown>): PlatformEntry[] {
    const entries = parsePlatformSection(domain, sections[domain.domain], this.elsewhere);
    if (domain === zoneDomain && this.deps.coreLocation) return [homeZone(this.deps.coreLocation()), ...entries];
    return entries;
  }

  /** Whether a domain has entities: a section of its own, or zone.home. */
  private present(domain: PlatformDomain, sections: Record<string, unknown>): boolean {
    return sections[domain.domain] !== undefined || (domain === zoneDomain && this.deps.coreLocation !== undefined);
  }

  /**
   * Reads every domain's section, then sets them up: a broken section refuses the whole
   * configuration before anything changes. Services of a domain are registered the first time
   * it has a section.
   */
  async configure(sections: Record<string, unknown>, context: Context): Promise<void> {
    const parsed: Array<[PlatformActors, PlatformEntry[]]> = platformDomains.map((d) => [this.actors.get(d.domain)!, this.entries(d, sections)]);
    this.sections = sections;
    const fresh = platformDomains.filter((d) => this.present(d, sections) && !this.registered.has(d.domain));
    // zone.home alone is no virtual entity the user configured: virtual.reload waits for a section
    if (!this.registered.has(VIRTUAL) && platformDomains.some((d) => sections[d.domain] !== undefined)) {
      this.registered.add(VIRTUAL);
      await this.deps.services.register(this.reloadSpec(), context);
    }
    for (const d of fresh) {
      this.registered.add(d.domain);
      await Promise.all(this.actors.get(d.domain)!.specs().map((spec) => this.deps.services.register(spec, context)));
    }
    for (const [actors, entries] of parsed) await actors.apply(entries, context);
  }

  /** Each domain's actors, which follow their entities' registry entries. */
  followers(): EntryFollower[] {
    return [...this.actors.values()];
  }

  /** `virtual` and the domains with a section, for the components list. */
  components(): string[] {
    return [...this.registered];
  }

  /** Stops every machine; nothing is written afterwards. */
  async stop(): Promise<void> {
    await Promise.all([...this.actors.values()].map((a) => a.stop()));
  }

  private reloadSpec() {
    return {
      domain: VIRTUAL,
      service: 'reload',
      description: { name: 'Reload', description: 'Reloads virtual entities from the YAML-configuration.', fields: {} },
      schema: Type.Object({}, { additionalProperties: false }),
      supportsResponse: 'none' as const,
      access: 'admin' as const,
      handler: async (call: { context: Context }) => {
        try {
          await this.configure(await this.deps.readSections(), call.context);
        } catch (err) {
          this.deps.log(`reload of ${VIRTUAL} refused: ${(err as Error).message}`);
          throw new ServiceError('home_assistant_error', `Cannot reload ${VIRTUAL}: ${(err as Error).message}`);
        }
      },
    };
  }
}
