// The built-in Mosquitto app on the real engine: installed and started through the supervisor, its
// broker reached by MQTT.js clients with the credentials it hands out — the service's (what apps
// read at /services/mqtt), the discovery message's (what the core reads with its token) — and
// with a login of its options.
// Anonymous access and a wrong password are refused; a retained message outlives a restart.
import t from 'tap';
import mqtt from 'mqtt';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { appPrefix, docker } from '../../../helpers/apps.ts';
import { connectionOutcome, subscribeForNext } from '../../../helpers/mqtt-clients.ts';
import { eventually } from '../../../helpers/wait.ts';

const MQTT = 'core_hearth_mqtt';
const ctx = { id: 'test', parent_id: null, user_id: null };

/** The retained message a fresh subscriber gets on `topic`. */
async function retained(url: string, o: mqtt.IClientOptions, topic: string): Promise<{ payload: string; retain: boolean }> {
  const c = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...o });
  try {
    const { payload, retain } = await (await subscribeForNext(c, topic, 1)).next;
    return { payload, retain };
  } finally {
    await c.endAsync(true);
  }
}

t.test('the Mosquitto app: the service\'s credentials work, a wrong password and anonymous do not', async (t) => {
  const prefix = appPrefix(t, 'mqttapp');
  // 0.0.0.0: the app's container announces itself to the supervisor over the bridge
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix, host: '0.0.0.0', bootApps: false });
  const core = (await s.supervisor.tokens.rotateCore(ctx)).token;
  t.same((await s.json('POST', `/store/addons/${MQTT}/install`)).body, { result: 'ok', data: {} });
  // the broker's port stays unpublished: tests run side by side on one host; the test reaches the container's address
  const logins = [{ username: 'doorbell', password: 'ring: "twice"' }];
  t.equal((await s.json('POST', `/addons/${MQTT}/options`, { body: { network: { '1883/tcp': null }, options: { logins } } })).status, 200);
  t.equal((await s.json('POST', `/addons/${MQTT}/start`)).status, 200);

  const logsOf = async () => (await s.call('GET', `/addons/${MQTT}/logs`)).text();
  await eventually('the mqtt discovery sent', async () => (await logsOf()).includes('mqtt: discovery sent'), 60_000);
  const logs = await logsOf();
  t.match(logs, 'mqtt: service announced');
  t.match(logs, /mosquitto version [\d.]+ running/, 'Debian\'s Mosquitto runs');
  t.match(logs, 'mqtt: user doorbell set up');

  // the core is no app: as in the original, /services is the apps' and the core learns the broker
  // from the discovery message; the service is read with an app's token (here the provider's own)
  t.same(await s.json('GET', '/services/mqtt', { token: core }), { status: 403, body: { result: 'error', message: 'No access to mqtt service!' } });
  const appToken = s.supervisor.deps.apps!.get(MQTT)!.user.access_token;
  const service = (await s.json('GET', '/services/mqtt', { token: appToken })).body.data;
  t.match(service, { addon: MQTT, port: 1883, ssl: false, protocol: '3.1.1', username: 'addons', password: /^[0-9a-f]{64}$/ });
  const [{ uuid }] = (await s.json('GET', '/discovery', { token: core })).body.data.discovery;
  const discovery = (await s.json('GET', `/discovery/${uuid}`, { token: core })).body.data;
  t.match(discovery, { addon: MQTT, service: 'mqtt', config: { host: service.host, port: 1883, username: 'homeassistant', password: /^[0-9a-f]{64}$/ } });
  t.not(discovery.config.password, service.password, 'the core and the apps get users of their own');

  const info = JSON.parse(await docker('inspect', `${prefix}${MQTT}`))[0];
  const address = Object.values(info.NetworkSettings.Networks as Record<string, { IPAddress: string }>).find((n) => n.IPAddress)!.IPAddress;
  const url = `mqtt://${address}:${service.port}`;
  const asService = { username: service.username, password: service.password };

  const pub = await mqtt.connectAsync(url, { ...asService, reconnectPeriod: 0, connectTimeout: 5000 });
  t.teardown(() => pub.endAsync(true));
  await pub.publishAsync('hearth/test/door', 'closed', { retain: true, qos: 1 });
  t.same(await retained(url, asService, 'hearth/test/door'), { payload: 'closed', retain: true }, 'a subscriber gets the retained message');
  t.same(await retained(url, { username: 'homeassistant', password: discovery.config.password }, 'hearth/test/door'), { payload: 'closed', retain: true }, 'so does the core with the discovery\'s user');
  t.same(await retained(url, logins[0], 'hearth/test/door'), { payload: 'closed', retain: true }, 'and a login of the options');
  await pub.endAsync();

  t.equal(await connectionOutcome(url, { username: service.username, password: `${service.password}x` }), 5, 'a wrong password is refused (not authorized)');
  t.equal(await connectionOutcome(url, { username: 'doorbell', password: 'ring' }), 5, 'a login\'s wrong password too');
  t.equal(await connectionOutcome(url), 5, 'anonymous access is off');

  // the retained message and the generated passwords outlive a restart (kept in the app's /data)
  t.equal((await s.json('POST', `/addons/${MQTT}/restart`)).status, 200);
  const after = JSON.parse(await docker('inspect', `${prefix}${MQTT}`))[0];
  const again = `mqtt://${Object.values(after.NetworkSettings.Networks as Record<string, { IPAddress: string }>).find((n) => n.IPAddress)!.IPAddress}:1883`;
  await eventually('the service connecting', async () => (await connectionOutcome(again, asService)) === 'connected', 60_000);
  t.same(await retained(again, asService, 'hearth/test/door'), { payload: 'closed', retain: true }, 'the retained message after a restart, with the same password');

  t.equal((await s.json('POST', `/addons/${MQTT}/uninstall`)).status, 200);
});

t.test('a login under a reserved name stops the app with a message saying so', async (t) => {
  const prefix = appPrefix(t, 'mqttreserved');
  const s = await startTestSupervisor(t, { appContainerPrefix: prefix, bootApps: false });
  t.equal((await s.json('POST', `/store/addons/${MQTT}/install`)).status, 200);
  const options = { network: { '1883/tcp': null }, options: { logins: [{ username: 'addons', password: 'mine' }] } };
  t.equal((await s.json('POST', `/addons/${MQTT}/options`, { body: options })).status, 200);
  await s.json('POST', `/addons/${MQTT}/start`);
  const logs = await eventually('the reserved topic refused in the logs', async () => {
    const text = await (await s.call('GET', `/addons/${MQTT}/logs`)).text();
    return text.includes('reserved') && text;
  }, 60_000);
  t.match(logs, "mqtt: the login addons is refused: that name is reserved for the app's own users");
  t.notMatch(logs, 'mosquitto version', 'the broker never started');
  t.equal((await s.json('POST', `/addons/${MQTT}/uninstall`)).status, 200);
});
