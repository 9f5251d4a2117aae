import type { AppConfig } from './repository.ts';
import type { AppUserSettings } from './types.ts';
import type { Role } from '../access.ts';
import type { Ids } from '../../clock.ts';

/** A fresh app's user settings (the original's defaults: protected, no watchdog, no panel). */
export function newUserSettings(config: AppConfig, given: { uuid: string; accessToken: string; ingressToken: string; image: string | null }): AppUserSettings {
  return {
    version: config.version,
    image: given.image,
    uuid: given.uuid,
    access_token: given.accessToken,
    ingress_token: given.ingressToken,
    options: {},
    auto_update: false,
    boot: null,
    network: null,
    audio_output: null,
    audio_input: null,
    protected: true,
    ingress_panel: false,
    watchdog: false,
    system_managed: false,
    system_managed_config_entry: null,
  };
}

/** 32 random bytes from `ids`, url-safe base64 without padding: 43 characters, as the original's. */
export function ingressToken(ids: Pick<Ids, 'tokenHex'>): string {
  return Buffer.from(ids.tokenHex(32), 'hex').toString('base64url');
}

/** The boot the app follows: the user's, else its config's (`manual_only` is manual). */
export function effectiveBoot(config: AppConfig, user: AppUserSettings): 'auto' | 'manual' {
  if (config.boot === 'manual_only') return 'manual';
  return user.boot ?? config.boot;
}

/** The host ports: the user's mapping, else the config's (null: not published). */
export function effectiveNetwork(config: AppConfig, user: AppUserSettings): Record<string, number | null> | null {
  return user.network ?? config.ports;
}

/** The supervisor role of an app's token: the config's `homeassistant` is the role `core`. */
export function roleOf(config: AppConfig): Role {
  return config.hassio_role === 'homeassistant' ? 'core' : config.hassio_role;
}

/** The app's container hostname: its slug with `_` as `-`. */
export function hostnameOf(slug: string): string {
  return slug.replace(/_/g, '-');
}
