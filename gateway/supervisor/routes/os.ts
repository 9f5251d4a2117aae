import type { SupervisorApi } from '../api.ts';
import type { Logs } from '../../../actors/logging/logs.ts';
import type { OperatingSystem } from '../../../actors/supervisor/os/os.ts';
import { SWAP_SIZE_PATTERN } from '../../../actors/supervisor/os/swap.ts';
import { coerceEnum, intRange, lenientBoolean, matching, required, schema, str, validateNested, versionTag } from '../../../actors/supervisor/validate.ts';

/**
 * /os (supervisor-wire §4.19) on a host without the original's OS: bodies are checked with the
 * original's schemas first, then what needs the OS is refused with its words; swap and the data
 * disk list answer from the host.
 */

const VERSION = schema({ version: versionTag });
const BOOT_SLOT = schema({ boot_slot: required(coerceEnum('BootSlot', ['A', 'B'])) });
const DISK = schema({ device: required(str) });
const GREEN = schema({ activity_led: lenientBoolean, power_led: lenientBoolean, system_health_led: lenientBoolean });
const YELLOW = schema({ disk_led: lenientBoolean, heartbeat_led: lenientBoolean, power_led: lenientBoolean });
const SWAP = schema({ swap_size: matching(SWAP_SIZE_PATTERN, 'expected string or buffer'), swappiness: intRange(0, 200) });

/** What the operating system's routes use. */
export interface OsRouteDeps {
  os: OperatingSystem;
  logs: Logs;
}

/** Registers the operating system's routes. */
export function registerOsRoutes(api: SupervisorApi, deps: OsRouteDeps): void {
  const { os } = deps;

  api.get('/os/info', () => os.info());

  api.post('/os/update', (call) => {
    validateNested(call.body(), VERSION);
    os.blocked('OSManager.update');
  });

  api.post('/os/config/sync', () => os.blocked('OSManager.config_sync'));

  api.get('/os/config/swap', () => os.swap.info());

  api.post('/os/config/swap', async (call) => {
    const body = validateNested(call.body(), SWAP);
    if (await os.swap.set(body)) deps.logs.get('hearth.supervisor.os').info(`swappiness set to ${body.swappiness} (in effect now; the host's own configuration decides it after a reboot)`);
  });

  api.post('/os/datadisk/move', (call) => {
    validateNested(call.body(), DISK);
    os.blocked('DataDisk.migrate_disk');
  });

  api.get('/os/datadisk/list', async () => {
    const disks = await os.disks();
    return { devices: disks.map((d) => d.id), disks };
  });

  api.post('/os/datadisk/wipe', () => os.blocked('DataDisk.wipe_disk'));

  api.post('/os/boot-slot', (call) => {
    validateNested(call.body(), BOOT_SLOT);
    os.blocked('OSManager.set_boot_slot');
  });

  api.get('/os/boards/green', () => os.boardNotInUse('Green'));
  api.post('/os/boards/green', (call) => {
    validateNested(call.body(), GREEN);
    os.boardNotInUse('Green');
  });
  api.get('/os/boards/yellow', () => os.boardNotInUse('Yellow'));
  api.post('/os/boards/yellow', (call) => {
    validateNested(call.body(), YELLOW);
    os.boardNotInUse('Yellow');
  });

  api.get('/os/boards/raspberrypi/firmware', () => os.rpiFirmware());
  api.post('/os/boards/raspberrypi/firmware/update', () => os.rpiFirmware());

  // the board in use answers {}; this host runs none of the original's boards
  api.get('/os/boards/:board', (call) => os.boardNotInUse(call.params.board));
}
