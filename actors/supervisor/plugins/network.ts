import type Docker from 'dockerode';

/**
 * The plugin network (the original's `hassio` bridge, 172.30.32.0/23): a bridge network with a
 * subnet of its own, so the plugins keep fixed addresses across restarts (the engine's default
 * bridge gives a restarted container whatever address is free) and apps can be pointed at the
 * dns plugin's address once for all.
 */

export interface PluginNetworkOptions {
  /** the network's name (default `hassio`) */
  name: string;
  /** its IPv4 subnet in CIDR form (default 172.30.32.0/23) */
  subnet: string;
}

export const DEFAULT_PLUGIN_NETWORK: PluginNetworkOptions = { name: 'hassio', subnet: '172.30.32.0/23' };

export interface PluginNetwork {
  name: string;
  subnet: string;
  /** the host's address on it (`.1`): where apps reach the supervisor and the core */
  gateway: string;
  /** the address with this host part (`.3` for dns) */
  address(hostPart: number): string;
}

const toInt = (ip: string) => ip.split('.').reduce((n, octet) => n * 256 + Number(octet), 0);
const toIp = (n: number) => [24, 16, 8, 0].map((s) => Math.floor(n / 2 ** s) % 256).join('.');

/** The network's addresses from its subnet; an error naming the value when it is no IPv4 CIDR. */
export function networkOf(name: string, subnet: string): PluginNetwork {
  const m = /^(\d{1,3}(?:\.\d{1,3}){3})\/(\d{1,2})$/.exec(subnet);
  if (!m || Number(m[2]) > 29 || m[1].split('.').some((octet) => Number(octet) > 255)) throw new Error(`the plugin network's subnet ${subnet} is not an IPv4 CIDR of at least 8 addresses`);
  const size = 2 ** (32 - Number(m[2]));
  const base = toInt(m[1]) - (toInt(m[1]) % size);
  return { name, subnet: `${toIp(base)}/${m[2]}`, gateway: toIp(base + 1), address: (hostPart) => toIp(base + hostPart) };
}

/** Creates the network unless it exists (then its own subnet counts); answers its addresses. */
export async function ensurePluginNetwork(docker: Docker, options: PluginNetworkOptions): Promise<PluginNetwork> {
  const existing = await docker
    .getNetwork(options.name)
    .inspect()
    .catch((err: any) => {
      if (err?.statusCode === 404) return null;
      throw err;
    });
  if (existing) {
    const subnet = existing.IPAM?.Config?.find((c: any) => c.Subnet && !String(c.Subnet).includes(':'))?.Subnet;
    if (!subnet) throw new Error(`the network ${options.name} exists without an IPv4 subnet: the plugins cannot have fixed addresses on it`);
    const actual = networkOf(options.name, subnet);
    // the plugins' fixed addresses are planned from the configured subnet
    if (actual.subnet !== networkOf(options.name, options.subnet).subnet) throw new Error(`the network ${options.name} exists with subnet ${actual.subnet}, not the plugins' ${options.subnet}: remove it or configure its subnet`);
    return actual;
  }
  const net = networkOf(options.name, options.subnet);
  try {
    await docker.createNetwork({
      Name: options.name,
      Driver: 'bridge',
      Labels: { supervisor_managed: '' },
      IPAM: { Driver: 'default', Config: [{ Subnet: net.subnet, Gateway: net.gateway }] },
    });
  } catch (err: any) {
    // another supervisor (or a test beside this one) made it first: take it as it is
    if (err?.statusCode === 409) return ensurePluginNetwork(docker, options);
    throw new Error(`the plugin network ${options.name} (${net.subnet}) cannot be created: ${err?.json?.message ?? err?.message ?? err}`);
  }
  return net;
}
