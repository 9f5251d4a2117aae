// `mqtt: broker: embedded` as the README tells a new user to write it: Hearth starts its own
// broker, connects to it, and a device (an MQTT.js client) that publishes a discovery config and a
// value through that broker becomes an entity the REST API shows. A port already in use is refused
// with its number, and nothing else of Hearth is half started.
import t from 'tap';
import { createServer } from 'node:net';
import mqtt from 'mqtt';
import { freePort } from '../../helpers/ports.ts';
import { api, onboard, startTestHearth } from '../../helpers/hearth.ts';
import { eventually } from '../../helpers/wait.ts';

t.test('a device publishes through the embedded broker and Hearth shows its entity', async (t) => {
  const port = await freePort();
  const { base, lines } = await startTestHearth(t, {
    config: `mqtt:\n  broker: embedded\n  port: ${port}\n  sensor:\n    - name: Porch temperature\n      state_topic: porch/temp\n      unit_of_measurement: "°C"\n`,
  });
  const { access_token } = await onboard(base);
  const call = api(base, access_token);

  const device = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { reconnectPeriod: 0 });
  t.teardown(() => device.endAsync(true));
  await device.publishAsync('homeassistant/sensor/kitchen/humidity/config', JSON.stringify({ name: 'Humidity', stat_t: 'kitchen/humidity', unit_of_meas: '%', uniq_id: 'kitchen_humidity_1', dev: { ids: ['kitchen-node'], name: 'Kitchen node' } }), { retain: true, qos: 1 });
  const entityId = 'sensor.kitchen_node_humidity';
  await eventually('the discovered entity', async () => ((await call('GET', `/api/states/${entityId}`)).status === 200 ? true : undefined));
  await device.publishAsync('kitchen/humidity', '55', { qos: 1 });
  await device.publishAsync('porch/temp', '21.5', { qos: 1 });
  const humidity = await eventually('the humidity value', async () => {
    const r = await call('GET', `/api/states/${entityId}`);
    return r.json?.state === '55' ? r.json : undefined;
  });
  t.equal(humidity.attributes.unit_of_measurement, '%');
  const porch = await eventually('the YAML sensor value', async () => {
    const r = await call('GET', '/api/states/sensor.porch_temperature');
    return r.json?.state === '21.5' ? r.json : undefined;
  });
  t.equal(porch.attributes.unit_of_measurement, '°C');
  t.ok(lines.some((l) => l.includes(`Connected to MQTT server 127.0.0.1:${port}`)), 'the connection is logged with the port');
});

t.test('a port already in use is refused with its number', async (t) => {
  const busy = createServer();
  await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
  t.teardown(() => busy.close());
  const port = (busy.address() as { port: number }).port;
  const started = startTestHearth(t, { config: `mqtt:\n  broker: embedded\n  port: ${port}\n` }).then(
    (h) => ({ lines: h.lines }),
    (err: Error) => ({ error: err.message }),
  );
  const outcome = await started;
  const said = 'error' in outcome ? outcome.error : outcome.lines.join('\n');
  t.match(said, new RegExp(`port ${port}`), 'the refusal names the port');
});
