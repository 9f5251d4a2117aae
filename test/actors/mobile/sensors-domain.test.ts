import t from 'tap';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import { manualClock, sequentialIds } from '../../../actors/clock.ts';
import { EntityActors } from '../../../actors/entities/registry.ts';
import { Registries } from '../../../actors/registries/index.ts';
import { MobileSensors } from '../../../actors/mobile/sensors.ts';
import type { Registration, WebhookAction } from '../../../actors/mobile/types.ts';
import type { EventLog } from '../../../store/types.ts';

/** The sensors over a real log, entities and registries, with one registration (no webhook). */
async function build(dir?: string) {
  dir ??= await mkdtemp(join(tmpdir(), 'hearth-mobile-sensors-'));
  const log: EventLog = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  const clock = manualClock(1_700_000_000_000, 1);
  const ids = sequentialIds('x');
  const entities = new EntityActors({ log, clock });
  const registries = new Registries({ log, clock, ids, states: entities });
  const device = await registries.ensureDevice({ identifiers: [['mobile_app', 'phone-1']], name: 'My Phone' });
  const reg: Registration = {
    webhook_id: 'w'.repeat(64), app_id: 'io.hearth.app', app_name: 'Hearth', app_version: '1.0', device_name: 'My Phone',
    manufacturer: 'Acme', model: 'P1', os_name: 'iOS', os_version: '18', device_id: 'phone-1', supports_encryption: false,
    secret: null, user_id: 'u1', app_data: {}, cloudhook_url: null, no_legacy_encryption: false, core_device_id: device.id,
  };
  const sensors = new MobileSensors({
    log, clock, entities, registries,
    registrations: { get: (id) => (id === reg.webhook_id ? reg : undefined), list: () => [reg] },
  });
  for await (const r of log.read()) {
    if (entities.area.owns(r)) entities.area.evolve(r);
    if (registries.area.owns(r)) registries.area.evolve(r);
    if (sensors.area.owns(r)) sensors.area.evolve(r);
  }
  sensors.restoreValues();
  const actions = new Map<string, WebhookAction>();
  sensors.registerActions({ register: (type, action) => actions.set(type, action) });
  const call = (type: string, data: unknown) => actions.get(type)!({ registration: reg, data, context: { id: ids.ulid(clock.now()), parent_id: null, user_id: 'u1' } });
  return { dir, log, entities, registries, sensors, reg, call };
}

