import { readFile, readlink, statfs, access } from 'node:fs/promises';
import { hostname as osHostname, release } from 'node:os';
import { isoformat } from '../../../machines/python/isoformat.ts';
import { operatingSystem } from '../machine.ts';
import type { HostServices, HostSystem } from './system.ts';

/**
 * `/host/info` (supervisor-wire §4.17) from the machine itself: the kernel, /proc, /sys,
 * os-release and statvfs of the data directory. The facts a plain host has without the
 * original's D-Bus services (hostname, kernel, OS name, boot time, time zone, disk) are read
 * where they live; the ones only a service knows (resolved's LLMNR and mDNS, timedated's NTP
 * state, systemd's startup time, the OS agent) are null when that service is not there.
 */

export interface HostInfoSources {
  host: HostSystem;
  /** the supervisor's data directory: the disk the sizes are of */
  dataDir: string;
  /** epoch ms */
  now(): number;
  /** features the host supports (features.ts) */
  features: string[];
  services: HostServices;
}

const GIB = 1024 ** 3;
const round1 = (n: number) => Math.round(n * 10) / 10;

/** The disk holding `path` as shutil.disk_usage reports it: total, used (f_blocks − f_bfree) and free for users, in bytes. */
export async function diskUsage(path: string): Promise<{ total: number; used: number; free: number }> {
  const s = await statfs(path);
  return { total: s.blocks * s.bsize, used: (s.blocks - s.bfree) * s.bsize, free: s.bavail * s.bsize };
}

/** Kernel boot time in epoch microseconds (/proc/stat `btime`, the same instant systemd reports). */
export async function bootTimestamp(): Promise<number | null> {
  const stat = await readFile('/proc/stat', 'utf8').catch(() => '');
  const m = /^btime (\d+)$/m.exec(stat);
  return m ? Number(m[1]) * 1_000_000 : null;
}

/** The host's time zone name: /etc/timezone, else what /etc/localtime links to in zoneinfo. */
export async function hostTimezone(): Promise<string | null> {
  const text = (await readFile('/etc/timezone', 'utf8').catch(() => '')).trim();
  if (text) return text;
  const link = await readlink('/etc/localtime').catch(() => '');
  const m = /zoneinfo\/(.+)$/.exec(link);
  return m ? m[1] : null;
}

