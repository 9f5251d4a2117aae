import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Context } from '../../../store/types.ts';
import { Plugin, type PluginOptions, type PluginVersionInfo } from './plugin.ts';

/**
 * The dns plugin: the resolver of the apps' network. Its configuration (`servers`, `fallback`,
 * `mdns`, `llmnr`) is the settings section `plugin_dns`; before each start the supervisor writes
 * what the resolver reads into `<data>/dns` (bound at /config): `resolver.json` with the
 * upstreams in the order asked (the configured servers, the host's own, then the public
 * fallback when on) and `hosts` with the names it answers itself. The hosts file follows the
 * network: an app joining or leaving it rewrites the file, which the resolver reads again.
 */

export const DNS_DEFAULTS = { servers: [] as string[], fallback: true, mdns: true, llmnr: true };
export type DnsSettings = typeof DNS_DEFAULTS;

/** The public resolvers asked last when `fallback` is on (the original's fallback is Cloudflare's). */
export const FALLBACK_SERVERS = ['1.1.1.1', '1.0.0.1'];

export interface DnsInfo extends PluginVersionInfo {
  host: string | null;
  servers: string[];
  locals: string[];
  mdns: boolean;
  llmnr: boolean;
  fallback: boolean;
}

const LOCAL_DOMAIN = 'local.hass.io';
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** The host's resolvers as `dns://<ip>` (IPv4, from resolv.conf), in its order. */
export async function hostResolvers(file = '/etc/resolv.conf'): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const out: string[] = [];
  for (const line of text.split('\n')) {
    const m = /^\s*nameserver\s+(\S+)/.exec(line);
    if (m && IPV4.test(m[1])) out.push(`dns://${m[1]}`);
  }
  return out;
}

export interface DnsPluginOptions extends PluginOptions {
  /** the supervisor's data directory (the resolver's files live in `dns/`) */
  dataDir: string;
  /** the other plugins' addresses by name (answered as `<name>`) */
  pluginAddresses(): Promise<Record<string, string>>;
}

export class DnsPlugin extends Plugin<DnsSettings> {
  readonly configDir: string;
  private following?: { destroy?: () => void };
  private refreshTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly dnsOptions: DnsPluginOptions) {
    super(dnsOptions, DNS_DEFAULTS);
    this.configDir = join(dnsOptions.dataDir, 'dns');
  }

  async info(): Promise<DnsInfo> {
    const s = this.section.get();
    return {
      ...this.versionInfo(),
      host: this.address(),
      servers: s.servers,
      locals: await hostResolvers(),
      mdns: s.mdns,
      llmnr: s.llmnr,
      fallback: s.fallback,
    };
  }

  /** Changes servers and fallback; any value given restarts the plugin in the background, as the original does. */
  async setOptions(patch: { servers?: string[]; fallback?: boolean }, context: Context): Promise<void> {
    if (patch.servers === undefined && patch.fallback === undefined) return;
    await this.section.set({ servers: patch.servers, fallback: patch.fallback }, context);
    this.restartSoon(context);
  }

  /** Back to the host's resolvers with the fallback on, the hosts file written anew, then a restart. */
  async reset(context: Context): Promise<void> {
    await this.section.set({ servers: [], fallback: true }, context);
    await this.restart(context);
  }

  /** What apps are given as their resolver: the plugin's network and address, once installed. */
  async forApps(): Promise<{ network: string; ip: string } | null> {
    if (this.version() === null) return null;
    const network = await this.dnsOptions.network();
    return { network: network.name, ip: network.address(this.spec.hostPart!) };
  }

  async boot(context: Context): Promise<void> {
    await super.boot(context);
    await this.followNetwork();
  }

  close(): void {
    this.stopped = true;
    this.following?.destroy?.();
    clearTimeout(this.refreshTimer);
    super.close();
  }

  private restartSoon(context: Context): void {
    void this.restart(context).catch((err) => this.dnsOptions.logger.error(`the dns plugin did not restart after its options changed: ${(err as Error).message}`));
  }

  /** The upstreams the resolver asks, in order, without the ones it cannot reach (loopback). */
  private async upstreams(): Promise<string[]> {
    const s = this.section.get();
    const ips = [...s.servers, ...(await hostResolvers())].map((u) => u.replace(/^dns:\/\//i, '')).filter((ip) => IPV4.test(ip) && !ip.startsWith('127.'));
    if (s.fallback) ips.push(...FALLBACK_SERVERS);
    return [...new Set(ips)];
  }

  /** Writes resolver.json and hosts; answers the container's binds. */
  protected async prepare(): Promise<string[]> {
    await mkdir(this.configDir, { recursive: true });
    await writeFile(join(this.configDir, 'resolver.json'), `${JSON.stringify({ upstreams: await this.upstreams() }, null, 2)}\n`);
    await this.writeHosts();
    return [`${this.configDir}:/config:ro`];
  }

  /** The hosts file from the network as the engine has it now (replaced whole, never half-written). */
  async writeHosts(): Promise<void> {
    const network = await this.dnsOptions.network();
    const lines = [`${network.gateway} supervisor hassio homeassistant`];
    for (const [name, ip] of Object.entries(await this.dnsOptions.pluginAddresses())) lines.push(`${ip} ${name}`);
    const inspect = await this.docker
      .getNetwork(network.name)
      .inspect()
      .catch(() => null);
    for (const [id, c] of Object.entries((inspect?.Containers ?? {}) as Record<string, { IPv4Address?: string }>)) {
      const ip = c.IPv4Address?.split('/')[0];
      if (!ip) continue;
      const info = await this.docker
        .getContainer(id)
        .inspect()
        .catch(() => null);
      const host = info?.Config?.Hostname;
      if (!host || info?.Config?.Labels?.['io.hass.type'] === 'plugin') continue;
      lines.push(`${ip} ${host}`);
    }
    // every short name is answered under the local domain as well
    const text = lines.map((l) => {
      const [ip, ...names] = l.split(' ');
      return [ip, ...names.flatMap((n) => [n, `${n}.${LOCAL_DOMAIN}`])].join(' ');
    });
    await mkdir(this.configDir, { recursive: true });
    const file = join(this.configDir, 'hosts');
    await writeFile(`${file}.new`, `${text.join('\n')}\n`);
    await rename(`${file}.new`, file);
  }

  /** Rewrites the hosts file whenever a container joins or leaves the network. */
  private async followNetwork(): Promise<void> {
    if (this.following || this.stopped) return;
    const network = await this.dnsOptions.network();
    try {
      const stream = (await this.docker.getEvents({ filters: { type: ['network'], network: [network.name], event: ['connect', 'disconnect'] } })) as unknown as NodeJS.ReadableStream & { destroy?: () => void };
      this.following = stream;
      stream.on('data', () => {
        clearTimeout(this.refreshTimer);
        this.refreshTimer = setTimeout(() => void this.writeHosts().catch((err) => this.dnsOptions.logger.warning(`the dns plugin's hosts file: ${(err as Error).message}`)), 50);
      });
      const again = () => {
        this.following = undefined;
        if (!this.stopped) setTimeout(() => void this.followNetwork().catch(() => {}), 2000).unref();
      };
      stream.on('end', again);
      stream.on('error', again);
    } catch {
      if (!this.stopped) setTimeout(() => void this.followNetwork().catch(() => {}), 5000).unref();
    }
  }
}
