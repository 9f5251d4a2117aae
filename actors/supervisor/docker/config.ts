import type { Context } from '../../../store/types.ts';
import type { Settings, SettingsSection } from '../settings.ts';

/**
 * The supervisor's container-engine settings (settings section `docker`): whether the
 * supervisor's network gets IPv6, its MTU, and the registries images are pulled from with
 * credentials. Passwords are kept (a pull needs them) and never shown.
 */

/** A registry's hostname as the original's stored configuration accepts it. */
export const REGISTRY_HOSTNAME = /^([a-z0-9]+(-[a-z0-9]+)*\.)+[a-z]{2,}$/;

export interface RegistryCredentials {
  username: string;
  password: string;
}

export const DOCKER_DEFAULTS = {
  enable_ipv6: null as boolean | null,
  mtu: null as number | null,
  registries: {} as Record<string, RegistryCredentials>,
};

export type DockerSettings = typeof DOCKER_DEFAULTS;

export class DockerConfig {
  private readonly section: SettingsSection<DockerSettings>;

  constructor(settings: Settings) {
    this.section = settings.section('docker', DOCKER_DEFAULTS);
  }

  get(): DockerSettings {
    return this.section.get();
  }

  /** Registries as shown: hostname to `{username}` only. */
  registries(): Record<string, { username: string }> {
    return Object.fromEntries(Object.entries(this.get().registries).map(([host, r]) => [host, { username: r.username }]));
  }

  /**
   * Sets `enable_ipv6` and `mtu` (null: the engine's default); resolves to whether a value
   * changed (the change takes effect when the host restarts).
   */
  async setOptions(patch: { enable_ipv6?: boolean | null; mtu?: number | null }, context: Context): Promise<boolean> {
    const now = this.get();
    const next: Partial<DockerSettings> = {};
    if (patch.enable_ipv6 !== undefined && patch.enable_ipv6 !== now.enable_ipv6) next.enable_ipv6 = patch.enable_ipv6;
    if (patch.mtu !== undefined && patch.mtu !== now.mtu) next.mtu = patch.mtu;
    if (Object.keys(next).length === 0) return false;
    // set() skips undefined only, so null (back to the default) is written
    await this.section.set(next, context);
    return true;
  }

  /** Adds or replaces registries' credentials. */
  async addRegistries(entries: Record<string, RegistryCredentials>, context: Context): Promise<void> {
    await this.section.set({ registries: { ...this.get().registries, ...entries } }, context);
  }

  /** Removes a registry; false when there was none of that hostname. */
  async removeRegistry(hostname: string, context: Context): Promise<boolean> {
    const registries = { ...this.get().registries };
    if (!Object.hasOwn(registries, hostname)) return false;
    delete registries[hostname];
    await this.section.set({ registries }, context);
    return true;
  }
}
