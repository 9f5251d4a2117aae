// The built-in intents through POST /api/intent/handle: what each answers, what it calls, and the
// states after.
import t from 'tap';
import { startHome, errorAnswer } from './home.ts';

t.test('turn on, off and toggle: the answer in the original key order, the states after', async (t) => {
  const home = await startHome(t);
  const on = await home.handle('CoreTurnOn', { name: 'kitchen light' });
  t.same(Object.keys(on), ['speech', 'card', 'language', 'response_type', 'data'], "as_dict's keys, in its order");
  t.same(on, {
    speech: {},
    card: {},
    language: 'en',
    response_type: 'action_done',
    data: { targets: [], success: [{ name: 'Kitchen Light', type: 'entity', id: 'light.kitchen_light' }], failed: [] },
  });
  t.same(Object.keys(on.data.success[0]), ['name', 'type', 'id']);
  t.equal((await home.state('light.kitchen_light')).state, 'on');

  const byAlias = await home.handle('CoreTurnOff', { name: '  Worktop LIGHT ' });
  t.same(byAlias.data.success, [{ name: 'Kitchen Light', type: 'entity', id: 'light.kitchen_light' }], 'an alias, trimmed and case folded');
  t.equal((await home.state('light.kitchen_light')).state, 'off');

  const toggled = await home.handle('CoreToggle', { name: 'light.kitchen_light' });
  t.equal(toggled.data.success[0].id, 'light.kitchen_light', 'an entity id is a name too');
  t.equal((await home.state('light.kitchen_light')).state, 'on');

  const area = await home.handle('CoreTurnOff', { area: 'cookhouse', domain: 'light' });
  t.same(area.data.success, [
    { name: 'Kitchen', type: 'area', id: 'kitchen' },
    { name: 'Kitchen Light', type: 'entity', id: 'light.kitchen_light' },
  ], 'the area first (found by alias), then the entities');
  t.equal((await home.state('light.kitchen_light')).state, 'off');

  const floor = await home.handle('CoreTurnOn', { floor: 'upstairs', domain: ['light'] });
  t.same(floor.data.success.map((s: any) => s.id).sort(), ['light.bedroom_light', 'light.reading_lamp_2', 'upstairs']);
  t.same(floor.data.success[0], { name: 'Upstairs', type: 'floor', id: 'upstairs' }, 'the floor first');
  t.equal((await home.state('light.bedroom_light')).state, 'on');
  t.equal((await home.state('light.reading_lamp_2')).state, 'on');
  t.equal((await home.state('light.reading_lamp')).state, 'off', 'the other floor untouched');

  const all = await home.handle('CoreTurnOff', { name: 'all', domain: 'light' });
  t.equal(all.data.success.length, 5, '"all" is no name filter: every light');
  for (const id of ['light.bedroom_light', 'light.reading_lamp_2', 'light.hall_light']) t.equal((await home.state(id)).state, 'off');

  t.same(await home.handle('CoreTurnOn', { name: 'all' }), errorAnswer('failed_to_handle', 'Service handler cannot target all devices'));
  t.same(await home.handle('CoreTurnOn', {}), errorAnswer('failed_to_handle', 'Service handler cannot target all devices'));
});