async function osRelease(key: string): Promise<string | null> {
  for (const f of ['/etc/os-release', '/usr/lib/os-release']) {
    const text = await readFile(f, 'utf8').catch(() => '');
    if (!text) continue;
    const m = new RegExp(`^${key}=(.*)$`, 'm').exec(text);
    return m ? m[1].trim().replace(/^(["'])(.*)\1$/, '$2') || null : null;
  }
  return null;
}

/** hostnamed's chassis names of the SMBIOS chassis types (the ones it maps). */
const CHASSIS: Record<number, string> = {
  3: 'desktop', 4: 'desktop', 6: 'desktop', 7: 'desktop', 13: 'desktop', 35: 'desktop', 36: 'desktop',
  8: 'laptop', 9: 'laptop', 10: 'laptop', 14: 'laptop', 31: 'convertible', 32: 'convertible',
  11: 'handset', 30: 'tablet', 17: 'server', 23: 'server', 28: 'server', 29: 'server',
};

/**
 * The chassis as hostnamed derives it: a container or a virtual machine first (what
 * systemd-detect-virt says), else the firmware's chassis type; null when neither is known.
 */
export async function chassis(virtualization: string | null): Promise<string | null> {
  const fromFile = (await readFile('/etc/machine-info', 'utf8').catch(() => '')).match(/^CHASSIS=(.*)$/m)?.[1]?.replace(/^"(.*)"$/, '$1');
  if (fromFile) return fromFile;
  if (virtualization && virtualization !== '') {
    const container = await isContainer();
    return container ? 'container' : 'vm';
  }
  const type = Number((await readFile('/sys/class/dmi/id/chassis_type', 'utf8').catch(() => '')).trim());
  return CHASSIS[type] ?? null;
}

async function isContainer(): Promise<boolean> {
  if (await access('/.dockerenv').then(() => true, () => false)) return true;
  const env = await readFile('/proc/1/environ', 'utf8').catch(() => '');
  return /(?:^|\0)container=/.test(env) || (await access('/run/.containerenv').then(() => true, () => false));
}

/** systemd's `Virtualization` as systemd-detect-virt reports it (`""` on bare metal), null without the tool. */
export async function virtualization(host: HostSystem): Promise<string | null> {
  try {
    return (await host.run('systemd-detect-virt', [], { timeoutMs: 5000 })).trim();
  } catch (err) {
    // it exits 1 printing `none` on bare metal
    return /^none$/m.test((err as Error).message) ? '' : null;
  }
}

/** AppArmor's parser version when the kernel has AppArmor enabled, else null. */
async function apparmorVersion(host: HostSystem): Promise<string | null> {
  const enabled = (await readFile('/sys/module/apparmor/parameters/enabled', 'utf8').catch(() => '')).trim() === 'Y';
  if (!enabled || !(await access('/sys/kernel/security/apparmor').then(() => true, () => false))) return null;
  const out = await host.run('apparmor_parser', ['--version'], { timeoutMs: 5000 }).catch(() => '');
  return /version (\S+)/.exec(out)?.[1] ?? null;
}

/** A timedated property through timedatectl (only asked when timedated is there). */
async function timedate(host: HostSystem): Promise<{ ntp: boolean | null; synchronized: boolean | null }> {
  try {
    const out = await host.run('timedatectl', ['show', '--property=NTP', '--property=NTPSynchronized'], { timeoutMs: 5000 });
    const prop = (k: string) => {
      const v = new RegExp(`^${k}=(.*)$`, 'm').exec(out)?.[1];
      return v === undefined ? null : v === 'yes';
    };
    return { ntp: prop('NTP'), synchronized: prop('NTPSynchronized') };
  } catch {
    return { ntp: null, synchronized: null };
  }
}

/** systemd's startup time in seconds (kernel + initrd + userspace), when systemd runs. */
async function startupTime(host: HostSystem): Promise<number | null> {
  try {
    const out = await host.run('systemctl', ['show', '--property=FinishTimestampMonotonic'], { timeoutMs: 5000 });
    const us = Number(/FinishTimestampMonotonic=(\d+)/.exec(out)?.[1]);
    return Number.isFinite(us) && us > 0 ? us / 1e6 : null;
  } catch {
    return null;
  }
}

/** resolved's LLMNR/mDNS state through resolvectl (only asked when resolved runs). */
async function resolved(host: HostSystem): Promise<{ llmnrHostname: string | null; llmnr: boolean | null; mdns: boolean | null }> {
  try {
    const out = await host.run('resolvectl', ['status', '--no-pager'], { timeoutMs: 5000 });
    const proto = /Protocols:([^\n]*)/.exec(out)?.[1] ?? '';
    const flag = (name: string) => (new RegExp(`\\+${name}\\b`).test(proto) ? true : new RegExp(`-${name}\\b`).test(proto) ? false : null);
    return { llmnrHostname: osHostname(), llmnr: flag('LLMNR'), mdns: flag('mDNS') };
  } catch {
    return { llmnrHostname: null, llmnr: null, mdns: null };
  }
}

/** The eMMC life-time estimate of the disk under `path` (%, pessimistic), else null. */
export async function diskLifeTime(path: string): Promise<number | null> {
  const source = await mountSource(path);
  if (!source || !source.startsWith('/dev/')) return null;
  const part = source.slice('/dev/'.length);
  const resolved = await readlink(`/sys/class/block/${part}`).catch(() => '');
  const parts = resolved.split('/');
  // a partition's link ends in <disk>/<part>; a whole disk's in block/<disk>
  const disk = parts.length >= 2 && parts[parts.length - 2] !== 'block' ? parts[parts.length - 2] : part;
  const text = await readFile(`/sys/block/${disk}/device/life_time`, 'utf8').catch(() => '');
  const fields = text.trim().split(/\s+/);
  if (fields.length < 2) return null;
  const value = Number.parseInt(fields[1], 16);
  if (!value) return null;
  return value >= 11 ? 100 : value * 10;
}

/** The device mounted at the deepest mount point holding `path` (/proc/self/mountinfo). */
async function mountSource(path: string): Promise<string | null> {
  const info = await readFile('/proc/self/mountinfo', 'utf8').catch(() => '');
  let best: { point: string; source: string } | null = null;
  for (const line of info.split('\n')) {
    const f = line.split(' ');
    const point = f[4];
    const sep = f.indexOf('-');
    if (!point || sep < 0) continue;
    const inside = point === '/' || path === point || path.startsWith(`${point}/`);
    if (inside && (!best || point.length >= best.point.length)) best = { point, source: f[sep + 2] };
  }
  return best?.source ?? null;
}

/** The `/host/info` answer. */
export async function hostInfo(s: HostInfoSources): Promise<Record<string, unknown>> {
  const virt = await virtualization(s.host);
  const [disk, lifeTime, boot, tz, os, cpe, chassisName, apparmor, time, startup, dns] = await Promise.all([
    diskUsage(s.dataDir),
    diskLifeTime(s.dataDir),
    bootTimestamp(),
    hostTimezone(),
    operatingSystem(),
    osRelease('CPE_NAME'),
    chassis(virt),
    apparmorVersion(s.host),
    s.services.timedated ? timedate(s.host) : Promise.resolve({ ntp: null, synchronized: null }),
    s.services.systemd ? startupTime(s.host) : Promise.resolve(null),
    s.services.resolved ? resolved(s.host) : Promise.resolve({ llmnrHostname: null, llmnr: null, mdns: null }),
  ]);
  const deployment = (await readFile('/etc/machine-info', 'utf8').catch(() => '')).match(/^DEPLOYMENT=(.*)$/m)?.[1]?.replace(/^"(.*)"$/, '$1') ?? null;
  return {
    agent_version: null,
    apparmor_version: apparmor,
    chassis: chassisName,
    virtualization: virt,
    cpe,
    deployment,
    disk_free: round1(disk.free / GIB),
    disk_total: round1(disk.total / GIB),
    disk_used: round1(disk.used / GIB),
    disk_life_time: lifeTime,
    features: s.features,
    hostname: osHostname() || null,
    llmnr_hostname: dns.llmnrHostname,
    kernel: release() || null,
    operating_system: os,
    timezone: tz,
    // timedated's clock has microseconds: the original's fraction is practically never zero, so six digits always
    dt_utc: isoformat(s.now(), 'microseconds'),
    dt_synchronized: time.synchronized,
    use_ntp: time.ntp,
    startup_time: startup,
    boot_timestamp: boot,
    broadcast_llmnr: dns.llmnr,
    broadcast_mdns: dns.mdns,
  };
}

