// The backup archive tests' independent reader and writer: Python's tarfile through a small
// script (test/helpers/tar-reference.py), plus GNU tar on the command line.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./tar-reference.py', import.meta.url));

export interface PyMember {
  name: string;
  type: string;
  mode: number;
  mtime: number;
  size: number;
  linkname: string;
  uid: number;
  gid: number;
  uname: string;
  gname: string;
  pax: Record<string, string>;
  sha256?: string | null;
}

/** One request to the Python reference; throws with its error text when it fails. */
export function py<T = { members: PyMember[] }>(request: Record<string, unknown>): T {
  const run = spawnSync('python3', [SCRIPT], { input: JSON.stringify(request), maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`python tarfile reference failed (${run.status}): ${run.stdout.toString()}${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString()) as T;
}

/** GNU tar with `args`; returns stdout, throws with stderr on failure. */
export function gnuTar(args: string[]): string {
  const run = spawnSync('tar', args, { maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`tar ${args.join(' ')} failed: ${run.stderr.toString()}`);
  return run.stdout.toString();
}