t.test('turn on and off by domain: covers, valves, locks, buttons, scenes; a domain without the service fails', async (t) => {
  const home = await startHome(t);
  t.equal((await home.handle('CoreTurnOn', { name: 'garage door' })).response_type, 'action_done');
  t.equal((await home.stateBecomes('cover.garage_door', 'open')).state, 'open', 'cover.open_cover');
  await home.handle('CoreTurnOff', { name: 'garage door' });
  t.equal((await home.stateBecomes('cover.garage_door', 'closed')).state, 'closed', 'cover.close_cover');

  await home.handle('CoreTurnOn', { name: 'irrigation' });
  t.equal((await home.stateBecomes('valve.irrigation', 'open')).state, 'open', 'valve.open_valve');
  await home.handle('CoreTurnOff', { name: 'irrigation' });
  t.equal((await home.stateBecomes('valve.irrigation', 'closed')).state, 'closed', 'valve.close_valve');

  await home.handle('CoreTurnOn', { name: 'front door' });
  t.equal((await home.stateBecomes('lock.front_door', 'locked')).state, 'locked', 'on is lock.lock');
  await home.handle('CoreTurnOff', { name: 'front door' });
  t.equal((await home.stateBecomes('lock.front_door', 'unlocked')).state, 'unlocked', 'off is lock.unlock');

  // a call still running after 0.2 s is left to finish on its own: the answer does not wait
  const slow = await home.handle('CoreTurnOn', { name: 'back door' });
  t.same(slow.data.success, [{ name: 'Back door', type: 'entity', id: 'lock.back_door' }], 'a call still running counts as done');
  t.equal((await home.state('lock.back_door')).state, 'locking', 'answered while the lock still moves');
  t.equal((await home.stateBecomes('lock.back_door', 'locked')).state, 'locked', 'and it finishes');

  t.equal((await home.state('button.doorbell')).state, 'unknown');
  const pressed = await home.handle('CoreTurnOn', { name: 'doorbell' });
  t.same(pressed.data.success, [{ name: 'Doorbell', type: 'entity', id: 'button.doorbell' }]);
  t.not((await home.state('button.doorbell')).state, 'unknown', 'button.press records the press');
  await home.handle('CoreTurnOn', { name: 'movie night' });
  t.not((await home.state('scene.movie_night')).state, 'unknown', 'scene.turn_on');

  t.same(await home.handle('CoreTurnOn', { name: 'outside' }), errorAnswer('failed_to_handle', "Failed to call turn_on for: ['sensor.outside']"), 'a sensor has no turn_on');
  t.ok(home.lines.some((l) => l.includes('Service turn_on does not support entity sensor.outside')), 'the reason is logged');
  t.same(await home.handle('CoreTurnOff', { name: 'doorbell' }), errorAnswer('failed_to_handle', "Failed to call turn_off for: ['button.doorbell']"));

  // a mixed target: what failed is listed apart
  const mixed = await home.handle('CoreTurnOn', { area: 'kitchen' });
  t.same(mixed.data.success.map((s: any) => s.id), ['kitchen', 'switch.kettle', 'light.kitchen_light'], 'the area, then the entities in the order of the states');
  t.same(mixed.data.failed, [{ name: 'Kitchen temperature', type: 'entity', id: 'sensor.kitchen_temperature' }]);
  t.equal((await home.state('switch.kettle')).state, 'on');
});

