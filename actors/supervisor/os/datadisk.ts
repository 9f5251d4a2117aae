import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

/**
 * Disks a data partition could move to (supervisor-wire §4.19 `/os/datadisk/list`), from the
 * host's real block devices (`lsblk`) where the original asks UDisks2: whole drives on which
 * nothing is mounted (nor used as swap). RAM-backed and loop devices are no drives.
 */

const run = promisify(execFile);

export interface BlockDevice {
  name: string;
  path?: string;
  type: string;
  size: number | string | null;
  vendor?: string | null;
  model?: string | null;
  serial?: string | null;
  mountpoint?: string | null;
  mountpoints?: (string | null)[];
  children?: BlockDevice[];
}

/** A disk, keys in the original's order. */
export interface DiskView {
  name: string;
  vendor: string;
  model: string;
  serial: string;
  size: number;
  id: string;
  dev_path: string;
}

export const LSBLK_ARGS = ['-J', '-b', '-o', 'NAME,PATH,TYPE,SIZE,VENDOR,MODEL,SERIAL,MOUNTPOINT'];

export async function readBlockDevices(): Promise<BlockDevice[]> {
  const { stdout } = await run('lsblk', LSBLK_ARGS, { maxBuffer: 16 * 1024 * 1024 });
  return (JSON.parse(stdout).blockdevices ?? []) as BlockDevice[];
}

const NOT_DRIVES = /^(zram|ram|loop|nbd)\d/;

function inUse(d: BlockDevice): boolean {
  const points = [d.mountpoint, ...(d.mountpoints ?? [])].filter((p) => p !== null && p !== undefined && p !== '');
  return points.length > 0 || (d.children ?? []).some(inUse);
}

/** The drives nothing is mounted on, as the original describes them. */
export function availableDisks(devices: BlockDevice[]): DiskView[] {
  return devices
    .filter((d) => d.type === 'disk' && !NOT_DRIVES.test(d.name) && !inUse(d))
    .map((d) => {
      const vendor = (d.vendor ?? '').trim();
      const model = (d.model ?? '').trim();
      const serial = (d.serial ?? '').trim();
      const devPath = d.path ?? `/dev/${d.name}`;
      // UDisks2 names a drive by vendor, model and serial; without a serial it has no stable id
      const id = serial ? [vendor, model, serial].filter(Boolean).join('-').replace(/\s+/g, '_') : devPath;
      let name = vendor;
      if (model) name = `${name} ${model}`.trimStart();
      if (serial) name = name ? `${name} (${serial})` : serial;
      return { name: name || id, vendor, model, serial, size: Number(d.size ?? 0), id, dev_path: devPath };
    });
}
