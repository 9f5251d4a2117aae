import type { SupervisorApi } from '../api.ts';
import type { HostSystem } from '../../../actors/supervisor/host/system.ts';
import { hostDevices } from '../../../actors/supervisor/hardware/devices.ts';
import { hostDrives } from '../../../actors/supervisor/hardware/drives.ts';
import { hostAudio } from '../../../actors/supervisor/hardware/audio.ts';

/** What the hardware routes read. */
export interface HardwareRouteDeps {
  /** the machine's own tools (a test hands a stand-in) */
  host: HostSystem;
}

/** The host's hardware (§4.8): devices from sysfs and udev, drives from lsblk, the sound server's streams. */
export function registerHardwareRoutes(api: SupervisorApi, deps: HardwareRouteDeps): void {
  api.get('/hardware/info', async () => {
    const [devices, drives] = await Promise.all([hostDevices(), hostDrives(deps.host)]);
    return { devices, drives };
  });

  api.get('/hardware/audio', () => hostAudio(deps.host));
}
