// /network on this host: the interfaces the kernel reports (compared with `ip -j`), the engine's
// network, connectivity against a local server (up) and a closed port (down), the original's
// validation messages and its refusals without NetworkManager.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { freePort } from '../../../helpers/ports.ts';

const ip = (...args: string[]) => JSON.parse(execFileSync('ip', ['-j', ...args], { encoding: 'utf8' }) || '[]');
const closedPort = async () => `http://127.0.0.1:${await freePort()}/online.txt`;

/** The interfaces the original would list, by the kernel's own account: cards (no link kind) and VLANs. */
function expectedNames(): string[] {
  return (ip('-d', 'link', 'show') as any[]).filter((l) => l.link_type === 'ether' && (!l.linkinfo?.info_kind || l.linkinfo.info_kind === 'vlan')).map((l) => l.ifname);
}

t.test('GET /network/info: the interfaces, addresses, gateways and primary as `ip -j` reports them', async (t) => {
  const s = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  const res = await s.json('GET', '/network/info');
  t.equal(res.status, 200);
  const data = res.body.data;
  t.same(Object.keys(data), ['interfaces', 'docker', 'host_internet', 'supervisor_internet']);
  const interfaces = data.interfaces as any[];
  t.same(interfaces.map((i) => i.interface), expectedNames(), 'the same interfaces, in the kernel\'s order');

  const addrs = ip('addr', 'show') as any[];
  const links = ip('link', 'show') as any[];
  const defaults4 = (ip('-4', 'route', 'show') as any[]).filter((r) => r.dst === 'default');
  const defaults6 = (ip('-6', 'route', 'show') as any[]).filter((r) => r.dst === 'default');
  const primary = [...defaults4].sort((a, b) => (a.metric ?? 0) - (b.metric ?? 0))[0]?.dev ?? defaults6[0]?.dev;
  const resolv = readFileSync(existsSync('/run/systemd/resolve/resolv.conf') ? '/run/systemd/resolve/resolv.conf' : '/etc/resolv.conf', 'utf8')
    .split('\n')
    .map((l) => l.trim().match(/^nameserver\s+(\S+)/)?.[1])
    .filter(Boolean) as string[];
  for (const i of interfaces) {
    const name = i.interface;
    t.same(Object.keys(i), ['interface', 'type', 'enabled', 'connected', 'primary', 'mac', 'ipv4', 'ipv6', 'wifi', 'vlan', 'mdns', 'llmnr'], `${name}: the original's keys`);
    t.same(Object.keys(i.ipv4), ['method', 'address', 'nameservers', 'gateway', 'route_metric', 'ready']);
    t.same(Object.keys(i.ipv6), ['method', 'addr_gen_mode', 'ip6_privacy', 'address', 'nameservers', 'gateway', 'route_metric', 'ready']);
    const info = addrs.find((a) => a.ifname === name).addr_info as any[];
    t.same(i.ipv4.address, info.filter((a) => a.family === 'inet').map((a) => `${a.local}/${a.prefixlen}`), `${name}: IPv4 addresses`);
    t.same(i.ipv6.address, info.filter((a) => a.family === 'inet6').map((a) => `${a.local}/${a.prefixlen}`), `${name}: IPv6 addresses`);
    const link = links.find((l) => l.ifname === name);
    t.equal(i.mac, link.address.toUpperCase(), `${name}: MAC`);
    t.equal(i.enabled, link.flags.includes('UP'), `${name}: enabled is the link's UP flag`);
    t.equal(i.ipv4.gateway, defaults4.find((r) => r.dev === name)?.gateway ?? null, `${name}: IPv4 gateway`);
    t.equal(i.ipv6.gateway, defaults6.find((r) => r.dev === name)?.gateway ?? null, `${name}: IPv6 gateway`);
    t.equal(i.primary, name === primary, `${name}: primary is the default route's interface`);
    t.same(i.ipv4.nameservers, name === primary ? resolv.filter((n) => !n.includes(':')) : [], `${name}: the resolver's IPv4 servers on the primary interface`);
    t.equal(i.wifi, null);
    t.equal(i.type === 'vlan', i.vlan !== null);
  }
});

