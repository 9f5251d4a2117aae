import type { Engine } from '../docker/engine.ts';
import { SupervisorError, notFound } from '../errors.ts';
import type { Connectivity } from './connectivity.ts';
import { hostInterfaces, type InterfaceView } from './interfaces.ts';

/**
 * The network area (supervisor-wire §4.20): the host's interfaces as the kernel reports them,
 * the engine's network the supervisor's containers use, and the connectivity checks. Changing
 * an interface (addresses, Wi-Fi, VLANs, scans) goes through NetworkManager in the original;
 * without it this host refuses as the original does when NetworkManager's D-Bus link is absent.
 */

/** The original's words when NetworkManager cannot be reached. */
export const NO_NETWORK_DBUS = 'No network D-Bus connection available';

export interface DockerNetworkView {
  interface: string;
  address: string | null;
  gateway: string | null;
  dns: string | null;
}

export interface NetworkDeps {
  engine: Engine;
  connectivity: Connectivity;
  /** the engine network the supervisor's containers join (default `bridge`) */
  dockerNetwork(): string;
  /** where the interfaces come from (tests may stand in the host) */
  interfaces?(): Promise<InterfaceView[]>;
  logLine(line: string): void;
}

export class Network {
  /** the DNS plugin's address on the engine network, set by whoever runs that plugin */
  dnsAddress: (() => Promise<string | null>) | undefined;

  constructor(private readonly deps: NetworkDeps) {}

  /** The interfaces now; none when the kernel cannot be asked (as the original without NetworkManager). */
  async interfaces(): Promise<InterfaceView[]> {
    try {
      return await (this.deps.interfaces ?? hostInterfaces)();
    } catch (err) {
      this.deps.logLine(`cannot read the host's interfaces: ${(err as Error)?.message ?? err}`);
      return [];
    }
  }

  /** An interface by name or MAC address, or the primary one for `default`; 404 otherwise. */
  async interface(name: string): Promise<InterfaceView> {
    const all = await this.interfaces();
    const found = name.toLowerCase() === 'default' ? all.find((i) => i.primary) : all.find((i) => i.interface === name || i.mac === name.toUpperCase());
    if (!found) throw notFound(`Interface ${name} does not exist`);
    return found;
  }

  async info(): Promise<{ interfaces: InterfaceView[]; docker: DockerNetworkView; host_internet: boolean | null; supervisor_internet: boolean }> {
    // keeps the answer fresh without waiting: a probe runs when the last one is old enough
    void this.deps.connectivity.check();
    const [interfaces, docker] = await Promise.all([this.interfaces(), this.docker()]);
    return { interfaces, docker, host_internet: this.deps.connectivity.host, supervisor_internet: this.deps.connectivity.supervisor };
  }

  /** The engine's network: its name, IPv4 subnet and gateway, and the DNS plugin's address. */
  async docker(): Promise<DockerNetworkView> {
    const name = this.deps.dockerNetwork();
    let address: string | null = null;
    let gateway: string | null = null;
    try {
      const net = await this.deps.engine.docker.getNetwork(name).inspect();
      const v4 = ((net?.IPAM?.Config ?? []) as Array<{ Subnet?: string; Gateway?: string }>).find((c) => c.Subnet && !c.Subnet.includes(':'));
      address = v4?.Subnet ?? null;
      gateway = v4?.Gateway ?? null;
    } catch (err) {
      this.deps.logLine(`cannot inspect the engine's network ${name}: ${(err as any)?.json?.message ?? (err as Error)?.message ?? err}`);
    }
    const dns = (await this.dnsAddress?.().catch(() => null)) ?? null;
    return { interface: name, address, gateway, dns };
  }

  /** Reads the interfaces again and checks connectivity now (the original's reload with a forced check). */
  async reload(): Promise<void> {
    this.deps.logLine('Updating local network information');
    await this.interfaces();
    await this.deps.connectivity.check({ force: true });
  }

  /** Applying interface settings, creating VLANs and scanning need NetworkManager. */
  refuseChange(): never {
    throw new SupervisorError(NO_NETWORK_DBUS);
  }
}
