// MQTT update against a real Mosquitto: discovery as zigbee2mqtt publishes a device's firmware
// update (Koenkk/zigbee2mqtt lib/extension/homeassistant.ts: `update` with device_class firmware,
// the device's topic as state and latest-version topic read by value_template and
// latest_version_template, payload_install {"id": ...} on bridge/request/device/ota_update/update)
// and a JSON state as the original's tests/components/mqtt/test_update.py publishes it
// (test_json_state_message: installed_version, latest_version, title, release_summary,
// release_url, entity_picture; test_run_install_service; test_empty_json_state_message);
// install, skip and clear_skipped over REST.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('zigbee2mqtt firmware update: versions from the device topic, install publishes payload_install; skip', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/update/0x00158d0004a9b2c1/update/config', {
    availability: [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }],
    command_topic: 'zigbee2mqtt/bridge/request/device/ota_update/update',
    device: { identifiers: ['zigbee2mqtt_0x00158d0004a9b2c1'], manufacturer: 'Philips', model: 'Hue white ambiance E27', model_id: '9290022169', name: 'lamp', sw_version: '1.88.1', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' },
    device_class: 'firmware', entity_category: 'config', entity_picture: 'https://github.com/Koenkk/zigbee2mqtt/raw/master/images/logo.png',
    json_attributes_template: "{{ {'in_progress': value_json['update']['state'] == 'updating'} | tojson }}", json_attributes_topic: 'zigbee2mqtt/lamp',
    latest_version_template: "{{ value_json['update']['latest_version'] }}", latest_version_topic: 'zigbee2mqtt/lamp', name: null,
    object_id: 'lamp', default_entity_id: 'update.lamp', origin: { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' },
    payload_install: '{"id": "0x00158d0004a9b2c1"}', state_topic: 'zigbee2mqtt/lamp', unique_id: '0x00158d0004a9b2c1_update_zigbee2mqtt',
    value_template: "{{ value_json['update']['installed_version'] }}",
  });
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  const id = 'update.lamp';
  await s.exist(id);
  await s.publish('zigbee2mqtt/lamp', { state: 'ON', update: { state: 'available', installed_version: 16786691, latest_version: 16786694 } }, false);
  const available = await s.until(id, (x) => x.state === 'on');
  t.same(available.attributes, {
    auto_update: false, display_precision: 0, installed_version: '16786691', in_progress: false, latest_version: '16786694', release_summary: null, release_url: null,
    skipped_version: null, title: null, update_percentage: null, supported_features: 1, entity_picture: 'https://github.com/Koenkk/zigbee2mqtt/raw/master/images/logo.png',
    device_class: 'firmware', friendly_name: 'lamp',
  });

  t.equal((await s.call('POST', '/api/services/update/install', { entity_id: id })).status, 200);
  await eventually(() => s.seen.includes('zigbee2mqtt/bridge/request/device/ota_update/update={"id": "0x00158d0004a9b2c1"}'), 'payload_install');
  await t.rejects(s.ws('call_service', { domain: 'update', service: 'install', service_data: { version: '16786694' }, target: { entity_id: id } }), /Installing a specific version is not supported for update\.lamp/);
  await t.rejects(s.ws('call_service', { domain: 'update', service: 'install', service_data: { backup: true }, target: { entity_id: id } }), /Backup is not supported for update\.lamp/);
  // updating: the JSON attributes say so (after the entity's own attributes)
  await s.publish('zigbee2mqtt/lamp', { state: 'ON', update: { state: 'updating', installed_version: 16786691, latest_version: 16786694, progress: 20 } }, false);
  await s.until(id, (x) => x.attributes.in_progress === true);

  // skip: off until a newer version comes; clear_skipped brings it back
  await s.call('POST', '/api/services/update/skip', { entity_id: id });
  const skipped = await s.until(id, (x) => x.state === 'off');
  t.equal(skipped.attributes.skipped_version, '16786694');
  await s.call('POST', '/api/services/update/clear_skipped', { entity_id: id });
  await s.until(id, (x) => x.state === 'on' && x.attributes.skipped_version === null);
  await s.publish('zigbee2mqtt/lamp', { state: 'ON', update: { state: 'idle', installed_version: 16786694, latest_version: 16786694 } }, false);
  await s.until(id, (x) => x.state === 'off' && x.attributes.installed_version === '16786694');
  await t.rejects(s.ws('call_service', { domain: 'update', service: 'install', target: { entity_id: id } }), /No update available for update\.lamp/);
  await t.rejects(s.ws('call_service', { domain: 'update', service: 'skip', target: { entity_id: id } }), /No update available to skip for update\.lamp/);
});

t.test('a JSON state; a plain installed version; an update without a command topic cannot install', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  update:
    - name: Test Update
      state_topic: test/update
      latest_version_topic: test/latest
      title: Default title
`,
  });
  await s.publish('homeassistant/update/livingroom/firmware/config', {
    name: 'Firmware', stat_t: 'livingroom/update/firmware/state', cmd_t: 'livingroom/update/firmware/command', pl_inst: 'INSTALL', uniq_id: 'ESPupdatefirmware',
    dev_cla: 'firmware', ent_cat: 'config', dev: { ids: '240ac4a1b2c3', name: 'livingroom', sw: 'esphome v2024.6.0 Jun 20 2024, 10:00:00', mdl: 'esp32dev', mf: 'espressif' },
  });
  await s.exist('update.livingroom_firmware', 'update.test_update');
  await s.publish('livingroom/update/firmware/state', {
    installed_version: '1.9.0', latest_version: '1.9.1', title: 'Test Update 1 Title', release_url: 'https://example.com/release', release_summary: 'Test release summary 1',
    entity_picture: 'https://example.com/icon1.png',
  }, false);
  const esp = await s.until('update.livingroom_firmware', (x) => x.state === 'on');
  t.match(esp.attributes, { installed_version: '1.9.0', latest_version: '1.9.1', title: 'Test Update 1 Title', release_url: 'https://example.com/release', release_summary: 'Test release summary 1', entity_picture: 'https://example.com/icon1.png', supported_features: 1, friendly_name: 'livingroom Firmware' });
  await s.call('POST', '/api/services/update/install', { entity_id: 'update.livingroom_firmware' });
  await eventually(() => s.seen.includes('livingroom/update/firmware/command=INSTALL'), 'INSTALL');
  await s.publish('livingroom/update/firmware/state', '{}', false);
  await s.publish('livingroom/update/firmware/state', { installed_version: '1.9.1' }, false);
  await s.until('update.livingroom_firmware', (x) => x.state === 'off', 'installed: off');

  // YAML: a plain version on the state topic, the latest on its own topic; the brand icon
  await s.publish('test/update', '1.9.0', false);
  await s.publish('test/latest', '2.0.0b1', false);
  const yaml = await s.until('update.test_update', (x) => x.state === 'on');
  t.match(yaml.attributes, { installed_version: '1.9.0', latest_version: '2.0.0b1', title: 'Default title', supported_features: 0, entity_picture: 'https://brands.home-assistant.io/_/mqtt/icon.png' });
  await s.publish('test/latest', '1.8.0', false);
  await s.until('update.test_update', (x) => x.state === 'off', 'an older latest version: off');
  const refused = await s.call('POST', '/api/services/update/install', { entity_id: 'update.test_update' });
  t.equal(refused.status, 400, 'no command topic: install is not supported');
  await t.rejects(s.ws('call_service', { domain: 'update', service: 'install', target: { entity_id: 'update.test_update' } }), /does not support action update\.install/);
});
