// Virtual thermostats in a real Hearth: HVAC modes, target temperatures and their checks, modes.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
climate:
  - platform: virtual
    name: Living room
    hvac_modes: ['off', heat, cool, heat_cool]  # quoted: YAML reads a bare off as false, as the original's loader does
    current_temperature: 19.26
    preset_modes: [home, away]
    fan_modes: [auto, low]
    target_temp_step: 0.5
  - platform: virtual
    name: Radiator
    initial: heat
`;

t.test('climate: attributes, modes and temperatures', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const living = await home.state('climate.living_room');
  t.same([living.state, living.attributes], ['off', {
    hvac_modes: ['off', 'heat', 'cool', 'heat_cool'],
    min_temp: 7,
    max_temp: 35,
    target_temp_step: 0.5,
    fan_modes: ['auto', 'low'],
    preset_modes: ['home', 'away'],
    current_temperature: 19.3,
    temperature: 20,
    target_temp_high: 24,
    target_temp_low: 18,
    fan_mode: 'auto',
    hvac_action: 'off',
    preset_mode: 'home',
    friendly_name: 'Living room',
    supported_features: 411,
  }]);
  t.same((await home.state('climate.radiator')).attributes, { hvac_modes: ['off', 'heat'], min_temp: 7, max_temp: 35, current_temperature: null, temperature: 20, friendly_name: 'Radiator', supported_features: 385 });

  await home.call('climate', 'turn_on', { entity_id: 'climate.living_room' });
  t.equal((await home.state('climate.living_room')).state, 'heat_cool', 'turn_on picks heat_cool first, as the original');
  await home.call('climate', 'set_temperature', { entity_id: 'climate.living_room', temperature: 22.5, hvac_mode: 'heat' });
  const heat = (await home.state('climate.living_room'));
  t.same([heat.state, heat.attributes.temperature, heat.attributes.hvac_action], ['heat', 22.5, 'heating']);
  await home.wsCall('climate', 'set_temperature', { target_temp_low: 17, target_temp_high: 26 }, { entity_id: 'climate.living_room' });
  t.same([(await home.state('climate.living_room')).attributes.target_temp_low, (await home.state('climate.living_room')).attributes.target_temp_high], [17, 26]);
  await home.call('climate', 'set_preset_mode', { entity_id: 'climate.living_room', preset_mode: 'away' });
  await home.call('climate', 'set_fan_mode', { entity_id: 'climate.living_room', fan_mode: 'low' });
  await home.call('climate', 'toggle', { entity_id: 'climate.radiator' });
  t.equal((await home.state('climate.radiator')).state, 'off');
  await home.call('climate', 'toggle', { entity_id: 'climate.radiator' });
  t.equal((await home.state('climate.radiator')).state, 'heat', 'the other of two modes');

  const again = await restarted(t, home);
  const after = await again.state('climate.living_room');
  t.same([after.state, after.attributes.temperature, after.attributes.preset_mode, after.attributes.fan_mode, after.attributes.target_temp_low], ['heat', 22.5, 'away', 'low', 17], 'kept across a restart');
});

t.test('climate: what the original refuses', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const err = async (service: string, data: Record<string, unknown>, entity = 'climate.living_room') => (await home.wsCall('climate', service, data, { entity_id: entity })).error;
  t.same(await err('set_temperature', { temperature: 40 }), {
    code: 'service_validation_error',
    message: 'Validation error: Provided temperature 40.0 is not valid. Accepted range is 7 to 35.',
    translation_key: 'temp_out_of_range',
    translation_domain: 'climate',
    translation_placeholders: { check_temp: '40.0', min_temp: '7', max_temp: '35' },
  });
  t.match((await err('set_temperature', { target_temp_low: 25, target_temp_high: 20 })).message, /Target temperature low can not be higher than Target temperature high/);
  t.match((await err('set_temperature', { target_temp_low: 20 })).message, /some but not all values in the same group of inclusion 'temperature'/);
  t.match((await err('set_temperature', {})).message, /must contain at least one of temperature, target_temp_high, target_temp_low/);
  t.match((await err('set_temperature', { target_temp_low: 18, target_temp_high: 22 }, 'climate.radiator')).message, /does not support it/);
  t.same((await err('set_hvac_mode', { hvac_mode: 'dry' })).message, 'Validation error: HVAC mode dry is not valid. Valid HVAC modes are: off, heat, cool, heat_cool.');
  t.match((await err('set_hvac_mode', { hvac_mode: 'sauna' })).message, /data\['hvac_mode'\]/);
  t.same((await err('set_preset_mode', { preset_mode: 'party' })).message, 'Validation error: Preset mode party is not valid. Valid preset modes are: home, away.');
  t.same((await err('set_swing_mode', { swing_mode: 'on' })).message, 'Validation error: Entity climate.living_room does not support action climate.set_swing_mode.');
  const rest = await home.call('climate', 'set_humidity', { entity_id: 'climate.living_room', humidity: 50 });
  t.same([rest.status, rest.json.message], [400, 'Entity climate.living_room does not support action climate.set_humidity.']);
  t.equal((await home.state('climate.living_room')).state, 'off', 'nothing changed');
});
