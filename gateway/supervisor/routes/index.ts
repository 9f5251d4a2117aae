import type { SupervisorApi } from '../api.ts';
import type { SupervisorDeps } from '../deps.ts';
import { registerCoreRoutes } from './core.ts';
import { registerCoreAndSupervisorLogs } from './logs.ts';
import { registerJobRoutes } from './jobs.ts';
import { registerResolutionRoutes } from './resolution.ts';
import { registerRootRoutes } from './root.ts';
import { registerSupervisorOwnRoutes } from './supervisor.ts';
import { registerDockerRoutes } from './docker.ts';
import { registerSecurityRoutes } from './security.ts';
import { registerServiceRoutes } from './services.ts';
import { registerDiscoveryRoutes } from './discovery.ts';
import { registerAuthRoutes } from './auth.ts';
import { registerIngressRoutes } from './ingress.ts';
import { registerMountRoutes } from './mounts.ts';
import { registerBackupRoutes } from './backups.ts';
import { registerNetworkRoutes } from './network.ts';
import { registerOsRoutes } from './os.ts';
import { registerHostRoutes } from './host.ts';
import { registerHardwareRoutes } from './hardware.ts';
import { registerBackupRestoreRoutes } from './backup-restore.ts';

/** Every route of the supervisor's API, area by area (each area's file holds its handlers). */
export function registerSupervisorRoutes(api: SupervisorApi, deps: SupervisorDeps): void {
  api.get('/supervisor/ping', () => ({}));
  void deps;
  registerCoreRoutes(api, deps);
  registerCoreAndSupervisorLogs(api, deps);
  registerJobRoutes(api, deps);
  registerResolutionRoutes(api, deps);
  registerRootRoutes(api, deps);
  registerSupervisorOwnRoutes(api, deps);
  registerDockerRoutes(api, deps);
  registerSecurityRoutes(api, deps);
  registerServiceRoutes(api, deps);
  registerDiscoveryRoutes(api, deps);
  registerAuthRoutes(api, deps);
  registerIngressRoutes(api, deps);
  registerMountRoutes(api, deps);
  registerBackupRoutes(api, deps);
  registerNetworkRoutes(api, deps);
  registerOsRoutes(api, deps);
  registerHostRoutes(api, deps);
  registerHardwareRoutes(api, deps);
  registerBackupRestoreRoutes(api, deps);
}
