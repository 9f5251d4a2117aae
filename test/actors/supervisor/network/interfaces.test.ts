// The rules that turn the kernel's account (`ip -j` output) into the original's interfaces, for
// kinds this machine does not have (VLANs, wireless cards, DHCP addresses), and the IPv4 check
// over them. The same code runs against the real host in network.test.ts.
import t from 'tap';
import { interfacesOf, type KernelFacts } from '../../../../actors/supervisor/network/interfaces.ts';
import { CHECKS, type CheckDeps } from '../../../../actors/supervisor/resolution/checks.ts';
import type { IssueSpec } from '../../../../actors/supervisor/resolution/types.ts';

const facts: KernelFacts = {
  links: [
    { ifname: 'lo', flags: ['LOOPBACK', 'UP', 'LOWER_UP'], link_type: 'loopback', address: '00:00:00:00:00:00' },
    { ifname: 'enp1s0', flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], operstate: 'UP', link_type: 'ether', address: 'aa:bb:cc:dd:ee:01', inet6_addr_gen_mode: 'stable_secret' },
    { ifname: 'wlp2s0', flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], operstate: 'UP', link_type: 'ether', address: 'aa:bb:cc:dd:ee:02' },
    { ifname: 'enp1s0.10', flags: ['BROADCAST', 'MULTICAST', 'UP', 'LOWER_UP'], operstate: 'UP', link_type: 'ether', address: 'aa:bb:cc:dd:ee:01', link: 'enp1s0', linkinfo: { info_kind: 'vlan', info_data: { id: 10 } } },
    { ifname: 'docker0', flags: ['NO-CARRIER', 'BROADCAST', 'MULTICAST', 'UP'], operstate: 'DOWN', link_type: 'ether', address: '02:42:00:00:00:01', linkinfo: { info_kind: 'bridge' } },
    { ifname: 'veth1', flags: ['UP', 'LOWER_UP'], link_type: 'ether', address: '02:42:00:00:00:02', linkinfo: { info_kind: 'veth' } },
    { ifname: 'enp3s0', flags: ['BROADCAST', 'MULTICAST'], operstate: 'DOWN', link_type: 'ether', address: 'aa:bb:cc:dd:ee:03' },
  ],
  addrs: [
    { ifname: 'enp1s0', addr_info: [
      { family: 'inet', local: '192.168.1.20', prefixlen: 24, scope: 'global', dynamic: true },
      { family: 'inet6', local: '2001:db8::20', prefixlen: 64, scope: 'global', dynamic: true },
      { family: 'inet6', local: 'fe80::1', prefixlen: 64, scope: 'link' },
    ] },
    { ifname: 'wlp2s0', addr_info: [{ family: 'inet', local: '10.0.0.5', prefixlen: 16, scope: 'global' }] },
    { ifname: 'enp1s0.10', addr_info: [{ family: 'inet6', local: 'fe80::2', prefixlen: 64, scope: 'link' }] },
    { ifname: 'enp3s0', addr_info: [] },
  ],
  routes: [
    { dst: 'default', gateway: '192.168.1.1', dev: 'enp1s0', metric: 100, family: 4 },
    { dst: 'default', gateway: '10.0.0.1', dev: 'wlp2s0', metric: 600, family: 4 },
    { dst: 'default', gateway: 'fe80::1', dev: 'enp1s0', metric: 1024, family: 6 },
  ],
  nameservers: ['192.168.1.1', '2001:db8::1'],
  wireless: new Set(['wlp2s0']),
  tempaddr: new Map([['enp1s0', 2]]),
};

t.test('kinds, primary, methods, gateways and the resolver\'s servers', async (t) => {
  const list = interfacesOf(facts);
  t.same(list.map((i) => [i.interface, i.type]), [['enp1s0', 'ethernet'], ['wlp2s0', 'wireless'], ['enp1s0.10', 'vlan'], ['enp3s0', 'ethernet']], 'no loopback, bridge or veth');
  const [eth, wifi, vlan, down] = list;
  t.same(eth, {
    interface: 'enp1s0', type: 'ethernet', enabled: true, connected: true, primary: true, mac: 'AA:BB:CC:DD:EE:01',
    ipv4: { method: 'auto', address: ['192.168.1.20/24'], nameservers: ['192.168.1.1'], gateway: '192.168.1.1', route_metric: 100, ready: true },
    ipv6: { method: 'auto', addr_gen_mode: 'stable-privacy', ip6_privacy: 'enabled', address: ['2001:db8::20/64', 'fe80::1/64'], nameservers: ['2001:db8::1'], gateway: 'fe80::1', route_metric: 1024, ready: true },
    wifi: null, vlan: null, mdns: null, llmnr: null,
  });
  t.match(wifi, { primary: false, ipv4: { method: 'static', gateway: '10.0.0.1', route_metric: 600, nameservers: [] }, ipv6: { method: 'disabled', ready: false, addr_gen_mode: 'default', ip6_privacy: 'default' } });
  t.same(vlan.vlan, { id: 10, parent: 'enp1s0' });
  t.match(vlan, { connected: true, ipv4: { method: 'disabled', address: [], ready: false } });
  t.match(down, { enabled: false, connected: false, ipv4: { ready: false, gateway: null, route_metric: null } });
});

t.test('network_interface_ipv4: an interface up with a link and no IPv4 is an issue until it gets one', async (t) => {
  const check = CHECKS.find((c) => c.slug === 'network_interface_ipv4')!;
  let issues: IssueSpec[] = [];
  const tools = {
    addIssue: async (i: IssueSpec) => {
      issues.push(i);
      return { ...i, reference: i.reference ?? null, reference_extra: null, uuid: 'x' };
    },
    clearIssues: async (match: Partial<IssueSpec>, keep: (i: any) => boolean = () => false) => {
      issues = issues.filter((i) => !(i.type === match.type && i.context === match.context) || keep({ ...i, reference: i.reference ?? null }));
    },
    warn: () => {},
  };
  let current = facts;
  const deps = { interfaces: async () => interfacesOf(current) } as unknown as CheckDeps;
  await check.run(deps, tools);
  t.same(issues, [{ type: 'ipv4_connection_problem', context: 'system', reference: 'enp1s0.10' }], 'the VLAN: up, linked, no IPv4; the card that is down is none');
  current = { ...facts, addrs: [...facts.addrs.filter((a) => a.ifname !== 'enp1s0.10'), { ifname: 'enp1s0.10', addr_info: [{ family: 'inet', local: '172.16.0.2', prefixlen: 24, scope: 'global' }] }] };
  await check.run(deps, tools);
  t.same(issues, [], 'an address: the issue is resolved');
});
