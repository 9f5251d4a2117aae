import { SupervisorError, keyedError } from '../errors.ts';
import { HostCommandError, type HostServices, type HostSystem } from './system.ts';

/**
 * Changes to the host: reboot, power off, the static hostname, and the list of systemd services.
 * Each runs through the host's init system (systemctl, or logind through it; hostnamectl) only
 * when that service really runs; otherwise it is refused with the original's "No <feature> D-Bus
 * connection available", never pretended.
 */

/** The original's refusal during a core offline database migration (host routes' wording). */
export const HOST_MIGRATION_MESSAGE = 'Home Assistant offline database migration in progress, please wait until complete before shutting down host';

export interface HostControlDeps {
  host: HostSystem;
  services(): Promise<HostServices>;
  /** whether the core reports an offline database migration */
  migrationRunning(): Promise<boolean>;
  /** stops the core and the apps before the power goes (the original does so off its own OS) */
  stopManaged(): Promise<void>;
  logger: { info(line: string): void; warning(line: string): void };
  /** the process's user id (default: this process's) */
  uid?: () => number;
}

const notSupported = (feature: string) => new SupervisorError(`No ${feature} D-Bus connection available`);

/** Whether `name` is a hostname hostnamed accepts as static hostname (labels of [a-zA-Z0-9-], dots between). */
export function validHostname(name: string): boolean {
  if (name.length === 0 || name.length > 64) return false;
  if (name.startsWith('.') || name.endsWith('.') || name.includes('..')) return false;
  return name.split('.').every((label) => /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/.test(label));
}

export class HostControl {
  constructor(private readonly deps: HostControlDeps) {}

  /** `reboot` or `poweroff`, after the migration guard (skipped with `force`). */
  async power(action: 'reboot' | 'shutdown', force: boolean): Promise<void> {
    if (!force && (await this.deps.migrationRunning())) throw new SupervisorError(HOST_MIGRATION_MESSAGE, { status: 503 });
    const s = await this.deps.services();
    if (!s.systemd && !s.logind) throw notSupported(action);
    // asked before the core and the apps are stopped: a refusal then leaves everything running
    if (!(await this.permitted(action, s))) {
      throw new SupervisorError(`Cannot ${action === 'reboot' ? 'reboot' : 'shut down'} the host: this supervisor is not permitted to (it runs as an unprivileged user and logind does not allow it)`);
    }
    this.deps.logger.info(`Initialize host ${action === 'reboot' ? 'reboot' : 'power off'} using ${s.logind ? 'logind' : 'systemd'}`);
    try {
      await this.deps.stopManaged();
    } finally {
      await this.deps.host.run('systemctl', [action === 'reboot' ? 'reboot' : 'poweroff']).catch((err) => {
        throw new SupervisorError(`Cannot ${action === 'reboot' ? 'reboot' : 'shut down'} the host: ${(err as Error).message}`);
      });
    }
  }

  /** root may; anyone else only where logind says `yes` (not `challenge`: nobody is there to answer it). */
  private async permitted(action: 'reboot' | 'shutdown', s: HostServices): Promise<boolean> {
    if ((this.deps.uid?.() ?? process.getuid?.() ?? 0) === 0) return true;
    if (!s.logind) return false;
    const method = action === 'reboot' ? 'CanReboot' : 'CanPowerOff';
    const out = await this.deps.host.run('busctl', ['call', 'org.freedesktop.login1', '/org/freedesktop/login1', 'org.freedesktop.login1.Manager', method]).catch(() => '');
    return /^s "yes"/.test(out.trim());
  }

  async setHostname(name: string): Promise<void> {
    const s = await this.deps.services();
    if (!s.hostnamed) throw notSupported('hostname');
    // hostnamed's InvalidArgs, said before asking it
    if (!validHostname(name)) throw keyedError(400, 'host_invalid_hostname', "Invalid hostname '{hostname}'", { hostname: name });
    this.deps.logger.info(`Set hostname ${name}`);
    try {
      await this.deps.host.run('hostnamectl', ['set-hostname', '--static', '--', name]);
    } catch (err) {
      if (err instanceof HostCommandError && /invalid/i.test(err.message)) throw keyedError(400, 'host_invalid_hostname', "Invalid hostname '{hostname}'", { hostname: name });
      throw new SupervisorError(`Cannot set the hostname: ${(err as Error).message}`);
    }
  }

  /** The loaded `.service` units (name, description, ActiveState); none without systemd. */
  async services(): Promise<{ name: string; description: string; state: string }[]> {
    const s = await this.deps.services();
    if (!s.systemd) return [];
    const out = await this.deps.host.run('systemctl', ['list-units', '--type=service', '--all', '--plain', '--no-legend', '--no-pager']).catch((err) => {
      this.deps.logger.warning(`cannot list the host's services: ${(err as Error).message}`);
      return '';
    });
    return parseUnits(out);
  }
}

/** `systemctl list-units --plain --no-legend` lines: UNIT LOAD ACTIVE SUB DESCRIPTION. */
export function parseUnits(out: string): { name: string; description: string; state: string }[] {
  const units: { name: string; description: string; state: string }[] = [];
  for (const line of out.split('\n')) {
    const m = /^\s*(\S+\.service)\s+(\S+)\s+(\S+)\s+(\S+)\s*(.*)$/.exec(line);
    if (!m || m[2] !== 'loaded') continue;
    units.push({ name: m[1], description: m[5].trim(), state: m[3] });
  }
  return units;
}
