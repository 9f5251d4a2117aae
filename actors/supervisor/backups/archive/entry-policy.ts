/**
 * What an inner archive may put on disk, judged from its entries in archive order before node-tar
 * extracts them (supervisor-wire §5.4): where node-tar would quietly strip a leading `/` or skip
 * a device file, a backup is refused with a message naming the member. And the check no name can
 * make: where each symlink leads once all of them exist.
 */
import { lstat, readlink } from 'node:fs/promises';
import { dirname, join, posix, sep } from 'node:path';
import type { ReadEntry } from 'tar';

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

/** An entry's place relative to the target, the way node-tar resolves it (`./a/` and `a` are one). */
export const placeOf = (name: string) => posix.normalize(name).replace(/\/+$/, '') || '.';

/** What is wrong with a name as a place in the target, if anything. */
function nameProblem(name: string): string | undefined {
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'is absolute';
  const place = placeOf(name);
  if (place === '..' || place.startsWith('../')) return 'leaves the target directory (path traversal)';
  // node-tar refuses any `..`, even one that stays inside; a backup never writes one
  if (name.split('/').includes('..')) return 'has ".." in its name';
}

const ancestors = (place: string) => {
  const out: string[] = [];
  for (let parent = posix.dirname(place); parent !== '.'; parent = posix.dirname(parent)) out.push(parent);
  return out;
};

export class EntryPolicy {
  // places of what has been admitted so far, as the archive leaves them
  private readonly files = new Set<string>();
  private readonly directories = new Set<string>();
  /** the symlinks the archive leaves, by place: checked on disk once extraction is done */
  readonly symlinks = new Map<string, { name: string; linkname: string }>();

  /** The refusal for an entry, or undefined when node-tar may extract it. */
  refusal(entry: ReadEntry): UnsafeArchiveError | undefined {
    const problem = this.problem(entry);
    if (problem) return new UnsafeArchiveError(entry.path, problem);
    this.admit(entry);
  }

  private problem(entry: ReadEntry): string | undefined {
    const { path: name, type } = entry;
    const linkname = entry.linkpath ?? '';
    if (type === 'CharacterDevice' || type === 'BlockDevice') return 'is a device file, which a backup does not restore';
    if (type === 'FIFO') return 'is a FIFO, which a backup does not restore';
    const nameIs = nameProblem(name);
    if (nameIs === 'is absolute') return 'has an absolute name';
    if (nameIs) return nameIs;
    const place = placeOf(name);
    if (place === '.' && type !== 'Directory' && type !== 'GNUDumpDir') return 'would replace the target directory itself';
    if (type === 'Link') {
      const linkIs = nameProblem(linkname);
      if (linkIs) return `is a hard link to ${JSON.stringify(linkname)}, which ${linkIs}`;
      if (!this.files.has(placeOf(linkname))) return `is a hard link to ${JSON.stringify(linkname)}, which is not a file extracted before it`;
    }
    if (type === 'SymbolicLink') {
      const leadsTo = posix.normalize(posix.join(posix.dirname(place), linkname));
      if (posix.isAbsolute(linkname) || leadsTo === '..' || leadsTo.startsWith('../')) return `is a symlink pointing outside the target (${linkname})`;
      if (this.directories.has(place)) return 'is a symlink in place of a directory the archive filled';
    }
  }

  private admit(entry: ReadEntry): void {
    const place = placeOf(entry.path);
    for (const parent of ancestors(place)) this.directories.add(parent);
    const isFile = entry.type === 'File' || entry.type === 'OldFile' || entry.type === 'ContiguousFile' || entry.type === 'Link';
    if (isFile) this.files.add(place);
    else this.files.delete(place);
    if (entry.type === 'Directory' || entry.type === 'GNUDumpDir') this.directories.add(place);
    if (entry.type === 'SymbolicLink') this.symlinks.set(place, { name: entry.path, linkname: entry.linkpath ?? '' });
    else this.symlinks.delete(place);
  }
}

/** Whether `path` is `root` or under it. */
export const inside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep);

// the kernel's limit on links followed in one lookup
const MAX_LINK_DEPTH = 40;

/**
 * Where a symlink at `linkPath` with `target` leads, following the links already on disk as the
 * kernel would; undefined when any step leaves `root` (or the links loop).
 */
export async function linkTarget(root: string, linkPath: string, target: string, depth = 0): Promise<string | undefined> {
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
