/**
 * An inner archive unpacked into a directory by node-tar's Unpack, which by itself never writes
 * through a symlink (parents are checked, files opened O_NOFOLLOW) and keeps links from leading
 * out by name; EntryPolicy refuses beforehand what a backup never holds, naming the member, and
 * every symlink is checked again on disk once all exist, since two links can lead out together
 * where neither does alone. Modes (without setuid/setgid/sticky, as Python's "tar" extraction
 * filter), mtimes to the microsecond and, as root, owners are set once everything is written,
 * directories last.
 */
import { chmod, chown, lchown, lutimes, realpath, rm, utimes } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { Parser, Unpack, type ReadEntry } from 'tar';
import type { ByteSource } from '../securetar/bytes.ts';
import { EntryPolicy, inside, linkTarget, placeOf, UnsafeArchiveError } from './entry-policy.ts';
import { innerTarBytes, type ExtractOptions } from './inner.ts';
import type { TarEntry } from './tar.ts';
import { entryDescriber, parse, PARSER_OPTIONS } from './tar-read.ts';

export { UnsafeArchiveError };

/** The entries of an inner archive, read without extracting anything. */
export async function listInnerArchive(source: ByteSource, options: ExtractOptions): Promise<TarEntry[]> {
  const entries: TarEntry[] = [];
  const parser = new Parser({
    ...PARSER_OPTIONS,
    onReadEntry: (entry) => {
      entries.push(describe(entry));
      entry.resume();
    },
  });
  const describe = entryDescriber(parser);
  await parse(parser, innerTarBytes(source, options));
  return entries;
}

type EntryFailure = Error & { code?: string; tarCode?: string; entry?: ReadEntry; symlink?: string };

/** A failure node-tar reports about one entry, naming the entry; anything else as it is. */
function entryFailure(error: EntryFailure, root: string): Error {
  const entry = error.entry;
  if (!entry || error instanceof UnsafeArchiveError) return error;
  if (error.code === 'TAR_SYMLINK_ERROR' && error.symlink) {
    const symlink = relative(root, error.symlink);
    if (inside(error.symlink, dirname(join(root, placeOf(entry.path))))) return new UnsafeArchiveError(entry.path, `would be written through a symlink (${symlink})`);
    return new UnsafeArchiveError(entry.path, `is a link whose target passes through a symlink (${symlink})`);
  }
  // node-tar's own refusals (a `..`, a stripped `/`, a device file): EntryPolicy refuses these first
  if (error.tarCode && !('syscall' in error)) return new UnsafeArchiveError(entry.path, `is refused by tar: ${error.message.replace(/^TAR_[A-Z_]+: /, '')}`);
  return new Error(`archive entry ${JSON.stringify(entry.path)} could not be extracted: ${error.message}`, { cause: error });
}

/**
 * Extracts an inner archive into `target` (an existing, preferably empty directory), stopping at
 * the first entry refused; what was extracted before it stays for the caller to discard.
 */
export async function extractInnerArchive(source: ByteSource, target: string, options: ExtractOptions): Promise<TarEntry[]> {
  const root = await realpath(target);
  const policy = new EntryPolicy();
  const extracted: TarEntry[] = [];
  // the entry each place ends with: the one whose attributes it gets
  const last = new Map<string, TarEntry>();
  let refused = false;
  const unpack = new Unpack({
    ...PARSER_OPTIONS,
    cwd: root,
    // set below, after everything is written
    noMtime: true,
    preserveOwner: false,
    filter: (_path, entry) => {
      if (refused) return false;
      const refusal = policy.refusal(entry as ReadEntry);
      if (!refusal) return true;
      refused = true;
      unpack.emit('error', refusal);
      return false;
    },
    onReadEntry: (entry) => {
      const described = describe(entry);
      extracted.push(described);
      last.set(placeOf(entry.path), described);
      if (entry.mode) entry.mode &= 0o777;
    },
  });
  const describe = entryDescriber(unpack);
  try {
    await parse(unpack, innerTarBytes(source, options));
  } catch (error) {
    throw entryFailure(error as EntryFailure, root);
  }
  // a link made later can change where an earlier one leads: check them all as they now stand
  for (const [place, { name, linkname }] of policy.symlinks) {
    const path = join(root, place);
    if (await linkTarget(root, path, linkname)) continue;
    await rm(path, { force: true });
    throw new UnsafeArchiveError(name, `is a symlink leading outside the target through other links (${linkname})`);
  }
  const asRoot = process.getuid?.() === 0;
  const directories: Array<[string, TarEntry]> = [];
  for (const [place, entry] of last) {
    if (entry.type === 'directory') directories.push([join(root, place), entry]);
    else await applyAttributes(join(root, place), entry, asRoot);
  }
  for (const [path, entry] of directories.reverse()) await applyAttributes(path, entry, asRoot);
  return extracted;
}

async function applyAttributes(path: string, entry: TarEntry, asRoot: boolean): Promise<void> {
  if (entry.type === 'symlink') {
    if (asRoot) await lchown(path, entry.uid ?? 0, entry.gid ?? 0);
    await lutimes(path, entry.mtime, entry.mtime);
    return;
  }
  if (asRoot) await chown(path, entry.uid ?? 0, entry.gid ?? 0);
  await chmod(path, entry.mode & 0o777);
  await utimes(path, entry.mtime, entry.mtime);
}
