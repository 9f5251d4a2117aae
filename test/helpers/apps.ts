// Installed apps in tests: a container-name prefix of the test's own (parallel tests install the
// same built-in apps on one engine), its containers removed at the end, the apps' records.
import type { EventLog } from '../../store/types.ts';
import { APP_STREAM_PREFIX } from '../../actors/supervisor/apps/manager.ts';
import { docker } from './core-container.ts';

export { docker, freePort } from './core-container.ts';

/** A container-name prefix for one test's apps; their containers are removed when it ends. */
export function appPrefix(t: { teardown(fn: () => unknown): void }, label: string): string {
  const prefix = `hearth_test_${label}_${process.pid}_${Math.random().toString(36).slice(2, 8)}_`;
  t.teardown(async () => {
    const names = (await docker('ps', '-a', '--filter', `name=^${prefix}`, '--format', '{{.Names}}').catch(() => '')).split('\n').filter(Boolean);
    if (names.length) await docker('rm', '-f', ...names).catch(() => '');
  });
  return prefix;
}

/** An app's records, oldest first. */
export async function appRecords(log: EventLog, slug: string): Promise<Array<{ type: string; data: any }>> {
  const out: Array<{ type: string; data: any }> = [];
  for await (const r of log.readStreams(`${APP_STREAM_PREFIX}${slug}`)) out.push({ type: r.type, data: r.data });
  return out;
}

/** The text of a log route (the last lines of the app's container). */
export async function logText(res: Response): Promise<string> {
  return res.text();
}
