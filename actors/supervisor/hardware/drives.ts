import { stat } from 'node:fs/promises';
import { isoformat } from '../../../machines/python/isoformat.ts';
import type { HostSystem } from '../host/system.ts';

/**
 * The host's drives with their file systems (supervisor-wire §4.8). The original asks UDisks2;
 * a plain host without it still knows its disks through lsblk (sysfs and the mount table), so
 * the same record is filled from there: physical disks only (no loop, zram or RAM disks, which
 * UDisks2 has no drive for), each with the file systems on it and their mount points.
 */

export interface DriveFilesystem {
  device: string;
  id: string;
  size: number;
  name: string;
  system: boolean;
  mount_points: string[];
}

export interface Drive {
  vendor: string;
  model: string;
  revision: string;
  serial: string;
  id: string;
  size: number;
  time_detected: string;
  connection_bus: string;
  seat: string;
  removable: boolean;
  ejectable: boolean;
  filesystems: DriveFilesystem[];
}

/** One block device as `lsblk -J -b` describes it. */
export interface LsblkDevice {
  name: string;
  path?: string;
  size: number | string | null;
  type: string;
  vendor?: string | null;
  model?: string | null;
  serial?: string | null;
  rev?: string | null;
  rm?: boolean | string | null;
  tran?: string | null;
  fstype?: string | null;
  label?: string | null;
  uuid?: string | null;
  partlabel?: string | null;
  mountpoints?: (string | null)[];
  mountpoint?: string | null;
  children?: LsblkDevice[];
}

export const LSBLK_COLUMNS = 'NAME,PATH,SIZE,TYPE,VENDOR,MODEL,SERIAL,REV,RM,TRAN,FSTYPE,LABEL,UUID,PARTLABEL,MOUNTPOINTS';

/** Kinds of block device that are no drive (UDisks2 makes no Drive object for them). */
const VIRTUAL = /^(?:loop|zram|ram|nbd|dm-|md)/;

const text = (v: string | null | undefined) => (v ?? '').trim();
const bool = (v: boolean | string | null | undefined) => v === true || v === '1';

/** UDisks2's connection bus names; anything else is `""` there. */
function bus(tran: string | null | undefined): string {
  const t = text(tran);
  return t === 'usb' || t === 'sdio' || t === 'ieee1394' ? t : '';
}

function mountPoints(d: LsblkDevice): string[] {
  const points = d.mountpoints ?? (d.mountpoint !== undefined ? [d.mountpoint] : []);
  return points.filter((p): p is string => typeof p === 'string' && p !== '');
}

/** UDisks2's block id: the first stable name it would give (`by-uuid-…`, `by-label-…`), else the kernel name. */
function blockId(d: LsblkDevice): string {
  if (text(d.uuid)) return `by-uuid-${text(d.uuid)}`;
  if (text(d.label)) return `by-label-${text(d.label)}`;
  return d.name;
}

/** The drives of an lsblk tree; `detected` gives each disk's detection time (ISO). */
export function drivesOf(devices: LsblkDevice[], detected: (name: string) => string): Drive[] {
  const drives: Drive[] = [];
  for (const d of devices) {
    if (d.type !== 'disk' || VIRTUAL.test(d.name)) continue;
    const filesystems: DriveFilesystem[] = [];
    const visit = (b: LsblkDevice, isDisk: boolean) => {
      // a file system: a type the probe found, or mounted (a probe without rights finds none)
      if (text(b.fstype) || mountPoints(b).length) {
        filesystems.push({
          device: b.path ?? `/dev/${b.name}`,
          id: blockId(b),
          size: Number(b.size ?? 0),
          name: text(b.label),
          // UDisks2's HintSystem: not a removable medium's partition
          system: !isDisk && !bool(d.rm),
          mount_points: mountPoints(b),
        });
      }
      for (const c of b.children ?? []) visit(c, false);
    };
    visit(d, true);
    const vendor = text(d.vendor);
    const model = text(d.model);
    const serial = text(d.serial);
    drives.push({
      vendor,
      model,
      revision: text(d.rev),
      serial,
      id: [vendor, model, serial].filter(Boolean).join('-').replace(/\s+/g, '-') || d.name,
      size: Number(d.size ?? 0),
      time_detected: detected(d.name),
      connection_bus: bus(d.tran),
      seat: 'seat0',
      removable: bool(d.rm),
      ejectable: bool(d.rm) && bus(d.tran) !== '',
      filesystems,
    });
  }
  return drives;
}

/** The host's drives from `lsblk`; none when lsblk is not there or cannot read. */
export async function hostDrives(host: HostSystem): Promise<Drive[]> {
  let parsed: { blockdevices?: LsblkDevice[] };
  try {
    parsed = JSON.parse(await host.run('lsblk', ['-J', '-b', '-o', LSBLK_COLUMNS], { timeoutMs: 10_000 }));
  } catch {
    return [];
  }
  const devices = parsed.blockdevices ?? [];
  const times = new Map<string, string>();
  // when the kernel made the disk's sysfs entry: the closest a plain host has to "detected"
  await Promise.all(
    devices.map(async (d) => {
      const st = await stat(`/sys/block/${d.name}`).catch(() => null);
      times.set(d.name, isoformat(st ? Math.floor(st.ctimeMs) : 0, 'milliseconds'));
    }),
  );
  return drivesOf(devices, (name) => times.get(name) ?? isoformat(0, 'milliseconds'));
}
