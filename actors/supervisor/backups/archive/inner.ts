/**
 * Inner archives of a backup (supervisor-wire §5.4/§5.5): a tar of folders and generated files,
 * gzip-compressed when the backup is, encrypted with SecureTar when it has a password; and the
 * way back, extracting into a directory without letting an archive write outside it.
 */
import { createReadStream } from 'node:fs';
import { chmod, chown, link, lchown, lstat, lutimes, mkdir, open, opendir, readlink, realpath, rm, symlink, utimes } from 'node:fs/promises';
import { dirname, join, posix, relative, resolve, sep } from 'node:path';
import { Readable, pipeline } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { ByteSource } from '../securetar/bytes.ts';
import { decrypt, encrypt, type SecureTarKeys } from '../securetar/securetar.ts';
import { groupName, userName } from './owners.ts';
import { readTarStream, TarFormatError, TarStreamWriter, type TarEntry, type TarEntryType } from './tar.ts';
import { versionOrder } from '../../../version-order.ts';

/** The first core whose backups are SecureTar v3. */
const SECURETAR_V3_MIN_CORE = '2026.3.0';

/** What goes into an inner archive, in order. */
export type InnerSource =
  /** one directory entry, e.g. the archive's `.` */
  | { kind: 'directory'; name: string; mode?: number; mtime?: number }
  /** a generated file (`homeassistant.json`, `addon.json`, `mounts.json`) */
  | { kind: 'bytes'; name: string; data: Buffer; mode?: number; mtime?: number }
  /** a file from disk under a name of its own (an app's saved image) */
  | { kind: 'file'; name: string; path: string }
  /**
   * a folder stored under `arcname`, walked as the original walks it: the folder itself, then each
   * item, an excluded directory skipped whole, symlinks kept as links
   */
  | { kind: 'folder'; path: string; arcname: string; exclude?: (arcPath: string) => boolean };

export interface InnerOptions {
  compressed: boolean;
  /** one per backup: its v3 root key is derived once for every inner archive */
  keys?: SecureTarKeys;
  /** the SecureTar version to write (see secureTarVersionFor) */
  secureTarVersion?: 2 | 3;
}

/** Where an inner archive's bytes go: appended, with the SecureTar header patched in at the end. */
export interface InnerSink {
  write(chunk: Buffer): Promise<void>;
  patch(offset: number, data: Buffer): Promise<void>;
}

export class UnsafeArchiveError extends Error {
  readonly code = 'HEARTH_BACKUP_UNSAFE_ENTRY';
  constructor(
    readonly entryName: string,
    problem: string,
  ) {
    super(`archive entry ${JSON.stringify(entryName)} ${problem}`);
    this.name = 'UnsafeArchiveError';
  }
}

/** v3 when Core is 2026.3.0 or newer (a pre-release of it counts as older), else v2 — the original's choice. */
export function secureTarVersionFor(coreVersion: string | null | undefined): 2 | 3 {
  if (!coreVersion || coreVersion === 'landingpage') return 2;
  return (versionOrder(coreVersion, SECURETAR_V3_MIN_CORE) ?? -1) >= 0 ? 3 : 2;
}

// Python's tarfile: gzip level 6 for a seekable plain tar, 9 (its stream default) under encryption
const gzipLevel = (options: InnerOptions) => (options.keys ? 9 : 6);

/** The member name an inner archive has in the outer tar (`share.tar.gz`, `addons_local.tar`). */
export function innerArchiveName(base: string, compressed: boolean): string {
  return `${base.replace(/\//g, '_')}.tar${compressed ? '.gz' : ''}`;
}

/** Joins archive names the way Python's PurePath does (`.` disappears). */
const arcJoin = (base: string, name: string) => (base === '.' || base === '' ? name : `${base}/${name}`);

function typeOf(stats: { isFile(): boolean; isDirectory(): boolean; isSymbolicLink(): boolean; isCharacterDevice(): boolean; isBlockDevice(): boolean; isFIFO(): boolean }): TarEntryType | undefined {
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isSymbolicLink()) return 'symlink';
  if (stats.isCharacterDevice()) return 'character';
  if (stats.isBlockDevice()) return 'block';
  if (stats.isFIFO()) return 'fifo';
  return undefined; // sockets: tarfile skips them
}