t.test('GET /network/interface/{x}/info: by name, by MAC, `default` is the primary; unknown is 404', async (t) => {
  const s = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  const all = (await s.json('GET', '/network/info')).body.data.interfaces as any[];
  for (const i of all) {
    t.same((await s.json('GET', `/network/interface/${i.interface}/info`)).body, { result: 'ok', data: i }, `${i.interface} by name`);
    t.same((await s.json('GET', `/network/interface/${i.mac.toLowerCase()}/info`)).body.data.interface, i.interface, `${i.interface} by MAC`);
  }
  const primary = all.find((i) => i.primary);
  const def = await s.json('GET', '/network/interface/default/info');
  if (primary) t.same(def.body, { result: 'ok', data: primary });
  else t.same(def, { status: 404, body: { result: 'error', message: 'Interface default does not exist' } });
  t.same(await s.json('GET', '/network/interface/nosuch0/info'), { status: 404, body: { result: 'error', message: 'Interface nosuch0 does not exist' } });
  t.same(await s.json('POST', '/network/interface/nosuch0/update', { body: { enabled: true } }), { status: 404, body: { result: 'error', message: 'Interface nosuch0 does not exist' } });
});

t.test('docker: the engine network\'s subnet and gateway as the engine reports them', async (t) => {
  const s = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  const net = JSON.parse(execFileSync('docker', ['network', 'inspect', 'bridge'], { encoding: 'utf8' }))[0];
  const v4 = (net.IPAM.Config as any[]).find((c) => !c.Subnet.includes(':'));
  t.same((await s.json('GET', '/network/info')).body.data.docker, { interface: 'bridge', address: v4.Subnet, gateway: v4.Gateway, dns: null });
});

function onlineServer(): Promise<{ server: Server; url: string; heads: () => number }> {
  let heads = 0;
  const server = createServer((req, res) => {
    if (req.method === 'HEAD') heads++;
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end();
  });
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok({ server, url: `http://127.0.0.1:${(server.address() as any).port}/online.txt`, heads: () => heads })));
}

t.test('connectivity: up against a local server, down against a closed port; reload checks again', async (t) => {
  const online = await onlineServer();
  t.teardown(() => online.server.close());
  const up = await startTestSupervisor(t, { connectivityUrl: online.url });
  t.same(await up.json('POST', '/network/reload'), { status: 200, body: { result: 'ok', data: {} } });
  let data = (await up.json('GET', '/network/info')).body.data;
  t.equal(data.host_internet, true);
  t.equal(data.supervisor_internet, true);
  const before = online.heads();
  t.ok(before >= 1, 'the check asked the configured URL');
  await up.json('POST', '/network/reload');
  t.ok(online.heads() > before, 'a reload checks again');

  const down = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  await down.json('POST', '/network/reload');
  data = (await down.json('GET', '/network/info')).body.data;
  t.equal(data.host_internet, false);
  t.equal(data.supervisor_internet, false);

  // the server goes away: the next reload sees it
  online.server.close();
  online.server.closeAllConnections();
  await up.json('POST', '/network/reload');
  data = (await up.json('GET', '/network/info')).body.data;
  t.same([data.host_internet, data.supervisor_internet], [false, false]);
});

t.test('connectivity check off: host_internet null and the `connectivity_check` unsupported reason', async (t) => {
  const s = await startTestSupervisor(t, { connectivityUrl: null });
  await s.json('POST', '/network/reload');
  const data = (await s.json('GET', '/network/info')).body.data;
  t.equal(data.host_internet, null);
  t.ok((await s.json('GET', '/resolution/info')).body.data.unsupported.includes('connectivity_check'));
  const on = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  t.notOk((await on.json('GET', '/resolution/info')).body.data.unsupported.includes('connectivity_check'), 'on: not that reason');
  t.ok((await on.json('GET', '/resolution/info')).body.data.unsupported.includes('network_manager'), 'no NetworkManager link: `network_manager`');
});

