// Virtual lights in a real Hearth: color modes and their attributes as the original shows them,
// turn_on's brightness and colour rules, refusals, restart.
import t from 'tap';
import { virtualHome, restarted } from '../../helpers/platform.ts';

const CONFIG = `
light:
  - platform: virtual
    name: Kitchen
    supported_color_modes: [color_temp, hs]
    effect_list: [rainbow, blink]
  - platform: virtual
    name: Desk
  - platform: virtual
    name: Porch
    supported_color_modes: onoff
    initial: on
`;

const OFF_KITCHEN = {
  min_color_temp_kelvin: 2000,
  max_color_temp_kelvin: 6535,
  effect_list: ['rainbow', 'blink'],
  supported_color_modes: ['color_temp', 'hs'],
  effect: null,
  color_mode: null,
  brightness: null,
  color_temp_kelvin: null,
  hs_color: null,
  rgb_color: null,
  xy_color: null,
  friendly_name: 'Kitchen',
  supported_features: 44,
};

t.test('light: attributes off and on, per color mode', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const kitchen = await home.state('light.kitchen');
  t.same(kitchen.state, 'off');
  t.same(kitchen.attributes, OFF_KITCHEN);
  t.same(Object.keys(kitchen.attributes), Object.keys(OFF_KITCHEN), 'in the original’s order');
  t.same((await home.state('light.desk')).attributes, { supported_color_modes: ['brightness'], color_mode: null, brightness: null, friendly_name: 'Desk', supported_features: 40 });
  t.equal((await home.state('light.porch')).state, 'on', 'initial: on');
  t.same((await home.state('light.porch')).attributes, { supported_color_modes: ['onoff'], color_mode: 'onoff', friendly_name: 'Porch', supported_features: 40 });

  await home.call('light', 'turn_on', { entity_id: 'light.kitchen', brightness_pct: 50 });
  const on = (await home.changed('light.kitchen')).new_state;
  t.same(on.attributes, {
    ...OFF_KITCHEN,
    color_mode: 'color_temp',
    brightness: 128,
    color_temp_kelvin: 4000,
    hs_color: [26.812, 34.87],
    rgb_color: [255, 205, 166],
    xy_color: [0.421, 0.364],
  }, 'brightness_pct 50 is 128; a colour-temperature light shows its colour as hs, rgb and xy');

  await home.wsCall('light', 'turn_on', { hs_color: [300, 70], effect: 'rainbow' }, { entity_id: 'light.kitchen' });
  const hs = (await home.changed('light.kitchen')).new_state.attributes;
  t.same([hs.color_mode, hs.hs_color, hs.rgb_color, hs.xy_color, hs.color_temp_kelvin, hs.brightness, hs.effect], ['hs', [300, 70], [255, 76, 255], [0.379, 0.172], null, 128, 'rainbow']);

  await home.call('light', 'turn_on', { entity_id: 'light.kitchen', rgb_color: [255, 0, 0] });
  const red = (await home.changed('light.kitchen')).new_state.attributes;
  t.same([red.color_mode, red.hs_color, red.rgb_color], ['hs', [0, 100], [255, 0, 0]], 'rgb on an hs light becomes hs');

  await home.call('light', 'turn_on', { entity_id: 'light.kitchen', color_temp_kelvin: 2700, brightness_step_pct: -11 });
  const warm = (await home.changed('light.kitchen')).new_state.attributes;
  t.same([warm.color_mode, warm.color_temp_kelvin, warm.brightness, warm.hs_color], ['color_temp', 2700, 100, [28.395, 65.723]], 'a step from 128 by -11% (28)');

  await home.call('light', 'turn_on', { entity_id: 'light.kitchen', color_temp_kelvin: 99999 });
  t.equal((await home.changed('light.kitchen')).new_state.attributes.color_temp_kelvin, 6535, 'kept within the light’s range');

  await home.call('light', 'turn_on', { entity_id: 'light.desk', color_temp_kelvin: 3000, brightness: 300 });
  const desk = (await home.changed('light.desk')).new_state;
  t.same([desk.state, desk.attributes.color_mode, desk.attributes.brightness], ['on', 'brightness', 255], 'what the light cannot do is dropped; brightness is clamped');
  await home.call('light', 'turn_on', { entity_id: 'light.desk', brightness_step: -300 });
  t.equal((await home.changed('light.desk')).new_state.state, 'off', 'a step to 0 turns it off');
  await home.call('light', 'toggle', { entity_id: 'light.desk' });
  t.same((await home.changed('light.desk')).new_state.attributes.brightness, 255, 'toggled on at the brightness it had');
  await home.call('light', 'turn_on', { entity_id: 'light.desk', brightness: 0 });
  t.equal((await home.changed('light.desk')).new_state.state, 'off', 'brightness 0 turns it off');

  await home.call('light', 'turn_on', { entity_id: 'light.porch', brightness: 10, color_name: 'red' });
  t.same((await home.state('light.porch')).attributes.color_mode, 'onoff');
});

