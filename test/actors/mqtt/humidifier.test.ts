// MQTT humidifiers against a real Mosquitto: the topics and odd payloads of the original's
// tests/components/mqtt/test_humidifier.py (payload_on StAtE_On, modes eco and boost, current
// humidity and action topics), and an optimistic dehumidifier with its own humidity range and a
// command template. Behaviour as homeassistant/components/mqtt/humidifier.py and HumidifierEntity.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('humidifier: state, target and current humidity, modes, action; an optimistic dehumidifier', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  humidifier:
    - name: Bedroom
      state_topic: humidifier/state
      command_topic: humidifier/set
      target_humidity_state_topic: humidifier/humidity/state
      target_humidity_command_topic: humidifier/humidity/set
      mode_state_topic: humidifier/mode/state
      mode_command_topic: humidifier/mode/set
      modes: [eco, boost]
      current_humidity_topic: humidifier/current
      action_topic: humidifier/action
      payload_on: StAtE_On
      payload_off: StAtE_OfF
    - name: Basement
      command_topic: basement/set
      target_humidity_command_topic: basement/humidity/set
      target_humidity_command_template: '{"humidity": {{ value }}}'
      device_class: dehumidifier
      min_humidity: 30
      max_humidity: 70
`,
  });
  await s.exist('humidifier.bedroom', 'humidifier.basement');
  t.same(await s.state('humidifier.bedroom').then((x) => [x.state, x.attributes]), [
    'unknown',
    { min_humidity: 0, max_humidity: 100, available_modes: ['eco', 'boost'], mode: null, device_class: 'humidifier', friendly_name: 'Bedroom', supported_features: 1 },
  ]);
  await s.publish('humidifier/state', 'StAtE_On', false);
  await s.publish('humidifier/humidity/state', '45', false);
  await s.publish('humidifier/mode/state', 'eco', false);
  await s.publish('humidifier/current', '47.6', false);
  await s.publish('humidifier/action', 'humidifying', false);
  const on = await s.until('humidifier.bedroom', (x) => x.state === 'on' && x.attributes.action === 'humidifying');
  t.same(on.attributes, {
    min_humidity: 0, max_humidity: 100, available_modes: ['eco', 'boost'],
    action: 'humidifying', current_humidity: 48, humidity: 45, mode: 'eco',
    device_class: 'humidifier', friendly_name: 'Bedroom', supported_features: 1,
  });
  await s.publish('humidifier/humidity/state', '101', false);
  await eventually(() => s.h.lines.some((l) => l.includes("'101' is not a valid target humidity")), 'out of range logged');
  await s.publish('humidifier/state', 'StAtE_OfF', false);
  const off = await s.until('humidifier.bedroom', (x) => x.state === 'off');
  t.equal(off.attributes.action, 'off', 'an off humidifier shows its action as off');
  await s.publish('humidifier/mode/state', 'None', false);
  await s.until('humidifier.bedroom', (x) => x.attributes.mode === null, 'None resets the mode');

  const call = async (entity: string, service: string, data: Record<string, unknown> = {}) =>
    (await s.call('POST', `/api/services/humidifier/${service}`, { entity_id: entity, ...data })).status;
  t.equal(await call('humidifier.bedroom', 'turn_on'), 200);
  t.equal(await call('humidifier.bedroom', 'set_humidity', { humidity: 60 }), 200);
  t.equal(await call('humidifier.bedroom', 'set_mode', { mode: 'boost' }), 200);
  t.equal(await call('humidifier.bedroom', 'set_mode', { mode: 'turbo' }), 200, 'an unknown mode is only logged');
  t.equal(await call('humidifier.bedroom', 'set_humidity', { humidity: 101 }), 400);
  await eventually(() => s.seen.filter((m) => m.startsWith('humidifier/') && m.includes('/set') ).length === 3, 'three commands');
  t.same(s.seen.filter((m) => /^humidifier\/.*set=/.test(m)), ['humidifier/set=StAtE_On', 'humidifier/humidity/set=60', 'humidifier/mode/set=boost']);
  t.equal((await s.state('humidifier.bedroom')).state, 'off', 'it waits for the device');

  t.same((await s.state('humidifier.basement')).attributes, { min_humidity: 30, max_humidity: 70, assumed_state: true, device_class: 'dehumidifier', friendly_name: 'Basement', supported_features: 0 });
  t.equal(await call('humidifier.basement', 'set_humidity', { humidity: 20 }), 400, 'below its range');
  t.equal(await call('humidifier.basement', 'set_humidity', { humidity: 50 }), 200);
  t.equal(await call('humidifier.basement', 'toggle'), 200);
  const basement = await s.until('humidifier.basement', (x) => x.state === 'on' && x.attributes.humidity === 50);
  t.ok(basement);
  t.equal(await call('humidifier.basement', 'set_mode', { mode: 'eco' }), 400, 'no modes: no set_mode');
  await eventually(() => s.seen.filter((m) => m.startsWith('basement/')).length === 2, 'two commands');
  t.same(s.seen.filter((m) => m.startsWith('basement/')), ['basement/humidity/set={"humidity": 50}', 'basement/set=ON']);
});
