import { execFile } from 'node:child_process';
import { access } from 'node:fs/promises';

/**
 * The host's own tools, as the host facts and controls reach them. The original asks systemd,
 * hostnamed, timedated and resolved over D-Bus; Hearth asks the same services through their
 * command-line clients (`systemctl`, `hostnamectl`, `timedatectl`), and only where the service
 * really runs: a client installed on a host whose init is not systemd answers nothing true.
 * Arguments go to execFile, never a shell.
 */

/** A command that failed: `message` is what it said on stderr (or how it ended). */
export class HostCommandError extends Error {}

/** Which host services are there (the original's D-Bus connections). */
export interface HostServices {
  /** the system bus socket */
  dbus: boolean;
  /** systemd is the running init (`/run/systemd/system`) and the bus is there to ask it */
  systemd: boolean;
  /** systemd-logind (reboot/shutdown through it) */
  logind: boolean;
  /** systemd-hostnamed can be asked (systemd with the bus) */
  hostnamed: boolean;
  /** systemd-timedated can be asked */
  timedated: boolean;
  /** systemd-resolved runs */
  resolved: boolean;
  /** systemd-journal-gatewayd's socket */
  journalGatewayd: boolean;
  /** UDisks2 (never on a plain host without it; drives then come from lsblk) */
  udisks2: boolean;
}

export interface HostSystem {
  services(): Promise<HostServices>;
  /** systemd-journal-gatewayd's socket (default /run/systemd-journal-gatewayd.sock) */
  journalSocket?: string;
  /** Runs `command args`, resolving its stdout; a HostCommandError with its stderr when it fails. */
  run(command: string, args: string[], options?: { timeoutMs?: number }): Promise<string>;
}

/** Paths whose presence says a service is there (the same probes the evaluations use). */
export const SERVICE_PATHS = {
  dbus: '/run/dbus/system_bus_socket',
  systemd: '/run/systemd/system',
  logind: '/run/systemd/seats',
  resolved: '/run/systemd/resolve',
  journalGatewayd: '/run/systemd-journal-gatewayd.sock',
  udisks2: '/run/udisks2',
} as const;

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The machine this process runs on. */
export class LocalHost implements HostSystem {
  async services(): Promise<HostServices> {
    const [dbus, systemdRuns, seats, resolved, journalGatewayd, udisks2] = await Promise.all(Object.values(SERVICE_PATHS).map(exists));
    const systemd = dbus && systemdRuns;
    return {
      dbus,
      systemd,
      logind: systemd && seats,
      hostnamed: systemd,
      timedated: systemd,
      resolved: systemd && resolved,
      journalGatewayd,
      udisks2: dbus && udisks2,
    };
  }

  run(command: string, args: string[], options: { timeoutMs?: number } = {}): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(command, args, { timeout: options.timeoutMs ?? 30_000, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
        if (!err) return resolve(stdout);
        const said = String(stderr).trim() || String(stdout).trim();
        reject(new HostCommandError(said || `${command} ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'is not installed' : `failed: ${err.message}`}`));
      });
    });
  }
}
