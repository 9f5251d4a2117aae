import { readFile, writeFile } from 'node:fs/promises';
import { notFound } from '../errors.ts';

/**
 * Swap on a plain host (supervisor-wire §4.19 `/os/config/swap`): the size is what the kernel
 * swaps to now (/proc/swaps: swap files and partitions), the swappiness the kernel's setting.
 * Swappiness changes where the host lets this process write it; the size would mean making a
 * swap file and `swapon` as root on someone's machine, which this supervisor does not do. What
 * it cannot change is refused with the original's answer on a host without its OS.
 */

export const SWAP_NOT_SUPPORTED = 'Home Assistant OS 15.0 or newer required for swap settings';
export const SWAP_SIZE_PATTERN = /^\d+([KMG](i?B)?|B)?$/i;

export interface SwapFiles {
  /** default /proc/swaps */
  swaps: string;
  /** default /proc/sys/vm/swappiness */
  swappiness: string;
}

export const HOST_SWAP_FILES: SwapFiles = { swaps: '/proc/swaps', swappiness: '/proc/sys/vm/swappiness' };

/** Total swap in KiB from /proc/swaps' text (sizes are in KiB). */
export function swapKib(procSwaps: string): number {
  return procSwaps
    .split('\n')
    .slice(1)
    .map((l) => l.trim().split(/\s+/))
    .filter((cols) => cols.length >= 3 && /^\d+$/.test(cols[2]))
    .reduce((sum, cols) => sum + Number(cols[2]), 0);
}

/** KiB as the OS agent writes a size: the largest whole unit (`2G`, `512M`, `100K`, `0`). */
export function formatSwapSize(kib: number): string {
  if (kib === 0) return '0';
  if (kib % (1024 * 1024) === 0) return `${kib / (1024 * 1024)}G`;
  if (kib % 1024 === 0) return `${kib / 1024}M`;
  return `${kib}K`;
}

/** A size as the original's pattern allows it (`1G`, `512MiB`, `100KB`, `4096B`, `4096`), in KiB. */
export function parseSwapSize(size: string): number {
  const m = size.match(/^(\d+)([KMG])?(i?B)?$/i);
  if (!m) return Number.NaN;
  const n = Number(m[1]);
  const unit = (m[2] ?? '').toUpperCase();
  // digits alone or with B are bytes
  if (!unit) return n / 1024;
  return n * { K: 1, M: 1024, G: 1024 * 1024 }[unit as 'K' | 'M' | 'G'];
}

export class Swap {
  constructor(private readonly files: SwapFiles = HOST_SWAP_FILES) {}

  /** The current values; a host without /proc's swap files is the original's 404. */
  async info(): Promise<{ swap_size: string; swappiness: number }> {
    const [swaps, swappiness] = await Promise.all([readFile(this.files.swaps, 'utf8'), readFile(this.files.swappiness, 'utf8')]).catch(() => {
      throw notFound(SWAP_NOT_SUPPORTED);
    });
    return { swap_size: formatSwapSize(swapKib(swaps)), swappiness: Number(swappiness.trim()) };
  }

  /**
   * Applies the asked values; resolves to whether one changed. A size other than the current one,
   * or a swappiness the host does not let this process write, is the original's 404.
   */
  async set(change: { swap_size?: string; swappiness?: number }): Promise<boolean> {
    const now = await this.info();
    if (change.swap_size !== undefined && parseSwapSize(change.swap_size) !== parseSwapSize(now.swap_size)) throw notFound(SWAP_NOT_SUPPORTED);
    if (change.swappiness === undefined || change.swappiness === now.swappiness) return false;
    try {
      await writeFile(this.files.swappiness, `${change.swappiness}\n`);
    } catch (err) {
      // read-only /proc/sys (a container), not root, or a kernel refusing the value
      if (['EACCES', 'EPERM', 'EROFS', 'EINVAL', 'EIO'].includes((err as NodeJS.ErrnoException)?.code ?? '')) throw notFound(SWAP_NOT_SUPPORTED);
      throw err;
    }
    return true;
  }
}
