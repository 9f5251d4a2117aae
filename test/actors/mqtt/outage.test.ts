// The broker killed and started again, and Hearth restarted: acknowledged states stay in the log,
// entities are unavailable while the broker is gone and back after the reconnect, one log line
// each way; after a restart the MQTT entities are there (from their recorded discovery configs)
// before the broker is, and an unchanged config sent again writes nothing.
import t from 'tap';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import { startTestHearth } from '../../helpers/hearth.ts';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

const SENSOR_CONFIG = {
  name: 'Outside', stat_t: 'weather/outside', unit_of_meas: '°C', dev_cla: 'temperature', uniq_id: 'outside_temp',
  dev: { ids: ['station1'], name: 'Weather station', mf: 'Acme' },
};

t.test('the broker killed and started again', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/sensor/station1/outside/config', SENSOR_CONFIG);
  await s.exist('sensor.weather_station_outside');
  await s.publish('weather/outside', '12.5');
  await s.until('sensor.weather_station_outside', (x) => x.state === '12.5');

  await s.broker.kill();
  await s.until('sensor.weather_station_outside', (x) => x.state === 'unavailable', 'unavailable while the broker is gone');
  // several attempts fail meanwhile (1 s, 2 s...)
  await new Promise((r) => setTimeout(r, 3500));
  await s.broker.start();
  const back = await s.until('sensor.weather_station_outside', (x) => x.state === '12.5', 'back after the reconnect');
  t.same(back.attributes, { unit_of_measurement: '°C', device_class: 'temperature', friendly_name: 'Weather station Outside' });
  const lines = s.h.lines.filter((l) => /MQTT server/.test(l));
  t.equal(lines.filter((l) => l.startsWith('Disconnected from MQTT server')).length, 1, 'one line for the outage');
  t.equal(lines.filter((l) => l.startsWith('Connected to MQTT server')).length, 2, 'one for the start, one for the recovery');

  await s.h.hearth.stop();
  const log = await openEventLog({ path: join(s.h.dataDir, 'log') });
  t.teardown(() => log.close());
  const states: string[] = [];
  for await (const r of log.read({ stream: 'entity/sensor.weather_station_outside' })) states.push(r.data.new_state?.state);
  t.same(states, ['unknown', '12.5', 'unavailable', '12.5'], 'every acknowledged state in the log, the outage included');
});

t.test('a restart brings MQTT entities back before the broker answers', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/sensor/station1/outside/config', SENSOR_CONFIG);
  await s.exist('sensor.weather_station_outside');
  await s.publish('weather/outside', '9.0');
  await s.until('sensor.weather_station_outside', (x) => x.state === '9.0');
  const deviceBefore = await s.device('station1');
  await s.h.hearth.stop();
  await s.broker.kill();

  // Hearth starts while the broker is down
  const again = await startTestHearth(t, { dataDir: s.h.dataDir });
  const state = async () => (await fetch(`${again.base}/api/states/sensor.weather_station_outside`, { headers: { Authorization: `Bearer ${s.token}` } })).json();
  const restored = await state();
  t.same([restored.state, restored.attributes.friendly_name], ['unavailable', 'Weather station Outside'], 'there at once, unavailable');
  await eventually(() => again.lines.some((l) => l.startsWith('Failed to connect to MQTT server')), 'the failed connection logged');

  await s.broker.start();
  await eventually(async () => ((await state()).state === '9.0' ? true : undefined), 'the retained state after connecting');
  t.equal(again.lines.filter((l) => l.startsWith('Connected to MQTT server')).length, 1);
  await again.hearth.stop();
  const log = await openEventLog({ path: join(s.h.dataDir, 'log') });
  t.teardown(() => log.close());
  const discovery: string[] = [];
  for await (const r of log.readStreams('mqtt/discovery/')) discovery.push(r.type);
  t.same(discovery, ['mqtt_discovery_updated'], 'the config the broker sent again was unchanged: no new record');
  const devices: string[] = [];
  for await (const r of log.readStreams('registry/device/')) devices.push(`${r.type} ${r.data.id}`);
  t.same(devices, [`device_created ${deviceBefore.id}`], 'the same device, made once');
});
