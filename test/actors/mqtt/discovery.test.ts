// MQTT discovery against a real Mosquitto, with configs as zigbee2mqtt, Tasmota and ESPHome
// publish them; the entities, states and registry entries are those the original makes of them.
// Sources of the payloads:
//  - zigbee2mqtt: Koenkk/zigbee2mqtt test/extensions/homeassistant.test.ts ("Should discover devices and groups")
//  - Tasmota (SetOption19 1, HA discovery): arendst/Tasmota tasmota/xdrv_12_home_assistant.ino
//    (HASS_DISCOVER_BASE / _RELAY / _SENSOR / _SENSOR_HASS_STATUS / _DEVICE_INFO, chip id 1A2B3C)
//  - ESPHome: esphome/esphome esphome/components/mqtt/mqtt_component.cpp and mqtt_sensor.cpp
//    (send_discovery with abbreviations, node "livingroom")
//  - device-based discovery: the original's docs (home-assistant.io integrations/mqtt, "Device discovery payload")
import t from 'tap';
import { openEventLog } from '../../../store/log.ts';
import { join } from 'node:path';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

const Z2M_ORIGIN = { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' };
const WEATHER_DEVICE = {
  identifiers: ['zigbee2mqtt_0x0017880104e45522'],
  name: 'weather_sensor',
  model: 'Temperature and humidity sensor',
  model_id: 'WSDCGQ11LM',
  manufacturer: 'Aqara',
  via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae',
};
const BRIDGE_AVAILABILITY = [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }];

