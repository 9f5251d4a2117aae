import { execFile } from 'node:child_process';
import { access, chmod, copyFile, mkdir, realpath } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';

/**
 * Putting this host's programs into an image's root filesystem: nothing can be pulled, so the
 * core's node, the dns plugin's and the Mosquitto app's binaries are copied from the host with
 * the shared libraries `ldd` names for them (the loader included).
 */

const run = promisify(execFile);

/** The shared libraries (with the loader) a binary needs, as absolute paths; none for a static one. */
async function librariesOf(file: string): Promise<string[]> {
  let out: string;
  try {
    out = (await run('ldd', [file])).stdout;
  } catch {
    return []; // "not a dynamic executable"
  }
  const libs: string[] = [];
  for (const line of out.split('\n')) {
    const m = /=>\s+(\/\S+)\s+\(/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m) libs.push(m[1]);
  }
  return libs;
}

/** Copies a host file to the same path under `root`, following links (the file, not the link). */
export async function copyHostFile(root: string, file: string, mode?: number): Promise<void> {
  const target = join(root, file);
  await mkdir(dirname(target), { recursive: true });
  await copyFile(await realpath(file), target);
  if (mode !== undefined) await chmod(target, mode);
}

/** Copies the shared libraries (with the loader) the binaries need into `root`; answers how many. */
export async function addLibraries(root: string, binaries: string[]): Promise<number> {
  const libs = new Set<string>();
  for (const b of binaries) for (const lib of await librariesOf(b)) libs.add(lib);
  for (const lib of libs) await copyHostFile(root, lib);
  return libs.size;
}

/** A program of a Debian package this host must have installed. */
export interface HostProgram {
  path: string;
  /** the Debian package that installs it, named when it is missing */
  package: string;
}

/**
 * Copies host programs (at their own paths) and their libraries into `root`; answers how many
 * libraries. A missing program is an error naming its package and what needed it.
 */
export async function addHostPrograms(root: string, programs: HostProgram[], neededBy: string): Promise<number> {
  for (const p of programs) {
    await access(p.path).catch(() => {
      throw new Error(`${neededBy} is made from this host's ${p.path}, which is missing: apt-get install -y ${p.package}`);
    });
  }
  for (const p of programs) await copyHostFile(root, p.path, 0o755);
  return addLibraries(root, programs.map((p) => p.path));
}
