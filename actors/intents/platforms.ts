import type { Clock } from '../clock.ts';
import type { CoreConfig } from '../core/core-config.ts';
import type { EntityActors } from '../entities/registry.ts';
import type { Registries } from '../registries/index.ts';
import type { ServiceRegistry } from '../services/registry.ts';
import type { IntentRegistry } from './registry.ts';

/** What intent handlers may reach: current states, services, registries, the core's settings. */
export interface IntentHome {
  entities: EntityActors;
  services: ServiceRegistry;
  registries: Registries;
  coreConfig: CoreConfig;
  clock: Clock;
  log(line: string): void;
}

/** An integration's intent platform (the original's `async_setup_intents`): registers its handlers. */
export type IntentPlatform = (registry: IntentRegistry, home: IntentHome) => void | Promise<void>;

/**
 * The intent platforms by integration (domain). `setup` runs the platforms of every loaded
 * integration that provides one, once each; a platform registered for an integration that is
 * already set up runs at once.
 */
export class IntentPlatforms {
  private readonly platforms = new Map<string, IntentPlatform[]>();
  private readonly loaded = new Set<string>();

  constructor(
    private readonly registry: IntentRegistry,
    private readonly home: IntentHome,
  ) {}

  /** Declares `domain`'s intent platform; it runs when the domain is set up (now, if it was). */
  async registerIntentPlatform(domain: string, platform: IntentPlatform): Promise<void> {
    const list = this.platforms.get(domain) ?? [];
    list.push(platform);
    this.platforms.set(domain, list);
    if (this.loaded.has(domain)) await platform(this.registry, this.home);
  }

  /** Sets up the intent platforms of these loaded integrations (those not set up before). */
  async setup(domains: Iterable<string>): Promise<void> {
    for (const domain of domains) {
      if (this.loaded.has(domain)) continue;
      this.loaded.add(domain);
      for (const platform of this.platforms.get(domain) ?? []) {
        try {
          await platform(this.registry, this.home);
        } catch (err) {
          this.home.log(`Error setting up intents for ${domain}: ${(err as Error).message}`);
        }
      }
    }
  }
}
