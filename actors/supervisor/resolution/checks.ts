import { statfs } from 'node:fs/promises';
import { loadConfiguration } from '../../core/configuration.ts';
import type { Engine } from '../docker/engine.ts';
import type { InterfaceView } from '../network/interfaces.ts';
import type { IssueSpec, IssueView, SuggestionSpec } from './types.ts';
import { LocalHost, type HostSystem } from '../host/system.ts';
import { diskLifeTime } from '../host/info.ts';

/**
 * The checks that really run on this host (supervisor-wire §7.3). Each finds its problem and
 * records an issue, or clears the issue it made before when the problem is gone.
 */

/** What a check may do to the resolution center. */
export interface CheckTools {
  addIssue(issue: IssueSpec, suggestions?: SuggestionSpec[]): Promise<IssueView>;
  clearIssues(match: Partial<IssueSpec>, keep?: (issue: IssueView) => boolean): Promise<void>;
  warn(line: string): void;
}

export interface CheckDeps {
  engine: Engine;
  /** the supervisor's data directory (the disk the free space is measured on) */
  dataDir: string;
  coreDataDir: string;
  coreContainer: string;
  /** free space at or below this is an issue (default 2 GiB, as the original) */
  freeSpaceMinBytes: number;
  /** the host's network interfaces */
  interfaces?(): Promise<InterfaceView[]>;
  /** the host's services and tools (systemd's failed units); default: this machine */
  host?: HostSystem;
}

export interface Check {
  slug: string;
  /** the name the v1 tree shows for it, where the original renamed it */
  legacy?: string;
  run(deps: CheckDeps, tools: CheckTools): Promise<void>;
}

export const FREE_SPACE_MIN_BYTES = 2 * 1024 ** 3;

/** Free bytes for an unprivileged writer on the file system holding `path`. */
export async function freeBytes(path: string): Promise<number> {
  const s = await statfs(path);
  return s.bavail * s.bsize;
}

const freeSpace: Check = {
  slug: 'free_space',
  async run(deps, tools) {
    const free = await freeBytes(deps.dataDir);
    const issue = { type: 'free_space', context: 'system' };
    // clear_full_backup is the original's fix; it comes with backups, so no suggestion yet
    if (free <= deps.freeSpaceMinBytes) await tools.addIssue(issue);
    else await tools.clearIssues(issue);
  },
};

/**
 * The core's configuration.yaml, read by the core's own loader. An invalid file is a
 * `fatal_error` of context `core` (the core cannot start with it), referenced by the file name,
 * with the loader's message in `reference_extra.error`. No suggestion: only an edit fixes it.
 */
const coreConfig: Check = {
  slug: 'core_config',
  async run(deps, tools) {
    const issue = { type: 'fatal_error', context: 'core', reference: 'configuration.yaml' };
    let error: string | null = null;
    try {
      await loadConfiguration(deps.coreDataDir);
    } catch (err) {
      error = (err as Error)?.message ?? String(err);
    }
    if (error === null) return tools.clearIssues(issue);
    // one issue with the newest message: an older message's issue goes
    await tools.clearIssues(issue, (i) => i.reference_extra?.error === error);
    await tools.addIssue({ ...issue, reference_extra: { error } });
  },
};

/**
 * The core container on the engine: exited with a non-zero code, dead, or unhealthy is a
 * `boot_fail` of context `core` (reference: the container's name), fixed by restarting it. A
 * missing container is no issue (the core is not installed yet); an engine that does not
 * answer leaves things as they are (the `docker` unhealthy reason says so).
 */
const coreHealth: Check = {
  slug: 'core_health',
  async run(deps, tools) {
    const issue = { type: 'boot_fail', context: 'core', reference: deps.coreContainer };
    let state: any;
    try {
      state = (await deps.engine.docker.getContainer(deps.coreContainer).inspect()).State;
    } catch (err: any) {
      if (err?.statusCode === 404) return tools.clearIssues(issue);
      tools.warn(`core_health: cannot inspect ${deps.coreContainer}: ${err?.message ?? err}`);
      return;
    }
    const failed = ((state?.Status === 'exited' || state?.Status === 'dead') && state?.ExitCode !== 0) || state?.Health?.Status === 'unhealthy';
    if (failed) await tools.addIssue(issue, [{ type: 'execute_restart', context: 'core', reference: deps.coreContainer }]);
    else await tools.clearIssues(issue);
  },
};

