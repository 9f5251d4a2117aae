import { existsSync, realpathSync } from 'node:fs';
import type { HostDevice } from './devices.ts';
import type { AppConfig } from '../apps/repository.ts';

/**
 * The host hardware an app's container is given (supervisor-wire §8.6): each device it declares
 * that exists on this host, and for its hardware groups (uart, usb, video, gpio) the device
 * cgroup rules of the host's devices in that group, with /dev bound read-only so their nodes are
 * there; udev's database and the device tree where the app asks for them. Devices the host does
 * not have are left out (the app starts without them), never invented.
 */

/** What an app's config asks of the host's hardware. */
export type AppDeviceNeeds = Pick<AppConfig, 'devices' | 'uart' | 'usb' | 'gpio' | 'video' | 'udev' | 'devicetree'>;

export interface AppDeviceAccess {
  /** Docker's `HostConfig.Devices` */
  devices: { PathOnHost: string; PathInContainer: string; CgroupPermissions: string }[];
  /** Docker's `HostConfig.DeviceCgroupRules` */
  rules: string[];
  /** extra binds (`host:container:ro`) */
  binds: string[];
  /** declared devices this host does not have */
  missing: string[];
}

/** Serial ports: ttys with a real port behind them (a bus device), not the virtual consoles. */
const isSerial = (d: HostDevice) => d.subsystem === 'tty' && /^tty(?:S|USB|ACM|AMA|XRUSB|MFD|SC|LP|O)\d/.test(d.name);
const VIDEO = new Set(['video4linux', 'dvb', 'media', 'vchiq', 'cec', 'graphics', 'drm']);
const GPIO = new Set(['gpio']);

function rule(d: HostDevice): string | null {
  const major = d.attributes.MAJOR;
  const minor = d.attributes.MINOR;
  if (major === undefined || minor === undefined) return null;
  return `${d.subsystem === 'block' ? 'b' : 'c'} ${major}:${minor} rwm`;
}

export function appDeviceAccess(needs: AppDeviceNeeds, hostDevices: HostDevice[], exists: (path: string) => boolean = existsSync, real: (path: string) => string = realpathSync): AppDeviceAccess {
  const devices: AppDeviceAccess['devices'] = [];
  const missing: string[] = [];
  for (const path of needs.devices) {
    if (!exists(path)) {
      missing.push(path);
      continue;
    }
    devices.push({ PathOnHost: real(path), PathInContainer: path, CgroupPermissions: 'rwm' });
  }
  const rules = new Set<string>();
  const add = (pick: (d: HostDevice) => boolean) => {
    for (const d of hostDevices) {
      const r = pick(d) ? rule(d) : null;
      if (r) rules.add(r);
    }
  };
  if (needs.uart) add(isSerial);
  if (needs.video) add((d) => VIDEO.has(d.subsystem));
  if (needs.gpio) add((d) => GPIO.has(d.subsystem));
  // every USB device node (major 189), present now or plugged later
  if (needs.usb) rules.add('c 189:* rwm');
  const binds: string[] = [];
  if (needs.uart || needs.usb || needs.video || needs.gpio) binds.push('/dev:/dev:ro');
  if (needs.gpio) for (const p of ['/sys/class/gpio', '/sys/devices/platform/soc']) if (exists(p)) binds.push(`${p}:${p}:rw`);
  if (needs.udev && exists('/run/udev')) binds.push('/run/udev:/run/udev:ro');
  if (needs.devicetree && exists('/sys/firmware/devicetree/base')) binds.push('/sys/firmware/devicetree/base:/device-tree:ro');
  return { devices, rules: [...rules], binds, missing };
}
