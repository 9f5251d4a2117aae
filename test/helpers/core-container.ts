// The core's container in tests: a free host port, a unique container name, removed at the end.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { EventLog } from '../../store/types.ts';
import { CORE_RUNTIME_STREAM } from '../../actors/supervisor/core/runtime.ts';

const run = promisify(execFile);

export { freePort } from './ports.ts';

/** `docker <args>`: its stdout, trimmed. */
export async function docker(...args: string[]): Promise<string> {
  return (await run('docker', args, { maxBuffer: 16 * 1024 * 1024 })).stdout.trim();
}

/** A container name of its own for a test, removed (with the container) when the test ends. */
export function coreContainerName(t: { teardown(fn: () => unknown): void }, label: string): string {
  const name = `hearth_core_test_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  t.teardown(() => docker('rm', '-f', name).catch(() => ''));
  return name;
}

/** The types of the runtime's records, oldest first. */
export async function runtimeRecords(log: EventLog): Promise<Array<{ type: string; data: any }>> {
  const out: Array<{ type: string; data: any }> = [];
  for await (const r of log.readStreams(CORE_RUNTIME_STREAM)) out.push({ type: r.type, data: r.data });
  return out;
}

