// MQTT number against a real Mosquitto: discovery as zigbee2mqtt publishes a thermostat's
// temperature offset (Koenkk/zigbee2mqtt lib/extension/homeassistant.ts, a numeric expose with
// access SET: `number` with min/max/step, unit and entity_category config) and as ESPHome
// publishes a template number (esphome/esphome esphome/components/mqtt/mqtt_number.cpp,
// abbreviated keys, values as "%f"); states, set_value over REST, range refusals, command
// templates and optimistic mode as the original's tests/components/mqtt/test_number.py shows
// them (test_run_number_setup, test_run_number_service_optimistic_with_command_template,
// test_invalid_number_value / out of range, payload_reset).
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

const Z2M_ORIGIN = { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' };

t.test('zigbee2mqtt: a thermostat offset; set_value publishes, the device answers; out of range refused', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/number/0x0c4314fffe18c2a1/local_temperature_calibration/config', {
    availability: [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }],
    command_topic: 'zigbee2mqtt/thermostat/set/local_temperature_calibration',
    device: { identifiers: ['zigbee2mqtt_0x0c4314fffe18c2a1'], manufacturer: 'Danfoss', model: 'Ally thermostat', model_id: '014G2461', name: 'thermostat', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' },
    device_class: 'temperature', entity_category: 'config', icon: 'mdi:math-compass', max: 12.8, min: -12.8, step: 0.1, mode: 'box',
    name: 'Local temperature calibration', object_id: 'thermostat_local_temperature_calibration', default_entity_id: 'number.thermostat_local_temperature_calibration',
    origin: Z2M_ORIGIN, state_topic: 'zigbee2mqtt/thermostat', unique_id: '0x0c4314fffe18c2a1_local_temperature_calibration_zigbee2mqtt',
    unit_of_measurement: '°C', value_template: '{{ value_json.local_temperature_calibration }}',
  });
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  const id = 'number.thermostat_local_temperature_calibration';
  await s.exist(id);
  await s.publish('zigbee2mqtt/thermostat', { local_temperature_calibration: -1.5, local_temperature: 20.5 }, false);
  const offset = await s.until(id, (x) => x.state === '-1.5');
  t.same(offset.attributes, {
    min: -12.8, max: 12.8, step: 0.1, mode: 'box', unit_of_measurement: '°C', device_class: 'temperature', icon: 'mdi:math-compass',
    friendly_name: 'thermostat Local temperature calibration',
  });
  t.match(await s.entry(id), { capabilities: { min: -12.8, max: 12.8, step: 0.1, mode: 'box' }, entity_category: 'config' });

  // set_value: an integral value goes as an int; the state waits for the device (a state topic)
  t.equal((await s.call('POST', '/api/services/number/set_value', { entity_id: id, value: 2.0 })).status, 200);
  await eventually(() => s.seen.includes('zigbee2mqtt/thermostat/set/local_temperature_calibration=2'), 'the int published');
  t.equal((await s.state(id)).state, '-1.5', 'not optimistic: the value waits for the device');
  await s.call('POST', '/api/services/number/set_value', { entity_id: id, value: '2.5' });
  await eventually(() => s.seen.includes('zigbee2mqtt/thermostat/set/local_temperature_calibration=2.5'), 'a float as text');
  await s.publish('zigbee2mqtt/thermostat', { local_temperature_calibration: 2.5 }, false);
  await s.until(id, (x) => x.state === '2.5');

  // out of range: refused with the original's words, nothing published
  const before = s.seen.length;
  const refused = await s.call('POST', '/api/services/number/set_value', { entity_id: id, value: 20 });
  t.equal(refused.status, 400);
  await t.rejects(
    s.ws('call_service', { domain: 'number', service: 'set_value', service_data: { value: 13 }, target: { entity_id: id } }),
    /Value 13\.0 for number\.thermostat_local_temperature_calibration is outside valid range -12\.8 - 12\.8/,
  );
  // a value out of range from the device is ignored and logged
  await s.publish('zigbee2mqtt/thermostat', { local_temperature_calibration: 30 }, false);
  await eventually(() => s.h.lines.some((l) => l.includes(`Invalid value for ${id}: 30 (range -12.8 - 12.8)`)), 'the refusal logged');
  await s.publish('zigbee2mqtt/thermostat', { local_temperature_calibration: 'warm' }, false);
  await eventually(() => s.h.lines.some((l) => l.includes(`Payload '{"local_temperature_calibration": "warm"}' is not a Number`) || l.includes("is not a Number")), 'a non-number logged');
  t.equal((await s.state(id)).state, '2.5', 'the value stays');
  t.notOk(s.seen.slice(before).some((m) => m.startsWith('zigbee2mqtt/thermostat/set/')), 'nothing published for refused values');
});

t.test('ESPHome: abbreviated keys, "%f" values, payload_reset; YAML: optimistic with a command template', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  number:
    - name: Test Number
      command_topic: test/number
      command_template: '{"number": {{ value }} }'
      min: 0
      max: 100
      step: 0.5
      mode: slider
`,
  });
  await s.publish('homeassistant/number/livingroom/target_brightness/config', {
    name: 'Target brightness', stat_t: 'livingroom/number/target_brightness/state', cmd_t: 'livingroom/number/target_brightness/command',
    avty_t: 'livingroom/status', uniq_id: 'ESPnumbertarget_brightness', min: 0, max: 255, step: 1, mode: 'slider', unit_of_meas: '%',
    dev: { ids: '240ac4a1b2c3', name: 'livingroom', sw: 'esphome v2024.6.0 Jun 20 2024, 10:00:00', mdl: 'esp32dev', mf: 'espressif' },
  });
  await s.publish('livingroom/status', 'online');
  const id = 'number.livingroom_target_brightness';
  await s.exist(id, 'number.test_number');
  await s.publish('livingroom/number/target_brightness/state', '128.000000', false);
  const b = await s.until(id, (x) => x.state === '128.0');
  t.same(b.attributes, { min: 0, max: 255, step: 1, mode: 'slider', unit_of_measurement: '%', friendly_name: 'livingroom Target brightness' });
  await s.call('POST', '/api/services/number/set_value', { entity_id: id, value: 200 });
  await eventually(() => s.seen.includes('livingroom/number/target_brightness/command=200'), 'the command');
  await s.publish('livingroom/number/target_brightness/state', 'None', false);
  await s.until(id, (x) => x.state === 'unknown', 'payload_reset: unknown');

  // optimistic (no state topic): the value at once, assumed; the command template renders the value
  const opt = await s.state('number.test_number');
  t.same(opt.attributes, { min: 0, max: 100, step: 0.5, mode: 'slider', assumed_state: true, friendly_name: 'Test Number' });
  await s.call('POST', '/api/services/number/set_value', { entity_id: 'number.test_number', value: 30 });
  await eventually(() => s.seen.includes('test/number={"number": 30 }'), 'an int through the template');
  await s.until('number.test_number', (x) => x.state === '30');
  await s.call('POST', '/api/services/number/set_value', { entity_id: 'number.test_number', value: 42.0 });
  await s.until('number.test_number', (x) => x.state === '42');
  await s.call('POST', '/api/services/number/set_value', { entity_id: 'number.test_number', value: 42.5 });
  await eventually(() => s.seen.includes('test/number={"number": 42.5 }'), 'a float through the template');
  await s.until('number.test_number', (x) => x.state === '42.5');
  const services = await s.ws('get_services');
  t.same(Object.keys(services.number), ['set_value']);
});
