/**
 * Inner archives of a backup (supervisor-wire §5.4/§5.5): a tar of folders and generated files,
 * gzip-compressed when the backup is, encrypted with SecureTar when it has a password; and the
 * way back to the plain tar, which extract.ts unpacks.
 */
import { createReadStream } from 'node:fs';
import { lstat, open, opendir, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable, pipeline } from 'node:stream';
import { createGunzip, createGzip } from 'node:zlib';
import type { ByteSource } from '../securetar/bytes.ts';
import { decrypt, encrypt, type SecureTarKeys } from '../securetar/securetar.ts';
import { groupName, userName } from './owners.ts';
import { TarStreamWriter, type TarEntry, type TarEntryType } from './tar.ts';
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

/** The plain tar bytes of an inner archive (decrypted, decompressed). */
export function innerTarBytes(source: ByteSource, options: ExtractOptions): AsyncIterable<Buffer> {
  let stream: AsyncIterable<Buffer> = source instanceof Uint8Array ? Readable.from([Buffer.from(source)]) : (source as AsyncIterable<Buffer>);
  if (options.keys) stream = decrypt(stream, options.keys);
  if (options.compressed) stream = through(stream, createGunzip({ chunkSize: 256 * 1024 }));
  return stream;
}
