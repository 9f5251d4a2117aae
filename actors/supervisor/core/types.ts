/**
 * What the rest of the supervisor needs of the core runtime (actors/supervisor/core/): the core
 * runs as a container on the local engine, built locally from the installed Hearth.
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