t.test('register, update, disable, and a restart', async (t) => {
  const h = await build();
  t.same(await h.call('register_sensor', { type: 'sensor', unique_id: 'battery_level', name: 'Battery Level', state: 42, device_class: 'battery', unit_of_measurement: '%', state_class: 'measurement', attributes: { charging: true } }), { status: 201, body: { success: true } });
  const s = h.entities.get('sensor.my_phone_battery_level')!;
  t.equal(s.state, '42');
  t.same(s.attributes, { state_class: 'measurement', charging: true, unit_of_measurement: '%', device_class: 'battery', icon: 'mdi:cellphone', friendly_name: 'My Phone Battery Level' });
  const entry = h.registries.getEntity('sensor.my_phone_battery_level')!;
  t.equal(entry.unique_id, `${h.reg.webhook_id}_battery_level`);
  t.equal(entry.device_id, h.reg.core_device_id);

  // bad device class for the domain, state_class on a binary sensor: the empty OK, nothing made
  t.same(await h.call('register_sensor', { type: 'binary_sensor', unique_id: 'x', name: 'X', device_class: 'nonsense' }), { status: 200, body: {}, plain: true });
  t.same(await h.call('register_sensor', { type: 'binary_sensor', unique_id: 'x', name: 'X', state_class: null }), { status: 200, body: {}, plain: true });
  t.notOk(h.entities.has('binary_sensor.my_phone_x'));

  await h.call('register_sensor', { type: 'binary_sensor', unique_id: 'charging', name: 'Charging', state: true, disabled: true });
  t.notOk(h.entities.has('binary_sensor.my_phone_charging'), 'a disabled sensor has no state');
  t.equal(h.registries.getEntity('binary_sensor.my_phone_charging')!.disabled_by, 'integration');

  const reply = await h.call('update_sensor_states', [
    { type: 'sensor', unique_id: 'battery_level', state: 41, attributes: { charging: false }, icon: 'mdi:battery' },
    { type: 'binary_sensor', unique_id: 'charging', state: false },
    { type: 'sensor', unique_id: 'ghost', state: 1 },
    { type: 'sensor', unique_id: 'battery_level', state: [1], extra: 'x' },
  ]);
  t.same(reply.body, {
    battery_level: { success: false, error: { code: 'invalid_format', message: "extra keys not allowed @ data['extra']. Got 'x'\nnot a valid value for dictionary value @ data['state']. Got [1]" } },
    charging: { success: true, is_disabled: true },
    ghost: { success: false, error: { code: 'not_registered', message: 'sensor ghost is not registered' } },
  });
  t.equal(h.entities.get('sensor.my_phone_battery_level')!.state, '41', 'the good item of the batch applied');
  t.equal(h.entities.get('sensor.my_phone_battery_level')!.attributes.icon, 'mdi:battery');

  // re-registration updates the entry and enables it
  t.same((await h.call('register_sensor', { type: 'binary_sensor', unique_id: 'charging', name: 'Is Charging', state: true, disabled: false, device_class: 'battery_charging' })).status, 201);
  t.equal(h.registries.getEntity('binary_sensor.my_phone_charging')!.disabled_by, null);
  t.equal(h.registries.getEntity('binary_sensor.my_phone_charging')!.original_name, 'My Phone Is Charging');
  t.equal(h.entities.get('binary_sensor.my_phone_charging')!.state, 'on');

  await h.sensors.onRegistration(h.reg, { id: 'c', parent_id: null, user_id: null });
  t.equal(h.entities.get('device_tracker.my_phone')!.state, 'unknown');
  t.same(h.sensors.entitiesOf(h.reg), { battery_level: { disabled: false }, charging: { disabled: false }, 'phone-1': { disabled: false } });

  // the home zone the zone platform always shows
  await h.entities.write('zone.home', { state: '0', attributes: { latitude: 52.37, longitude: 4.89, radius: 100, passive: false, friendly_name: 'Home' }, force_update: false }, { id: 'z', parent_id: null, user_id: null });
  await h.call('update_location', { gps: [52.3701, 4.8901], gps_accuracy: 10, battery: 80 });
  t.equal(h.entities.get('device_tracker.my_phone')!.state, 'home');
  t.same(h.entities.get('device_tracker.my_phone')!.attributes, { source_type: 'gps', battery_level: 80, latitude: 52.3701, longitude: 4.8901, gps_accuracy: 10, friendly_name: 'My Phone' });
  await h.call('update_location', { gps: [48.85, 2.35], gps_accuracy: 10 });
  t.equal(h.entities.get('device_tracker.my_phone')!.state, 'not_home');
  await h.call('update_location', { location_name: 'Work' });
  t.equal(h.entities.get('device_tracker.my_phone')!.state, 'Work');
  t.same(await h.call('update_location', { gps: [1, 2] }), { status: 200, body: {}, plain: true }, 'gps without accuracy is refused');
  t.equal(h.entities.get('device_tracker.my_phone')!.state, 'Work');

  await h.log.close();
  const again = await build(h.dir);
  t.equal(again.entities.get('sensor.my_phone_battery_level')!.state, '41', 'the state survives a restart');
  const after = await again.call('update_sensor_states', { type: 'sensor', unique_id: 'battery_level', state: 40 });
  t.same(after.body, { battery_level: { success: true } }, 'the sensor is still registered');
  t.equal(again.entities.get('sensor.my_phone_battery_level')!.attributes.unit_of_measurement, '%');
  await again.log.close();
});
