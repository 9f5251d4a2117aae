// The companion app's sensors through the real webhook (plaintext): register_sensor,
// update_sensor_states, and the sensors as entities like any other (REST, history, templates,
// the event stream, get_config), across a restart.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { hook, register } from './app.ts';

const BATTERY = {
  type: 'sensor',
  unique_id: 'battery_level',
  name: 'Battery Level',
  state: 42,
  device_class: 'battery',
  unit_of_measurement: '%',
  state_class: 'measurement',
  attributes: { charging: true },
  entity_category: 'diagnostic',
};

async function setup(t: { teardown(fn: () => unknown): void }, dataDir?: string) {
  const h = await startTestHearth(t, dataDir ? { dataDir } : {});
  const token = (await onboard(h.base)).access_token;
  const call = api(h.base, token);
  const reg = await register(call);
  const send = (type: string, data?: unknown) => hook(h.base, reg.webhook_id, data === undefined ? { type } : { type, data });
  return { ...h, token, call, reg, send };
}

t.test('register_sensor: 201, the entity, its registry entry on the app device; bad schemas are the empty OK', async (t) => {
  const h = await setup(t);
  const res = await h.send('register_sensor', BATTERY);
  t.equal(res.status, 201);
  t.same(res.json, { success: true });

  const state = await h.call('GET', '/api/states/sensor.test_phone_battery_level');
  t.equal(state.status, 200);
  t.equal(state.json.state, '42');
  t.same(state.json.attributes, {
    state_class: 'measurement',
    charging: true,
    unit_of_measurement: '%',
    device_class: 'battery',
    icon: 'mdi:cellphone',
    friendly_name: 'Test Phone Battery Level',
  });
  t.same(Object.keys(state.json.attributes), ['state_class', 'charging', 'unit_of_measurement', 'device_class', 'icon', 'friendly_name'], 'attribute order');

  const reg = h.hearth.mobile.registrations.get(h.reg.webhook_id)!;
  const entry = h.hearth.registries.getEntity('sensor.test_phone_battery_level')!;
  t.match(entry, { unique_id: `${h.reg.webhook_id}_battery_level`, platform: 'mobile_app', device_id: reg.core_device_id, original_name: 'Test Phone Battery Level', entity_category: 'diagnostic', disabled_by: null });

  // records: the sensor's own stream, and a state_changed like any entity
  const types: string[] = [];
  for await (const r of h.hearth.log.read({ gt: 0 })) if (r.stream === `mobile_app/sensor/${h.reg.webhook_id}_battery_level` || r.stream === 'entity/sensor.test_phone_battery_level') types.push(r.type);
  t.same(types, ['sensor_registered', 'state_changed']);

  for (const bad of [
    { ...BATTERY, unique_id: 'b1', type: 'binary_sensor' }, // state_class on a binary sensor
    { ...BATTERY, unique_id: 'b2', device_class: 'nonsense' },
    { ...BATTERY, unique_id: 'b3', entity_category: 'system' },
    { ...BATTERY, unique_id: 'b4', icon: 'no-prefix' },
    { ...BATTERY, unique_id: 'b5', extra: 1 },
    { type: 'sensor', name: 'No Id' },
    { type: 'switch', unique_id: 'b6', name: 'Six' },
  ]) {
    const r = await h.send('register_sensor', bad);
    t.equal(r.status, 200, `refused: ${JSON.stringify(bad)}`);
    t.same(r.json, {});
  }
  const ids = (await h.call('GET', '/api/states')).json.map((s: any) => s.entity_id).filter((id: string) => /^(binary_)?sensor\.test_phone/.test(id));
  t.same(ids, ['sensor.test_phone_battery_level'], 'nothing made by a refused registration');
});

