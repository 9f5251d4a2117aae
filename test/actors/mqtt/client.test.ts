// The connection to a real Mosquitto: subscriptions made again after the broker comes back, the
// birth message on each connection, the will message on a clean stop, one log line per outage
// and one per recovery, and a password-protected broker refusing wrong credentials.
import t from 'tap';
import { connectAsync } from 'mqtt';
import { MqttClient } from '../../../actors/mqtt/client.ts';
import { settingsFor } from '../../../actors/mqtt/config.ts';
import { startMosquitto } from '../../helpers/mosquitto.ts';
import { eventually } from '../../helpers/wait.ts';

function lines() {
  const out: string[] = [];
  const at = (level: string) => (m: string) => out.push(`${level} ${m}`);
  return { out, log: { name: 'test', debug: at('debug'), info: at('info'), warning: at('warning'), error: at('error'), critical: at('critical'), say: at('info') } as any };
}

t.test('subscriptions, birth and will, an outage logged once each way', async (t) => {
  const broker = await startMosquitto(t);
  const watcher = await connectAsync(broker.url);
  t.teardown(() => watcher.endAsync());
  const seen: string[] = [];
  watcher.on('message', (topic, payload) => seen.push(`${topic}=${payload}`));
  await watcher.subscribeAsync('homeassistant/status');

  const { out, log } = lines();
  let ups = 0;
  let downs = 0;
  const client = new MqttClient({ settings: settingsFor({ host: '127.0.0.1', port: broker.port }), log, onConnected: () => ups++, onDisconnected: () => downs++ });
  const got: string[] = [];
  client.subscribe('dev/+/state', 0, (m) => got.push(`${m.topic}=${m.payload}`));
  client.start();
  await eventually('first connection', () => ups === 1);
  await eventually('birth message', () => seen.includes('homeassistant/status=online'));
  await watcher.publishAsync('dev/a/state', 'one');
  await eventually('a message on the subscription', () => got.includes('dev/a/state=one'));

  await broker.kill();
  await eventually('the outage noticed', () => downs === 1);
  t.equal(client.connected, false);
  await t.rejects(client.publish('x', 'y', { qos: 0, retain: false }), { message: 'Error talking to MQTT: The client is not currently connected.' });
  await new Promise((r) => setTimeout(r, 2500));
  await broker.start();
  await eventually('reconnected', () => ups === 2);
  const again = await connectAsync(broker.url);
  t.teardown(() => again.endAsync());
  await again.publishAsync('dev/b/state', 'two');
  await eventually('the subscription made again', () => got.includes('dev/b/state=two'));
  t.same(out.filter((l) => /MQTT server/.test(l)), [
    `info Connected to MQTT server 127.0.0.1:${broker.port}`,
    `warning Disconnected from MQTT server 127.0.0.1:${broker.port} (connection closed)`,
    `info Connected to MQTT server 127.0.0.1:${broker.port}`,
  ], 'one line when connected, one per outage, one per recovery');
  t.equal(downs, 1, 'several failed attempts are one outage');

  const statuses: string[] = [];
  again.on('message', (topic, payload) => statuses.push(`${topic}=${payload}`));
  await again.subscribeAsync('homeassistant/status');
  await client.stop();
  await eventually('the will message on a clean stop', () => statuses.includes('homeassistant/status=offline'));
});

t.test('a broker with a password file', async (t) => {
  const broker = await startMosquitto(t, { users: { hearth: 's3cret' } });
  const { out, log } = lines();
  let ups = 0;
  const wrong = new MqttClient({ settings: settingsFor({ host: '127.0.0.1', port: broker.port, username: 'hearth', password: 'nope' }), log, onConnected: () => ups++, onDisconnected: () => {} });
  wrong.start();
  await eventually('the refusal logged', () => out.some((l) => l.startsWith('error Failed to connect')));
  t.match(out.join('\n'), /Failed to connect to MQTT server 127\.0\.0\.1:\d+ \(Connection refused: Not authorized\)/);
  await wrong.stop();
  const right = new MqttClient({ settings: settingsFor({ host: '127.0.0.1', port: broker.port, username: 'hearth', password: 's3cret' }), log, onConnected: () => ups++, onDisconnected: () => {} });
  right.start();
  await eventually('connected with the right password', () => ups === 1);
  await right.stop();
});
