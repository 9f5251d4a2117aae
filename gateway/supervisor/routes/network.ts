import { isIPv6 } from 'node:net';
import type { SupervisorApi } from '../api.ts';
import { SupervisorError } from '../../../actors/supervisor/errors.ts';
import { NO_NETWORK_DBUS, type Network } from '../../../actors/supervisor/network/network.ts';
import { checkedText, coerceEnum, coerceInt, lenientBoolean, listOf, schema, str, validateNested } from '../../../actors/supervisor/validate.ts';

/**
 * /network (supervisor-wire §4.20): the interfaces and connectivity as this host has them;
 * changes are checked with the original's schema and messages first, then refused as the
 * original refuses without NetworkManager.
 */

const OCTET = '(25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const IPV4 = new RegExp(`^${OCTET}(\\.${OCTET}){3}$`);
const isV4 = (s: string) => IPV4.test(s);
/** A prefix length, or a netmask Python's ipaddress accepts for an IPv4 interface. */
function v4Prefix(p: string): boolean {
  if (/^\d+$/.test(p)) return Number(p) <= 32;
  if (!isV4(p)) return false;
  const bits = p.split('.').map((octet) => Number(octet).toString(2).padStart(8, '0')).join('');
  return /^1*0*$/.test(bits) || /^0*1*$/.test(bits);
}

const ipv4Address = checkedText('ipv4_address', isV4, 'expected IPv4Address');
const ipv6Address = checkedText('ipv6_address', (v) => isIPv6(v), 'expected IPv6Address');
const ipv4Interface = checkedText(
  'ipv4_interface',
  (v) => {
    const [addr, prefix, more] = v.split('/');
    return more === undefined && isV4(addr) && (prefix === undefined || v4Prefix(prefix));
  },
  'expected IPv4Interface',
);
const ipv6Interface = checkedText(
  'ipv6_interface',
  (v) => {
    const [addr, prefix, more] = v.split('/');
    return more === undefined && isIPv6(addr) && (prefix === undefined || (/^\d+$/.test(prefix) && Number(prefix) <= 128));
  },
  'expected IPv6Interface',
);

const METHOD = coerceEnum('InterfaceMethod', ['disabled', 'static', 'auto']);
const MULTICAST_DNS = coerceEnum('MulticastDnsMode', ['default', 'off', 'resolve', 'announce']);

/** The original's interface update body (also the VLAN body). */
export const INTERFACE_UPDATE = schema({
  ipv4: schema({ address: listOf(ipv4Interface), method: METHOD, gateway: ipv4Address, route_metric: coerceInt, nameservers: listOf(ipv4Address) }),
  ipv6: schema({
    address: listOf(ipv6Interface),
    method: METHOD,
    addr_gen_mode: coerceEnum('InterfaceAddrGenMode', ['eui64', 'stable-privacy', 'default-or-eui64', 'default']),
    ip6_privacy: coerceEnum('InterfaceIp6Privacy', ['default', 'disabled', 'enabled-prefer-public', 'enabled']),
    gateway: ipv6Address,
    route_metric: coerceInt,
    nameservers: listOf(ipv6Address),
  }),
  wifi: schema({ mode: coerceEnum('WifiMode', ['infrastructure', 'mesh', 'adhoc', 'ap']), auth: coerceEnum('AuthMethod', ['open', 'wep', 'wpa-psk']), ssid: str, psk: str }),
  enabled: lenientBoolean,
  mdns: MULTICAST_DNS,
  llmnr: MULTICAST_DNS,
});

/** What the network routes use. */
export interface NetworkRouteDeps {
  network: Network;
}

/** Registers the network routes. */
export function registerNetworkRoutes(api: SupervisorApi, deps: NetworkRouteDeps): void {
  const { network } = deps;

  api.get('/network/info', () => network.info());

  api.get('/network/interface/:interface/info', (call) => network.interface(call.params.interface));

  api.post('/network/reload', () => network.reload());

  api.post('/network/interface/:interface/update', async (call) => {
    await network.interface(call.params.interface);
    const body = validateNested(call.body(), INTERFACE_UPDATE);
    if (!Object.keys(body).length) throw new SupervisorError('You need to supply at least one option to update');
    network.refuseChange();
  });

  api.get('/network/interface/:interface/accesspoints', async (call) => {
    const inet = await network.interface(call.params.interface);
    if (inet.type !== 'wireless') throw new SupervisorError(`Interface ${inet.interface} is not a valid wireless card!`);
    network.refuseChange();
  });

  api.post('/network/interface/:interface/vlan/:vlan', async (call) => {
    const inet = await network.interface(call.params.interface);
    const raw = call.params.vlan;
    const vlan = /^[-+]?\d+$/.test(raw) ? Number.parseInt(raw, 10) : Number.NaN;
    if (!(vlan >= 0)) throw new SupervisorError(`Invalid vlan specified: ${raw}`);
    if (inet.type !== 'ethernet') throw new SupervisorError(`Interface ${inet.interface} is not a valid ethernet card for vlan!`);
    validateNested(call.body(), INTERFACE_UPDATE);
    network.refuseChange();
  });
}