/** Entries of a folder, depth first, with their data streamed from disk. */
async function* folderEntries(tar: TarStreamWriter, source: Extract<InnerSource, { kind: 'folder' }>, seen: Map<string, string>): AsyncGenerator<Buffer> {
  if (source.exclude?.(source.arcname)) return;
  yield* pathEntry(tar, source.path, source.arcname, seen);
  const walk = async function* (dir: string, arcname: string): AsyncGenerator<Buffer> {
    const names: string[] = [];
    for await (const item of await opendir(dir)) names.push(item.name);
    names.sort();
    for (const name of names) {
      const path = join(dir, name);
      const arcPath = arcJoin(arcname, name);
      if (source.exclude?.(arcPath)) continue;
      const stats = await lstat(path);
      if (stats.isDirectory()) {
        yield* pathEntry(tar, path, arcPath, seen);
        yield* walk(path, arcPath);
      } else yield* pathEntry(tar, path, arcPath, seen);
    }
  };
  yield* walk(source.path, source.arcname);
}

/** One file system item as a tar entry (Python's gettarinfo: lstat, float mtime, hard links found by inode). */
async function* pathEntry(tar: TarStreamWriter, path: string, name: string, seen: Map<string, string>): AsyncGenerator<Buffer> {
  const stats = await lstat(path, { bigint: true });
  let type = typeOf(stats);
  if (!type) return;
  const inode = `${stats.dev}:${stats.ino}`;
  let linkname: string | undefined;
  if (type === 'file' && stats.nlink > 1n) {
    if (seen.has(inode)) [type, linkname] = ['hardlink', seen.get(inode)];
    else seen.set(inode, name);
  }
  if (type === 'symlink') linkname = await readlink(path);
  const entry: TarEntry = {
    name,
    type,
    mode: Number(stats.mode) & 0o7777,
    // whole seconds and the fraction apart: a 64-bit ns count does not fit a double
    mtime: Number(stats.mtimeNs / 1_000_000_000n) + Number(stats.mtimeNs % 1_000_000_000n) / 1e9,
    size: type === 'file' ? Number(stats.size) : 0,
    linkname,
    uid: Number(stats.uid),
    gid: Number(stats.gid),
    uname: userName(Number(stats.uid)),
    gname: groupName(Number(stats.gid)),
  };
  if (type === 'character' || type === 'block') {
    entry.devmajor = Number((stats.rdev >> 8n) & 0xfffn);
    entry.devminor = Number((stats.rdev & 0xffn) | ((stats.rdev >> 12n) & 0xfff00n));
  }
  yield* tar.entry(entry, entry.size > 0 ? createReadStream(path) : undefined);
}

/** Now in seconds, never a whole number: Python's time.time() values always give a PAX mtime record. */
export function fractionalNow(): number {
  const now = (performance.timeOrigin + performance.now()) / 1000;
  return Number.isInteger(now) ? now + 1e-6 : now;
}

