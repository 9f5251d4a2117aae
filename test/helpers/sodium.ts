// The tests' independent reference: libsodium through a small python3 ctypes script
// (test/helpers/sodium-reference.py). Absent libsodium or python3 → `sodiumMissing` says why.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const SCRIPT = fileURLToPath(new URL('./sodium-reference.py', import.meta.url));

function probe(): string | undefined {
  const run = spawnSync('python3', [SCRIPT], { input: JSON.stringify({ op: 'blake2b', message: '', key: '', salt: '', personal: '', outlen: 32 }) });
  if (run.error) return `python3 is not available (${run.error.message}); install python3 and libsodium23 for the libsodium cross-checks`;
  if (run.status === 3) return 'libsodium is not installed (apt-get install libsodium23); skipping the libsodium cross-checks';
  if (run.status !== 0) return `the libsodium reference script failed: ${run.stderr.toString()}`;
  return undefined;
}

/** Why the libsodium cross-checks cannot run here, or undefined when they can. */
export const sodiumMissing: string | undefined = probe();

/** One request to the reference script. */
export function sodium<T = Record<string, unknown>>(request: Record<string, unknown>): T {
  const run = spawnSync('python3', [SCRIPT], { input: JSON.stringify(request), maxBuffer: 256 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`libsodium reference failed (${run.status}): ${run.stderr.toString()}`);
  return JSON.parse(run.stdout.toString()) as T;
}
