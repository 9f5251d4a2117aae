// A Hearth core process run by a test supervisor the way its container is: env SUPERVISOR and
// SUPERVISOR_TOKEN name the supervisor, and the supervisor reaches the core on a host port.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnHearth, type HearthProcess } from './process.ts';
import type { TestSupervisor } from './supervisor.ts';
import { onboard } from './hearth.ts';
import { eventually } from './wait.ts';

export interface SupervisedCore {
  process: HearthProcess;
  base: string;
  dataDir: string;
  /** stops the process and resolves once it has exited */
  stop(): Promise<void>;
}

/**
 * Starts the core on `port` (the supervisor was given `coreUrl` http://127.0.0.1:<port>) with
 * the supervisor's core token, and waits until the supervisor holds a refresh token of the core
 * (clear `core.refresh_token` first to wait for a restarted core's handover).
 */
export async function startSupervisedCore(t: { teardown(fn: () => unknown): void }, sup: TestSupervisor, port: number, dataDir?: string): Promise<SupervisedCore> {
  const dir = dataDir ?? (await mkdtemp(join(tmpdir(), 'hearth-supervised-core-')));
  const token = sup.supervisor.tokens.ofKind('core')?.token ?? (await sup.supervisor.tokens.rotateCore({ id: 'core', parent_id: null, user_id: null })).token;
  const process = await spawnHearth(['serve', '--port', String(port), '--data', dir], { SUPERVISOR: sup.base, SUPERVISOR_TOKEN: token });
  const stop = async () => {
    if (process.child.exitCode === null && process.child.signalCode === null) {
      process.child.kill('SIGTERM');
      await process.exited;
    }
  };
  t.teardown(stop);
  await eventually('the core hands over its refresh token', () => coreRefreshToken(sup) !== null);
  return { process, base: process.base, dataDir: dir, stop };
}

/** The refresh token the supervisor holds for the core (settings section `core`). */
export function coreRefreshToken(sup: TestSupervisor): string | null {
  return (sup.supervisor.settings.read('core')?.refresh_token as string | null | undefined) ?? null;
}

export { onboard };