t.test('device classes: the slot filters, and only the on/off classes are accepted', async (t) => {
  const home = await startHome(t);
  const opened = await home.handle('CoreTurnOn', { domain: 'cover', device_class: 'garage' });
  t.same(opened.data.success.map((s: any) => s.id), ['cover.garage_door']);
  t.equal((await home.stateBecomes('cover.garage_door', 'open')).state, 'open');
  t.equal((await home.state('cover.blind')).state, 'closed', 'the blind is not a garage');
  t.same(await home.handle('CoreTurnOn', { device_class: 'window' }), errorAnswer('no_valid_targets', 'Sorry, I am not aware of any window'));
  t.same(await home.handle('CoreTurnOn', { device_class: 'temperature' }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreTurnOn'), 'not an on/off class');
  const outlet = await home.handle('CoreTurnOn', { device_class: ['outlet'], area: 'kitchen' });
  t.same(outlet.data.success.map((s: any) => s.id), ['kitchen', 'switch.kettle']);
});

t.test('set position and stop moving: covers and valves only, features required by the service', async (t) => {
  const home = await startHome(t);
  const set = await home.handle('CoreSetPosition', { name: 'garage door', position: 40 });
  t.same(set.data.success, [{ name: 'Garage door', type: 'entity', id: 'cover.garage_door' }]);
  const garage = await home.stateBecomes('cover.garage_door', 'open');
  t.equal(garage.attributes.current_position, 40, 'cover.set_cover_position');
  await home.handle('CoreSetPosition', { name: 'irrigation', position: '75' });
  const valve = await home.stateBecomes('valve.irrigation', 'open');
  t.equal(valve.attributes.current_position, 75, 'valve.set_valve_position, the position coerced to int');
  t.same(await home.handle('CoreSetPosition', { name: 'kitchen light', position: 10 }), errorAnswer('failed_to_handle', 'Domain not supported: light'));
  t.same(await home.handle('CoreSetPosition', { name: 'garage door', position: 101 }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreSetPosition'));
  t.same(await home.handle('CoreSetPosition', { name: 'garage door' }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreSetPosition'), 'position is required');
  const stopped = await home.handle('CoreStopMoving', { name: 'irrigation' });
  t.same(stopped.data.success, [{ name: 'Irrigation', type: 'entity', id: 'valve.irrigation' }]);
  t.same(await home.handle('CoreStopMoving', { name: 'kettle' }), errorAnswer('failed_to_handle', 'Domain not supported: switch'));
});

t.test('get state: a query of matched and unmatched states; empty for nothing there, an error for bad names', async (t) => {
  const home = await startHome(t);
  await home.handle('CoreTurnOn', { name: 'bedroom light' });
  const q = await home.handle('CoreGetState', { domain: 'light', floor: 'upstairs', state: 'on' });
  t.same(q, {
    speech: {},
    card: {},
    language: 'en',
    response_type: 'query_answer',
    data: {
      targets: [],
      success: [
        { name: 'Upstairs', type: 'floor', id: 'upstairs' },
        { name: 'Bedroom Light', type: 'entity', id: 'light.bedroom_light' },
        { name: 'Reading Lamp', type: 'entity', id: 'light.reading_lamp_2' },
      ],
      failed: [],
    },
  });
  const all = await home.handle('CoreGetState', { name: 'all', domain: 'light', floor: 'upstairs', state: 'on' });
  t.same(all.data.success, q.data.success, '"all" is no name filter in a query either');
  const one = await home.handle('CoreGetState', { name: 'kettle' });
  t.same(one.data.success, [{ name: 'Kettle', type: 'entity', id: 'switch.kettle' }]);
  const empty = await home.handle('CoreGetState', { area: 'attic', domain: 'light' });
  t.same(empty.response_type, 'query_answer');
  t.same(empty.data.success, [{ name: 'Attic', type: 'area', id: 'attic' }], 'nothing in the attic: an empty answer naming the area');
  const nobody = await home.handle('CoreGetState', { name: 'toaster' });
  t.same([nobody.response_type, nobody.data.success], ['query_answer', []], 'an unknown name answers an empty query');
  t.same(await home.handle('CoreGetState', { area: 'garden' }), errorAnswer('no_valid_targets', 'Sorry, I am not aware of any area called garden'));
  t.same(await home.handle('CoreGetState', { floor: 'cellar' }), errorAnswer('no_valid_targets', 'Sorry, I am not aware of any floor called cellar'));
  t.same(await home.handle('CoreGetState', { name: 'reading lamp' }), errorAnswer('no_valid_targets', 'Sorry, there are multiple devices called reading lamp'));
});

t.test('climate temperature: the area sensor, else one climate entity', async (t) => {
  const home = await startHome(t);
  const kitchen = await home.handle('CoreClimateGetTemperature', { area: 'kitchen' });
  t.same([kitchen.response_type, kitchen.data.success], ['query_answer', [{ name: 'Kitchen temperature', type: 'entity', id: 'sensor.kitchen_temperature' }]], "the area's temperature sensor");
  const living = await home.handle('CoreClimateGetTemperature', { area: 'living room' });
  t.same(living.data.success.map((s: any) => s.id), ['climate.thermostat'], 'no sensor there: its climate entity');
  const named = await home.handle('CoreClimateGetTemperature', { name: 'bedroom heater' });
  t.same(named.data.success.map((s: any) => s.id), ['climate.bedroom_heater']);
  const preferred = await home.handle('CoreClimateGetTemperature', { preferred_area_id: 'bedroom' });
  t.same(preferred.data.success.map((s: any) => s.id), ['climate.bedroom_heater'], "the asking device's area");
  t.same(await home.handle('CoreClimateGetTemperature', {}), errorAnswer('no_valid_targets', 'Sorry, more than one device matched your request'), 'two thermostats and no preference');
  t.same(await home.handle('CoreClimateGetTemperature', { area: 'attic' }), errorAnswer('no_valid_targets', 'Sorry, I am not aware of any climate in the attic area'), 'the area as it was asked');
});

t.test('date, time, nevermind, respond, broadcast', async (t) => {
  const home = await startHome(t);
  const date = await home.handle('CoreGetCurrentDate');
  t.same(Object.keys(date), ['speech', 'card', 'language', 'response_type', 'speech_slots', 'data'], 'speech_slots before data');
  t.match(date.speech_slots.date, /^\d{4}-\d{2}-\d{2}$/);
  const zoned = new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Amsterdam' }).format(new Date());
  t.equal(date.speech_slots.date, zoned, 'in the configured time zone');
  const time = await home.handle('CoreGetCurrentTime');
  t.match(time.speech_slots.time, /^\d{2}:\d{2}:\d{2}(\.\d{6})?$/, 'isoformat of a time');
  const hour = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Amsterdam', hour: '2-digit', hourCycle: 'h23' }).format(new Date());
  t.ok([hour, String((Number(hour) + 23) % 24).padStart(2, '0')].includes(time.speech_slots.time.slice(0, 2)), "the zone's hour");

  t.same(await home.handle('CoreNevermind'), { speech: {}, card: {}, language: 'en', response_type: 'action_done', data: { targets: [], success: [], failed: [] } });
  t.same((await home.handle('CoreRespond', { response: 'Hello there' })).speech, { plain: { speech: 'Hello there', extra_data: null } });
  t.same((await home.handle('CoreRespond')).speech, {});
  const broadcast = await home.handle('CoreBroadcast', { message: 'Dinner is ready' });
  t.same(broadcast, { speech: {}, card: {}, language: 'en', response_type: 'action_done', data: { targets: [], success: [], failed: [] } }, 'no satellites: nothing announced');
  t.same(await home.handle('CoreBroadcast', {}), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreBroadcast'));
  t.same(await home.handle('CoreBroadcast', { message: 5 }), errorAnswer('failed_to_handle', 'Received invalid slot info for CoreBroadcast'), 'the message must be a string');
});
