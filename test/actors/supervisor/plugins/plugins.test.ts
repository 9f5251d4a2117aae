// The plugins on the real engine: the five containers booted by the supervisor, their info,
// stats and logs on both trees, the observer's page, updates; the dns plugin resolving for apps
// (one app's container finds the other app and the supervisor by name with busybox nslookup,
// the rest goes to a local upstream), its options checked, set and reset, and a restart through
// the API after which names resolve again.
import t, { type Test } from 'tap';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir, type TestSupervisor } from '../../../helpers/supervisor.ts';
import { appPrefix, docker, freePort } from '../../../helpers/apps.ts';
import { testPluginNetwork } from '../../../helpers/plugins.ts';
import { networkOf } from '../../../../actors/supervisor/plugins/network.ts';
import { CORE_VERSION } from '../../../../actors/version.ts';
import { eventually } from '../../../helpers/wait.ts';

const STATS_KEYS = ['cpu_percent', 'memory_usage', 'memory_limit', 'memory_percent', 'network_rx', 'network_tx', 'blk_read', 'blk_write'];

/** A small app of the local repository that only waits (busybox sleep). */
async function writeLocalApp(dataDir: string, name: string): Promise<void> {
  const dir = join(dataDir, 'apps', 'local', name);
  await mkdir(dir, { recursive: true });
  await writeFile(
    join(dir, 'config.yaml'),
    [`name: ${name}`, 'version: "1.0.0"', `slug: ${name}`, `description: waits, for the dns tests`, 'arch:', '  - amd64', '  - aarch64', 'startup: application', 'boot: manual', 'init: false', 'options: {}', 'schema: {}', ''].join('\n'),
  );
  await writeFile(join(dir, 'Dockerfile'), 'ARG BUILD_FROM\nFROM $BUILD_FROM\nCMD ["/bin/sh", "-c", "trap \'exit 0\' TERM; while :; do sleep 3600 & wait $!; done"]\n');
}

/** busybox nslookup in a container: the first address after the `Name:` line, or null. */
async function lookup(container: string, name: string): Promise<string | null> {
  const out = await docker('exec', container, 'nslookup', '-timeout=3', name).catch((err) => String(err?.stdout ?? ''));
  const m = /Name:\s*\S+\s*\nAddress(?: \d+)?:\s*(\d+\.\d+\.\d+\.\d+)/.exec(out);
  return m ? m[1] : null;
}

async function ipOn(container: string, network: string): Promise<string> {
  return docker('inspect', '-f', `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`, container);
}

/** A supervisor serving both trees with its plugins booted on a network of the test's own. */
async function withPlugins(t: Test) {
  const prefix = appPrefix(t, 'plug');
  const network = await testPluginNetwork(t, prefix);
  const observerPort = await freePort();
  const dataDir = await supervisorDataDir();
  await writeLocalApp(dataDir, 'alpha');
  await writeLocalApp(dataDir, 'beta');
  // the channel document names no plugin version: each is installed at this Hearth's own
  const channel = join(dataDir, 'channel.json');
  await writeFile(channel, JSON.stringify({ channel: 'stable', supervisor: CORE_VERSION, core: { default: CORE_VERSION } }));
  const options = { dataDir, appContainerPrefix: prefix, pluginContainerPrefix: prefix, pluginNetwork: network, observerPort, bootApps: false, updaterUrl: channel };
  const first = await startTestSupervisor(t, options);
  t.equal((await first.json('POST', '/supervisor/options', { body: { feature_flags: { supervisor_v2_api: true } } })).status, 200);
  await first.supervisor.stop();
  const s = await startTestSupervisor(t, { ...options, bootPlugins: true, host: '0.0.0.0' });
  const net = networkOf(network.name, network.subnet);
  // the boot runs in the background: every plugin's stats answer once its container runs
  for (const name of ['dns', 'audio', 'cli', 'observer', 'multicast']) {
    await eventually('the plugin stats', async () => (await s.json('GET', `/${name}/stats`)).status === 200, 120_000);
  }
  return { s, prefix, network, net, observerPort, channel };
}