t.test('interface update and VLAN bodies get the original\'s validation messages before any refusal', async (t) => {
  const s = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  const name = expectedNames()[0];
  t.ok(name, 'an interface to address');
  const update = `/network/interface/${name}/update`;
  const cases: [unknown, string][] = [
    [{}, 'You need to supply at least one option to update'],
    [{ ipv4: { nameservers: '1.1.1.1' } }, "expected a list for dictionary value @ data['ipv4']['nameservers']. Got '1.1.1.1'"],
    [{ ipv4: { gateway: 'invalid' } }, "expected IPv4Address for dictionary value @ data['ipv4']['gateway']. Got 'invalid'"],
    [{ ipv6: { gateway: 'invalid' } }, "expected IPv6Address for dictionary value @ data['ipv6']['gateway']. Got 'invalid'"],
    [{ ipv4: { gateway: 'fd00::1' } }, "expected IPv4Address for dictionary value @ data['ipv4']['gateway']. Got 'fd00::1'"],
    [{ ipv4: { address: ['192.168.1.10/33'] } }, "expected IPv4Interface @ data['ipv4']['address'][0]. Got '192.168.1.10/33'"],
    [{ ipv4: { address: ['192.168.1.10/24', '300.1.1.1/24'] } }, "expected IPv4Interface @ data['ipv4']['address'][1]. Got '300.1.1.1/24'"],
    [{ ipv6: { address: ['fd00::5/129'] } }, "expected IPv6Interface @ data['ipv6']['address'][0]. Got 'fd00::5/129'"],
    [{ ipv4: { method: 'dhcp' } }, "expected InterfaceMethod or one of 'disabled', 'static', 'auto' for dictionary value @ data['ipv4']['method']. Got 'dhcp'"],
    [{ ipv6: { addr_gen_mode: 'x' } }, "expected InterfaceAddrGenMode or one of 'eui64', 'stable-privacy', 'default-or-eui64', 'default' for dictionary value @ data['ipv6']['addr_gen_mode']. Got 'x'"],
    [{ ipv4: { route_metric: 'high' } }, "expected int for dictionary value @ data['ipv4']['route_metric']. Got 'high'"],
    [{ ipv4: { dns: ['1.1.1.1'] } }, "extra keys not allowed @ data['ipv4']['dns']. Got ['1.1.1.1']"],
    [{ ipv4: 'auto' }, "expected a dictionary for dictionary value @ data['ipv4']. Got 'auto'"],
    [{ wifi: { mode: 'station' } }, "expected WifiMode or one of 'infrastructure', 'mesh', 'adhoc', 'ap' for dictionary value @ data['wifi']['mode']. Got 'station'"],
    [{ enabled: 'maybe' }, "expected boolean for dictionary value @ data['enabled']. Got 'maybe'"],
    [{ mdns: 'loud' }, "expected MulticastDnsMode or one of 'default', 'off', 'resolve', 'announce' for dictionary value @ data['mdns']. Got 'loud'"],
    [{ hostname: 'x' }, "extra keys not allowed @ data['hostname']. Got 'x'"],
    [
      { ipv4: { gateway: 'invalid', method: 'x' }, bogus: 1 },
      "expected IPv4Address for dictionary value @ data['ipv4']['gateway']. Got 'invalid'\nexpected InterfaceMethod or one of 'disabled', 'static', 'auto' for dictionary value @ data['ipv4']['method']. Got 'x'\nextra keys not allowed @ data['bogus']. Got 1",
    ],
  ];
  for (const [body, message] of cases) t.same(await s.json('POST', update, { body }), { status: 400, body: { result: 'error', message } }, JSON.stringify(body));

  const refusal = { status: 400, body: { result: 'error', message: 'No network D-Bus connection available' } };
  t.same(await s.json('POST', update, { body: { ipv4: { method: 'static', address: ['192.0.2.50/24'], gateway: '192.0.2.1', nameservers: ['192.0.2.1'] } } }), refusal, 'a valid change: no NetworkManager to apply it');
  t.same(await s.json('POST', update, { body: { enabled: false } }), refusal);
  t.same(await s.json('GET', '/network/interface/nosuch0/info'), { status: 404, body: { result: 'error', message: 'Interface nosuch0 does not exist' } });
  t.same((await s.json('GET', `/network/interface/${name}/info`)).status, 200, 'the interface is as it was');
});

