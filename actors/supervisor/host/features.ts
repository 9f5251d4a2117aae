import type { HostServices } from './system.ts';

/**
 * The host features (supervisor-wire §11.1), in the original's order, from the services that are
 * really there. `os_agent` and `haos` never: Hearth runs on a plain host. `network` is
 * NetworkManager's, which Hearth does not drive (the network area answers without it).
 */
export function hostFeatures(services: HostServices, mountsAvailable: boolean): string[] {
  const features: string[] = [];
  if (services.systemd) features.push('reboot', 'shutdown', 'services');
  if (services.hostnamed) features.push('hostname');
  if (services.timedated) features.push('timedate');
  if (services.resolved) features.push('resolved');
  if (services.journalGatewayd) features.push('journal');
  if (services.udisks2) features.push('disk');
  // Hearth mounts with util-linux where the process may mount (not through systemd units)
  if (mountsAvailable) features.push('mount');
  return features;
}