t.test('the five plugins run as containers: info, stats, logs on both trees, the observer page, updates', async (t) => {
  const { s, prefix, net, observerPort, channel } = await withPlugins(t);

  for (const tree of ['', '/v2']) {
    const dns = await s.json('GET', `${tree}/dns/info`);
    t.equal(dns.status, 200);
    t.same(Object.keys(dns.body.data), ['version', 'version_latest', 'update_available', 'host', 'servers', 'locals', 'mdns', 'llmnr', 'fallback']);
    const locals = (await readFile('/etc/resolv.conf', 'utf8'))
      .split('\n')
      .map((l) => /^\s*nameserver\s+(\d+\.\d+\.\d+\.\d+)\s*$/.exec(l)?.[1])
      .filter(Boolean)
      .map((ip) => `dns://${ip}`);
    t.same(dns.body.data, { version: CORE_VERSION, version_latest: CORE_VERSION, update_available: false, host: net.address(3), servers: [], locals, mdns: true, llmnr: true, fallback: true }, `${tree || 'v1'} dns info: the host's resolvers as locals`);
    t.same((await s.json('GET', `${tree}/audio/info`)).body.data, { version: CORE_VERSION, version_latest: CORE_VERSION, update_available: false, host: net.address(4), audio: { card: [], input: [], output: [], application: [] } }, 'no sound server: empty lists');
    t.same((await s.json('GET', `${tree}/cli/info`)).body.data, { version: CORE_VERSION, version_latest: CORE_VERSION, update_available: false });
    t.same((await s.json('GET', `${tree}/observer/info`)).body.data, { host: net.address(6), version: CORE_VERSION, version_latest: CORE_VERSION, update_available: false });
    t.same((await s.json('GET', `${tree}/multicast/info`)).body.data, { version: CORE_VERSION, version_latest: CORE_VERSION, update_available: false });
    for (const name of ['dns', 'audio', 'cli', 'observer', 'multicast']) {
      const stats = await s.json('GET', `${tree}/${name}/stats`);
      t.same(Object.keys(stats.body.data), STATS_KEYS, `${tree}/${name}/stats`);
      t.ok(stats.body.data.memory_usage > 0, `${name} uses memory`);
    }
  }

  // the containers as the engine has them: fixed addresses, multicast on the host's network
  t.equal(await ipOn(`${prefix}dns`, net.name), net.address(3));
  t.equal(await ipOn(`${prefix}observer`, net.name), net.address(6));
  t.equal(await docker('inspect', '-f', '{{.HostConfig.NetworkMode}}', `${prefix}multicast`), 'host');
  t.equal(await docker('inspect', '-f', '{{.Config.Image}}', `${prefix}dns`), `hearth/dns:${CORE_VERSION}`);

  // the cli acts for the host with a token of its own; the observer's token reads only
  const inside = (plugin: string, method: 'GET' | 'POST', path: string) =>
    docker('exec', `${prefix}${plugin}`, 'sh', '-c', `wget -q -O- ${method === 'POST' ? "--post-data '{}' " : ''}--header "Authorization: Bearer $SUPERVISOR_TOKEN" "$SUPERVISOR${path}" 2>&1; echo " exit=$?"`);
  t.match(await inside('cli', 'GET', '/supervisor/info'), /^\{"result":"ok".* exit=0$/s);
  t.match(await inside('cli', 'POST', '/supervisor/options'), /"result":"ok".* exit=0$/s, 'the cli may change things');
  t.match(await inside('observer', 'GET', '/supervisor/info'), /^\{"result":"ok".* exit=0$/s);
  t.match(await inside('observer', 'POST', '/supervisor/options'), /403 Forbidden.* exit=1$/s, 'the observer may not');

  const page = await eventually('the observer page', async () => {
    const res = await fetch(`http://127.0.0.1:${observerPort}/`).catch(() => null);
    return res?.status === 200 ? res.text() : undefined;
  }, 60_000);
  t.match(page, /Hearth observer/);
  t.match(page, /Connected/, 'the supervisor runs');

  for (const tree of ['', '/v2']) {
    const logs = await s.call('GET', `${tree}/dns/logs`);
    t.equal(logs.status, 200);
    t.match(logs.headers.get('content-type'), /^text\/plain/);
    t.match(await logs.text(), /resolver listening on udp and tcp port 53/);
    t.match(await (await s.call('GET', `${tree}/multicast/logs`)).text(), /multicast plugin: relaying on the host network/);
    t.match(await (await s.call('GET', `${tree}/audio/logs`)).text(), /no sound server on this host/);
  }

  // the version in use: a 400 for dns, audio, multicast; nothing for cli and observer
  for (const name of ['dns', 'audio', 'multicast']) {
    t.same((await s.json('POST', `/${name}/update`, { body: { version: CORE_VERSION } })).body, { result: 'error', message: `Version ${CORE_VERSION} is already in use` });
  }
  t.same((await s.json('POST', '/cli/update', { body: { version: CORE_VERSION } })).body, { result: 'ok', data: {} });
  t.same((await s.json('POST', '/observer/update')).body, { result: 'ok', data: {} }, 'the latest is the one in use');
  t.same((await s.json('POST', '/multicast/update', { body: { version: 3 } })).body, { result: 'error', message: "expected str @ data['version']. Got 3" });

  // the channel moves on (read again at once rather than after the 30 s throttle): an update is offered, then made
  await writeFile(channel, JSON.stringify({ channel: 'stable', supervisor: CORE_VERSION, core: { default: CORE_VERSION }, observer: '2026.12.1' }));
  await s.supervisor.updater.reload({ force: true });
  t.same((await s.json('GET', '/v2/observer/info')).body.data, { host: net.address(6), version: CORE_VERSION, version_latest: '2026.12.1', update_available: true });
  t.same((await s.json('POST', '/observer/update')).body, { result: 'ok', data: {} });
  t.same((await s.json('GET', '/observer/info')).body.data, { host: net.address(6), version: '2026.12.1', version_latest: '2026.12.1', update_available: false });
  t.equal(await docker('inspect', '-f', '{{.Config.Image}} {{.State.Running}}', `${prefix}observer`), 'hearth/observer:2026.12.1 true');
  t.teardown(() => docker('rmi', '-f', 'hearth/observer:2026.12.1').catch(() => ''));
  t.equal(await eventually('the observer page again', async () => (await fetch(`http://127.0.0.1:${observerPort}/`).catch(() => null))?.status, 60_000), 200, 'the page again');

  // another version is made here and the container made anew from it
  const before = await docker('inspect', '-f', '{{.Id}}', `${prefix}multicast`);
  t.same((await s.json('POST', '/multicast/update', { body: { version: '2026.11.7' } })).body, { result: 'ok', data: {} });
  t.equal((await s.json('GET', '/multicast/info')).body.data.version, '2026.11.7');
  t.equal(await docker('inspect', '-f', '{{.Config.Image}} {{.State.Running}}', `${prefix}multicast`), 'hearth/multicast:2026.11.7 true');
  t.not(await docker('inspect', '-f', '{{.Id}}', `${prefix}multicast`), before, 'a new container');
  t.equal((await s.json('GET', '/multicast/info')).body.data.update_available, false, 'newer than the latest known');
  const records: string[] = [];
  for await (const r of s.supervisor.log.readStreams('plugins/multicast')) records.push(r.type);
  t.same(records, ['plugin_installed', 'plugin_started', 'plugin_started', 'plugin_updated']);
  t.teardown(() => docker('rmi', '-f', 'hearth/multicast:2026.11.7').catch(() => ''));

  // the sound controls need a sound server; their bodies are still checked first
  const volume = await s.json('POST', '/audio/volume/output', { body: { index: 0, volume: 0.5 } });
  t.same(volume.body, { result: 'error', message: 'No sound server runs on this host: cannot set the volume of output stream 0' });
  t.same((await s.json('POST', '/audio/mute/input/application', { body: { index: 1 } })).body, { result: 'error', message: "required key not provided @ data['active']. Got None" });
  t.same((await s.json('POST', '/audio/volume/input', { body: { index: 0, volume: 'loud' } })).body, { result: 'error', message: "expected float @ data['volume']. Got 'loud'" });
  t.equal((await s.json('POST', '/audio/volume/sideways', { body: { index: 0, volume: 1 } })).status, 404);
  t.same((await s.json('POST', '/audio/reload')).body, { result: 'ok', data: {} });
  t.same((await s.json('POST', '/audio/restart')).body, { result: 'ok', data: {} });

  // a plugin's image lost: the repair makes it again
  await docker('rmi', '-f', `hearth/cli:${CORE_VERSION}`);
  t.same((await s.json('POST', '/supervisor/repair')).body, { result: 'ok', data: {} });
  t.equal(await docker('image', 'inspect', '-f', '{{index .Config.Labels "io.hass.name"}}', `hearth/cli:${CORE_VERSION}`), 'cli', 'the image is there again');

  // the watchdog, as for the core: a plugin's container killed behind the supervisor's back runs again
  await docker('kill', `${prefix}cli`);
  const cliRecords = async () => {
    const out: Array<{ type: string; data: any }> = [];
    for await (const r of s.supervisor.log.readStreams('plugins/cli')) out.push({ type: r.type, data: r.data });
    return out;
  };
  const cli = await eventually('plugin_restarted recorded', async () => {
    const records = await cliRecords();
    return records.at(-1)?.type === 'plugin_restarted' ? records : undefined;
  }, 30_000);
  t.equal(await docker('inspect', '-f', '{{.State.Running}}', `${prefix}cli`), 'true', 'running again');
  t.match(cli.slice(-2), [{ type: 'plugin_crashed', data: { exit_code: 137 } }, { type: 'plugin_restarted', data: { attempt: 1, exit_code: 137 } }], 'the crash and the restart recorded');
});

t.test('the dns plugin resolves for apps: other apps, the supervisor, an upstream; options, restart, reset', async (t) => {
  const { s, prefix, network, net } = await withPlugins(t);
  for (const app of ['local_alpha', 'local_beta']) {
    t.same((await s.json('POST', `/store/addons/${app}/install`)).body, { result: 'ok', data: {} }, `${app} installed`);
    t.same((await s.json('POST', `/addons/${app}/start`)).body, { result: 'ok', data: {} }, `${app} started`);
  }
  const alpha = `${prefix}local_alpha`;
  const betaIp = await ipOn(`${prefix}local_beta`, net.name);
  t.match(betaIp, /^\d+\.\d+\.\d+\.\d+$/, 'the app is on the plugin network');
  t.same(JSON.parse(await docker('inspect', '-f', '{{json .HostConfig.Dns}}', alpha)), [net.address(3)], 'apps are given the dns plugin');

  t.equal(await eventually('local-beta answered', () => lookup(alpha, 'local-beta'), 60_000), betaIp, "another app's hostname");
  t.equal(await lookup(alpha, 'local-beta.local.hass.io'), betaIp, 'and under local.hass.io');
  t.equal(await lookup(alpha, 'supervisor'), net.gateway, 'the supervisor: the host on the network');
  t.equal(await lookup(alpha, 'homeassistant'), net.gateway);
  t.equal(await lookup(alpha, 'nobody-here.local.hass.io'), null, 'an unknown local name is not found');

  // options are checked as the original checks them
  const bad: Array<[unknown, string]> = [
    [{ servers: ['1.1.1.1'] }, "Doesn't start with dns:// @ data['servers'][0]. Got '1.1.1.1'"],
    [{ servers: ['dns://1.1.1.1', 'dns://::1'] }, "Only IPv4 is working for DNS: dns://::1 @ data['servers'][1]. Got 'dns://::1'"],
    [{ servers: ['dns://example.org'] }, "Invalid DNS URL: dns://example.org @ data['servers'][0]. Got 'dns://example.org'"],
    [{ servers: 'dns://1.1.1.1' }, "expected list @ data['servers']. Got 'dns://1.1.1.1'"],
    [{ servers: Array.from({ length: 9 }, (_, i) => `dns://10.0.0.${i}`) }, `length of value must be at most 8 @ data['servers']. Got [${Array.from({ length: 9 }, (_, i) => `'dns://10.0.0.${i}'`).join(', ')}]`],
    [{ fallback: 'maybe' }, "expected boolean @ data['fallback']. Got 'maybe'"],
    [{ mdns: true }, "extra keys not allowed @ data['mdns']. Got True"],
  ];
  for (const [body, message] of bad) t.same((await s.json('POST', '/dns/options', { body })).body, { result: 'error', message }, JSON.stringify(body).slice(0, 60));
  t.same((await s.json('GET', '/dns/info')).body.data.servers, [], 'nothing kept');

  // a local upstream (the resolver's own image with a table of its own): the rest is forwarded there
  const upstreamDir = await mkdtemp(join(tmpdir(), 'hearth-dns-upstream-'));
  await writeFile(join(upstreamDir, 'hosts'), '10.9.8.7 upstream-only.example\n');
  await writeFile(join(upstreamDir, 'resolver.json'), '{"upstreams":[]}\n');
  await docker('run', '-d', '--name', `${prefix}upstream`, '--network', network.name, '-v', `${upstreamDir}:/config:ro`, `hearth/dns:${CORE_VERSION}`);
  const upstreamIp = await ipOn(`${prefix}upstream`, network.name);
  const restartedBefore = await docker('inspect', '-f', '{{.State.StartedAt}}', `${prefix}dns`);
  t.same((await s.json('POST', '/dns/options', { body: { servers: [`dns://${upstreamIp}`], fallback: false } })).body, { result: 'ok', data: {} });
  const info = (await s.json('GET', '/v2/dns/info')).body.data;
  t.same([info.servers, info.fallback], [[`dns://${upstreamIp}`], false]);
  await eventually('the dns plugin restarted', async () => (await docker('inspect', '-f', '{{.State.StartedAt}}', `${prefix}dns`)) !== restartedBefore, 30_000);
  t.pass('a change of options restarts the plugin');
  t.equal(await eventually('the forwarded name answered', () => lookup(alpha, 'upstream-only.example'), 60_000), '10.9.8.7', 'forwarded to the configured server');

  // a restart through the API: the plugin comes back and names resolve again
  t.same((await s.json('POST', '/v2/dns/restart')).body, { result: 'ok', data: {} });
  t.equal(await docker('inspect', '-f', '{{.State.Running}}', `${prefix}dns`), 'true');
  t.equal(await eventually('local-beta answered after the restart', () => lookup(alpha, 'local-beta'), 60_000), betaIp, 'resolution is back after the restart');
  t.equal(await lookup(alpha, 'upstream-only.example'), '10.9.8.7');

  // reset: the configured servers gone, the fallback on again, restarted
  t.same((await s.json('POST', '/dns/reset')).body, { result: 'ok', data: {} });
  t.same((await s.json('GET', '/dns/info')).body.data.servers, []);
  t.equal((await s.json('GET', '/dns/info')).body.data.fallback, true);
  t.equal(await eventually('local-beta answered', () => lookup(alpha, 'local-beta'), 60_000), betaIp);

  const records: string[] = [];
  for await (const r of s.supervisor.log.readStreams('plugins/dns')) records.push(r.type);
  t.same(records, ['plugin_installed', 'plugin_started', 'plugin_restarted', 'plugin_restarted', 'plugin_restarted']);

  // an app started before the dns plugin existed would be left out: stopping an app drops its name
  t.same((await s.json('POST', '/addons/local_beta/stop')).body, { result: 'ok', data: {} });
  t.equal(await eventually('local-beta no longer answered', async () => ((await lookup(alpha, 'local-beta')) === null ? 'gone' : undefined), 60_000), 'gone', 'a stopped app is no longer answered');
});

t.test('without booted plugins the info answers the stored configuration and stats refuse clearly', async (t) => {
  const prefix = appPrefix(t, 'plugoff');
  const s: TestSupervisor = await startTestSupervisor(t, { pluginContainerPrefix: prefix, pluginNetwork: { name: `${prefix}net`, subnet: '10.250.250.0/24' } });
  t.same((await s.json('GET', '/dns/info')).body.data, { version: null, version_latest: CORE_VERSION, update_available: false, host: '10.250.250.3', servers: [], locals: (await s.json('GET', '/dns/info')).body.data.locals, mdns: true, llmnr: true, fallback: true });
  const stats = await s.json('GET', '/dns/stats');
  t.same(stats.body, { result: 'error', message: `Plugin dns is not running: its container ${prefix}dns is stopped` });
  const logs = await s.call('GET', '/dns/logs');
  t.equal(logs.status, 400);
  t.equal(await logs.text(), `The dns plugin is not installed: there is no container ${prefix}dns`);
  t.equal(await docker('network', 'ls', '-q', '--filter', `name=^${prefix}net$`), '', 'reading made no network');
});
