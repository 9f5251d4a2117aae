// MQTT scene against a real Mosquitto: discovery as zigbee2mqtt publishes a group's stored scene
// (Koenkk/zigbee2mqtt lib/extension/homeassistant.ts, scenes: `scene` with payload_on
// {"scene_recall": id} on the group's set topic) and YAML as the original's
// tests/components/mqtt/test_scene.py configures it (test_sending_mqtt_commands: payload_on
// "beer on", the state the time of the last activation, restored after a restart).
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('zigbee2mqtt group scene and a YAML scene: scene.turn_on publishes payload_on; the state is the last activation, kept over a restart', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  scene:
    - name: test
      command_topic: command-topic
      payload_on: beer on
      retain: true
`,
  });
  await s.publish('homeassistant/scene/1221051039810110150109113116116_9/scene_1/config', {
    availability: [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }],
    command_topic: 'zigbee2mqtt/living_room/set',
    device: { identifiers: ['zigbee2mqtt_1221051039810110150109113116116_9'], name: 'living_room', model: 'Group', manufacturer: 'Zigbee2MQTT', sw_version: 'Zigbee2MQTT 2.1.0', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' },
    name: 'Chill scene', object_id: 'living_room_1_chill_scene', default_entity_id: 'scene.living_room_1_chill_scene',
    origin: { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' },
    payload_on: '{ "scene_recall": 1 }', unique_id: '9_scene_1_zigbee2mqtt',
  });
  await s.publish('zigbee2mqtt/bridge/state', { state: 'online' });
  const id = 'scene.living_room_1_chill_scene';
  await s.exist(id, 'scene.test');
  t.same(await s.state(id).then((x) => [x.state, x.attributes]), ['unknown', { friendly_name: 'living_room Chill scene' }]);

  t.equal((await s.call('POST', '/api/services/scene/turn_on', { entity_id: id })).status, 200);
  await eventually(() => s.seen.includes('zigbee2mqtt/living_room/set={ "scene_recall": 1 }'), 'payload_on published');
  const activated = await s.until(id, (x) => x.state !== 'unknown');
  t.match(activated.state, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}\+00:00$/, 'the time of the activation');

  await s.call('POST', '/api/services/scene/turn_on', { entity_id: 'scene.test', transition: 2 });
  await eventually(() => s.seen.includes('command-topic=beer on'), 'the YAML scene');
  const before = (await s.until('scene.test', (x) => x.state !== 'unknown')).state;

  // a restart keeps the last activation
  await s.h.hearth.stop();
  const again = await mqttScene(t, { dataDir: s.h.dataDir, broker: s.broker, token: s.token });
  await again.exist('scene.test');
  t.equal((await again.state('scene.test')).state, before, 'restored');
});
