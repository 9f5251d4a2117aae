// Virtual buttons, sensors and binary sensors in a real Hearth.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
button:
  - platform: virtual
    name: Doorbell
  - platform: virtual
    name: Reboot router
    device_class: restart
sensor:
  - platform: virtual
    name: Outside temperature
    device_class: temperature
    unit_of_measurement: °C
    state_class: measurement
    initial: 21.5
  - platform: virtual
    name: Mood
binary_sensor:
  - platform: virtual
    name: Hall motion
    device_class: motion
    initial: false
  - platform: virtual
    name: Leak
`;

t.test('button: press records the time; a restart keeps it', async (t) => {
  const home = await virtualHome(t, CONFIG);
  t.same([(await home.state('button.doorbell')).state, (await home.state('button.reboot_router')).attributes], ['unknown', { device_class: 'restart', friendly_name: 'Reboot router' }]);
  const before = Date.now();
  const answer = await home.call('button', 'press', { entity_id: 'button.doorbell' });
  const pressed = answer.json[0].state;
  t.match(pressed, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$/, 'an ISO time');
  t.ok(Date.parse(pressed) >= before - 1 && Date.parse(pressed) <= Date.now() + 1);
  t.equal((await home.changed('button.doorbell')).new_state.state, pressed);
  const bad = await home.wsCall('button', 'press', { hard: true }, { entity_id: 'button.doorbell' });
  t.match(bad.error.message, /extra keys not allowed @ data\['hard'\]/);
  t.same((await home.rest('GET', '/api/services')).json.find((d: any) => d.domain === 'sensor'), undefined, 'a read-only domain has no services');
  const again = await restarted(t, home);
  t.equal((await again.state('button.doorbell')).state, pressed);
});

t.test('sensor and binary_sensor: initial, attributes, posted values, restart', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const outside = await home.state('sensor.outside_temperature');
  t.same([outside.state, outside.attributes], ['21.5', { state_class: 'measurement', unit_of_measurement: '°C', device_class: 'temperature', friendly_name: 'Outside temperature' }]);
  t.same(Object.keys(outside.attributes), ['state_class', 'unit_of_measurement', 'device_class', 'friendly_name'], 'the original’s order');
  t.same([(await home.state('sensor.mood')).state, (await home.state('binary_sensor.hall_motion')).state, (await home.state('binary_sensor.leak')).state], ['unknown', 'off', 'unknown']);
  const posted = await home.rest('POST', '/api/states/sensor.outside_temperature', { state: '19.0', attributes: outside.attributes });
  t.equal(posted.status, 200, 'a posted value still works');
  t.equal((await home.changed('sensor.outside_temperature')).new_state.state, '19.0');
  await home.rest('POST', '/api/states/binary_sensor.hall_motion', { state: 'on', attributes: { device_class: 'motion', friendly_name: 'Hall motion' } });
  const again = await restarted(t, home);
  t.same([(await again.state('sensor.outside_temperature')).state, (await again.state('binary_sensor.hall_motion')).state], ['19.0', 'on'], 'the last value is kept');
});

t.test('sensor options are checked', async (t) => {
  const { parsePlatformSection } = await import('../../../actors/entities/platforms/config.ts');
  const { sensorDomain } = await import('../../../actors/entities/platforms/sensor.ts');
  t.throws(() => parsePlatformSection(sensorDomain, [{ platform: 'virtual', name: 'x', state_class: 'sometimes' }]), /sensor\[0\].*key 'state_class': value must be one of/);
  t.throws(() => parsePlatformSection(sensorDomain, [{ platform: 'virtual', name: 'x', device_class: 'mood' }]), /key 'device_class'/);
});

t.test('scene: turn_on records the time of activation', async (t) => {
  const home = await virtualHome(t, 'scene:\n  - platform: virtual\n    name: Movie night\n    icon: mdi:movie\n');
  t.same([(await home.state('scene.movie_night')).state, (await home.state('scene.movie_night')).attributes], ['unknown', { icon: 'mdi:movie', friendly_name: 'Movie night' }]);
  const answer = await home.call('scene', 'turn_on', { entity_id: 'scene.movie_night', transition: 2 });
  t.match(answer.json[0].state, /^\d{4}-\d\d-\d\dT/);
  const core = await home.call('core', 'turn_on', { entity_id: 'scene.movie_night' });
  t.equal(core.json.length, 1, 'core.turn_on activates a scene');
  t.ok(core.json[0].state > answer.json[0].state);
});
