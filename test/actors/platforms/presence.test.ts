// Persons and zones in a real Hearth: a person follows their device trackers (posted states),
// zones count the persons in them, zone.home follows the core location.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
core:
  name: Our house
  latitude: 52.37
  longitude: 4.89
  radius: 150
person:
  - name: Alice
    id: alice
    device_trackers: [device_tracker.alice_phone, device_tracker.alice_router]
  - name: Bob
    id: bob
zone:
  - name: Work
    latitude: 52.1
    longitude: 5.1
    radius: 250
`;

t.test('person and zone: tracking and counting', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const zoneHome = await home.state('zone.home');
  t.same([zoneHome.state, zoneHome.attributes], ['0', { latitude: 52.37, longitude: 4.89, radius: 150, passive: false, persons: [], editable: true, icon: 'mdi:home', friendly_name: 'Our house' }]);
  t.same((await home.state('zone.work')).attributes, { latitude: 52.1, longitude: 5.1, radius: 250, passive: false, persons: [], editable: false, icon: 'mdi:map-marker', friendly_name: 'Work' });
  const alice = await home.state('person.alice');
  t.same([alice.state, alice.attributes], ['unknown', { editable: false, id: 'alice', device_trackers: ['device_tracker.alice_phone', 'device_tracker.alice_router'], friendly_name: 'Alice' }]);

  await home.rest('POST', '/api/states/device_tracker.alice_phone', { state: 'Work', attributes: { source_type: 'gps', latitude: 52.1, longitude: 5.1, gps_accuracy: 10 } });
  const atWork = (await home.changed('person.alice')).new_state;
  t.same([atWork.state, atWork.attributes.source, atWork.attributes.latitude, atWork.attributes.gps_accuracy], ['Work', 'device_tracker.alice_phone', 52.1, 10]);
  t.same([(await home.changed('zone.work')).new_state.state, (await home.state('zone.work')).attributes.persons], ['1', ['person.alice']]);

  await home.rest('POST', '/api/states/device_tracker.alice_router', { state: 'home', attributes: { source_type: 'router' } });
  const atHome = (await home.changed('person.alice', (s) => s.state === 'home')).new_state;
  t.same([atHome.state, atHome.attributes.source], ['home', 'device_tracker.alice_router'], 'a router at home wins over gps');
  t.equal((await home.changed('zone.home', (s) => s.state === '1')).new_state.attributes.persons[0], 'person.alice');
  t.equal((await home.changed('zone.work', (s) => s.state === '0')).new_state.state, '0');

  await home.call('core', 'set_location', { latitude: 40.0, longitude: -3.7 });
  const moved = (await home.changed('zone.home', (s) => s.attributes.latitude === 40)).new_state;
  t.same([moved.state, moved.attributes.longitude], ['1', -3.7], 'zone.home follows set_location, keeping its count');

  const again = await restarted(t, home);
  t.same([(await again.state('person.alice')).state, (await again.state('zone.home')).state], ['home', '1'], 'after a restart');
});

t.test('person and zone options are checked', async (t) => {
  const { personDomain, zoneDomain } = await import('../../../actors/entities/platforms/presence.ts');
  const { parsePlatformSection } = await import('../../../actors/entities/platforms/config.ts');
  t.throws(() => parsePlatformSection(personDomain, [{ name: 'A' }]), /person\[0\].*key 'id': required key not provided/);
  t.throws(() => parsePlatformSection(personDomain, [{ name: 'A', id: 'a', device_trackers: ['light.x'] }]), /does not belong to domain device_tracker/);
  t.throws(() => parsePlatformSection(zoneDomain, [{ name: 'Z', latitude: 100, longitude: 0 }]), /zone\[0\].*key 'latitude': invalid coordinate/);
});
