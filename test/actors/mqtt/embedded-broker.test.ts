// `mqtt: broker: embedded`: the in-process broker (aedes) as MQTT.js clients meet it: publish and
// subscribe, retained messages, QoS 1, a login asked and refused, loopback unless told otherwise,
// a port in use refused by name, and close.
import t, { type Test } from 'tap';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import mqtt, { type MqttClient } from 'mqtt';
import { startEmbeddedBroker, type EmbeddedBroker } from '../../../actors/mqtt/embedded-broker.ts';
import { freePort } from '../../helpers/ports.ts';
import { connectionOutcome, subscribeForNext } from '../../helpers/mqtt-clients.ts';

async function broker(t: Test, o: Partial<Parameters<typeof startEmbeddedBroker>[0]> = {}): Promise<EmbeddedBroker> {
  const b = await startEmbeddedBroker({ port: 0, ...o });
  t.teardown(() => b.close());
  return b;
}

async function client(t: Test, url: string, o: mqtt.IClientOptions = {}): Promise<MqttClient> {
  const c = await mqtt.connectAsync(url, { reconnectPeriod: 0, connectTimeout: 5000, ...o });
  t.teardown(() => c.endAsync(true));
  return c;
}

t.test('publish and subscribe, retained, QoS 1', async (t) => {
  const b = await broker(t);
  const url = `mqtt://127.0.0.1:${b.port}`;
  const sub = await client(t, url);
  const pub = await client(t, url);
  const live = await subscribeForNext(sub, 'home/kitchen/light');
  await pub.publishAsync('home/kitchen/light', 'on');
  t.same(await live.next, { payload: 'on', retain: false, qos: 0 }, 'a subscriber gets what is published');

  await pub.publishAsync('home/door', 'closed', { retain: true, qos: 1 });
  const late = await client(t, url);
  t.same(await (await subscribeForNext(late, 'home/door', 1)).next, { payload: 'closed', retain: true, qos: 1 }, 'a later subscriber gets the retained message, flagged retained');

  const acked = await pub.publishAsync('home/sensor', '21.5', { qos: 1 });
  t.equal(acked?.cmd, 'publish', 'a QoS 1 publish resolves once the broker acknowledged it');
  const q1 = await subscribeForNext(sub, 'home/q1', 1);
  await pub.publishAsync('home/q1', 'x', { qos: 1 });
  t.same(await q1.next, { payload: 'x', retain: false, qos: 1 }, 'delivered at QoS 1 to a QoS 1 subscription');
});

t.test('a login: the right one connects, a wrong or missing one is refused', async (t) => {
  const b = await broker(t, { username: 'hearth', password: 's3cret' });
  const url = `mqtt://127.0.0.1:${b.port}`;
  t.equal(await connectionOutcome(url, { username: 'hearth', password: 's3cret' }), 'connected');
  t.equal(await connectionOutcome(url, { username: 'hearth', password: 'wrong' }), 4, 'a wrong password: CONNACK 4');
  t.equal(await connectionOutcome(url, { username: 'other', password: 's3cret' }), 4, 'a wrong username');
  t.equal(await connectionOutcome(url), 4, 'no login at all');
  t.equal(await connectionOutcome(url, { username: 'hearth' }), 4, 'a username without its password');
  await t.rejects(startEmbeddedBroker({ port: 0, username: 'hearth' }), { code: 'HEARTH_MQTT_BROKER', message: /both a username and a password/ });
});

t.test('loopback unless told; 0.0.0.0 when the user says host', async (t) => {
  const outside = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === 'IPv4' && !a.internal)?.address;
  if (!outside) {
    t.pass('no address besides loopback on this host');
    return;
  }
  const local = await broker(t, { port: await freePort() });
  t.equal(await connectionOutcome(`mqtt://127.0.0.1:${local.port}`), 'connected');
  t.equal(await connectionOutcome(`mqtt://${outside}:${local.port}`), 'ECONNREFUSED', 'not reachable from the network by default');
  const open = await broker(t, { port: await freePort(), host: '0.0.0.0' });
  t.equal(await connectionOutcome(`mqtt://${outside}:${open.port}`), 'connected', 'reachable on the host\'s address with host 0.0.0.0');
});

t.test('a port in use is refused by name', async (t) => {
  const port = await freePort();
  const other = createServer().listen(port, '127.0.0.1');
  await new Promise((r) => other.once('listening', r));
  t.teardown(() => other.close());
  await t.rejects(startEmbeddedBroker({ port }), { code: 'HEARTH_MQTT_BROKER', message: `the embedded MQTT broker cannot listen on port ${port} (127.0.0.1): the port is already in use` });
  const first = await broker(t, { port: await freePort() });
  await t.rejects(startEmbeddedBroker({ port: first.port }), { message: new RegExp(`port ${first.port} .*already in use`) }, 'nor shared with a second embedded broker');
});

t.test('close disconnects clients and frees the port', async (t) => {
  const port = await freePort();
  const b = await startEmbeddedBroker({ port });
  const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 });
  const gone = new Promise<void>((r) => c.once('close', () => r()));
  // a socket that never sent CONNECT is closed too
  const silent = connect(port, '127.0.0.1');
  await new Promise((r) => silent.once('connect', r));
  const silentGone = new Promise((r) => silent.once('close', r));
  await b.close();
  await gone;
  await silentGone;
  t.pass('the client and the silent socket were disconnected');
  t.equal(await connectionOutcome(`mqtt://127.0.0.1:${port}`), 'ECONNREFUSED', 'nothing listens any more');
  await b.close();
  t.pass('a second close is harmless');
  const again = await startEmbeddedBroker({ port });
  t.equal(again.port, port, 'the port can be listened on again');
  await again.close();
  c.end(true);
});
