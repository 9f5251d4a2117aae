/**
 * Network mounts as the supervisor keeps them (supervisor-api §2 Mount, supervisor-wire §4.6).
 * The stored form never holds a username or password: those live in a credentials file beside
 * the mount (see credentials.ts), so neither a record nor an answer can carry them.
 */

export const MOUNT_TYPES = ['cifs', 'nfs'] as const;
export const MOUNT_USAGES = ['backup', 'media', 'share'] as const;
export const CIFS_VERSIONS = ['1.0', '2.0'] as const;

export type MountType = (typeof MOUNT_TYPES)[number];
export type MountUsage = (typeof MOUNT_USAGES)[number];

/**
 * The state a mount is reported in: the original's systemd ActiveState values Hearth can reach
 * (`activating` while mounting, `deactivating` while unmounting, `inactive` when something else
 * unmounted it), or null when no mount was tried (or it was unmounted on purpose).
 */
export type MountState = 'active' | 'activating' | 'deactivating' | 'failed' | 'inactive' | null;

/**
 * The records of the mounts: `supervisor/mount/<name>` holds a mount's configuration (and
 * whether a credentials file goes with it), `supervisor/mounts` the default backup mount.
 */
export type MountRecord =
  | { type: 'mount_created' | 'mount_updated'; data: { config: MountConfig; credentials?: boolean } }
  | { type: 'mount_removed'; data: { name: string } }
  | { type: 'default_backup_mount_changed'; data: { default_backup_mount?: string | null } };

/** One mount's configuration, secrets left out. */
export interface MountConfig {
  name: string;
  type: MountType;
  usage: MountUsage;
  read_only: boolean;
  server: string;
  port?: number;
  /** CIFS: the share on the server */
  share?: string;
  /** CIFS: the protocol version, null for the client's choice */
  version?: (typeof CIFS_VERSIONS)[number] | null;
  /** NFS: the exported path */
  path?: string;
}

/** CIFS username and password (both or neither). */
export interface MountCredentials {
  username: string;
  password: string;
}

/** A mount as GET /mounts lists it. */
export type MountView = Record<string, unknown> & { name: string; state: MountState; user_path: string | null };

/** What other parts of the supervisor read of the mounts (the backup manager, the handlers). */
export interface MountsView {
  /** every mount as the API lists it, with its current state */
  list(): Promise<MountView[]>;
  has(name: string): boolean;
  config(name: string): MountConfig | undefined;
  defaultBackupMount(): string | null;
  /**
   * Where a backup location named `name` is written: the local path of an active mount with
   * `backup` usage, or undefined (no such mount, not for backups, or not mounted now).
   */
  activeBackupPath(name: string): Promise<string | undefined>;
  /**
   * A backup location that names a mount (supervisor-wire §5.6, §5.9): the active backup mount's
   * local path, else the original's refusal: 404 `mount_not_found_error`, 400 `Mount <n> is not
   * used for backups, cannot backup to there`, or 400 `backup_mount_down`.
   */
  backupLocation(name: string): Promise<string>;
  /**
   * The folders inside `<data>/media` and `<data>/share` a mount is bound into: a backup of those
   * folders leaves them out, as the original skips its bound network mounts.
   */
  boundFolders(): string[];
  /**
   * `mounts.json` as a backup's `supervisor.tar.gz` holds it (supervisor-wire §6): every mount's
   * whole configuration, CIFS username and password included. For the backup's own (encrypted)
   * archive only: never an answer nor a log line.
   */
  exportForBackup(): Promise<{ default_backup_mount: string | null; mounts: (MountConfig & Partial<MountCredentials>)[] }>;
}
