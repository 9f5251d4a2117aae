/**
 * Writes a whole backup file in the original's layout (supervisor-wire §5.1): Core, apps, folders,
 * Supervisor config, each an inner archive streamed straight into the outer tar, `backup.json`
 * last. The file is built as `<name>.tar.partial` and renamed when complete, so a crash never
 * leaves a half backup under a name the backup list would pick up.
 */
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import { BACKUP_FOLDERS, encodeBackupJson, type BackupAppMeta, type BackupCoreMeta, type BackupFolder, type BackupMeta } from './backup-json.ts';
import { appExcludeMatches, CORE_BACKUP_EXCLUDE, CORE_BACKUP_EXCLUDE_DATABASE, excludedBy } from './glob.ts';
import { fractionalNow, innerArchiveName, secureTarVersionFor, writeInnerArchive, type InnerSource } from './inner.ts';
import { SecureTarKeys } from '../securetar/securetar.ts';
import { TarFileWriter } from './tar.ts';

export interface BackupWriterOptions {
  /** the finished file, `<dir>/<slug>.tar` by default */
  path: string;
  compressed: boolean;
  /** encrypts every inner archive; an empty string means none, as in the original */
  password?: string | null;
  /** Core's installed version decides the SecureTar version (v3 from 2026.3.0) */
  coreVersion?: string | null;
}

/** What backup.json records that the writer does not learn from the parts it writes. */
export type BackupHeadline = Pick<BackupMeta, 'slug' | 'name' | 'date' | 'type' | 'supervisor_version'> & Partial<Pick<BackupMeta, 'extra' | 'repositories'>>;

export class BackupWriteError extends Error {
  readonly code = 'HEARTH_BACKUP_WRITE';
  constructor(message: string) {
    super(message);
    this.name = 'BackupWriteError';
  }
}

/**
 * One part could not be archived (a file vanished, a folder is missing). Its member is closed so
 * the file stays a valid tar, it is left out of backup.json, and the backup can go on — the
 * original records such errors on the part's job and finishes the backup.
 */