t.test('zigbee2mqtt: sensors, a diagnostic sensor disabled by default, switches of one device', async (t) => {
  const s = await mqttScene(t);
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  await s.publish('homeassistant/sensor/0x0017880104e45522/temperature/config', {
    unit_of_measurement: '°C', device_class: 'temperature', state_class: 'measurement', value_template: '{{ value_json.temperature }}',
    state_topic: 'zigbee2mqtt/weather_sensor', object_id: 'weather_sensor_temperature', default_entity_id: 'sensor.weather_sensor_temperature',
    unique_id: '0x0017880104e45522_temperature_zigbee2mqtt', origin: Z2M_ORIGIN, device: WEATHER_DEVICE, availability: BRIDGE_AVAILABILITY, enabled_by_default: true,
  });
  await s.publish('homeassistant/sensor/0x0017880104e45522/humidity/config', {
    unit_of_measurement: '%', device_class: 'humidity', state_class: 'measurement', value_template: '{{ value_json.humidity }}',
    state_topic: 'zigbee2mqtt/weather_sensor', object_id: 'weather_sensor_humidity', default_entity_id: 'sensor.weather_sensor_humidity',
    unique_id: '0x0017880104e45522_humidity_zigbee2mqtt', origin: Z2M_ORIGIN, enabled_by_default: true, device: WEATHER_DEVICE, availability: BRIDGE_AVAILABILITY,
  });
  await s.publish('homeassistant/sensor/0x0017880104e45522/linkquality/config', {
    icon: 'mdi:signal', enabled_by_default: false, entity_category: 'diagnostic', unit_of_measurement: 'lqi', state_class: 'measurement',
    value_template: '{{ value_json.linkquality }}', state_topic: 'zigbee2mqtt/weather_sensor', name: 'Linkquality', object_id: 'weather_sensor_linkquality',
    default_entity_id: 'sensor.weather_sensor_linkquality', unique_id: '0x0017880104e45522_linkquality_zigbee2mqtt', origin: Z2M_ORIGIN, device: WEATHER_DEVICE,
    availability: BRIDGE_AVAILABILITY,
  });
  const wallSwitch = { identifiers: ['zigbee2mqtt_0x0017880104e45542'], manufacturer: 'Aqara', model: 'Smart wall switch (no neutral, double rocker)', model_id: 'QBKG03LM', name: 'wall_switch_double', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' };
  await s.publish('homeassistant/switch/0x0017880104e45542/switch_left/config', {
    availability: BRIDGE_AVAILABILITY, command_topic: 'zigbee2mqtt/wall_switch_double/left/set', device: wallSwitch, name: 'Left', payload_off: 'OFF', payload_on: 'ON',
    state_topic: 'zigbee2mqtt/wall_switch_double', object_id: 'wall_switch_double_left', default_entity_id: 'switch.wall_switch_double_left',
    unique_id: '0x0017880104e45542_switch_left_zigbee2mqtt', origin: Z2M_ORIGIN, value_template: '{{ value_json.state_left }}',
  });
  await s.publish('homeassistant/switch/1221051039810110150109113116116_9/switch/config', {
    availability: BRIDGE_AVAILABILITY, command_topic: 'zigbee2mqtt/ha_discovery_group/set',
    device: { identifiers: ['zigbee2mqtt_1221051039810110150109113116116_9'], name: 'ha_discovery_group', sw_version: 'Zigbee2MQTT 2.1.0', model: 'Group', manufacturer: 'Zigbee2MQTT', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' },
    name: null, payload_off: 'OFF', payload_on: 'ON', state_topic: 'zigbee2mqtt/ha_discovery_group', object_id: 'ha_discovery_group', default_entity_id: 'switch.ha_discovery_group',
    unique_id: '9_switch_zigbee2mqtt', origin: Z2M_ORIGIN, value_template: '{{ value_json.state }}',
  });
  await s.exist('sensor.weather_sensor_temperature', 'sensor.weather_sensor_humidity', 'switch.wall_switch_double_left', 'switch.ha_discovery_group');
  await s.publish('zigbee2mqtt/weather_sensor', { temperature: 21.5, humidity: 48, linkquality: 120 }, false);
  const temp = await s.until('sensor.weather_sensor_temperature', (x) => x.state === '21.5');
  t.same(temp.attributes, { state_class: 'measurement', unit_of_measurement: '°C', device_class: 'temperature', friendly_name: 'weather_sensor Temperature' }, 'named by its device and its device class');
  t.same((await s.until('sensor.weather_sensor_humidity', (x) => x.state === '48')).attributes.friendly_name, 'weather_sensor Humidity');
  t.equal(await s.state('sensor.weather_sensor_linkquality'), undefined, 'a sensor disabled by default has no state');
  const lqi = await s.entry('sensor.weather_sensor_linkquality');
  t.match(lqi, { platform: 'mqtt', disabled_by: 'integration', entity_category: 'diagnostic', original_name: 'Linkquality', has_entity_name: true, unique_id: '0x0017880104e45522_linkquality_zigbee2mqtt' });

  await s.publish('zigbee2mqtt/wall_switch_double', { state_left: 'ON', state_right: 'OFF' }, false);
  const left = await s.until('switch.wall_switch_double_left', (x) => x.state === 'on');
  t.same(left.attributes, { friendly_name: 'wall_switch_double Left' });
  await s.publish('zigbee2mqtt/ha_discovery_group', { state: 'OFF' }, false);
  const group = await s.until('switch.ha_discovery_group', (x) => x.state === 'off');
  t.same(group.attributes, { friendly_name: 'ha_discovery_group' }, 'name null: the device is the entity');

  const weather = await s.device('zigbee2mqtt_0x0017880104e45522');
  t.match(weather, { name: 'weather_sensor', manufacturer: 'Aqara', model: 'Temperature and humidity sensor', model_id: 'WSDCGQ11LM', via_device_id: null });
  t.equal(weather.config_entries.length, 1, 'on the MQTT config entry');
  const entry = await s.entry('sensor.weather_sensor_temperature');
  t.match(entry, { device_id: weather.id, config_entry_id: weather.config_entries[0], platform: 'mqtt', original_device_class: 'temperature', capabilities: { state_class: 'measurement' } });
  t.same((await s.call('GET', '/api/config/config_entries/entry?domain=mqtt')).json.map((e: any) => [e.entry_id, e.source, e.state]), [[weather.config_entries[0], 'import', 'loaded']]);

  // the bridge goes offline: every entity that follows its availability topic is unavailable
  await s.publish('zigbee2mqtt/bridge/state', { state: 'offline' });
  await s.until('sensor.weather_sensor_temperature', (x) => x.state === 'unavailable');
  await s.until('switch.wall_switch_double_left', (x) => x.state === 'unavailable');
  t.same((await s.state('sensor.weather_sensor_temperature')).attributes, { state_class: 'measurement', unit_of_measurement: '°C', device_class: 'temperature', friendly_name: 'weather_sensor Temperature' });
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  await s.until('sensor.weather_sensor_temperature', (x) => x.state === '21.5', 'the value is back with the bridge');
});

t.test('Tasmota (SetOption19): relay, sensors and a PIR switch with off_delay, all of one chip', async (t) => {
  const s = await mqttScene(t);
  const avty = { avty_t: 'tele/tasmota_1A2B3C/LWT', pl_avail: 'Online', pl_not_avail: 'Offline' };
  await s.publish('homeassistant/sensor/1A2B3C_status/config', {
    name: 'Tasmota status', stat_t: 'tele/tasmota_1A2B3C/HASS_STATE', ...avty, json_attr_t: 'tele/tasmota_1A2B3C/HASS_STATE', unit_of_meas: '%',
    val_tpl: "{{value_json['RSSI']}}", ic: 'mdi:information-outline', uniq_id: '1A2B3C_status',
    dev: { ids: ['1A2B3C'], name: 'Tasmota', mdl: 'Sonoff Basic', sw: '8.1.0(tasmota)', mf: 'Tasmota' },
  });
  await s.publish('homeassistant/switch/1A2B3C_RL_1/config', {
    name: 'Tasmota', stat_t: 'tele/tasmota_1A2B3C/STATE', ...avty, cmd_t: 'cmnd/tasmota_1A2B3C/POWER', val_tpl: '{{value_json.POWER}}', pl_off: 'OFF', pl_on: 'ON',
    uniq_id: '1A2B3C_RL_1', dev: { ids: ['1A2B3C'] },
  });
  await s.publish('homeassistant/sensor/1A2B3C_AM2301_Temperature/config', {
    name: 'Tasmota AM2301 Temperature', stat_t: 'tele/tasmota_1A2B3C/SENSOR', ...avty, uniq_id: '1A2B3C_AM2301_Temperature', dev: { ids: ['1A2B3C'] },
    unit_of_meas: '°C', dev_cla: 'temperature', frc_upd: true, val_tpl: "{{value_json['AM2301']['Temperature']}}",
  });
  await s.publish('homeassistant/binary_sensor/1A2B3C_SW_1/config', {
    name: 'Tasmota Switch1', stat_t: 'stat/tasmota_1A2B3C/SWITCH1', ...avty, uniq_id: '1A2B3C_SW_1', dev: { ids: ['1A2B3C'] }, val_tpl: '{{value_json.STATE}}', frc_upd: true, pl_on: 'ON', off_dly: 1,
  });
  await s.until('switch.tasmota_tasmota', (x) => x.state === 'unavailable', 'entities wait for the LWT');
  await s.exist('sensor.tasmota_tasmota_status', 'sensor.tasmota_tasmota_am2301_temperature', 'binary_sensor.tasmota_tasmota_switch1');
  await s.publish('tele/tasmota_1A2B3C/LWT', 'Online');
  await s.publish('tele/tasmota_1A2B3C/STATE', { Time: '2020-03-25T09:35:49', Uptime: '0T00:02:13', POWER: 'ON', Wifi: { RSSI: 96 } }, false);
  await s.publish('tele/tasmota_1A2B3C/HASS_STATE', { Version: '8.1.0(tasmota)', Module: 'Sonoff Basic', RSSI: '96', IPAddress: '192.168.1.20' }, false);
  await s.publish('tele/tasmota_1A2B3C/SENSOR', { Time: '2020-03-25T09:36:00', AM2301: { Temperature: 22.3, Humidity: 41.2 }, TempUnit: 'C' }, false);
  t.same((await s.until('switch.tasmota_tasmota', (x) => x.state === 'on')).attributes, { friendly_name: 'Tasmota Tasmota' });
  const status = await s.until('sensor.tasmota_tasmota_status', (x) => x.state === '96');
  t.same(status.attributes, { Version: '8.1.0(tasmota)', Module: 'Sonoff Basic', RSSI: '96', IPAddress: '192.168.1.20', unit_of_measurement: '%', icon: 'mdi:information-outline', friendly_name: 'Tasmota Tasmota status' }, 'JSON attributes from json_attr_t');
  t.same((await s.until('sensor.tasmota_tasmota_am2301_temperature', (x) => x.state === '22.3')).attributes, { unit_of_measurement: '°C', device_class: 'temperature', friendly_name: 'Tasmota Tasmota AM2301 Temperature' });
  t.match(await s.device('1A2B3C'), { name: 'Tasmota', model: 'Sonoff Basic', sw_version: '8.1.0(tasmota)', manufacturer: 'Tasmota' });

  // a PIR only sends ON: off_delay turns it off after a second
  await s.publish('stat/tasmota_1A2B3C/SWITCH1', { STATE: 'ON' }, false);
  await s.until('binary_sensor.tasmota_tasmota_switch1', (x) => x.state === 'on');
  await s.until('binary_sensor.tasmota_tasmota_switch1', (x) => x.state === 'off', 'off after off_delay');

  // force_update: the same temperature again is a new state_changed
  const before = (await s.state('sensor.tasmota_tasmota_am2301_temperature')).last_updated;
  await s.publish('tele/tasmota_1A2B3C/SENSOR', { AM2301: { Temperature: 22.3 } }, false);
  const again = await s.until('sensor.tasmota_tasmota_am2301_temperature', (x) => x.last_updated !== before, 'a forced update');
  t.equal(again.last_changed, (await s.state('sensor.tasmota_tasmota_am2301_temperature')).last_changed);

  // the device's LWT says Offline
  await s.publish('tele/tasmota_1A2B3C/LWT', 'Offline');
  await s.until('switch.tasmota_tasmota', (x) => x.state === 'unavailable');
});

t.test('ESPHome: abbreviations, a MAC identifier, suggested area, availability with default payloads', async (t) => {
  const s = await mqttScene(t);
  const dev = { ids: 'aabbccddeeff', name: 'Living Room', sw: 'esphome v2024.6.0 Jun  1 2024, 10:00:00', mdl: 'esp32dev', mf: 'espressif', sa: 'Living Room' };
  await s.publish('homeassistant/sensor/livingroom/temperature/config', {
    dev_cla: 'temperature', unit_of_meas: '°C', stat_cla: 'measurement', name: 'Temperature', stat_t: 'livingroom/sensor/temperature/state', avty_t: 'livingroom/status',
    uniq_id: 'ESPsensortemperature', dev,
  });
  await s.publish('homeassistant/switch/livingroom/relay/config', {
    name: 'Relay', stat_t: 'livingroom/switch/relay/state', cmd_t: 'livingroom/switch/relay/command', avty_t: 'livingroom/status', uniq_id: 'ESPswitchrelay', dev,
  });
  await s.publish('homeassistant/button/livingroom/restart/config', {
    dev_cla: 'restart', name: 'Restart', ent_cat: 'config', cmd_t: 'livingroom/button/restart/command', avty_t: 'livingroom/status', uniq_id: 'ESPbuttonrestart', dev,
  });
  await s.publish('livingroom/status', 'online');
  await s.publish('livingroom/sensor/temperature/state', '20.6');
  t.same((await s.until('sensor.living_room_temperature', (x) => x.state === '20.6')).attributes, { state_class: 'measurement', unit_of_measurement: '°C', device_class: 'temperature', friendly_name: 'Living Room Temperature' });
  await s.until('switch.living_room_relay', (x) => x.state === 'unknown', 'a switch before its first state');
  const restart = await s.until('button.living_room_restart', (x) => x.state === 'unknown');
  t.same(restart.attributes, { device_class: 'restart', friendly_name: 'Living Room Restart' });
  const device = await s.device('aabbccddeeff');
  t.match(device, { name: 'Living Room', manufacturer: 'espressif', model: 'esp32dev', sw_version: 'esphome v2024.6.0 Jun  1 2024, 10:00:00' });
  const areas = await s.ws('config/area_registry/list');
  t.equal(areas.find((a: any) => a.area_id === device.area_id)?.name, 'Living Room', 'placed in its suggested area');
  t.match(await s.entry('button.living_room_restart'), { entity_category: 'config', original_device_class: 'restart' });
  await s.publish('livingroom/status', 'offline');
  await s.until('sensor.living_room_temperature', (x) => x.state === 'unavailable');
});

t.test('device-based discovery, shared options, removal of a component and of the device; updates in place; records', async (t) => {
  const s = await mqttScene(t);
  const topic = 'homeassistant/device/0AFFD2/config';
  const payload = {
    dev: { ids: '0AFFD2', name: 'Kitchen', mf: 'Bla electronics', mdl: 'xya', sw: '1.0', sn: 'ea334450945afc', hw: '1.0rev2' },
    o: { name: 'bla2mqtt', sw: '2.1', url: 'https://bla2mqtt.example.com/support' },
    cmps: {
      some_unique_component_id1: { p: 'sensor', device_class: 'temperature', unit_of_measurement: '°C', value_template: '{{ value_json.temperature }}', unique_id: 'temp01ae_t' },
      some_unique_id2: { p: 'sensor', device_class: 'humidity', unit_of_measurement: '%', value_template: '{{ value_json.humidity }}', unique_id: 'temp01ae_h' },
    },
    state_topic: 'sensorBedroom/state',
    qos: 2,
  };
  await s.publish(topic, payload);
  await s.exist('sensor.kitchen_temperature', 'sensor.kitchen_humidity');
  await s.publish('sensorBedroom/state', { temperature: 23.2, humidity: 43.7 }, false);
  await s.until('sensor.kitchen_temperature', (x) => x.state === '23.2');
  await s.until('sensor.kitchen_humidity', (x) => x.state === '43.7');
  t.match(await s.device('0AFFD2'), { name: 'Kitchen', manufacturer: 'Bla electronics', model: 'xya', sw_version: '1.0', hw_version: '1.0rev2', serial_number: 'ea334450945afc' });

  // a changed config updates the entity in place: same id, the value kept, the new unit shown
  const changed = { ...payload.cmps, some_unique_component_id1: { ...payload.cmps.some_unique_component_id1, unit_of_measurement: '°F', name: 'Temp' } };
  await s.publish(topic, { ...payload, cmps: changed });
  const updated = await s.until('sensor.kitchen_temperature', (x) => x.attributes.unit_of_measurement === '°F');
  t.same([updated.state, updated.attributes.friendly_name], ['23.2', 'Kitchen Temp']);
  t.match(await s.entry('sensor.kitchen_temperature'), { original_name: 'Temp', has_entity_name: true });

  // a component reduced to its platform is one the device no longer has
  await s.publish(topic, { ...payload, cmps: { ...changed, some_unique_id2: { p: 'sensor' } } });
  await eventually(async () => (await s.state('sensor.kitchen_humidity')) === undefined, 'the humidity sensor removed');
  t.equal(await s.entry('sensor.kitchen_humidity'), undefined, 'its registry entry too');
  t.ok(await s.device('0AFFD2'), 'the device stays with its other entity');

  // an empty payload removes every component, and the device with its last entity
  await s.publish(topic, '');
  await eventually(async () => (await s.state('sensor.kitchen_temperature')) === undefined, 'the temperature sensor removed');
  await eventually(async () => (await s.device('0AFFD2')) === undefined, 'the device removed');

  await s.h.hearth.stop();
  const log = await openEventLog({ path: join(s.h.dataDir, 'log') });
  t.teardown(() => log.close());
  const records: string[] = [];
  for await (const r of log.readStreams('mqtt/discovery/')) records.push(`${r.type} ${r.stream}`);
  t.same(records, [
    'mqtt_discovery_updated mqtt/discovery/sensor/0AFFD2 some_unique_component_id1',
    'mqtt_discovery_updated mqtt/discovery/sensor/0AFFD2 some_unique_id2',
    'mqtt_discovery_updated mqtt/discovery/sensor/0AFFD2 some_unique_component_id1',
    'mqtt_discovery_removed mqtt/discovery/sensor/0AFFD2 some_unique_id2',
    'mqtt_discovery_removed mqtt/discovery/sensor/0AFFD2 some_unique_component_id1',
  ], 'each config and each removal a record; the unchanged component sent again wrote nothing');
});

t.test('~ base topics, a removal by empty retained payload, malformed configs logged with topic and field', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/binary_sensor/garden/motion/config', { '~': 'garden/motion', name: 'Garden motion', stat_t: '~/state', avty_t: '~/availability', dev_cla: 'motion', uniq_id: 'garden_motion' });
  await s.exist('binary_sensor.garden_motion');
  await s.publish('garden/motion/availability', 'online');
  await s.publish('garden/motion/state', 'ON', false);
  t.same((await s.until('binary_sensor.garden_motion', (x) => x.state === 'on')).attributes, { device_class: 'motion', friendly_name: 'Garden motion' });

  await s.publish('homeassistant/sensor/bad/one/config', { name: 'No topic' });
  await s.publish('homeassistant/sensor/bad/two/config', { name: 'Bad QoS', state_topic: 'x', qos: 5 });
  await s.publish('homeassistant/sensor/bad/three/config', '{not json');
  await s.publish('homeassistant/switch/bad/four/config', { name: 'Wild', command_topic: 'a/+/b' });
  await eventually(() => s.h.lines.filter((l) => /homeassistant\/.*bad|Unable to parse JSON three/.test(l)).length >= 4, 'four refusals logged');
  const lines = s.h.lines.join('\n');
  t.match(lines, "Error 'required key not provided @ data['state_topic']' when processing MQTT discovery message topic: 'homeassistant/sensor/bad/one/config'");
  t.match(lines, "Error 'value must be one of [0, 1, 2] for dictionary value @ data['qos']' when processing MQTT discovery message topic: 'homeassistant/sensor/bad/two/config'");
  t.match(lines, "Unable to parse JSON three: '{not json'");
  t.match(lines, "Error 'Wildcards cannot be used in topic names for dictionary value @ data['command_topic']' when processing MQTT discovery message topic: 'homeassistant/switch/bad/four/config'");
  t.equal(await s.state('sensor.no_topic'), undefined);

  // the empty retained payload removes the entity, its entry and (last entity) its state
  await s.publish('homeassistant/binary_sensor/garden/motion/config', '');
  await eventually(async () => (await s.state('binary_sensor.garden_motion')) === undefined, 'removed');
  t.equal(await s.entry('binary_sensor.garden_motion'), undefined);
});

t.test('the user removes an entity or a device: its discovery topics are cleared on the broker', async (t) => {
  const s = await mqttScene(t);
  const dev = { ids: ['meter1'], name: 'Meter' };
  await s.publish('homeassistant/sensor/meter1/power/config', { name: 'Power', stat_t: 'meter/power', unit_of_meas: 'W', dev_cla: 'power', sug_dsp_prc: 1, uniq_id: 'meter1_power', dev });
  await s.publish('homeassistant/sensor/meter1/voltage/config', { name: 'Voltage', stat_t: 'meter/voltage', unit_of_meas: 'V', dev_cla: 'voltage', uniq_id: 'meter1_voltage', dev });
  await s.exist('sensor.meter_power', 'sensor.meter_voltage');
  t.same((await s.entry('sensor.meter_power')).options.sensor, { suggested_display_precision: 1 }, 'the suggested precision in the entry\'s options');

  await s.ws('config/entity_registry/remove', { entity_id: 'sensor.meter_voltage' });
  await eventually(() => s.seen.includes('homeassistant/sensor/meter1/voltage/config='), 'the discovery topic cleared');
  await eventually(async () => (await s.state('sensor.meter_voltage')) === undefined, 'the state gone');

  const device = await s.device('meter1');
  await s.ws('config/device_registry/remove_config_entry', { device_id: device.id, config_entry_id: device.config_entries[0] });
  await eventually(() => s.seen.includes('homeassistant/sensor/meter1/power/config='), 'the device\'s discovery topics cleared');
  await eventually(async () => (await s.state('sensor.meter_power')) === undefined, 'its entity gone');
  t.equal(await s.device('meter1'), undefined);
});
