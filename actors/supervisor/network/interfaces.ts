import { execFile } from 'node:child_process';
import { access, readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

/**
 * The host's network interfaces as the original's API shows them (supervisor-wire §4.20), read
 * from the kernel (`ip -j`, /sys, /proc) and the resolver's configuration instead of
 * NetworkManager, which a plain host need not have. Only the kinds the original lists appear:
 * ethernet and wireless cards and VLANs; loopback, bridges, veths, tunnels and the like do not.
 */

const run = promisify(execFile);

export type InterfaceMethod = 'static' | 'auto' | 'disabled';

export interface IpConfigView {
  method: InterfaceMethod;
  address: string[];
  nameservers: string[];
  gateway: string | null;
  route_metric: number | null;
  ready: boolean;
}

export interface Ip6ConfigView {
  method: InterfaceMethod;
  addr_gen_mode: string;
  ip6_privacy: string;
  address: string[];
  nameservers: string[];
  gateway: string | null;
  route_metric: number | null;
  ready: boolean;
}

/** An interface, keys in the original's order. */
export interface InterfaceView {
  interface: string;
  type: 'ethernet' | 'wireless' | 'vlan';
  enabled: boolean;
  connected: boolean;
  primary: boolean;
  mac: string;
  ipv4: IpConfigView;
  ipv6: Ip6ConfigView;
  /** the SSID and signal are NetworkManager's to tell; without it, null */
  wifi: null;
  vlan: { id: number; parent: string } | null;
  /** systemd-resolved's per-link settings; null without it, as the original without a connection profile */
  mdns: null;
  llmnr: null;
}

/** What the kernel said, as `ip -j` prints it (only the fields used). */
export interface KernelFacts {
  links: Array<{ ifname: string; flags?: string[]; operstate?: string; link_type?: string; address?: string; link?: string; inet6_addr_gen_mode?: string; linkinfo?: { info_kind?: string; info_data?: { id?: number } } }>;
  addrs: Array<{ ifname: string; addr_info?: Array<{ family: string; local: string; prefixlen: number; scope?: string; dynamic?: boolean; tentative?: boolean }> }>;
  routes: Array<{ dst: string; gateway?: string; dev?: string; metric?: number; family: 4 | 6 }>;
  /** the resolver's name servers, in order */
  nameservers: string[];
  wireless: Set<string>;
  /** /proc/sys/net/ipv6/conf/<if>/use_tempaddr */
  tempaddr: Map<string, number>;
}

const ipJson = async (args: string[]): Promise<any[]> => {
  const { stdout } = await run('ip', ['-j', ...args], { maxBuffer: 16 * 1024 * 1024 });
  return stdout.trim() ? JSON.parse(stdout) : [];
};

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

/** The resolver's servers: systemd-resolved's upstream list when it runs (its stub is 127.0.0.53), else resolv.conf. */
export async function readNameservers(files = ['/run/systemd/resolve/resolv.conf', '/etc/resolv.conf']): Promise<string[]> {
  for (const file of files) {
    const text = await readFile(file, 'utf8').catch(() => null);
    if (text === null) continue;
    return text
      .split('\n')
      .map((l) => l.trim().match(/^nameserver\s+(\S+)/)?.[1])
      .filter((s): s is string => !!s);
  }
  return [];
}

/** Reads everything the interface list is made from. */
export async function readKernelFacts(): Promise<KernelFacts> {
  const [links, addrs, routes4, routes6, nameservers] = await Promise.all([
    ipJson(['-d', 'link', 'show']),
    ipJson(['addr', 'show']),
    ipJson(['-4', 'route', 'show', 'table', 'main']),
    ipJson(['-6', 'route', 'show', 'table', 'main']),
    readNameservers(),
  ]);
  const wireless = new Set<string>();
  const tempaddr = new Map<string, number>();
  await Promise.all(
    links.map(async (l: { ifname: string }) => {
      if ((await exists(`/sys/class/net/${l.ifname}/wireless`)) || (await exists(`/sys/class/net/${l.ifname}/phy80211`))) wireless.add(l.ifname);
      const t = await readFile(`/proc/sys/net/ipv6/conf/${l.ifname}/use_tempaddr`, 'utf8').catch(() => null);
      if (t !== null) tempaddr.set(l.ifname, Number(t.trim()));
    }),
  );
  return {
    links,
    addrs,
    routes: [...routes4.map((r: any) => ({ ...r, family: 4 as const })), ...routes6.map((r: any) => ({ ...r, family: 6 as const }))],
    nameservers,
    wireless,
    tempaddr,
  };
}

const ADDR_GEN_MODES: Record<string, string> = { eui64: 'eui64', stable_secret: 'stable-privacy', random: 'stable-privacy' };
const IP6_PRIVACY: Record<number, string> = { 0: 'disabled', 1: 'enabled-prefer-public', 2: 'enabled' };

/** The kind of interface the original would list, or null for one it leaves out. */
function kindOf(link: KernelFacts['links'][number], wireless: Set<string>): InterfaceView['type'] | null {
  if (link.link_type !== 'ether') return null;
  const kind = link.linkinfo?.info_kind;
  if (kind === 'vlan') return 'vlan';
  // a kind names a virtual device (bridge, veth, bond, tun, dummy, ifb...); a card has none
  if (kind) return null;
  return wireless.has(link.ifname) ? 'wireless' : 'ethernet';
}

const isIpv4 = (s: string) => /^\d+\.\d+\.\d+\.\d+$/.test(s);

/** The interfaces the facts describe, in the kernel's order. */
export function interfacesOf(f: KernelFacts): InterfaceView[] {
  const defaults = f.routes.filter((r) => r.dst === 'default' && r.dev);
  const best = (family: 4 | 6) => defaults.filter((r) => r.family === family).sort((a, b) => (a.metric ?? 0) - (b.metric ?? 0))[0];
  // the interface the host reaches the world through (the original: NetworkManager's primary connection)
  const primary = (best(4) ?? best(6))?.dev;
  const out: InterfaceView[] = [];
  for (const link of f.links) {
    const type = kindOf(link, f.wireless);
    if (!type) continue;
    const name = link.ifname;
    const flags = new Set(link.flags ?? []);
    const enabled = flags.has('UP');
    const connected = enabled && flags.has('LOWER_UP') && link.operstate !== 'DOWN';
    const infos = f.addrs.find((a) => a.ifname === name)?.addr_info ?? [];
    const v4 = infos.filter((a) => a.family === 'inet');
    const v6 = infos.filter((a) => a.family === 'inet6');
    const route = (family: 4 | 6) => defaults.filter((r) => r.family === family && r.dev === name).sort((a, b) => (a.metric ?? 0) - (b.metric ?? 0))[0];
    const r4 = route(4);
    const r6 = route(6);
    const isPrimary = name === primary;
    const globals6 = v6.filter((a) => a.scope === 'global');
    const method = (addrs: typeof infos): InterfaceMethod => (addrs.some((a) => a.dynamic) ? 'auto' : addrs.length ? 'static' : 'disabled');
    out.push({
      interface: name,
      type,
      enabled,
      connected,
      primary: isPrimary,
      mac: (link.address ?? '').toUpperCase(),
      ipv4: {
        method: method(v4),
        address: v4.map((a) => `${a.local}/${a.prefixlen}`),
        nameservers: isPrimary ? f.nameservers.filter(isIpv4) : [],
        gateway: r4?.gateway ?? null,
        route_metric: r4 ? (r4.metric ?? 0) : null,
        ready: connected && v4.some((a) => !a.tentative),
      },
      ipv6: {
        method: method(globals6),
        addr_gen_mode: ADDR_GEN_MODES[link.inet6_addr_gen_mode ?? ''] ?? 'default',
        ip6_privacy: IP6_PRIVACY[f.tempaddr.get(name) ?? -1] ?? 'default',
        address: v6.map((a) => `${a.local}/${a.prefixlen}`),
        nameservers: isPrimary ? f.nameservers.filter((s) => s.includes(':')) : [],
        gateway: r6?.gateway ?? null,
        route_metric: r6 ? (r6.metric ?? 0) : null,
        ready: connected && globals6.some((a) => !a.tentative),
      },
      wifi: null,
      vlan: type === 'vlan' ? { id: link.linkinfo?.info_data?.id ?? 0, parent: link.link ?? '' } : null,
      mdns: null,
      llmnr: null,
    });
  }
  return out;
}

/** The host's interfaces now. */
export async function hostInterfaces(): Promise<InterfaceView[]> {
  return interfacesOf(await readKernelFacts());
}
