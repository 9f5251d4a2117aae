import { SupervisorError, notFound } from '../errors.ts';
import { availableDisks, readBlockDevices, type BlockDevice, type DiskView } from './datadisk.ts';
import { Swap, type SwapFiles } from './swap.ts';

/**
 * The operating-system area (supervisor-wire §4.19, §11.2) on a host that is not the original's
 * appliance OS: no RAUC boot slots, no OS agent, no board. Its info leaves those fields null as
 * the original does; updates, boot slots, config sync and data-disk moves fail its job condition;
 * boards are not in use. What a plain host has works: swap and the list of free disks.
 */

export interface OsInfo {
  version: null;
  version_latest: null;
  version_pending: null;
  update_available: false;
  board: null;
  boot: null;
  data_disk: null;
  boot_slots: Record<string, never>;
}

export interface OsDeps {
  swapFiles?: SwapFiles;
  /** the block devices (tests may stand in the host's) */
  blockDevices?(): Promise<BlockDevice[]>;
  logLine?(line: string): void;
}

export const RPI_FIRMWARE_NEEDS_AGENT = 'OS Agent 1.9.0 or newer required for Raspberry Pi firmware management';

export class OperatingSystem {
  readonly swap: Swap;

  constructor(private readonly deps: OsDeps = {}) {
    this.swap = new Swap(deps.swapFiles);
  }

  info(): OsInfo {
    return { version: null, version_latest: null, version_pending: null, update_available: false, board: null, boot: null, data_disk: null, boot_slots: {} };
  }

  /** The original's job-condition refusal of an OS operation (`'OSManager.update'`, `'DataDisk.wipe_disk'`). */
  blocked(method: string): never {
    throw new SupervisorError(`'${method}' blocked from execution, no Home Assistant OS available`);
  }

  /** A board's settings: the board in use has none here. */
  boardNotInUse(board: string): never {
    throw new SupervisorError(`${board} board is not in use`);
  }

  rpiFirmware(): never {
    throw notFound(RPI_FIRMWARE_NEEDS_AGENT);
  }

  /** The free drives; none when the host's block devices cannot be listed (as the original without UDisks2). */
  async disks(): Promise<DiskView[]> {
    try {
      return availableDisks(await (this.deps.blockDevices ?? readBlockDevices)());
    } catch (err) {
      this.deps.logLine?.(`cannot list the host's block devices: ${(err as Error)?.message ?? err}`);
      return [];
    }
  }
}