t.test('light: bad values and effects are refused, naming them', async (t) => {
  const home = await virtualHome(t, CONFIG);
  const both = await home.wsCall('light', 'turn_on', { brightness: 10, brightness_pct: 10 }, { entity_id: 'light.kitchen' });
  t.same([both.success, both.error.code], [false, 'invalid_format']);
  t.match(both.error.message, /two or more values in the same group of exclusion 'brightness'/);
  const colors = await home.wsCall('light', 'turn_on', { hs_color: [1, 1], rgb_color: [1, 2, 3] }, { entity_id: 'light.kitchen' });
  t.match(colors.error.message, /group of exclusion 'Color descriptors'/);
  const pct = await home.wsCall('light', 'turn_on', { brightness_pct: 150 }, { entity_id: 'light.kitchen' });
  t.match(pct.error.message, /data\['brightness_pct'\]/);
  const rgb = await home.wsCall('light', 'turn_on', { rgb_color: [1, 2] }, { entity_id: 'light.kitchen' });
  t.match(rgb.error.message, /data\['rgb_color'\]/);
  t.equal((await home.call('light', 'turn_on', { entity_id: 'light.kitchen', brightness_pct: 150 })).status, 400);
  const effect = await home.call('light', 'turn_on', { entity_id: 'light.kitchen', effect: 'disco' });
  t.equal(effect.status, 400);
  t.match(effect.json.message, /Effect disco is not supported by light.kitchen/);
  t.equal((await home.state('light.kitchen')).state, 'off', 'nothing changed');
  const wsEffect = await home.wsCall('light', 'turn_on', { effect: 'disco' }, { entity_id: 'light.kitchen' });
  t.same(wsEffect.error.code, 'service_validation_error');
});

t.test('light: a restart keeps brightness and colour', async (t) => {
  const home = await virtualHome(t, CONFIG);
  await home.call('light', 'turn_on', { entity_id: 'light.kitchen', brightness: 77, hs_color: [120, 50], effect: 'blink' });
  const before = await home.state('light.kitchen');
  const again = await restarted(t, home);
  const after = await again.state('light.kitchen');
  t.same([after.state, after.attributes, after.last_updated], [before.state, before.attributes, before.last_updated], 'the same state, not rewritten');
  await again.call('light', 'turn_on', { entity_id: 'light.kitchen', brightness_step: 3 });
  const stepped = (await again.changed('light.kitchen')).new_state.attributes;
  t.same([stepped.brightness, stepped.hs_color, stepped.effect], [80, [120, 50], 'blink']);
});

t.test('brightness or onoff beside colour modes is dropped, as the original filters supported color modes', async (t) => {
  const { startTestHearth, onboard, api } = await import('../../helpers/hearth.ts');
  const h = await startTestHearth(t, {
    config: 'light:\n  - platform: virtual\n    name: Kitchen Ceiling\n    supported_color_modes: [brightness, color_temp, hs]\n  - platform: virtual\n    name: Plain\n    supported_color_modes: [onoff, brightness]\n',
  });
  const tokens = await onboard(h.base);
  const rest = api(h.base, tokens.access_token);
  t.same((await rest('GET', '/api/states/light.kitchen_ceiling')).json.attributes.supported_color_modes, ['color_temp', 'hs']);
  t.same((await rest('GET', '/api/states/light.plain')).json.attributes.supported_color_modes, ['brightness']);
  const on = await rest('POST', '/api/services/light/turn_on', { entity_id: 'light.kitchen_ceiling', brightness_pct: 50 });
  t.equal(on.status, 200);
  t.equal((await rest('GET', '/api/states/light.kitchen_ceiling')).json.attributes.brightness, 128, 'a colour light still dims');
});
