/**
 * The original's `backups` check (supervisor-wire §7.3): an issue `no_current_backup` (context
 * `system`) while no full backup is younger than `days_until_stale`, with the suggestion
 * `create_full_backup`, whose fix makes one.
 */
import type { Check } from '../resolution/checks.ts';
import type { Resolution } from '../resolution/types.ts';
import type { BackupManager } from './manager.ts';

const DAY_MS = 24 * 60 * 60 * 1000;

/** Whether some full backup is younger than `days` (dates are backup.json's ISO strings). */
export function hasCurrentBackup(manager: BackupManager, days: number, now = Date.now()): boolean {
  return manager.list().some((b) => b.meta.type === 'full' && now - Date.parse(b.meta.date) < days * DAY_MS);
}

export function backupsCheck(manager: BackupManager, now: () => number = Date.now): Check {
  return {
    slug: 'backups',
    async run(_deps, tools) {
      const issue = { type: 'no_current_backup', context: 'system' };
      if (hasCurrentBackup(manager, manager.options().days_until_stale, now())) await tools.clearIssues(issue);
      else await tools.addIssue(issue, [{ type: 'create_full_backup', context: 'system' }]);
    },
  };
}

/** The check, and the fix `create_full_backup` running `makeFullBackup`. */
export function registerBackupsCheck(resolution: Resolution, manager: BackupManager, makeFullBackup: () => Promise<unknown>): void {
  resolution.addCheck?.(backupsCheck(manager));
  resolution.addFixup?.({ type: 'create_full_backup', context: 'system', issues: ['no_current_backup'], auto: false, apply: async () => void (await makeFullBackup()) });
}
