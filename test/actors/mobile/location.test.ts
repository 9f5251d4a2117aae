// The companion app's device tracker through the real webhook (plaintext): made with the
// registration, moved by update_location (gps against the zones, or a location name), kept
// across a restart.
import t from 'tap';
import { startTestHearth, onboard, api, dataDirWith } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { hook, register } from './app.ts';

const CONFIG = `
core:
  name: Home
  latitude: 52.3731
  longitude: 4.8903
  radius: 100
  time_zone: Europe/Amsterdam
zone:
  - name: Work
    latitude: 52.3000
    longitude: 4.9500
    radius: 250
  - name: Station
    latitude: 52.3790
    longitude: 4.9000
    radius: 300
    passive: true
`;

const HOME = [52.3731, 4.8903];
const WORK = [52.3005, 4.9502];
const STATION = [52.379, 4.9];
const PARIS = [48.8566, 2.3522];

async function setup(t: { teardown(fn: () => unknown): void }, dataDir?: string) {
  const h = await startTestHearth(t, { dataDir: dataDir ?? (await dataDirWith(CONFIG)) });
  const token = (await onboard(h.base)).access_token;
  const call = api(h.base, token);
  return { ...h, token, call };
}

t.test('the tracker exists from the registration on', async (t) => {
  const h = await setup(t);
  const ws = await authedClient(h.base, h.token);
  ws.send({ id: 1, type: 'subscribe_events', event_type: 'state_changed' });
  await ws.until((m) => m.id === 1);
  const reg = await register(h.call);
  const made = await ws.until((m) => m.type === 'event' && m.event.data.entity_id === 'device_tracker.test_phone');
  t.equal(made.event.data.old_state, null);
  t.same(made.event.data.new_state.state, 'unknown');
  t.same(made.event.data.new_state.attributes, { source_type: 'gps', friendly_name: 'Test Phone' });

  const device = h.hearth.mobile.registrations.get(reg.webhook_id)!;
  t.match(h.hearth.registries.getEntity('device_tracker.test_phone'), { unique_id: 'A1B2C3D4', platform: 'mobile_app', device_id: device.core_device_id });
  t.same((await hook(h.base, reg.webhook_id, { type: 'get_config' })).json.entities, { A1B2C3D4: { disabled: false } });
  ws.ws.close();
});

t.test('update_location: home, a zone, not_home by gps; a location name; unknown', async (t) => {
  const h = await setup(t);
  const reg = await register(h.call);
  const send = (data: unknown) => hook(h.base, reg.webhook_id, { type: 'update_location', data });
  const tracker = async () => (await h.call('GET', '/api/states/device_tracker.test_phone')).json;

  const home = await send({ gps: HOME, gps_accuracy: 30, battery: 85, altitude: 5.5, course: 90, speed: 2, vertical_accuracy: 4 });
  t.equal(home.status, 200);
  t.same(home.json, {});
  const atHome = await tracker();
  t.equal(atHome.state, 'home');
  t.same(atHome.attributes, { source_type: 'gps', battery_level: 85, latitude: 52.3731, longitude: 4.8903, gps_accuracy: 30, altitude: 5.5, course: 90, speed: 2, vertical_accuracy: 4, friendly_name: 'Test Phone' });
  t.same(Object.keys(atHome.attributes), ['source_type', 'battery_level', 'latitude', 'longitude', 'gps_accuracy', 'altitude', 'course', 'speed', 'vertical_accuracy', 'friendly_name'], 'attribute order');

  await send({ gps: WORK, gps_accuracy: 10 });
  t.equal((await tracker()).state, 'Work', "a zone's name");
  t.same((await tracker()).attributes, { source_type: 'gps', latitude: 52.3005, longitude: 4.9502, gps_accuracy: 10, friendly_name: 'Test Phone' }, 'each update replaces the last');

  await send({ gps: STATION, gps_accuracy: 10 });
  t.equal((await tracker()).state, 'not_home', 'a passive zone is never the active one');

  await send({ gps: PARIS, gps_accuracy: 10 });
  t.equal((await tracker()).state, 'not_home');

  // the accuracy circle reaching into the home zone counts
  await send({ gps: [52.3751, 4.8903], gps_accuracy: 150 });
  t.equal((await tracker()).state, 'home');

  await send({ location_name: 'Gym' });
  const gym = await tracker();
  t.equal(gym.state, 'Gym');
  t.same(gym.attributes, { source_type: 'gps', friendly_name: 'Test Phone' });

  await send({ location_name: 'home', gps: PARIS, gps_accuracy: 10 });
  t.equal((await tracker()).state, 'home', 'the name wins over the gps');

  await send({ battery: 50 });
  t.equal((await tracker()).state, 'unknown', 'neither a name nor gps');
  t.equal((await tracker()).attributes.battery_level, 50);

  for (const bad of [{ gps: HOME }, { gps: [91, 0], gps_accuracy: 1 }, { gps: HOME, gps_accuracy: -1 }, { battery: -5 }, { in_zones: ['zone.home'] }, { location_name: ['x'] }, 'home']) {
    const r = await send(bad);
    t.equal(r.status, 200, `refused: ${JSON.stringify(bad)}`);
    t.same(r.json, {});
  }
  t.equal((await tracker()).state, 'unknown', 'a refused update changes nothing');
  t.equal((await tracker()).attributes.battery_level, 50);

  // a person following the tracker sees it, as with any device tracker
  const tpl = await h.call('POST', '/api/template', { template: "{{ states('device_tracker.test_phone') }}/{{ is_state('device_tracker.test_phone', 'unknown') }}" });
  t.equal(tpl.text, 'unknown/True');
});

