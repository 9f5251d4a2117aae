// MQTT select against a real Mosquitto: discovery as zigbee2mqtt publishes a bulb's power-on
// behaviour (Koenkk/zigbee2mqtt lib/extension/homeassistant.ts, an enum expose with access SET:
// `select` with options and entity_category config) and as ESPHome publishes a template select
// (esphome/esphome esphome/components/mqtt/mqtt_select.cpp, options as `ops`); states, select_option
// and the moving services over REST, refusals, command templates and optimistic mode as the
// original's tests/components/mqtt/test_select.py shows them (test_run_select_setup,
// test_run_select_service_optimistic_with_command_template, test_invalid_option, "None" resets).
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('zigbee2mqtt: power-on behaviour; select_option publishes, the device answers; invalid options', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/select/0x000b57fffec6a5b2/power_on_behavior/config', {
    availability: [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }],
    command_topic: 'zigbee2mqtt/bulb/set/power_on_behavior',
    device: { identifiers: ['zigbee2mqtt_0x000b57fffec6a5b2'], manufacturer: 'IKEA', model: 'TRADFRI bulb E27 WS opal 980lm', model_id: 'LED1545G12', name: 'bulb', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' },
    entity_category: 'config', icon: 'mdi:power-settings', name: 'Power-on behavior', object_id: 'bulb_power_on_behavior', default_entity_id: 'select.bulb_power_on_behavior',
    options: ['off', 'on', 'toggle', 'previous'], origin: { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' },
    state_topic: 'zigbee2mqtt/bulb', unique_id: '0x000b57fffec6a5b2_power_on_behavior_zigbee2mqtt', value_template: '{{ value_json.power_on_behavior }}',
  });
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  const id = 'select.bulb_power_on_behavior';
  await s.exist(id);
  t.equal((await s.state(id)).state, 'unknown');
  await s.publish('zigbee2mqtt/bulb', { state: 'ON', brightness: 254, power_on_behavior: 'previous' }, false);
  const pob = await s.until(id, (x) => x.state === 'previous');
  t.same(pob.attributes, { options: ['off', 'on', 'toggle', 'previous'], icon: 'mdi:power-settings', friendly_name: 'bulb Power-on behavior' });
  t.match(await s.entry(id), { capabilities: { options: ['off', 'on', 'toggle', 'previous'] }, entity_category: 'config' });

  t.equal((await s.call('POST', '/api/services/select/select_option', { entity_id: id, option: 'on' })).status, 200);
  await eventually(() => s.seen.includes('zigbee2mqtt/bulb/set/power_on_behavior=on'), 'the option published');
  t.equal((await s.state(id)).state, 'previous', 'not optimistic: the option waits for the device');
  // next from the last option cycles to the first; with cycle false it stays
  await s.call('POST', '/api/services/select/select_next', { entity_id: id });
  await eventually(() => s.seen.includes('zigbee2mqtt/bulb/set/power_on_behavior=off'), 'next cycles');
  await s.call('POST', '/api/services/select/select_next', { entity_id: id, cycle: false });
  await eventually(() => s.seen.filter((m) => m === 'zigbee2mqtt/bulb/set/power_on_behavior=previous').length === 1, 'next without cycle stays at the last');

  await t.rejects(
    s.ws('call_service', { domain: 'select', service: 'select_option', service_data: { option: 'sometimes' }, target: { entity_id: id } }),
    /Option sometimes is not valid for entity select\.bulb_power_on_behavior, valid options are: off, on, toggle, previous\./,
  );
  await s.publish('zigbee2mqtt/bulb', { power_on_behavior: 'sometimes' }, false);
  await eventually(() => s.h.lines.some((l) => l.includes(`Invalid option for ${id}: 'sometimes' (valid options: ['off', 'on', 'toggle', 'previous'])`)), 'the device\'s invalid option logged');
  t.equal((await s.state(id)).state, 'previous');
  await s.publish('zigbee2mqtt/bulb', { power_on_behavior: 'None' }, false);
  await s.until(id, (x) => x.state === 'unknown', '"None": unknown');
  t.notOk(s.seen.includes('zigbee2mqtt/bulb/set/power_on_behavior=sometimes'));
});

t.test('ESPHome select; YAML: optimistic with a command template, first/last/previous', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  select:
    - name: Test Select
      command_topic: test/select_cmd
      command_template: '{"option": "{{ value }}", "entity_id": "{{ entity_id }}"}'
      options: [milk, beer]
`,
  });
  await s.publish('homeassistant/select/livingroom/fan_mode/config', {
    name: 'Fan mode', stat_t: 'livingroom/select/fan_mode/state', cmd_t: 'livingroom/select/fan_mode/command', avty_t: 'livingroom/status',
    uniq_id: 'ESPselectfan_mode', ops: ['Low', 'Medium', 'High'],
    dev: { ids: '240ac4a1b2c3', name: 'livingroom', sw: 'esphome v2024.6.0 Jun 20 2024, 10:00:00', mdl: 'esp32dev', mf: 'espressif' },
  });
  await s.publish('livingroom/status', 'online');
  const id = 'select.livingroom_fan_mode';
  await s.exist(id, 'select.test_select');
  await s.publish('livingroom/select/fan_mode/state', 'Medium', false);
  t.same((await s.until(id, (x) => x.state === 'Medium')).attributes, { options: ['Low', 'Medium', 'High'], friendly_name: 'livingroom Fan mode' });
  await s.call('POST', '/api/services/select/select_previous', { entity_id: id });
  await eventually(() => s.seen.includes('livingroom/select/fan_mode/command=Low'), 'previous');

  const opt = 'select.test_select';
  t.same((await s.state(opt)).attributes, { options: ['milk', 'beer'], assumed_state: true, friendly_name: 'Test Select' });
  await s.call('POST', '/api/services/select/select_option', { entity_id: opt, option: 'beer' });
  await eventually(() => s.seen.includes('test/select_cmd={"option": "beer", "entity_id": "select.test_select"}'), 'the command template');
  await s.until(opt, (x) => x.state === 'beer', 'optimistic: taken at once');
  await s.call('POST', '/api/services/select/select_first', { entity_id: opt });
  await s.until(opt, (x) => x.state === 'milk');
  await s.call('POST', '/api/services/select/select_last', { entity_id: opt });
  await s.until(opt, (x) => x.state === 'beer');
  const services = await s.ws('get_services');
  t.same(Object.keys(services.select).sort(), ['select_first', 'select_last', 'select_next', 'select_option', 'select_previous']);
});
