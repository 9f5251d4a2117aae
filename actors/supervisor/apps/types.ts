import type { Context } from '../../../store/types.ts';
import type { JobHandle } from '../jobs/types.ts';
import type { AppConfig } from './repository.ts';

/**
 * What the rest of the supervisor (ingress, services, discovery, the auth helper, backups) reads
 * of the installed apps. The app actors (manager.ts) implement it; nothing else writes apps.
 */

/** The original's app states (supervisor-wire §8.7). */
export type AppState = 'unknown' | 'stopped' | 'startup' | 'started' | 'error';

/** What the user set for an installed app, kept in the supervisor's log (the original's apps.json "user"). */
export interface AppUserSettings {
  /** the version installed */
  version: string;
  /** the image without tag, when not the store's */
  image: string | null;
  uuid: string;
  /** the app's token (SUPERVISOR_TOKEN in its container); its Tokens entry carries the app's slug */
  access_token: string;
  /** url-safe random, 43 characters; `ingress_entry` is `/api/hassio_ingress/<ingress_token>` */
  ingress_token: string;
  /** the user's options (merged over the config's defaults when read) */
  options: Record<string, unknown>;
  auto_update: boolean;
  /** null: the config's `boot` */
  boot: 'auto' | 'manual' | null;
  /** null: the config's `ports` */
  network: Record<string, number | null> | null;
  audio_output: string | null;
  audio_input: string | null;
  protected: boolean;
  ingress_panel: boolean;
  watchdog: boolean;
  system_managed: boolean;
  system_managed_config_entry: string | null;
}

export interface InstalledApp {
  /** the store key, e.g. `core_hearth_echo` (`<repository slug>_<config slug>`) */
  slug: string;
  repository: string;
  /** the config of the version installed */
  config: AppConfig;
  user: AppUserSettings;
  state: AppState;
}

/** Where the supervisor reaches a running app's port (its container's address on the engine's network). */
export interface AppTarget {
  host: string;
  port: number;
}

export interface AppsView {
  list(): InstalledApp[];
  /** an installed app by slug */
  get(slug: string): InstalledApp | undefined;
  /** the installed app whose ingress token this is */
  byIngressToken(token: string): InstalledApp | undefined;
  /** the app's ingress port as the supervisor reaches it; null when the app does not run or has no ingress */
  ingressTarget(slug: string): Promise<AppTarget | null>;
  /** the installed version's image, built again from the store when it went missing; its `name:tag` */
  ensureImage?(slug: string): Promise<string>;
  /** before the app's backup: a running cold app stops, a running hot one runs its backup_pre; whether it ran */
  beginBackup?(slug: string, context: Context, parent?: JobHandle): Promise<boolean>;
  /** after it, when beginBackup said it ran: a cold app starts again (`started`), a hot one runs its backup_post */
  endBackup?(slug: string, context: Context, parent?: JobHandle): Promise<{ started?: Promise<void> }>;
}
