// Virtual fans in a real Hearth: speed, preset modes, oscillation, direction, features, restart.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
fan:
  - platform: virtual
    name: Ceiling fan
    speed_count: 3
    preset_modes: [auto, sleep]
  - platform: virtual
    name: Simple fan
    supported_features: [turn_on, turn_off]
`;

t.test('fan: attributes and services', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const ceiling = await home.state('fan.ceiling_fan');
  t.same([ceiling.state, ceiling.attributes], ['off', {
    preset_modes: ['auto', 'sleep'],
    direction: 'forward',
    oscillating: false,
    percentage: 0,
    percentage_step: 100 / 3,
    preset_mode: null,
    friendly_name: 'Ceiling fan',
    supported_features: 63,
  }]);
  t.same((await home.state('fan.simple_fan')).attributes, { friendly_name: 'Simple fan', supported_features: 48 });

  await home.call('fan', 'turn_on', { entity_id: 'fan.ceiling_fan' });
  t.same((await home.changed('fan.ceiling_fan')).new_state.attributes.percentage, 100, 'on at full speed');
  await home.call('fan', 'set_percentage', { entity_id: 'fan.ceiling_fan', percentage: 50 });
  t.same((await home.changed('fan.ceiling_fan')).new_state.attributes.percentage, 66, 'a 3-speed fan at 50% runs at its second speed');
  await home.wsCall('fan', 'decrease_speed', {}, { entity_id: 'fan.ceiling_fan' });
  t.same((await home.changed('fan.ceiling_fan')).new_state.attributes.percentage, 33, 'one speed down');
  await home.wsCall('fan', 'increase_speed', { percentage_step: 10 }, { entity_id: 'fan.ceiling_fan' });
  t.same((await home.changed('fan.ceiling_fan')).new_state.attributes.percentage, 66, '43% asked: the second speed');
  await home.call('fan', 'set_preset_mode', { entity_id: 'fan.ceiling_fan', preset_mode: 'sleep' });
  const sleep = (await home.changed('fan.ceiling_fan')).new_state;
  t.same([sleep.state, sleep.attributes.preset_mode, sleep.attributes.percentage], ['on', 'sleep', 0]);
  await home.call('fan', 'oscillate', { entity_id: 'fan.ceiling_fan', oscillating: 'yes' });
  t.same((await home.changed('fan.ceiling_fan')).new_state.attributes.oscillating, true, 'cv.boolean words');
  await home.call('fan', 'set_direction', { entity_id: 'fan.ceiling_fan', direction: 'reverse' });
  t.same((await home.changed('fan.ceiling_fan')).new_state.attributes.direction, 'reverse');
  await home.call('fan', 'set_percentage', { entity_id: 'fan.ceiling_fan', percentage: 0 });
  const off = (await home.changed('fan.ceiling_fan')).new_state;
  t.same([off.state, off.attributes.percentage, off.attributes.preset_mode, off.attributes.oscillating], ['off', 0, null, true], 'percentage 0 is off');
  await home.call('fan', 'toggle', { entity_id: 'fan.ceiling_fan' });
  t.same((await home.changed('fan.ceiling_fan')).new_state.attributes.percentage, 66, 'on again at the last speed');

  await home.call('fan', 'toggle', { entity_id: 'fan.simple_fan' });
  t.equal((await home.changed('fan.simple_fan')).new_state.state, 'on', 'a fan without speeds still turns on');
});

t.test('fan: unsupported features, bad presets and values are refused', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const unsupported = await home.call('fan', 'set_percentage', { entity_id: 'fan.simple_fan', percentage: 20 });
  t.equal(unsupported.status, 400);
  t.same(unsupported.json, { message: 'Entity fan.simple_fan does not support action fan.set_percentage.' });
  const ws = await home.wsCall('fan', 'oscillate', { oscillating: true }, { entity_id: 'fan.simple_fan' });
  t.same(ws.error, {
    code: 'service_validation_error',
    message: 'Validation error: Entity fan.simple_fan does not support action fan.oscillate.',
    translation_key: 'service_not_supported',
    translation_domain: 'homeassistant',
    translation_placeholders: { entity_id: 'fan.simple_fan', domain: 'fan', service: 'oscillate' },
  });
  const preset = await home.wsCall('fan', 'set_preset_mode', { preset_mode: 'turbo' }, { entity_id: 'fan.ceiling_fan' });
  t.same([preset.error.code, preset.error.message, preset.error.translation_key], ['service_validation_error', 'Validation error: Preset mode turbo is not valid, valid preset modes are: auto, sleep.', 'not_valid_preset_mode']);
  const pct = await home.wsCall('fan', 'set_percentage', { percentage: 101 }, { entity_id: 'fan.ceiling_fan' });
  t.match(pct.error.message, /data\['percentage'\]/);
  const osc = await home.wsCall('fan', 'oscillate', { oscillating: 'maybe' }, { entity_id: 'fan.ceiling_fan' });
  t.same([osc.error.code, osc.error.message], ['invalid_format', "invalid boolean value maybe for dictionary value @ data['oscillating']"]);
  const dir = await home.wsCall('fan', 'set_direction', { direction: 'up' }, { entity_id: 'fan.ceiling_fan' });
  t.match(dir.error.message, /data\['direction'\]/);
  t.equal((await home.state('fan.ceiling_fan')).state, 'off', 'nothing changed');
});

t.test('fan: a restart keeps speed, oscillation and direction', async (t) => {
  const home = await virtualHome(t, CONFIG);
  await home.call('fan', 'turn_on', { entity_id: 'fan.ceiling_fan', percentage: 30 });
  await home.call('fan', 'oscillate', { entity_id: 'fan.ceiling_fan', oscillating: true });
  const before = await home.state('fan.ceiling_fan');
  const again = await restarted(t, home);
  const after = await again.state('fan.ceiling_fan');
  t.same([after.state, after.attributes, after.last_updated], [before.state, before.attributes, before.last_updated]);
  t.equal(after.attributes.percentage, 33);
});
