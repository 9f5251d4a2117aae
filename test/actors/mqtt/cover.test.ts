// MQTT covers against a real Mosquitto: zigbee2mqtt's smart vent (its discovery as
// Koenkk/zigbee2mqtt test/extensions/homeassistant.test.ts "Should discover devices with
// cover_position": one topic carrying position and state, state_stopped `STOP`, a position
// template), and an optimistic cover with a tilt on a 0..180 range (the options of the original's
// tests/components/mqtt/test_cover.py). States, attributes, features and payloads follow
// homeassistant/components/mqtt/cover.py and the CoverEntity it builds on.
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

t.test('a zigbee2mqtt smart vent: position and state on one topic, commands on the set topic', async (t) => {
  const s = await mqttScene(t);
  await s.publish('zigbee2mqtt/bridge/state', 'online');
  await s.publish('homeassistant/cover/0x0017880104e45551/cover/config', {
    command_topic: 'zigbee2mqtt/smart vent/set',
    position_topic: 'zigbee2mqtt/smart vent',
    set_position_topic: 'zigbee2mqtt/smart vent/set',
    set_position_template: '{ "position": {{ position }} }',
    position_template: '{{ value_json.position }}',
    state_topic: 'zigbee2mqtt/smart vent',
    value_template: '{{ value_json.state }}',
    state_open: 'OPEN',
    state_closed: 'CLOSE',
    state_stopped: 'STOP',
    json_attributes_topic: 'zigbee2mqtt/smart vent',
    name: null,
    object_id: 'smart_vent',
    unique_id: '0x0017880104e45551_cover_zigbee2mqtt',
    origin: { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' },
    device: { identifiers: ['zigbee2mqtt_0x0017880104e45551'], name: 'smart vent', model: 'Smart vent (SV01)', manufacturer: 'Keen Home' },
    availability: [{ topic: 'zigbee2mqtt/bridge/state' }],
  });
  await s.exist('cover.smart_vent');
  t.same(await s.state('cover.smart_vent').then((x) => [x.state, x.attributes]), ['unknown', { friendly_name: 'smart vent', supported_features: 15 }], 'open, close, stop and set_position');

  await s.publish('zigbee2mqtt/smart vent', { position: 37, state: 'OPEN', linkquality: 50 }, false);
  const open = await s.until('cover.smart_vent', (x) => x.state === 'open');
  t.same(open.attributes, { current_position: 37, position: 37, linkquality: 50, friendly_name: 'smart vent', supported_features: 15 });
  await s.publish('zigbee2mqtt/smart vent', { position: 0, state: 'STOP' }, false);
  const stopped = await s.until('cover.smart_vent', (x) => x.state === 'closed');
  t.equal(stopped.attributes.current_position, 0, 'stopped at position 0: closed');
  await s.publish('zigbee2mqtt/smart vent', { position: 80, state: 'ajar' }, false);
  await eventually(() => s.h.lines.some((l) => l.includes('Payload is not supported (e.g. open, closed, opening, closing, stopped): ajar')), 'the unknown state logged');
  await s.until('cover.smart_vent', (x) => x.attributes.current_position === 80);
  t.equal((await s.state('cover.smart_vent')).state, 'closed', 'the position alone does not change a state the state topic gives');

  const sent = () => s.seen.filter((m) => m.startsWith('zigbee2mqtt/smart vent/set='));
  const call = async (service: string, data: Record<string, unknown>, expected: string) => {
    const before = sent().length;
    t.equal((await s.call('POST', `/api/services/cover/${service}`, { entity_id: 'cover.smart_vent', ...data })).status, 200, service);
    await eventually(() => sent().length > before, expected);
    t.equal(sent().at(-1), `zigbee2mqtt/smart vent/set=${expected}`);
  };
  await call('open_cover', {}, 'OPEN');
  await call('close_cover', {}, 'CLOSE');
  await call('stop_cover', {}, 'STOP');
  await call('set_cover_position', { position: 60 }, '{ "position": 60 }');
  t.equal((await s.state('cover.smart_vent')).state, 'closed', 'not optimistic: it waits for the vent');
  const tilt = await s.call('POST', '/api/services/cover/open_cover_tilt', { entity_id: 'cover.smart_vent' });
  t.equal(tilt.status, 400, 'a cover without a tilt refuses tilt services');
});

t.test('an optimistic cover with a tilt on its own range; toggles; a feature it lacks', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  cover:
    - name: Garage
      command_topic: garage/set
      payload_open: "UP"
      payload_close: "DOWN"
      payload_stop: null
      device_class: garage
      tilt_command_topic: garage/tilt
      tilt_min: 0
      tilt_max: 180
      tilt_opened_value: 180
      tilt_closed_value: 0
      tilt_command_template: '{"tilt": {{ value }}, "percent": {{ tilt_position }}, "max": {{ tilt_max }}}'
    - name: Blind
      command_topic: blind/set
      state_topic: blind/state
      position_topic: blind/position
      set_position_topic: blind/position/set
      position_open: 255
      position_closed: 0
`,
  });
  await s.exist('cover.garage', 'cover.blind');
  t.same((await s.state('cover.garage')).attributes, { assumed_state: true, device_class: 'garage', friendly_name: 'Garage', supported_features: 243 });
  const sent = () => s.seen.filter((m) => m.startsWith('garage/'));
  const call = async (service: string, data: Record<string, unknown> = {}) => {
    const r = await s.call('POST', `/api/services/cover/${service}`, { entity_id: 'cover.garage', ...data });
    t.equal(r.status, 200, service);
  };
  await call('open_cover');
  await s.until('cover.garage', (x) => x.state === 'open');
  await call('toggle');
  await s.until('cover.garage', (x) => x.state === 'closed');
  await call('toggle');
  await s.until('cover.garage', (x) => x.state === 'open');
  await call('set_cover_tilt_position', { tilt_position: 50 });
  await s.until('cover.garage', (x) => x.attributes.current_tilt_position === 50);
  await call('close_cover_tilt');
  await s.until('cover.garage', (x) => x.attributes.current_tilt_position === 0);
  await call('toggle_cover_tilt');
  await s.until('cover.garage', (x) => x.attributes.current_tilt_position === 100);
  await eventually(() => sent().length === 6, 'six publishes');
  t.same(sent(), [
    'garage/set=UP', 'garage/set=DOWN', 'garage/set=UP',
    'garage/tilt={"tilt": 90, "percent": 50, "max": 180}', 'garage/tilt={"tilt": 0, "percent": 0, "max": 180}', 'garage/tilt={"tilt": 180, "percent": 180, "max": 180}',
  ], 'a tilt percentage on the 0..180 range; open and close send the configured values');
  const stop = await s.call('POST', '/api/services/cover/stop_cover', { entity_id: 'cover.garage' });
  t.equal(stop.status, 400, 'payload_stop: null: no stop');

  // a device range of 0..255: positions as percentages each way
  await s.publish('blind/position', '51', false);
  const blind = await s.until('cover.blind', (x) => x.attributes.current_position === 20);
  t.equal(blind.state, 'unknown', 'a state topic says open or closed, not the position');
  await s.publish('blind/state', 'opening', false);
  await s.until('cover.blind', (x) => x.state === 'opening');
  await s.publish('blind/state', 'stopped', false);
  await s.until('cover.blind', (x) => x.state === 'open');
  t.equal((await s.call('POST', '/api/services/cover/set_cover_position', { entity_id: 'cover.blind', position: 50 })).status, 200);
  await eventually(() => s.seen.includes('blind/position/set=128'), 'half of 255, rounded half to even');
  t.equal((await s.call('POST', '/api/services/cover/toggle', { entity_id: 'cover.blind' })).status, 200);
  await eventually(() => s.seen.includes('blind/set=CLOSE'), 'an open cover toggles closed');
});