t.test('re-registration updates the entry and applies the state; the disabled flag both ways', async (t) => {
  const h = await setup(t);
  t.equal((await h.send('register_sensor', { type: 'binary_sensor', unique_id: 'charging', name: 'Charging', state: true, device_class: 'battery_charging' })).status, 201);
  t.equal((await h.call('GET', '/api/states/binary_sensor.test_phone_charging')).json.state, 'on');

  const again = await h.send('register_sensor', { type: 'binary_sensor', unique_id: 'charging', name: 'Is Charging', state: false, icon: 'mdi:battery', disabled: true });
  t.equal(again.status, 201);
  t.same(again.json, { success: true });
  let entry = h.hearth.registries.getEntity('binary_sensor.test_phone_charging')!;
  t.match(entry, { original_name: 'Test Phone Is Charging', original_icon: 'mdi:battery', disabled_by: 'integration' }, 'same entity id, entry updated');
  t.equal((await h.call('GET', '/api/states/binary_sensor.test_phone_charging')).status, 404, 'a disabled sensor is not in the states');

  const upd = await h.send('update_sensor_states', [{ type: 'binary_sensor', unique_id: 'charging', state: true }]);
  t.same(upd.json, { charging: { success: true, is_disabled: true } });

  t.equal((await h.send('register_sensor', { type: 'binary_sensor', unique_id: 'charging', name: 'Is Charging', state: false, disabled: false })).status, 201);
  entry = h.hearth.registries.getEntity('binary_sensor.test_phone_charging')!;
  t.equal(entry.disabled_by, null);
  const shown = await h.call('GET', '/api/states/binary_sensor.test_phone_charging');
  t.equal(shown.json.state, 'off', 'enabled again with the state of the re-registration');
  t.equal(shown.json.attributes.device_class, 'battery_charging', 'what was not sent is kept');
  t.equal(shown.json.attributes.friendly_name, 'Test Phone Is Charging');

  // registered disabled from the start
  await h.send('register_sensor', { type: 'sensor', unique_id: 'steps', name: 'Steps', state: 100, disabled: true });
  t.equal(h.hearth.registries.getEntity('sensor.test_phone_steps')!.disabled_by, 'integration');
  t.equal((await h.call('GET', '/api/states/sensor.test_phone_steps')).status, 404);

  const config = await h.send('get_config');
  t.same(config.json.entities, { 'A1B2C3D4': { disabled: false }, charging: { disabled: false }, steps: { disabled: true } });
});

t.test('update_sensor_states: a batch with mixed results, a single object, invalid formats', async (t) => {
  const h = await setup(t);
  await h.send('register_sensor', BATTERY);
  await h.send('register_sensor', { type: 'sensor', unique_id: 'steps', name: 'Steps', state: 0, disabled: true });
  await h.send('register_sensor', { type: 'binary_sensor', unique_id: 'charging', name: 'Charging', state: false });

  const res = await h.send('update_sensor_states', [
    { type: 'sensor', unique_id: 'battery_level', state: 41, attributes: { charging: false }, icon: 'mdi:battery-40' },
    { type: 'sensor', unique_id: 'steps', state: 12 },
    { type: 'sensor', unique_id: 'ghost', state: 1 },
    { type: 'binary_sensor', unique_id: 'battery_level', state: true },
    { type: 'binary_sensor', unique_id: 'charging', attributes: [], extra: 'x' },
  ]);
  t.equal(res.status, 200);
  t.same(res.json, {
    battery_level: { success: false, error: { code: 'not_registered', message: 'binary_sensor battery_level is not registered' } },
    steps: { success: true, is_disabled: true },
    ghost: { success: false, error: { code: 'not_registered', message: 'sensor ghost is not registered' } },
    charging: {
      success: false,
      error: { code: 'invalid_format', message: "expected dict for dictionary value @ data['attributes']. Got []\nextra keys not allowed @ data['extra']. Got 'x'\nrequired key not provided @ data['state']. Got None" },
    },
  });
  const battery = (await h.call('GET', '/api/states/sensor.test_phone_battery_level')).json;
  t.equal(battery.state, '41', 'the good item applied although a later one of the same id failed');
  t.same(battery.attributes, { state_class: 'measurement', charging: false, unit_of_measurement: '%', device_class: 'battery', icon: 'mdi:battery-40', friendly_name: 'Test Phone Battery Level' });

  const single = await h.send('update_sensor_states', { type: 'binary_sensor', unique_id: 'charging', state: true });
  t.same(single.json, { charging: { success: true } });
  t.equal((await h.call('GET', '/api/states/binary_sensor.test_phone_charging')).json.state, 'on');

  const nullState = await h.send('update_sensor_states', [{ type: 'sensor', unique_id: 'battery_level', state: null }]);
  t.same(nullState.json, { battery_level: { success: true } });
  t.equal((await h.call('GET', '/api/states/sensor.test_phone_battery_level')).json.state, 'unknown');
  t.same((await h.send('update_sensor_states', [{ type: 'sensor', unique_id: 'battery_level', state: { a: 1 } }])).json, {
    battery_level: { success: false, error: { code: 'invalid_format', message: "not a valid value for dictionary value @ data['state']. Got {'a': 1}" } },
  });

  // an item without type or unique_id fails the whole call's schema: the empty OK
  for (const bad of [[{ unique_id: 'battery_level', state: 1 }], [{ type: 'light', unique_id: 'x', state: 1 }], 'text']) {
    const r = await h.send('update_sensor_states', bad);
    t.equal(r.status, 200);
    t.same(r.json, {});
  }
});