export class BackupPartError extends BackupWriteError {
  constructor(
    readonly part: string,
    cause: unknown,
  ) {
    super(`Can't backup ${part}: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'BackupPartError';
  }
}

// the original's member order; a part may not come after a later kind
const RANK = { core: 0, app: 1, folder: 2, supervisor: 3, metadata: 4 } as const;
type Part = keyof typeof RANK;

/** The partial file a backup is written to before it is complete. */
export const partialPath = (path: string) => `${path}.partial`;

export class BackupWriter {
  private rank = -1;
  private readonly names = new Set<string>();
  private core: BackupCoreMeta | null = null;
  private readonly apps: BackupAppMeta[] = [];
  private readonly folders: BackupFolder[] = [];
  private done = false;
  // a failed write to the backup file itself: nothing more can be added, only abort()
  private fatal?: Error;
  private closed = false;

  private constructor(
    private readonly options: BackupWriterOptions,
    private readonly file: FileHandle,
    private readonly tar: TarFileWriter,
    private readonly keys: SecureTarKeys | undefined,
  ) {}

  /** Starts a backup; refuses when the finished file (or another writer's partial file) exists. */
  static async create(options: BackupWriterOptions): Promise<BackupWriter> {
    if (await stat(options.path).then(() => true, () => false)) throw new BackupWriteError(`Cannot make new backup at ${options.path}, file already exists!`);
    let file: FileHandle;
    try {
      file = await open(partialPath(options.path), 'wx');
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') throw new BackupWriteError(`Cannot make new backup at ${options.path}, a backup is already being written there`);
      throw new BackupWriteError(`Cannot open backup file ${options.path} for writing: ${(error as Error).message}`);
    }
    const keys = options.password ? new SecureTarKeys(options.password) : undefined;
    return new BackupWriter(options, file, new TarFileWriter(file), keys);
  }

  get compressed(): boolean {
    return this.options.compressed;
  }

  get protected(): boolean {
    return this.keys !== undefined;
  }

  /** Core's config: `.`, `./homeassistant.json` (the Supervisor's Core settings), then `data/` with the exclusions. */
  async addCore(part: { version: string; settings: unknown; configDir: string; excludeDatabase: boolean; exclude?: readonly string[] }): Promise<void> {
    // `exclude`: the core's own layout (Hearth's core is not the original's, its database is its log)
    const globs = part.exclude ? [...part.exclude] : part.excludeDatabase ? [...CORE_BACKUP_EXCLUDE, ...CORE_BACKUP_EXCLUDE_DATABASE] : [...CORE_BACKUP_EXCLUDE];
    await this.addInner('core', 'homeassistant', [
      // the original archives a fresh temporary directory here: mode 0700
      { kind: 'directory', name: '.', mode: 0o700 },
      { kind: 'bytes', name: './homeassistant.json', data: Buffer.from(JSON.stringify(part.settings)) },
      { kind: 'folder', path: part.configDir, arcname: 'data', exclude: excludedBy(globs, 'data') },
    ]);
    this.core = { version: part.version, exclude_database: part.excludeDatabase, size: 0 };
  }

  /** One app: the caller gives its parts (appArchiveSources builds the usual ones). */
  async addApp(app: { slug: string; name: string; version: string }, sources: readonly InnerSource[]): Promise<void> {
    await this.addInner('app', app.slug, sources);
    // the original records 0: its archive size was never measured
    this.apps.push({ slug: app.slug, name: app.name, version: app.version, size: 0 });
  }

  /** A folder (`share`, `addons/local`, `ssl`, `media`) stored with arcname `.`; `skip` leaves out full paths (bind-mounted network mounts). */
  async addFolder(folder: BackupFolder, dir: string, skip?: (fullPath: string) => boolean): Promise<void> {
    if (!(BACKUP_FOLDERS as readonly string[]).includes(folder)) throw new BackupWriteError(`${folder} is not a folder a backup can hold`);
    // as the original: a missing folder is reported and gets no member at all
    if (!(await stat(dir).then((s) => s.isDirectory(), () => false))) throw new BackupPartError(folder, new Error(`folder ${dir} does not exist`));
    const exclude = skip ? (arcPath: string) => skip(arcPath === '.' ? dir : `${dir}/${arcPath}`) : undefined;
    await this.addInner('folder', folder, [{ kind: 'folder', path: dir, arcname: '.', exclude }]);
    this.folders.push(folder);
  }

  /** Mount and registry settings: `mounts.json` and `docker.json`, only when there is something to keep. */
  async addSupervisorConfig(config: { mounts: unknown; docker: unknown }): Promise<void> {
    await this.addInner('supervisor', 'supervisor', [
      { kind: 'bytes', name: 'mounts.json', data: Buffer.from(JSON.stringify(config.mounts)), mode: 0o644, mtime: 0 },
      { kind: 'bytes', name: 'docker.json', data: Buffer.from(JSON.stringify(config.docker)), mode: 0o644, mtime: 0 },
    ]);
  }

  private advance(part: Part, what: string): void {
    if (this.done) throw new BackupWriteError(`the backup at ${this.options.path} is already finished`);
    if (this.fatal) throw new BackupWriteError(`the backup at ${this.options.path} failed to write (${this.fatal.message}); abort it`);
    if (RANK[part] < this.rank) throw new BackupWriteError(`${what} cannot be added after later parts (order: Core, apps, folders, Supervisor config, backup.json)`);
    this.rank = RANK[part];
  }

  private async addInner(part: Part, base: string, sources: readonly InnerSource[]): Promise<void> {
    const name = innerArchiveName(base, this.options.compressed);
    this.advance(part, name);
    if (this.names.has(name)) throw new BackupWriteError(`${name} is already in this backup`);
    this.names.add(name);
    // Python's PAX header for the member: a fractional mtime, so large sizes always fit
    const member = await this.fileStep(() => this.tar.begin({ name, type: 'file', mode: 0o644, mtime: fractionalNow() }));
    let written = 0;
    let sinkFailed = false;
    const sink = async (step: () => Promise<void>) => {
      try {
        await step();
      } catch (error) {
        sinkFailed = true;
        throw error;
      }
    };
    try {
      await writeInnerArchive(sources, { compressed: this.options.compressed, keys: this.keys, secureTarVersion: secureTarVersionFor(this.options.coreVersion) }, {
        write: (chunk) =>
          sink(async () => {
            await member.write(chunk);
            written += chunk.length;
          }),
        patch: (offset, data) =>
          sink(async () => {
            if (offset + data.length > written) throw new BackupWriteError(`${name}: patch beyond the data written`);
            await this.file.write(data, 0, data.length, this.tar.position - written + offset);
          }),
      });
    } catch (error) {
      if (sinkFailed) throw this.fail(error);
      // the half-written part stays a closed member, unlisted in backup.json, as in the original
      await this.fileStep(() => member.end());
      throw new BackupPartError(name, error);
    }
    await this.fileStep(() => member.end());
  }

  /** Runs a write to the backup file; a failure there ends the backup. */
  private async fileStep<T>(step: () => Promise<T>): Promise<T> {
    try {
      return await step();
    } catch (error) {
      throw this.fail(error);
    }
  }

  private fail(error: unknown): BackupWriteError {
    this.fatal = error instanceof Error ? error : new Error(String(error));
    return new BackupWriteError(`Can't write backup file ${this.options.path}: ${this.fatal.message}`);
  }

  /** Writes backup.json last, ends the archive and gives the file its final name. */
  async finish(headline: BackupHeadline): Promise<{ path: string; size: number; meta: BackupMeta }> {
    this.advance('metadata', 'backup.json');
    const meta: BackupMeta = {
      ...headline,
      version: 2,
      extra: headline.extra ?? {},
      repositories: headline.repositories ?? [],
      compressed: this.options.compressed,
      protected: this.protected,
      homeassistant: this.core,
      folders: this.folders,
      addons: this.apps,
    };
    const json = encodeBackupJson(meta);
    await this.fileStep(async () => {
      await this.tar.add({ name: './backup.json', type: 'file', mode: 0o644, mtime: Math.floor(Date.now() / 1000), size: json.length, uid: 0, gid: 0 }, json);
      await this.tar.finish();
      await this.file.sync();
      this.closed = true;
      await this.file.close();
      await rename(partialPath(this.options.path), this.options.path);
    });
    this.done = true;
    return { path: this.options.path, size: this.tar.position, meta: JSON.parse(json.toString()) as BackupMeta };
  }

  /** Gives up: the partial file is removed. */
  async abort(): Promise<void> {
    if (this.done) return;
    this.done = true;
    if (!this.closed) await this.file.close().catch(() => {});
    this.closed = true;
    await rm(partialPath(this.options.path), { force: true });
  }
}

/**
 * An app's usual archive parts (§5.4): `.`, `./addon.json`, optional `./apparmor.txt` and
 * `./image.tar`, `data/` filtered by the app's `backup_exclude` (matched against the full path),
 * and `config/` when the app maps its public config folder.
 */
export function appArchiveSources(app: {
  addonJson: unknown;
  dataDir: string;
  configDir?: string;
  backupExclude?: readonly string[];
  apparmor?: Buffer;
  /** a `docker save` of a locally built image, as a file */
  imageTar?: string;
}): InnerSource[] {
  const globs = app.backupExclude ?? [];
  const exclude = (dir: string, arcname: string) => (arcPath: string) => {
    const full = arcPath === arcname ? dir : `${dir}/${arcPath.slice(arcname.length + 1)}`;
    return globs.some((glob) => appExcludeMatches(glob, full));
  };
  const sources: InnerSource[] = [{ kind: 'directory', name: '.' }, { kind: 'bytes', name: './addon.json', data: Buffer.from(JSON.stringify(app.addonJson)) }];
  if (app.apparmor) sources.push({ kind: 'bytes', name: './apparmor.txt', data: app.apparmor });
  if (app.imageTar) sources.push({ kind: 'file', name: './image.tar', path: app.imageTar });
  sources.push({ kind: 'folder', path: app.dataDir, arcname: 'data', exclude: exclude(app.dataDir, 'data') });
  if (app.configDir) sources.push({ kind: 'folder', path: app.configDir, arcname: 'config', exclude: exclude(app.configDir, 'config') });
  return sources;
}