t.test('the tracker keeps its location across a restart', async (t) => {
  const first = await setup(t);
  const reg = await register(first.call);
  await hook(first.base, reg.webhook_id, { type: 'update_location', data: { gps: WORK, gps_accuracy: 10, battery: 70 } });
  const before = (await first.call('GET', '/api/states/device_tracker.test_phone')).json;
  t.equal(before.state, 'Work');
  await first.hearth.stop();

  const second = await startTestHearth(t, { dataDir: first.dataDir });
  const call = api(second.base, first.token);
  t.same((await call('GET', '/api/states/device_tracker.test_phone')).json, before, 'the same state after the restart');
  // one tracker, not a second one
  const trackers = (await call('GET', '/api/states')).json.filter((s: any) => s.entity_id.startsWith('device_tracker.'));
  t.equal(trackers.length, 1);
  await hook(second.base, reg.webhook_id, { type: 'update_location', data: { gps: HOME, gps_accuracy: 10 } });
  t.equal((await call('GET', '/api/states/device_tracker.test_phone')).json.state, 'home');
});

t.test('a disabled tracker leaves the states and comes back enabled', async (t) => {
  const h = await setup(t);
  const reg = await register(h.call);
  await hook(h.base, reg.webhook_id, { type: 'update_location', data: { location_name: 'Gym' } });
  const ws = await authedClient(h.base, h.token);
  ws.send({ id: 1, type: 'config/entity_registry/update', entity_id: 'device_tracker.test_phone', disabled_by: 'user' });
  t.match(await ws.until((m) => m.id === 1), { success: true });
  ws.send({ id: 2, type: 'subscribe_events', event_type: 'state_changed' });
  await ws.until((m) => m.id === 2);
  // the registry change is followed after it is committed
  const gone = await (async () => {
    if ((await h.call('GET', '/api/states/device_tracker.test_phone')).status === 404) return true;
    const m = await ws.until((x) => x.type === 'event' && x.event.data.entity_id === 'device_tracker.test_phone');
    return m.event.data.new_state === null;
  })();
  t.ok(gone, 'removed from the states');
  t.same((await hook(h.base, reg.webhook_id, { type: 'get_config' })).json.entities, { A1B2C3D4: { disabled: true } });
  ws.send({ id: 3, type: 'config/entity_registry/update', entity_id: 'device_tracker.test_phone', disabled_by: null });
  t.match(await ws.until((m) => m.id === 3), { success: true });
  const back = await ws.until((x) => x.type === 'event' && x.event.data.entity_id === 'device_tracker.test_phone');
  t.equal(back.event.data.new_state.state, 'Gym', 'shown again with its last location');
  ws.ws.close();
});
