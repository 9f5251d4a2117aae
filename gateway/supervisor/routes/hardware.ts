import type { SupervisorApi } from '../api.ts';
import type { SupervisorDeps } from '../deps.ts';
import { hostDevices } from '../../../actors/supervisor/hardware/devices.ts';
import { hostDrives } from '../../../actors/supervisor/hardware/drives.ts';
import { hostAudio } from '../../../actors/supervisor/hardware/audio.ts';
import { hostOf } from './host.ts';

/** The host's hardware (§4.8): devices from sysfs and udev, drives from lsblk, the sound server's streams. */
export function registerHardwareRoutes(api: SupervisorApi, deps: SupervisorDeps): void {
  api.get('/hardware/info', async () => {
    const [devices, drives] = await Promise.all([hostDevices(), hostDrives(hostOf(deps))]);
    return { devices, drives };
  });

  api.get('/hardware/audio', () => hostAudio(hostOf(deps)));
}
