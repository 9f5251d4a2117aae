import { badRequest } from '../errors.ts';
import type { JOB_CONDITIONS } from './jobs.ts';

/** One of the original's job conditions. */
export type JobCondition = (typeof JOB_CONDITIONS)[number];

/**
 * What the conditions are judged on, each read when a job is asked for. A fact this supervisor
 * does not have (a test's tracker, a part not wired) lets its condition pass.
 */
export interface ConditionFacts {
  /** the supervisor's state (`running`, `freeze`, `startup`, ...) */
  state?(): string;
  /** the resolution center's unhealthy reasons */
  unhealthy?(): readonly string[];
  /** the resolution center's unsupported reasons */
  unsupported?(): readonly string[];
  /** free bytes where the supervisor keeps its data, and the least a job may start with */
  freeSpace?(): Promise<{ free: number; min: number }>;
  /** told when a job is refused for want of space (the original raises the issue free_space/system) */
  lowOnSpace?(): Promise<void>;
  /** whether a newer supervisor is waiting to be installed */
  supervisorNeedsUpdate?(): boolean;
  /** the installed plugins with a newer version waiting, each with its update */
  outdatedPlugins?(): readonly { name: string; update(): Promise<void> }[];
  /** where the warning about ignored conditions goes */
  warn?(line: string): void;
}

/** The conditions of an update or install of the core, an app or a plugin. */
export const UPDATE_CONDITIONS: readonly JobCondition[] = ['free_space', 'healthy', 'internet_host', 'plugins_updated', 'supervisor_updated'];
/** A plugin's update also wants a supported architecture. */
export const PLUGIN_UPDATE_CONDITIONS: readonly JobCondition[] = ['free_space', 'healthy', 'internet_host', 'supervisor_updated', 'architecture_supported'];
/** A restore, full or partial. */
export const RESTORE_CONDITIONS: readonly JobCondition[] = ['free_space', 'healthy', 'internet_host', 'internet_system', 'running'];

/** Python's repr of a float rounded to one decimal (`1.5`, `12.0`), as the original prints sizes in GB. */
export function gigabytes(bytes: number): string {
  const x = Math.round((bytes / 1024 ** 3) * 10) / 10;
  return Number.isInteger(x) ? `${x}.0` : String(x);
}

/**
 * Refuses a job whose conditions do not hold, with the original's message (`'<Class.method>'
 * blocked from execution, <why>`), before the job starts, checking in the original's order; a
 * condition the operator ignores (`ignore_conditions`) is not checked, and said so. Out-of-date
 * plugins are updated first where `plugins_updated` is asked, as the original does; the job is
 * refused only if one of those updates fails.
 *
 * The internet conditions never fail here: this supervisor builds its images and reads its store
 * from local or `file:` sources, so no update or install needs the internet (they stay valid
 * values of `ignore_conditions`). Nor do `haos`, `os_agent`, `host_network` and
 * `mount_available`: the routes that need them answer their own refusals.
 */
export async function requireConditions(method: string, conditions: readonly JobCondition[], facts: ConditionFacts, ignored: readonly string[]): Promise<void> {
  const asked = new Set(conditions);
  const skipped = conditions.filter((c) => ignored.includes(c));
  if (skipped.length) facts.warn?.(`the following job conditions are ignored and will make the system unstable when they occur: ${skipped.join(', ')}`);
  const used = (condition: JobCondition) => asked.has(condition) && !ignored.includes(condition);
  const blocked = (why: string) => badRequest(`'${method}' blocked from execution, ${why}`);

  const reasons = facts.unhealthy?.() ?? [];
  if (used('healthy') && reasons.length) throw blocked(`system is not healthy - ${reasons.join(', ')}`);
  const state = facts.state?.();
  if (used('running') && state !== undefined && state !== 'running') throw blocked(`system is not running - ${state}`);
  if (used('frozen') && state !== undefined && state !== 'freeze') throw blocked(`system is not frozen - ${state}`);
  if (used('free_space')) {
    const space = await facts.freeSpace?.();
    if (space && space.free < space.min) {
      await facts.lowOnSpace?.().catch(() => {});
      throw blocked(`not enough free space (${gigabytes(space.free)}GB) left on the device`);
    }
  }
  const unsupported = facts.unsupported?.() ?? [];
  if (used('os_supported') && unsupported.includes('os_version')) throw blocked('unsupported OS version');
  if (used('home_assistant_core_supported') && unsupported.includes('home_assistant_core_version')) throw blocked('unsupported Home Assistant Core version');
  if (used('supervisor_updated') && facts.supervisorNeedsUpdate?.()) throw blocked('supervisor needs to be updated first');
  if (used('architecture_supported') && unsupported.includes('system_architecture')) throw blocked('unsupported system architecture');
  if (used('plugins_updated')) {
    const outdated = facts.outdatedPlugins?.() ?? [];
    const results = await Promise.allSettled(outdated.map((plugin) => plugin.update()));
    const failed = outdated.filter((_, i) => results[i].status === 'rejected').map((plugin) => plugin.name);
    if (failed.length) throw blocked(`was unable to update plugin(s) ${failed.join(', ')} and all plugins must be up to date first`);
  }
}