t.test('update_sensor_states: ids named like Object.prototype members are answered under their own name', async (t) => {
  const h = await setup(t);
  await h.send('register_sensor', { type: 'sensor', unique_id: 'constructor', name: 'Builder', state: 1 });
  const res = await h.send('update_sensor_states', [
    { type: 'sensor', unique_id: '__proto__', state: 1 },
    { type: 'sensor', unique_id: 'constructor', state: 2 },
  ]);
  t.equal(res.status, 200);
  t.equal(
    res.text,
    '{"__proto__":{"success":false,"error":{"code":"not_registered","message":"sensor __proto__ is not registered"}},"constructor":{"success":true}}',
    'the body names each key, bytes as sent',
  );
  t.equal((await h.call('GET', '/api/states/sensor.test_phone_builder')).json.state, '2');
});

t.test('how values show: timestamps and dates, truthy binary sensors, unavailable', async (t) => {
  const h = await setup(t);
  const state = async (id: string) => (await h.call('GET', `/api/states/${id}`)).json;
  await h.send('register_sensor', { type: 'sensor', unique_id: 'last_update', name: 'Last Update', device_class: 'timestamp', state: '2026-11-24T05:10:03.5+01:00' });
  t.equal((await state('sensor.test_phone_last_update')).state, '2026-11-24T04:10:03.500000+00:00');
  await h.send('update_sensor_states', { type: 'sensor', unique_id: 'last_update', state: '2026-11-24T04:10:03Z' });
  t.equal((await state('sensor.test_phone_last_update')).state, '2026-11-24T04:10:03+00:00');
  await h.send('register_sensor', { type: 'sensor', unique_id: 'next_alarm', name: 'Next Alarm', device_class: 'date', state: '2026-12-01' });
  t.equal((await state('sensor.test_phone_next_alarm')).state, '2026-12-01');

  await h.send('register_sensor', { type: 'binary_sensor', unique_id: 'focus', name: 'Focus', state: 'off' });
  t.equal((await state('binary_sensor.test_phone_focus')).state, 'on', 'a non-empty string is truthy, as in the original');
  await h.send('update_sensor_states', { type: 'binary_sensor', unique_id: 'focus', state: 0 });
  t.equal((await state('binary_sensor.test_phone_focus')).state, 'off');

  await h.send('register_sensor', { ...BATTERY, state: 'unavailable' });
  const gone = await state('sensor.test_phone_battery_level');
  t.equal(gone.state, 'unavailable');
  t.notOk('charging' in gone.attributes, 'no attributes of its own while unavailable');
  await h.send('update_sensor_states', { type: 'sensor', unique_id: 'battery_level', state: 1.5, attributes: { charging: true } });
  t.match(await state('sensor.test_phone_battery_level'), { state: '1.5', attributes: { charging: true } });
});

t.test('a sensor is an entity like any other: history, templates, the event stream', async (t) => {
  const h = await setup(t);
  const ws = await authedClient(h.base, h.token);
  ws.send({ id: 1, type: 'subscribe_events', event_type: 'state_changed' });
  t.match(await ws.until((m) => m.id === 1 && m.type === 'result'), { success: true });

  await h.send('register_sensor', BATTERY);
  const created = await ws.until((m) => m.type === 'event' && m.event.data.entity_id === 'sensor.test_phone_battery_level');
  t.equal(created.event.data.old_state, null);
  t.equal(created.event.data.new_state.state, '42');
  t.equal(created.event.context.user_id, h.hearth.mobile.registrations.get(h.reg.webhook_id)!.user_id, "the registration's user");

  await h.send('update_sensor_states', [{ type: 'sensor', unique_id: 'battery_level', state: 40 }]);
  const changed = await ws.until((m) => m.type === 'event' && m.event.data.entity_id === 'sensor.test_phone_battery_level');
  t.equal(changed.event.data.old_state.state, '42');
  t.equal(changed.event.data.new_state.state, '40');

  const tpl = await h.call('POST', '/api/template', { template: "{{ states('sensor.test_phone_battery_level') }} {{ state_attr('sensor.test_phone_battery_level', 'unit_of_measurement') }}" });
  t.equal(tpl.status, 200);
  t.equal(tpl.text, '40 %');

  const viaHook = await h.send('render_template', { level: { template: "{{ states('sensor.test_phone_battery_level') | int + 1 }}" } });
  t.same(viaHook.json, { level: 41 });

  const history = await h.call('GET', `/api/history/period/${encodeURIComponent(new Date(Date.now() - 3600_000).toISOString())}?filter_entity_id=sensor.test_phone_battery_level&minimal_response`);
  t.equal(history.status, 200);
  t.same(history.json[0].map((s: any) => s.state), ['42', '40']);
  ws.ws.close();
});

