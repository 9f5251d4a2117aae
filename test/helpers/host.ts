// Stand-ins for the host's tools: what a host with systemd would answer, and a host whose
// commands never change anything (the role matrix calls reboot with every token).
import { HostCommandError, LocalHost, type HostServices, type HostSystem } from '../../actors/supervisor/host/system.ts';

/** The services of a host booted with systemd, hostnamed, timedated and logind (no resolved, no gatewayd). */
export const SYSTEMD_HOST: HostServices = { dbus: true, systemd: true, logind: true, hostnamed: true, timedated: true, resolved: false, journalGatewayd: false, udisks2: false };

/** A host whose services are `services` and whose commands are answered by `answer` (every call recorded). */
export function scriptedHost(services: HostServices, answer: (command: string, args: string[]) => string | Error = () => ''): HostSystem & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    services: async () => services,
    run: async (command, args) => {
      calls.push([command, ...args].join(' '));
      const out = answer(command, args);
      if (out instanceof Error) throw out;
      return out;
    },
  };
}

/** This machine's facts, but no command that changes it (power, hostname) ever runs. */
export function inertHost(): HostSystem {
  const local = new LocalHost();
  return {
    services: () => local.services(),
    run: async (command, args) => {
      if (command === 'hostnamectl' || (command === 'systemctl' && ['reboot', 'poweroff'].includes(args[0]))) throw new HostCommandError(`${command} ${args[0]} is not run in tests`);
      return local.run(command, args);
    },
  };
}
