import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { diskUsage } from './info.ts';
import { keyedError } from '../errors.ts';

/**
 * `/host/disks/default/usage` (supervisor-wire §4.17): the system disk's total and used bytes
 * and what the supervisor's own folders take on it, walked from the real directories. A folder
 * counts only what lies on its own file system (no mounts, no symlinks followed); below
 * `max_depth` only the sizes are summed, above it each non-empty folder is listed.
 */

export interface DirSize {
  id: string;
  label: string;
  used_bytes: number;
  children?: DirSize[];
}

/** The size of `path` on its own device, with children down to `maxDepth` (1: none). */
export async function dirStructureSize(path: string, maxDepth: number): Promise<{ used_bytes: number; children?: DirSize[] }> {
  let root;
  try {
    root = await lstat(path);
  } catch {
    return { used_bytes: 0 };
  }
  if (!root.isDirectory()) return { used_bytes: 0 };
  let size = 0;
  const children: DirSize[] = [];
  let names: string[];
  try {
    names = await readdir(path);
  } catch {
    return { used_bytes: 0 };
  }
  for (const name of names) {
    const child = join(path, name);
    let st;
    try {
      st = await lstat(child);
    } catch {
      continue; // gone between listing and stat
    }
    if (st.isSymbolicLink() || st.dev !== root.dev) continue;
    if (!st.isDirectory()) {
      size += st.size;
      continue;
    }
    const sub = await dirStructureSize(child, maxDepth - 1);
    if (sub.used_bytes > 0) {
      size += sub.used_bytes;
      if (maxDepth > 1) children.push({ id: name, label: name, ...sub });
    }
  }
  return children.length ? { used_bytes: size, children } : { used_bytes: size };
}

/** The supervisor's folders the original lists, in its order, with where Hearth keeps them. */
export function knownFolders(dataDir: string, coreDataDir: string): [string, string][] {
  return [
    ['apps_data', join(dataDir, 'apps', 'data')],
    ['apps_config', join(dataDir, 'app_configs')],
    ['media', join(dataDir, 'media')],
    ['share', join(dataDir, 'share')],
    ['backup', join(dataDir, 'backup')],
    ['ssl', join(dataDir, 'ssl')],
    ['homeassistant', coreDataDir],
  ];
}

/** v1 names the first two the add-on way. */
const V1_IDS: Record<string, string> = { apps_data: 'addons_data', apps_config: 'addons_config' };

/** `?max_depth=`: an integer, else 1 (as the original, which keeps the default on anything else). */
export function maxDepthOf(value: string | null, fallback = 1): number {
  if (value === null) return fallback;
  return /^\s*[-+]?\d+\s*$/.test(value) ? Number.parseInt(value, 10) : fallback;
}

export async function systemDiskUsage(options: { dataDir: string; coreDataDir: string; maxDepth: number; v1: boolean }) {
  const { total, free } = await diskUsage(options.dataDir);
  // reserved blocks count as used, as in the original
  const used = total - free;
  const known: DirSize[] = [];
  for (const [id, path] of knownFolders(options.dataDir, options.coreDataDir)) {
    known.push({ id: options.v1 ? (V1_IDS[id] ?? id) : id, label: id, ...(await dirStructureSize(path, options.maxDepth)) });
  }
  return {
    id: 'root',
    label: 'Root',
    total_bytes: total,
    used_bytes: used,
    children: [{ id: 'system', label: 'System', used_bytes: used - known.reduce((n, k) => n + k.used_bytes, 0) }, ...known],
  };
}

/** A mount's own disk, or null when its folder is no mount point any more (same device as its parent). */
async function mountedUsage(path: string): Promise<{ total: number; free: number } | null> {
  const [here, parent] = await Promise.all([lstat(path), lstat(join(path, '..'))]);
  if (here.dev === parent.dev) return null;
  return diskUsage(path);
}

/** The original's wait for a mount's figures before it gives up (the walk goes on). */
export const MOUNT_USAGE_TIMEOUT_MS = 60_000;

/** `/host/disks/<mount>/usage`: totals, and at depth ≥ 2 its folders plus an `other` remainder. */
export async function mountDiskUsage(options: { name: string; path: string; active: boolean; maxDepth: number; timeoutMs?: number }) {
  const fields = { name: options.name };
  if (!options.active) throw keyedError(400, 'mount_usage_not_active_error', 'Mount {name} is not active, cannot report storage usage', fields);
  const probe = (async () => {
    let usage;
    let children: DirSize[] = [];
    try {
      usage = await mountedUsage(options.path);
      if (usage && options.maxDepth > 1) children = (await dirStructureSize(options.path, options.maxDepth)).children ?? [];
    } catch (err) {
      throw keyedError(400, 'mount_usage_read_error', 'Could not read storage usage for mount {name}: {reason}', { name: options.name, reason: (err as Error).message });
    }
    if (!usage) throw keyedError(400, 'mount_usage_not_mounted_error', 'Could not read storage usage for mount {name}: no longer mounted', fields);
    const used = usage.total - usage.free;
    const data: Record<string, unknown> = { id: options.name, label: options.name, total_bytes: usage.total, used_bytes: used };
    const walked = children.reduce((n, c) => n + c.used_bytes, 0);
    // a walk that raced deletions past the total gives no breakdown rather than a wrong one
    if (children.length && walked <= used) data.children = used > walked ? [...children, { id: 'other', label: 'Other', used_bytes: used - walked }] : children;
    return data;
  })();
  probe.catch(() => {});
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(keyedError(400, 'mount_usage_timeout_error', 'Timed out reading storage usage for mount {name}', fields)), options.timeoutMs ?? MOUNT_USAGE_TIMEOUT_MS);
  });
  try {
    return await Promise.race([probe, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
