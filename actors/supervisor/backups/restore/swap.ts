/**
 * A restore replaces directories only once everything it needs is extracted beside them: the new
 * content is staged in a sibling directory (same filesystem, so the swap is renames), and the old
 * content moves aside before the staged one moves in, so a failure part way puts it back.
 */
import { mkdir, readdir, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** A fresh, empty staging directory beside `target` (`<parent>/.<name>.restore-<id>`). */
export async function stagingDir(target: string, id: string): Promise<string> {
  const dir = join(dirname(target), `.${basename(target)}.restore-${id}`);
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return dir;
}

/** Removes a staging directory (a restore that failed or is done with it). */
export const discard = (dir: string) => rm(dir, { recursive: true, force: true });

/**
 * Makes `target` hold exactly the entries of `staged` plus those of its own entries `keep`
 * names (top-level names; the core's live log stays for the core to replace at its start).
 * `staged` is consumed. On a failure every entry already moved goes back.
 */
export async function swapDirectory(target: string, staged: string, keep: (name: string) => boolean = () => false): Promise<void> {
  await mkdir(target, { recursive: true });
  const aside = `${staged}.old`;
  await rm(aside, { recursive: true, force: true });
  await mkdir(aside);
  const movedOut: string[] = [];
  const movedIn: string[] = [];
  try {
    for (const name of await readdir(target)) {
      if (keep(name)) continue;
      await rename(join(target, name), join(aside, name));
      movedOut.push(name);
    }
    for (const name of await readdir(staged)) {
      if (keep(name)) continue;
      await rename(join(staged, name), join(target, name));
      movedIn.push(name);
    }
  } catch (error) {
    for (const name of movedIn.reverse()) await rename(join(target, name), join(staged, name)).catch(() => {});
    for (const name of movedOut.reverse()) await rename(join(aside, name), join(target, name)).catch(() => {});
    await rm(aside, { recursive: true, force: true }).catch(() => {});
    throw error;
  }
  await rm(aside, { recursive: true, force: true });
  await rm(staged, { recursive: true, force: true });
}
