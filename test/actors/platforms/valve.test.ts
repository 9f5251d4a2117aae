// Virtual valves in a real Hearth: open/closed with and without a position, travel, features.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
valve:
  - platform: virtual
    name: Main water
    device_class: water
  - platform: virtual
    name: Irrigation
    reports_position: true
    travel_seconds: 0.3
`;

t.test('valve: states, position, travel and refusals', async (t) => {
  const home = await virtualHome(t, CONFIG);
  t.same((await home.state('valve.main_water')).attributes, { device_class: 'water', friendly_name: 'Main water', supported_features: 11 });
  t.same((await home.state('valve.irrigation')).attributes, { current_position: 0, friendly_name: 'Irrigation', supported_features: 15 });

  await home.call('valve', 'open_valve', { entity_id: 'valve.main_water' });
  t.equal((await home.state('valve.main_water')).state, 'open');
  await home.wsCall('valve', 'toggle', {}, { entity_id: 'valve.main_water' });
  t.equal((await home.changed('valve.main_water', (s) => s.state === 'closed')).new_state.state, 'closed');
  const position = await home.call('valve', 'set_valve_position', { entity_id: 'valve.main_water', position: 50 });
  t.same([position.status, position.json.message], [400, 'Entity valve.main_water does not support action valve.set_valve_position.']);

  await home.call('valve', 'set_valve_position', { entity_id: 'valve.irrigation', position: 30 });
  t.equal((await home.changed('valve.irrigation')).new_state.state, 'opening');
  const there = await home.changed('valve.irrigation', (s) => s.state !== 'opening');
  t.same([there.new_state.state, there.new_state.attributes.current_position], ['open', 30]);
  const bad = await home.wsCall('valve', 'set_valve_position', { position: -1 }, { entity_id: 'valve.irrigation' });
  t.match(bad.error.message, /data\['position'\]/);

  const again = await restarted(t, home);
  t.same((await again.state('valve.irrigation')).attributes.current_position, 30, 'kept across a restart');
});
