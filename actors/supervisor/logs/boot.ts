import { readFile } from 'node:fs/promises';

/** The host's current boot: its id (the journal's form, no dashes) and when it began. */
export interface Boot {
  id: string;
  /** epoch microseconds */
  startedAt: number;
}

/** The current boot from /proc (`kernel/random/boot_id`, `uptime`). */
export async function currentBoot(now: () => number = Date.now): Promise<Boot> {
  const [id, uptime] = await Promise.all([
    readFile('/proc/sys/kernel/random/boot_id', 'utf8'),
    readFile('/proc/uptime', 'utf8'),
  ]);
  const seconds = Number(uptime.trim().split(/\s+/)[0]);
  return { id: id.trim().replace(/-/g, '').toLowerCase(), startedAt: Math.floor((now() / 1000 - seconds) * 1e6) };
}
