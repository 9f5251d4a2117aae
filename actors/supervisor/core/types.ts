/**
 * What the rest of the supervisor needs of the core runtime (actors/supervisor/core/): the core
 * runs as a container on the local engine, built locally from the installed Hearth. Also its
 * settings (the section `core`), what GET /core/info answers, and a core run as a host process.
 */
export interface CoreRuntimeView {
  /** the container's name on the engine (default `hearth_core`) */
  readonly containerName: string;
  /** the core's data directory on the host, mounted into the container (`<data>/core`) */
  readonly dataDir: string;
  /** the image name without tag (`hearth/core`) */
  image(): string;
  /** the version running or installed (the image tag), null before the first install */
  version(): string | null;
}

/** The section `core` of the supervisor's settings (POST /core/options), with the installed version. */
export const CORE_DEFAULTS = {
  version: null as string | null,
  boot: true,
  /** an image name without tag replacing `hearth/core`; null: the built one */
  image: null as string | null,
  port: 1702,
  ssl: false,
  watchdog: true,
  refresh_token: null as string | null,
  audio_input: null as string | null,
  audio_output: null as string | null,
  backups_exclude_database: false,
  duplicate_log_file: false,
};
export type CoreSettings = typeof CORE_DEFAULTS;

/** What GET /core/info answers (key order of the original). */
export interface CoreInfo {
  version: string | null;
  version_latest: string | null;
  update_available: boolean;
  machine: string;
  ip_address: string | null;
  arch: string;
  image: string;
  boot: boolean;
  port: number;
  ssl: boolean;
  watchdog: boolean;
  audio_input: string | null;
  audio_output: string | null;
  backups_exclude_database: boolean;
  duplicate_log_file: boolean;
}


/** A core run outside the engine: a restore stops it before replacing its data and starts it after. */
export interface CoreHostProcess {
  running(): Promise<boolean>;
  stop(): Promise<void>;
  start(): Promise<void>;
}
