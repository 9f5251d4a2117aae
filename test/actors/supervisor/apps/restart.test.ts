// Installed apps across supervisor restarts: their settings and states come back from the log,
// a running app is found running, `boot: auto` apps are started at start (after the core), and
// an app calling the supervisor from its container (the Mosquitto app reading its own options
// through SUPERVISOR with its token) is answered.
import t from 'tap';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { appPrefix, appRecords, docker, freePort } from '../../../helpers/apps.ts';
import { eventually } from '../../../helpers/wait.ts';

const MQTT = 'core_hearth_mqtt';
const LOGGER = 'core_hearth_stdin_logger';

t.test('apps after a restart of the supervisor; boot auto apps start with it', async (t) => {
  const prefix = appPrefix(t, 'restart');
  const port = await freePort();
  const first = await startTestSupervisor(t, { appContainerPrefix: prefix, host: '0.0.0.0' });
  t.equal((await first.json('POST', `/store/addons/${MQTT}/install`)).status, 200);
  t.equal((await first.json('POST', `/store/addons/${LOGGER}/install`)).status, 200);
  // the mqtt app publishes 1883 by default: a free port instead; bad ports are refused first
  const bad = await first.json('POST', `/addons/${MQTT}/options`, { body: { network: { '1883/tcp': 'high' } } });
  t.equal(bad.status, 400);
  t.same((await first.json('POST', `/addons/${MQTT}/options`, { body: { network: { '1883/tcp': port }, options: { logins: [{ username: 'bob', password: 'secret' }] } } })).body, { result: 'ok', data: {} });
  t.same((await first.json('GET', `/addons/${MQTT}/info`)).body.data.network, { '1883/tcp': port });
  t.equal((await first.json('POST', `/addons/${LOGGER}/start`)).status, 200);
  const loggerId = JSON.parse(await docker('inspect', `${prefix}${LOGGER}`))[0].Id;
  const ingress = (await first.json('GET', `/addons/${MQTT}/info`)).body.data.ingress_entry;
  await first.supervisor.stop();

  // the mqtt app is `boot: auto` and not running: started by the next supervisor
  const s = await startTestSupervisor(t, { dataDir: first.dataDir, appContainerPrefix: prefix, host: '0.0.0.0' });
  const list = (await s.json('GET', '/addons')).body.data.addons;
  t.same(list.map((a: any) => a.slug).sort(), [MQTT, LOGGER].sort(), 'both still installed');
  const mqtt = (await s.json('GET', `/addons/${MQTT}/info`)).body.data;
  t.match(mqtt, { network: { '1883/tcp': port }, options: { logins: [{ username: 'bob', password: 'secret' }] }, boot: 'auto' });
  t.equal(mqtt.ingress_entry, ingress);
  await eventually('the broker started', async () => (await s.json('GET', `/addons/${MQTT}/info`)).body.data.state === 'started', 60_000);
  t.pass('the boot auto app was started');
  t.match(await docker('port', `${prefix}${MQTT}`, '1883/tcp'), new RegExp(`:${port}$`, 'm'), 'on the port asked');
  t.equal((await s.json('GET', `/addons/${LOGGER}/info`)).body.data.state, 'started', 'the running one is found running');
  t.equal(JSON.parse(await docker('inspect', `${prefix}${LOGGER}`))[0].Id, loggerId, 'and left as it was');

  // the app read its options from the supervisor with its own token (SUPERVISOR in its environment)
  const token = JSON.parse(await docker('inspect', `${prefix}${MQTT}`))[0].Config.Env.find((e: string) => e.startsWith('SUPERVISOR_TOKEN=')).slice(17);
  t.same((await s.json('GET', '/addons/self/options/config', { token })).body.data, { logins: [{ username: 'bob', password: 'secret' }] });
  await eventually('the broker listening', async () => (await (await s.call('GET', `/addons/${MQTT}/logs`)).text()).includes('mqtt: listening on 1883'), 60_000);
  t.pass('the app runs');
  // the app published its service and sent its discovery message through the supervisor
  const logs = await (await s.call('GET', `/addons/${MQTT}/logs`)).text();
  t.match(logs, /mqtt: service announced/);
  t.match(logs, /mqtt: discovery sent/);
  t.same((await s.json('GET', '/services')).body.data.services.find((x: any) => x.slug === 'mqtt'), { slug: 'mqtt', available: true, providers: [MQTT] });
  t.match((await s.json('GET', '/services/mqtt', { token })).body.data, { addon: MQTT, port: 1883, username: 'addons', password: /^[0-9a-f]{64}$/ });
  // from inside its container, as the app itself calls it
  const inside = await docker('exec', `${prefix}${MQTT}`, 'sh', '-c', 'wget -qO- --header "Authorization: Bearer $SUPERVISOR_TOKEN" "$SUPERVISOR/addons/self/options/config"');
  t.same(JSON.parse(inside), { result: 'ok', data: { logins: [{ username: 'bob', password: 'secret' }] } }, 'the container reaches the supervisor with its token');

  // a stopped app stays stopped across a restart; records survive
  t.equal((await s.json('POST', `/addons/${LOGGER}/stop`)).status, 200);
  await s.supervisor.stop();
  const third = await startTestSupervisor(t, { dataDir: first.dataDir, appContainerPrefix: prefix, bootApps: false });
  t.equal((await third.json('GET', `/addons/${LOGGER}/info`)).body.data.state, 'stopped');
  t.match((await appRecords(third.supervisor.log, LOGGER)).map((r) => r.type), ['app_installed', 'app_started', 'app_stopped']);
  t.equal((await third.json('POST', `/addons/${MQTT}/uninstall`)).status, 200);
  t.equal((await third.json('POST', `/addons/${LOGGER}/uninstall`)).status, 200);
  t.equal(await docker('ps', '-a', '--filter', `name=^${prefix}`, '--format', '{{.Names}}'), '', 'no containers left');
});

t.test('a port in use is the original\'s port conflict', async (t) => {
  const prefix = appPrefix(t, 'conflict');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix, bootApps: false });
  const { createServer } = await import('node:net');
  const port = await freePort();
  const server = createServer().listen(port, '0.0.0.0');
  t.teardown(() => server.close());
  t.equal((await s.json('POST', `/store/addons/${MQTT}/install`)).status, 200);
  t.equal((await s.json('POST', `/addons/${MQTT}/options`, { body: { network: { '1883/tcp': port } } })).status, 200);
  const refused = await s.json('POST', `/addons/${MQTT}/start`);
  t.equal(refused.status, 400);
  t.same(refused.body, { result: 'error', message: `Cannot start app ${MQTT} because port ${port} is already in use`, error_key: 'app_port_conflict', extra_fields: { name: MQTT, port } });
  t.equal((await s.json('GET', `/addons/${MQTT}/info`)).body.data.state, 'error');
  t.ok(s.supervisor.resolution.issues().some((i) => i.type === 'app_port_conflict' && i.context === 'addon' && i.reference === MQTT), 'an app_port_conflict issue');
  t.equal((await s.json('POST', `/addons/${MQTT}/uninstall`)).status, 200);
});
