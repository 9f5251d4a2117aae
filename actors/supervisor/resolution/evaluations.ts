import { access, readFile } from 'node:fs/promises';
import type { Engine, EngineInfo } from '../docker/engine.ts';
import { versionOrder } from '../../version-order.ts';

/**
 * The evaluations: what makes this system unsupported or unhealthy, with the original's reason
 * names (supervisor-wire §7.5). Facts are gathered first (engine, files, settings); judging them
 * is a pure function, so a test can hand it any facts.
 */

export interface SystemFacts {
  /** the engine's version and drivers; null when it does not answer */
  engine: EngineInfo | null;
  /** node's process.arch */
  arch: string;
  ignoredConditions: string[];
  /** which host facilities exist (paths probed on this host) */
  has: { dbus: boolean; systemd: boolean; journal: boolean; resolved: boolean; apparmor: boolean; lxc?: boolean };
  /** whether the connectivity check runs (absent: it does) */
  connectivityCheck?: boolean;
}

/** Host paths whose presence says a facility is there. */
export const HOST_PATHS = {
  dbus: '/run/dbus/system_bus_socket',
  systemd: '/run/systemd/system',
  journal: '/run/systemd/journal/socket',
  resolved: '/run/systemd/resolve',
  apparmor: '/sys/kernel/security/apparmor',
} as const;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

export async function gatherFacts(engine: Engine, ignoredConditions: string[], connectivityCheck = true): Promise<SystemFacts> {
  const info = await engine.info().catch(() => null);
  const [dbus, systemd, journal, resolved, apparmor] = await Promise.all(Object.values(HOST_PATHS).map(exists));
  return { engine: info, arch: process.arch, ignoredConditions, has: { dbus, systemd, journal, resolved, apparmor, lxc: await insideLxc() }, connectivityCheck };
}

/** Whether this host is itself an LXC container (its init says so, or LXD's guest socket is there). */
export async function insideLxc(): Promise<boolean> {
  const env = await readFile('/proc/1/environ', 'utf8').catch(() => '');
  return env.includes('container=lxc') || exists('/dev/lxd/sock');
}

/** The engine's version is new enough: one that cannot be ordered is not, as in the original. */
function supportedEngine(version: string): boolean {
  return (versionOrder(version, MINIMUM_DOCKER_VERSION) ?? -1) >= 0;
}

export const MINIMUM_DOCKER_VERSION = '24.0.0';
const STORAGE_DRIVERS = new Set(['overlay2', 'overlayfs']);
const ARCHES: Record<string, string> = { x64: 'amd64', arm64: 'aarch64' };

/** The unsupported and unhealthy reasons the facts give, each list sorted. */
export function evaluate(f: SystemFacts): { unsupported: string[]; unhealthy: string[] } {
  const unsupported = new Set<string>();
  const unhealthy = new Set<string>();
  // not the appliance OS, no OS agent and no NetworkManager link: a plain Linux host always is
  unsupported.add('os');
  unsupported.add('os_agent');
  unsupported.add('network_manager');
  if (!f.has.dbus) unsupported.add('dbus');
  if (!f.has.systemd) unsupported.add('systemd');
  if (!f.has.journal) unsupported.add('systemd_journal');
  if (!f.has.resolved) unsupported.add('systemd_resolved');
  if (!f.has.apparmor) unsupported.add('apparmor');
  if (f.has.lxc) unsupported.add('lxc');
  if (!ARCHES[f.arch]) unsupported.add('system_architecture');
  if (f.ignoredConditions.length) unsupported.add('job_conditions');
  // the original: "Connectivity checks are required" (its check switched off)
  if (f.connectivityCheck === false) unsupported.add('connectivity_check');
  if (f.engine === null) unhealthy.add('docker');
  else {
    if (!supportedEngine(f.engine.version)) unsupported.add('docker_version');
    if (!STORAGE_DRIVERS.has(f.engine.storageDriver) || f.engine.loggingDriver !== 'journald') unsupported.add('docker_configuration');
    if (!['1', '2'].includes(f.engine.cgroupVersion)) unsupported.add('cgroup_version');
  }
  return { unsupported: [...unsupported].sort(), unhealthy: [...unhealthy].sort() };
}