t.test('a restart keeps sensors, their states and registry entries', async (t) => {
  const first = await setup(t);
  await first.send('register_sensor', BATTERY);
  await first.send('register_sensor', { type: 'sensor', unique_id: 'steps', name: 'Steps', state: 5, disabled: true });
  await first.send('update_sensor_states', [{ type: 'sensor', unique_id: 'battery_level', state: 37, attributes: { charging: false } }, { type: 'sensor', unique_id: 'steps', state: 6 }]);
  const before = (await first.call('GET', '/api/states/sensor.test_phone_battery_level')).json;
  await first.hearth.stop();

  const second = await startTestHearth(t, { dataDir: first.dataDir });
  const call = api(second.base, first.token);
  const after = (await call('GET', '/api/states/sensor.test_phone_battery_level')).json;
  t.same(after, before, 'the same state, attributes and times');
  t.equal(second.hearth.registries.getEntity('sensor.test_phone_steps')!.disabled_by, 'integration');
  t.equal((await call('GET', '/api/states/sensor.test_phone_steps')).status, 404);

  const send = (type: string, data?: unknown) => hook(second.base, first.reg.webhook_id, { type, data });
  const upd = await send('update_sensor_states', [{ type: 'sensor', unique_id: 'battery_level', state: 36 }, { type: 'sensor', unique_id: 'steps', state: 7 }]);
  t.same(upd.json, { battery_level: { success: true }, steps: { success: true, is_disabled: true } }, 'still registered');
  const now = (await call('GET', '/api/states/sensor.test_phone_battery_level')).json;
  t.equal(now.state, '36');
  t.equal(now.attributes.unit_of_measurement, '%', 'the registration is restored too');
  t.same((await send('get_config')).json.entities, { 'A1B2C3D4': { disabled: false }, battery_level: { disabled: false }, steps: { disabled: true } });

  // re-registering after the restart is a sensor_updated, not a second sensor
  t.equal((await send('register_sensor', { ...BATTERY, name: 'Battery' })).status, 201);
  t.ok(second.hearth.registries.getEntity('sensor.test_phone_battery_level'));
  t.notOk(second.hearth.registries.getEntity('sensor.test_phone_battery'), 'the entity id stays');
  const types: string[] = [];
  for await (const r of second.hearth.log.read({ gt: 0 })) if (r.stream === `mobile_app/sensor/${first.reg.webhook_id}_battery_level`) types.push(r.type);
  t.same(types, ['sensor_registered', 'sensor_updated']);
});

t.test('deleting the registration removes its sensors and tracker', async (t) => {
  const h = await setup(t);
  await h.send('register_sensor', BATTERY);
  const entry = h.hearth.mobile.registrations.entries().find((e) => e.registration.webhook_id === h.reg.webhook_id)!;
  t.equal(h.hearth.registries.getEntity('sensor.test_phone_battery_level')!.config_entry_id, entry.entry_id, 'the entity belongs to the config entry');
  const ws = await authedClient(h.base, h.token);
  ws.send({ id: 1, type: 'subscribe_events', event_type: 'state_changed' });
  await ws.until((m) => m.id === 1);
  t.equal((await h.call('DELETE', `/api/config/config_entries/entry/${entry.entry_id}`)).status, 200);
  const removed = new Set<string>();
  while (removed.size < 2) {
    const m = await ws.until((x) => x.type === 'event' && x.event.data.new_state === null);
    removed.add(m.event.data.entity_id);
  }
  t.same([...removed].sort(), ['device_tracker.test_phone', 'sensor.test_phone_battery_level']);
  t.notOk(h.hearth.registries.getEntity('sensor.test_phone_battery_level'));
  ws.ws.close();
});