/** The plain tar stream of an inner archive. */
export async function* innerTar(sources: readonly InnerSource[]): AsyncGenerator<Buffer> {
  const tar = new TarStreamWriter();
  const seen = new Map<string, string>();
  const owner = { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
  const ownerNames = { uname: userName(owner.uid), gname: groupName(owner.gid) };
  for (const source of sources) {
    if (source.kind === 'folder') yield* folderEntries(tar, source, seen);
    else if (source.kind === 'file') yield* pathEntry(tar, source.path, source.name, seen);
    else if (source.kind === 'directory') {
      yield* tar.entry({ name: source.name, type: 'directory', mode: source.mode ?? 0o755, mtime: source.mtime ?? fractionalNow(), size: 0, ...owner, ...ownerNames });
    } else {
      yield* tar.entry({ name: source.name, type: 'file', mode: source.mode ?? 0o600, mtime: source.mtime ?? fractionalNow(), size: source.data.length, ...owner, ...ownerNames }, source.data);
    }
  }
  yield tar.end();
}

/** Pipes an async iterable through a transform, failing the output when the input fails. */
function through(source: AsyncIterable<Buffer>, transform: NodeJS.ReadWriteStream): AsyncIterable<Buffer> {
  return pipeline(Readable.from(source), transform, () => {}) as unknown as AsyncIterable<Buffer>;
}

/**
 * Writes one inner archive into `sink` (tar → gzip → SecureTar). Returns the bytes written.
 * With encryption the SecureTar header goes out first with size 0 and is patched at the end.
 */
export async function writeInnerArchive(sources: readonly InnerSource[], options: InnerOptions, sink: InnerSink): Promise<number> {
  let stream: AsyncIterable<Buffer> = innerTar(sources);
  if (options.compressed) stream = through(stream, createGzip({ level: gzipLevel(options) }));
  let written = 0;
  if (!options.keys) {
    for await (const chunk of stream) {
      await sink.write(chunk);
      written += chunk.length;
    }
    return written;
  }
  const chunks = encrypt(stream, options.keys, { version: options.secureTarVersion ?? 2 });
  let step = await chunks.next();
  for (; !step.done; step = await chunks.next()) {
    await sink.write(step.value);
    written += step.value.length;
  }
  await sink.patch(0, step.value.header);
  return written;
}

/** Writes an inner archive as a file of its own (tests, uploads of single parts). */
export async function writeInnerArchiveFile(path: string, sources: readonly InnerSource[], options: InnerOptions): Promise<number> {
  const file = await open(path, 'w');
  let at = 0;
  try {
    return await writeInnerArchive(sources, options, {
      write: async (chunk) => {
        await file.write(chunk, 0, chunk.length, at);
        at += chunk.length;
      },
      patch: async (offset, data) => {
        await file.write(data, 0, data.length, offset);
      },
    });
  } finally {
    await file.close();
  }
}

export interface ExtractOptions {
  compressed: boolean;
  /** required for an encrypted archive; the password is checked before anything is written */
  keys?: SecureTarKeys;
}

/** The plain tar entries of an inner archive's bytes (decrypted, decompressed). */
export function innerEntries(source: ByteSource, options: ExtractOptions) {
  let stream: AsyncIterable<Buffer> = toIterable(source);
  if (options.keys) stream = decrypt(stream, options.keys);
  if (options.compressed) stream = through(stream, createGunzip());
  return readTarStream(stream);
}

function toIterable(source: ByteSource): AsyncIterable<Buffer> {
  if (source instanceof Uint8Array) return Readable.from([Buffer.from(source)]);
  return source as AsyncIterable<Buffer>;
}

const inside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

/**
 * Extracts an inner archive into `target` (an existing, preferably empty directory). Refuses —
 * stopping at the entry — absolute names, names leaving the target, writing through a symlink,
 * links pointing outside it, and device files or FIFOs. Symlinks are made after everything else
 * and checked again once all exist, so no order of entries makes one lead out through another.
 * Modes, mtimes and (as root) owners are restored; directory mtimes last.
 */
export async function extractInnerArchive(source: ByteSource, target: string, options: ExtractOptions): Promise<TarEntry[]> {
  const root = await realpath(target);
  const asRoot = process.getuid?.() === 0;
  const directories: TarEntry[] = [];
  const links: Array<{ entry: TarEntry; destination: string }> = [];
  const extracted: TarEntry[] = [];
  for await (const { entry, data } of innerEntries(source, options)) {
    if (entry.type === 'character' || entry.type === 'block' || entry.type === 'fifo') throw new UnsafeArchiveError(entry.name, `is a ${entry.type === 'fifo' ? 'FIFO' : 'device file'}, which a backup does not restore`);
    const destination = await safeDestination(root, entry.name);
    extracted.push(entry);
    if (entry.type === 'symlink') {
      if (posix.isAbsolute(entry.linkname ?? '')) throw new UnsafeArchiveError(entry.name, `is a symlink pointing outside the target (${entry.linkname})`);
      links.push({ entry, destination });
      continue;
    }
    if (destination !== root) await clear(destination, entry.type === 'directory');
    if (entry.type === 'directory') {
      await mkdir(destination, { recursive: true });
      directories.push({ ...entry, name: destination });
    } else if (entry.type === 'hardlink') {
      const linked = await safeDestination(root, entry.linkname ?? '');
      const stats = await lstat(linked).catch(() => undefined);
      if (!stats?.isFile()) throw new UnsafeArchiveError(entry.name, `is a hard link to ${JSON.stringify(entry.linkname)}, which is not a file extracted before it`);
      await link(linked, destination);
    } else {
      const file = await open(destination, 'wx', 0o600);
      try {
        for await (const chunk of data()) await file.write(chunk);
      } finally {
        await file.close();
      }
    }
    if (entry.type !== 'directory') await applyAttributes(destination, entry, asRoot);
  }
  for (const { entry, destination } of links) {
    await safeDestination(root, entry.name);
    if ((await lstat(destination).catch(() => undefined))?.isDirectory()) throw new UnsafeArchiveError(entry.name, 'is a symlink in place of a directory the archive filled');
    await clear(destination, false);
    if (!(await linkTarget(root, destination, entry.linkname ?? ''))) throw new UnsafeArchiveError(entry.name, `is a symlink pointing outside the target (${entry.linkname})`);
    await symlink(entry.linkname ?? '', destination);
    await applyAttributes(destination, entry, asRoot);
  }
  // a link made later can change where an earlier one leads: check them all as they now stand
  for (const { entry, destination } of links) {
    if (!(await linkTarget(root, destination, entry.linkname ?? ''))) {
      await rm(destination, { force: true });
      throw new UnsafeArchiveError(entry.name, `is a symlink leading outside the target through other links (${entry.linkname})`);
    }
  }
  for (const directory of directories.reverse()) await applyAttributes(directory.name, directory, asRoot);
  return extracted;
}

// the kernel's limit on links followed in one lookup
const MAX_LINK_DEPTH = 40;

/**
 * Where a symlink at `linkPath` with `target` leads, following the links already on disk as the
 * kernel would; undefined when any step leaves `root` (or the links loop).
 */
async function linkTarget(root: string, linkPath: string, target: string, depth = 0): Promise<string | undefined> {
  if (posix.isAbsolute(target) || depth > MAX_LINK_DEPTH) return undefined;
  let current = dirname(linkPath);
  for (const part of target.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..') current = dirname(current);
    else {
      const next = join(current, part);
      const stats = await lstat(next).catch(() => undefined);
      const resolved = stats?.isSymbolicLink() ? await linkTarget(root, next, await readlink(next), depth + 1) : next;
      if (!resolved) return undefined;
      current = resolved;
    }
    if (!inside(root, current)) return undefined;
  }
  return current;
}

/** The absolute path for an entry name, or an UnsafeArchiveError; parents are created and checked for symlinks. */
async function safeDestination(root: string, name: string): Promise<string> {
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) throw new UnsafeArchiveError(name, 'has an absolute name');
  const normal = posix.normalize(name || '.');
  if (normal === '..' || normal.startsWith('../')) throw new UnsafeArchiveError(name, 'leaves the target directory (path traversal)');
  const destination = resolve(root, normal);
  if (!inside(root, destination)) throw new UnsafeArchiveError(name, 'leaves the target directory (path traversal)');
  if (destination === root) return root;
  const parent = dirname(destination);
  await mkdir(parent, { recursive: true });
  // a symlink among the parents (extracted earlier, or already there) would carry the write elsewhere
  const real = await realpath(parent);
  if (!inside(root, real) || relative(root, real) !== relative(root, parent)) throw new UnsafeArchiveError(name, 'would be written through a symlink');
  return destination;
}

/** Makes room for an entry: a previous file or link at its place goes; an existing directory stays for a directory entry. */
async function clear(path: string, forDirectory: boolean): Promise<void> {
  const stats = await lstat(path).catch(() => undefined);
  if (!stats) return;
  if (stats.isDirectory() && forDirectory) return;
  await rm(path, { recursive: stats.isDirectory(), force: true });
}

async function applyAttributes(path: string, entry: TarEntry, asRoot: boolean): Promise<void> {
  if (entry.type === 'symlink') {
    if (asRoot) await lchown(path, entry.uid ?? 0, entry.gid ?? 0);
    await lutimes(path, entry.mtime, entry.mtime);
    return;
  }
  if (asRoot) await chown(path, entry.uid ?? 0, entry.gid ?? 0);
  // setuid/setgid/sticky are not restored from a backup (Python's "tar" extraction filter)
  await chmod(path, entry.mode & 0o777);
  await utimes(path, entry.mtime, entry.mtime);
}

export { TarFormatError };
