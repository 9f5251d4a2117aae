// What reaches devices: service calls over REST and WebSocket and an intent spoken to the
// conversation agent publish the payloads the device expects; mqtt.publish, mqtt.dump,
// mqtt/subscribe and mqtt/device/debug_info; every MQTT-made change a record whose context names
// its topic (hearth/context); mqtt in the loaded components.
// The switch's discovery is zigbee2mqtt's (Koenkk/zigbee2mqtt test/extensions/homeassistant.test.ts,
// a device-named switch: `name: null`).
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('commands from REST, WebSocket and an intent; mqtt services and commands; contexts', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/switch/0x00158d0001a2b3c4/switch/config', {
    command_topic: 'zigbee2mqtt/hallway_switch/set', state_topic: 'zigbee2mqtt/hallway_switch', value_template: '{{ value_json.state }}', payload_on: 'ON', payload_off: 'OFF',
    name: null, object_id: 'hallway_switch', default_entity_id: 'switch.hallway_switch', unique_id: '0x00158d0001a2b3c4_switch_zigbee2mqtt',
    device: { identifiers: ['zigbee2mqtt_0x00158d0001a2b3c4'], name: 'Hallway switch', manufacturer: 'Aqara', model: 'Smart wall switch', model_id: 'QBKG04LM' },
    origin: { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' },
  });
  await s.exist('switch.hallway_switch');
  const commands = () => s.seen.filter((m) => m.startsWith('zigbee2mqtt/hallway_switch/set='));

  // REST
  t.equal((await s.call('POST', '/api/services/switch/turn_on', { entity_id: 'switch.hallway_switch' })).status, 200);
  await eventually(() => commands().length === 1, 'the REST call published');
  // the device answers with its state: a record whose context names the topic
  await s.publish('zigbee2mqtt/hallway_switch', { state: 'ON', linkquality: 80 }, false);
  const on = await s.until('switch.hallway_switch', (x) => x.state === 'on');
  const chain = await s.ws('hearth/context', { context_id: on.context.id });
  t.same(chain.chain[0].source, { via: 'mqtt', topic: 'zigbee2mqtt/hallway_switch' }, 'the explorer names the topic the change came from');
  t.same(Object.keys(on.context).sort(), ['id', 'parent_id', 'user_id'], 'the wire context is the original\'s');

  // WebSocket call_service
  await s.ws('call_service', { domain: 'switch', service: 'turn_off', target: { entity_id: 'switch.hallway_switch' } });
  await eventually(() => commands().length === 2, 'the WebSocket call published');

  // an intent: "turn on the hallway switch"
  const spoken = await s.call('POST', '/api/conversation/process', { text: 'turn on the hallway switch', language: 'en' });
  t.equal(spoken.status, 200);
  t.equal(spoken.json.response.response_type, 'action_done');
  await eventually(() => commands().length === 3, 'the intent published');
  t.same(commands(), ['zigbee2mqtt/hallway_switch/set=ON', 'zigbee2mqtt/hallway_switch/set=OFF', 'zigbee2mqtt/hallway_switch/set=ON']);

  // mqtt.publish: plain, a template, a bytes literal, retained; a wildcard refused
  await s.call('POST', '/api/services/mqtt/publish', { topic: 'test/plain', payload: 'hello', qos: 1 });
  await s.call('POST', '/api/services/mqtt/publish', { topic: 'test/template', payload: "{{ states('switch.hallway_switch') }}" });
  await s.call('POST', '/api/services/mqtt/publish', { topic: 'test/bytes', payload: "b'\\x41\\x42'", evaluate_payload: true });
  await s.call('POST', '/api/services/mqtt/publish', { topic: 'test/retained', payload: 'kept', retain: true });
  await eventually(() => ['test/plain=hello', 'test/template=on', 'test/bytes=AB', 'test/retained=kept'].every((m) => s.seen.includes(m)), 'the publishes');
  t.equal((await s.call('POST', '/api/services/mqtt/publish', { topic: 'test/+', payload: 'x' })).status, 400, 'REST: a plain 400, as the original answers invalid data');
  await t.rejects(s.ws('call_service', { domain: 'mqtt', service: 'publish', service_data: { topic: 'test/+', payload: 'x' } }), /Wildcards cannot be used in topic names for dictionary value @ data\['topic'\]/);

  // mqtt/subscribe: the frontend's MQTT page
  const sub = s.nextId();
  s.client.send({ id: sub, type: 'mqtt/subscribe', topic: 'page/#' });
  t.equal((await s.client.until((m) => m.id === sub && m.type === 'result')).success, true);
  await s.publish('page/one', 'first', false);
  const event = await s.client.until((m) => m.id === sub && m.type === 'event');
  t.match(event.event, { topic: 'page/one', payload: 'first', qos: 0, retain: false, time: /^\d{4}-\d\d-\d\dT/ });

  // mqtt.dump writes mqtt_dump.txt after the duration
  await s.call('POST', '/api/services/mqtt/dump', { topic: 'dump/#', duration: 1 });
  await s.publish('dump/a', 'one\ntwo', false);
  await s.publish('dump/b', 'three', false);
  const dump = await eventually(() => readFile(join(s.h.dataDir, 'mqtt_dump.txt'), 'utf8').catch(() => undefined), 'the dump file');
  t.equal(dump, 'dump/a,onetwo\ndump/b,three\n');

  // mqtt/device/debug_info
  const device = await s.device('zigbee2mqtt_0x00158d0001a2b3c4');
  const debug = await s.ws('mqtt/device/debug_info', { device_id: device.id });
  t.equal(debug.entities.length, 1);
  t.match(debug.entities[0], {
    entity_id: 'switch.hallway_switch',
    subscriptions: [{ topic: 'zigbee2mqtt/hallway_switch', messages: [{ topic: 'zigbee2mqtt/hallway_switch', qos: 0, retain: false }] }],
    discovery_data: { topic: 'homeassistant/switch/0x00158d0001a2b3c4/switch/config' },
    transmitted: [{ topic: 'zigbee2mqtt/hallway_switch/set', messages: [{ payload: 'ON' }, { payload: 'OFF' }, { payload: 'ON' }] }],
  });

  const config = await s.ws('get_config');
  t.ok(config.components.includes('mqtt') && config.components.includes('switch'), 'mqtt and its platforms are loaded components');
  const services = await s.ws('get_services');
  t.same(Object.keys(services.mqtt).sort(), ['dump', 'publish', 'reload']);
});

t.test('a call to an entity of a broker that is gone changes nothing and publishes nothing', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/switch/lamp/config', { name: 'Lamp', command_topic: 'lamp/set', uniq_id: 'lamp1' });
  await s.exist('switch.lamp');
  await s.broker.kill();
  await s.until('switch.lamp', (x) => x.state === 'unavailable');
  t.equal((await s.call('POST', '/api/services/switch/turn_on', { entity_id: 'switch.lamp' })).status, 200, 'the original skips unavailable entities');
  t.equal((await s.state('switch.lamp')).state, 'unavailable');
  const publish = await s.call('POST', '/api/services/mqtt/publish', { topic: 'x', payload: 'y' });
  t.equal(publish.status, 400);
  t.match(publish.text, 'Error talking to MQTT: The client is not currently connected.');
});
