import { readdir, readFile, readlink, realpath } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';

/**
 * The host's devices as udev enumerates them (supervisor-wire §4.8): every device sysfs lists
 * under /sys/bus/<bus>/devices and /sys/class/<class>, kept when it has a device node and is
 * not one of the virtual ttys, block devices or consoles the original hides. Properties are the
 * device's uevent plus what udev's database adds where udev runs (/run/udev/data); links are the
 * /dev symlinks that point at the node, `by_id` the first of them under /dev/<x>/by-id/.
 */

export interface HostDevice {
  name: string;
  sysfs: string;
  dev_path: string;
  subsystem: string;
  by_id: string | null;
  attributes: Record<string, string>;
  children: string[];
}

const HIDDEN = /^\/sys\/devices\/virtual\/(?:tty|block|vc)\//;

async function list(dir: string): Promise<string[]> {
  return readdir(dir).catch(() => [] as string[]);
}

/** Every device directory sysfs knows (real paths under /sys/devices), as libudev enumerates them. */
export async function sysfsDevices(root = '/sys'): Promise<string[]> {
  const found = new Set<string>();
  const add = async (entry: string) => {
    const real = await realpath(entry).catch(() => null);
    if (real) found.add(real);
  };
  for (const bus of await list(join(root, 'bus'))) {
    for (const d of await list(join(root, 'bus', bus, 'devices'))) await add(join(root, 'bus', bus, 'devices', d));
  }
  for (const cls of await list(join(root, 'class'))) {
    for (const d of await list(join(root, 'class', cls))) await add(join(root, 'class', cls, d));
  }
  return [...found].sort();
}

function parseUevent(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const line of text.split('\n')) {
    const i = line.indexOf('=');
    if (i > 0) out[line.slice(0, i)] = line.slice(i + 1);
  }
  return out;
}

/** udev's database entry of a device (`E:` properties, `S:` links), where udev runs. */
async function udevData(id: string): Promise<{ properties: Record<string, string>; links: string[] }> {
  const text = await readFile(`/run/udev/data/${id}`, 'utf8').catch(() => '');
  const properties: Record<string, string> = {};
  const links: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('E:')) {
      const i = line.indexOf('=');
      if (i > 2) properties[line.slice(2, i)] = line.slice(i + 1);
    } else if (line.startsWith('S:')) links.push(`/dev/${line.slice(2)}`);
  }
  return { properties, links };
}

/** /dev symlinks under the `by-*` folders, keyed by the node they point at. */
async function devLinks(): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const group of await list('/dev')) {
    for (const kind of await list(join('/dev', group))) {
      if (!kind.startsWith('by-')) continue;
      const dir = join('/dev', group, kind);
      for (const name of await list(dir)) {
        const link = join(dir, name);
        const target = await readlink(link).catch(() => null);
        if (!target) continue;
        const node = resolve(dir, target);
        out.set(node, [...(out.get(node) ?? []), link]);
      }
    }
  }
  return out;
}

/** The devices list of `/hardware/info`. */
export async function hostDevices(root = '/sys'): Promise<HostDevice[]> {
  const paths = await sysfsDevices(root);
  const links = await devLinks();
  const devices: HostDevice[] = [];
  for (const sysfs of paths) {
    if (HIDDEN.test(sysfs)) continue;
    const uevent = parseUevent(await readFile(join(sysfs, 'uevent'), 'utf8').catch(() => ''));
    if (!uevent.DEVNAME) continue;
    const subsystem = basename((await readlink(join(sysfs, 'subsystem')).catch(() => '')) || '');
    const devNode = uevent.DEVNAME.startsWith('/') ? uevent.DEVNAME : `/dev/${uevent.DEVNAME}`;
    const id = uevent.MAJOR !== undefined ? `${subsystem === 'block' ? 'b' : 'c'}${uevent.MAJOR}:${uevent.MINOR}` : '';
    const db = id ? await udevData(id) : { properties: {}, links: [] };
    const attributes: Record<string, string> = {
      ...uevent,
      DEVPATH: sysfs.slice(root.length),
      SUBSYSTEM: subsystem,
      DEVNAME: devNode,
      ...db.properties,
    };
    const allLinks = [...new Set([...db.links, ...(links.get(devNode) ?? [])])];
    devices.push({
      name: basename(sysfs),
      sysfs,
      dev_path: devNode,
      subsystem,
      by_id: allLinks.find((l) => /^\/dev\/[^/]+\/by-id\/[^/]+$/.test(l)) ?? null,
      attributes,
      // every device below this one, as udev's children are
      children: paths.filter((p) => p.startsWith(`${sysfs}/`)),
    });
  }
  return devices;
}