/**
 * The original's `network_interface_ipv4`: an interface that is up with a link but has no usable
 * IPv4 address is an `ipv4_connection_problem` of context `system`, referenced by its name.
 */
const networkInterfaceIpv4: Check = {
  slug: 'network_interface_ipv4',
  async run(deps, tools) {
    if (!deps.interfaces) return;
    const failing = (await deps.interfaces()).filter((i) => i.enabled && i.connected && !i.ipv4.ready).map((i) => i.interface);
    await tools.clearIssues({ type: 'ipv4_connection_problem', context: 'system' }, (i) => i.reference !== null && failing.includes(i.reference));
    for (const name of failing) await tools.addIssue({ type: 'ipv4_connection_problem', context: 'system', reference: name });
  },
};

/** The disk under the data directory reports 90 % or more of its life used (eMMC estimate). */
const diskLifetime: Check = {
  slug: 'disk_lifetime',
  async run(deps, tools) {
    const used = await diskLifeTime(deps.dataDir);
    const issue = { type: 'disk_lifetime', context: 'system' };
    if (used !== null && used >= 90) await tools.addIssue(issue);
    else await tools.clearIssues(issue);
  },
};

/** Failed units that fail by design and are not the operator's to fix (the original skips them too). */
const IGNORED_UNITS = new Set(['NetworkManager-wait-online.service', 'systemd-time-wait-sync.service']);

/**
 * systemd's failed units, one `systemd_unit_failed` issue each (reference: the unit), fixed by
 * resetting or restarting it. Nothing to look at on a host whose init is not systemd.
 */
const systemdUnitFailure: Check = {
  slug: 'systemd_unit_failure',
  async run(deps, tools) {
    const host = deps.host ?? new LocalHost();
    if (!(await host.services()).systemd) return;
    let out: string;
    try {
      out = await host.run('systemctl', ['list-units', '--state=failed', '--all', '--plain', '--no-legend', '--no-pager'], { timeoutMs: 10_000 });
    } catch (err) {
      tools.warn(`systemd_unit_failure: cannot list the failed units: ${(err as Error).message}`);
      return;
    }
    const failed = out
      .split('\n')
      .map((line) => line.trim().split(/\s+/)[0])
      .filter((unit) => unit && /\.[a-z]+$/.test(unit) && !IGNORED_UNITS.has(unit));
    await tools.clearIssues({ type: 'systemd_unit_failed', context: 'system' }, (i) => failed.includes(i.reference ?? ''));
    for (const unit of failed) {
      await tools.addIssue({ type: 'systemd_unit_failed', context: 'system', reference: unit }, [
        { type: 'execute_reset', context: 'system', reference: unit },
        { type: 'execute_restart', context: 'system', reference: unit },
      ]);
    }
  },
};

/** The fixes of a failed unit: `systemctl reset-failed` or `systemctl restart` on the unit the suggestion names. */
export function systemdUnitFixups(host: HostSystem) {
  const fixup = (type: string, args: (unit: string) => string[]) => ({
    type,
    context: 'system',
    issues: ['systemd_unit_failed'],
    auto: false,
    apply: async (s: IssueView) => {
      if (!s.reference) return;
      await host.run('systemctl', args(s.reference));
    },
  });
  return [fixup('execute_reset', (u) => ['reset-failed', '--', u]), fixup('execute_restart', (u) => ['restart', '--', u])];
}

export const CHECKS: Check[] = [coreConfig, coreHealth, diskLifetime, freeSpace, networkInterfaceIpv4, systemdUnitFailure];

/** v1 shows these check slugs and issue types with the original's old `addon` names (§7.6). */
export const LEGACY_CHECK_SLUGS: Record<string, string> = {
  app_pwned: 'addon_pwned',
  deprecated_app: 'deprecated_addon',
  deprecated_arch_app: 'deprecated_arch_addon',
  detached_app_missing: 'detached_addon_missing',
  detached_app_removed: 'detached_addon_removed',
};
export const LEGACY_ISSUE_TYPES: Record<string, string> = {
  deprecated_app: 'deprecated_addon',
  deprecated_arch_app: 'deprecated_arch_addon',
  detached_app_missing: 'detached_addon_missing',
  detached_app_removed: 'detached_addon_removed',
};