t.test('VLANs and access points: the original\'s checks, then the refusal', async (t) => {
  const s = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  const all = (await s.json('GET', '/network/info')).body.data.interfaces as any[];
  const ethernet = all.find((i) => i.type === 'ethernet');
  t.ok(ethernet, 'an ethernet card');
  const e = ethernet.interface;
  t.same(await s.json('POST', `/network/interface/${e}/vlan/-1`, { body: {} }), { status: 400, body: { result: 'error', message: 'Invalid vlan specified: -1' } });
  t.same(await s.json('POST', `/network/interface/${e}/vlan/abc`, { body: {} }), { status: 400, body: { result: 'error', message: 'Invalid vlan specified: abc' } });
  t.same(await s.json('POST', `/network/interface/${e}/vlan/10`, { body: { ipv4: { method: 'nope' } } }), {
    status: 400,
    body: { result: 'error', message: "expected InterfaceMethod or one of 'disabled', 'static', 'auto' for dictionary value @ data['ipv4']['method']. Got 'nope'" },
  });
  t.same(await s.json('POST', `/network/interface/${e}/vlan/10`, { body: {} }), { status: 400, body: { result: 'error', message: 'No network D-Bus connection available' } });
  t.same(await s.json('GET', `/network/interface/${e}/accesspoints`), { status: 400, body: { result: 'error', message: `Interface ${e} is not a valid wireless card!` } });
  t.same(await s.json('GET', '/network/interface/nosuch0/accesspoints'), { status: 404, body: { result: 'error', message: 'Interface nosuch0 does not exist' } });
});

t.test('resolution: network_interface_ipv4 finds the interfaces up with a link and no IPv4 address', async (t) => {
  const s = await startTestSupervisor(t, { connectivityUrl: await closedPort() });
  t.ok((await s.json('GET', '/resolution/info')).body.data.checks.some((c: any) => c.slug === 'network_interface_ipv4' && c.enabled));
  t.equal((await s.json('POST', '/resolution/check/network_interface_ipv4/run')).status, 200);
  const addrs = ip('addr', 'show') as any[];
  const expected = expectedNames().filter((name) => {
    const a = addrs.find((x) => x.ifname === name);
    return a.flags.includes('UP') && a.flags.includes('LOWER_UP') && a.operstate !== 'DOWN' && !a.addr_info.some((x: any) => x.family === 'inet');
  });
  const issues = ((await s.json('GET', '/resolution/info')).body.data.issues as any[]).filter((i) => i.type === 'ipv4_connection_problem');
  t.same(issues.map((i) => [i.context, i.reference]).sort(), expected.map((n) => ['system', n]).sort());
});

t.test('every /network and /os route answers on both trees', async (t) => {
  const dataDir = await supervisorDataDir();
  const url = await closedPort();
  const first = await startTestSupervisor(t, { dataDir, connectivityUrl: url });
  await first.supervisor.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).set({ feature_flags: { supervisor_v2_api: true } }, { id: 'x', parent_id: null, user_id: null });
  await first.supervisor.stop();
  const s = await startTestSupervisor(t, { dataDir, connectivityUrl: url });
  const routes = [
    'GET /network/info', 'POST /network/reload', 'GET /network/interface/:interface/info', 'POST /network/interface/:interface/update',
    'GET /network/interface/:interface/accesspoints', 'POST /network/interface/:interface/vlan/:vlan',
    'GET /os/info', 'POST /os/update', 'GET /os/config/swap', 'POST /os/config/swap', 'POST /os/config/sync', 'POST /os/datadisk/move',
    'GET /os/datadisk/list', 'POST /os/datadisk/wipe', 'POST /os/boot-slot', 'GET /os/boards/green', 'POST /os/boards/green',
    'GET /os/boards/yellow', 'POST /os/boards/yellow', 'GET /os/boards/raspberrypi/firmware', 'POST /os/boards/raspberrypi/firmware/update', 'GET /os/boards/:board',
  ];
  const table = new Set(s.supervisor.api.table().map((e) => `${e.tree} ${e.method} ${e.path}`));
  for (const r of routes) {
    const [method, path] = r.split(' ');
    t.ok(table.has(`v1 ${method} ${path}`), `v1 ${r}`);
    t.ok(table.has(`v2 ${method} /v2${path}`), `v2 ${r}`);
  }
  t.same((await s.json('GET', '/v2/network/interface/nosuch0/info')).body, { result: 'error', message: 'Interface nosuch0 does not exist' });
  t.equal((await s.json('GET', '/v2/os/info')).body.data.board, null);
});
