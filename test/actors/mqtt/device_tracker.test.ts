// MQTT device_tracker against a real Mosquitto: discovery as the original's documentation shows it
// (home-assistant.io integrations/device_tracker.mqtt: a4567d663eaf/state with payload_home and
// payload_not_home, a4567d663eaf/attributes with latitude/longitude/gps_accuracy), and YAML as the
// original's tests/components/mqtt/test_device_tracker.py configures it
// (test_setting_device_tracker_value_via_mqtt_message, test_setting_device_tracker_location_via
// _lat_lon_message, test_setting_device_tracker_location_via_reset_message, test_setting_custom
// _payload_home, test_setting_blocked_attribute / source_type): names from the state topic, GPS
// through JSON attributes placed among the zones (home, a zone's name, not_home).
import t from 'tap';
import { mqttScene, eventually } from '../../helpers/mqtt.ts';

const ZONES = `core:
  name: Our house
  latitude: 52.37
  longitude: 4.89
  radius: 150
zone:
  - name: Work
    latitude: 52.1
    longitude: 5.1
    radius: 250
`;

t.test('a discovered tracker: state payloads, GPS by JSON attributes among the zones, reset', async (t) => {
  const s = await mqttScene(t, {
    extraYaml: `  device_tracker:
    - name: Beer
      state_topic: beer/location
      payload_home: at_home
      payload_not_home: away
      source_type: router
${ZONES}`,
  });
  await s.publish('homeassistant/device_tracker/a4567d663eaf/config', {
    state_topic: 'a4567d663eaf/state', json_attributes_topic: 'a4567d663eaf/attributes', name: 'My Tracker', payload_home: 'home', payload_not_home: 'not_home',
    unique_id: 'a4567d663eaf_tracker', device: { identifiers: ['a4567d663eaf'], name: 'Phone' },
  });
  const id = 'device_tracker.phone_my_tracker';
  await s.exist(id, 'device_tracker.beer');
  const first = await s.state(id);
  t.same([first.state, first.attributes], ['unknown', { source_type: 'gps', friendly_name: 'Phone My Tracker' }]);

  await s.publish('a4567d663eaf/state', 'home', false);
  await s.until(id, (x) => x.state === 'home');
  await s.publish('a4567d663eaf/state', 'Work', false);
  await s.until(id, (x) => x.state === 'Work', 'another payload names the place');

  // a position clears the name; the zones place it
  await s.publish('a4567d663eaf/attributes', { latitude: 52.3705, longitude: 4.8905, gps_accuracy: 12, battery: 80 }, false);
  const home = await s.until(id, (x) => x.state === 'home' && x.attributes.latitude === 52.3705);
  t.same(home.attributes, { source_type: 'gps', latitude: 52.3705, longitude: 4.8905, gps_accuracy: 12, battery: 80, friendly_name: 'Phone My Tracker' }, 'the position as the tracker\'s own attributes');
  await s.publish('a4567d663eaf/attributes', { latitude: 52.1001, longitude: 5.1001 }, false);
  const work = await s.until(id, (x) => x.attributes.latitude === 52.1001);
  t.same([work.state, work.attributes.gps_accuracy], ['Work', 0], 'a zone by its name; no accuracy: 0');
  await s.publish('a4567d663eaf/attributes', { latitude: 48.85, longitude: 2.35, gps_accuracy: 20 }, false);
  await s.until(id, (x) => x.state === 'not_home');
  await s.publish('a4567d663eaf/attributes', { latitude: 'far', longitude: 2.35 }, false);
  const lost = await s.until(id, (x) => x.state === 'unknown', 'invalid coordinates: no position');
  t.same(lost.attributes, { source_type: 'gps', friendly_name: 'Phone My Tracker' });
  await eventually(() => s.h.lines.some((l) => l.includes('contain invalid or incomplete location info')), 'the invalid position logged');
  await s.publish('a4567d663eaf/state', 'not_home', false);
  await s.until(id, (x) => x.state === 'not_home');
  await s.publish('a4567d663eaf/state', 'None', false);
  await s.until(id, (x) => x.state === 'unknown', 'payload_reset');

  // YAML: custom payloads, a router tracker
  await s.publish('beer/location', 'at_home', false);
  const beer = await s.until('device_tracker.beer', (x) => x.state === 'home');
  t.same(beer.attributes, { source_type: 'router', friendly_name: 'Beer' });
  await s.publish('beer/location', 'away', false);
  await s.until('device_tracker.beer', (x) => x.state === 'not_home');
});

t.test('a tracker with neither state_topic nor json_attributes_topic is refused', async (t) => {
  const s = await mqttScene(t);
  await s.publish('homeassistant/device_tracker/bad/config', { name: 'Bad' });
  await eventually(() => s.h.lines.some((l) => l.includes('Invalid device tracker config, missing state_topic or json_attributes_topic')), 'refused');
  t.equal(await s.state('device_tracker.bad'), undefined);
});
