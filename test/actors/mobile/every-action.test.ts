// Every webhook action as a companion app sends it, once in plain text from one phone and once
// sealed (current key) from another: the same answers once opened, the same effects.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { hexKey, hook, openWith, register, sealFor } from './app.ts';

const CONFIG = `input_boolean:
  plain_switch:
  sealed_switch:
light:
  - platform: virtual
    name: Porch
zone:
  - { name: Work, latitude: 52.1, longitude: 5.1, radius: 250 }
`;

t.test('every action, plain and sealed: the same answers and effects', async (t) => {
  const h = await startTestHearth(t, { config: CONFIG });
  const call = api(h.base, (await onboard(h.base)).access_token);
  const plain = await register(call, { device_name: 'Plain Phone', device_id: 'PLAIN1', supports_encryption: false });
  const sealed = await register(call, { device_name: 'Sealed Phone', device_id: 'SEALED1', supports_encryption: true });
  const key = hexKey(sealed.secret!);
  const regs = h.hearth.mobile.registrations;
  const marks: [string, string][] = [
    [plain.webhook_id, '<webhook>'],
    [sealed.webhook_id, '<webhook>'],
    [regs.get(plain.webhook_id)!.core_device_id, '<device>'],
    [regs.get(sealed.webhook_id)!.core_device_id, '<device>'],
    ['PLAIN1', '<app device>'],
    ['SEALED1', '<app device>'],
    ['Plain Phone', '<name>'],
    ['Sealed Phone', '<name>'],
    ['plain_phone', '<slug>'],
    ['sealed_phone', '<slug>'],
    ['plain_switch', '<switch>'],
    ['sealed_switch', '<switch>'],
    [': true,"supports_encryption"', ': <enc>,"supports_encryption"'],
  ];
  // answers compared without what names the phone: ids, names, and whether it encrypts
  const neutral = (value: unknown) => {
    let text = JSON.stringify(value);
    for (const [from, to] of marks) text = text.split(from).join(to);
    return text.replace(/"supports_encryption":(true|false)/g, '"supports_encryption":<enc>').replace(/"conversation_id":"[0-9A-Z]{26}"/g, '"conversation_id":<ulid>');
  };
  const send = async (type: string, data: (who: 'plain' | 'sealed') => unknown) => {
    const a = await hook(h.base, plain.webhook_id, data('plain') === undefined ? { type } : { type, data: data('plain') });
    const b = await hook(h.base, sealed.webhook_id, { type, encrypted: true, encrypted_data: sealFor(data('sealed') ?? {}, key) });
    const opened = b.json && b.json.encrypted === true ? openWith(b.json.encrypted_data, key) : b.json;
    return { a, b, opened, sealedAnswer: b.json?.encrypted === true };
  };
  const same = async (type: string, data: (who: 'plain' | 'sealed') => unknown, expect: { status: number; sealed: boolean }) => {
    const { a, b, opened, sealedAnswer } = await send(type, data);
    t.equal(a.status, expect.status, `${type}: plain status`);
    t.equal(b.status, expect.status, `${type}: sealed status`);
    t.equal(sealedAnswer, expect.sealed, `${type}: the answer is ${expect.sealed ? '' : 'not '}sealed`);
    t.equal(neutral(opened), neutral(a.json), `${type}: the same answer once opened`);
    return { a, opened };
  };
  const state = async (id: string) => (await call('GET', `/api/states/${id}`)).json;

  await same('register_sensor', () => ({ type: 'sensor', unique_id: 'battery_level', name: 'Battery Level', state: 80, unit_of_measurement: '%', device_class: 'battery' }), { status: 201, sealed: true });
  const batch = await same('update_sensor_states', () => [{ type: 'sensor', unique_id: 'battery_level', state: 79 }, { type: 'sensor', unique_id: 'ghost', state: 1 }], { status: 200, sealed: true });
  t.same(batch.a.json, { battery_level: { success: true }, ghost: { success: false, error: { code: 'not_registered', message: 'sensor ghost is not registered' } } });
  for (const who of ['plain_phone', 'sealed_phone']) t.equal((await state(`sensor.${who}_battery_level`)).state, '79', `sensor.${who}_battery_level`);

  await same('update_location', () => ({ gps: [52.3731, 4.8922], gps_accuracy: 10, battery: 79 }), { status: 200, sealed: false });
  const trackers = [await state('device_tracker.plain_phone'), await state('device_tracker.sealed_phone')];
  t.same(trackers.map((s) => s.state), [trackers[0].state, trackers[0].state], 'both trackers in the same place');
  t.same(trackers.map((s) => s.attributes.battery_level), [79, 79]);

  await same('call_service', (who) => ({ domain: 'input_boolean', service: 'turn_on', service_data: { entity_id: `input_boolean.${who}_switch` } }), { status: 200, sealed: false });
  t.same([(await state('input_boolean.plain_switch')).state, (await state('input_boolean.sealed_switch')).state], ['on', 'on']);

  await same('fire_event', () => ({ event_type: 'phone_fired', event_data: { n: 1 } }), { status: 200, sealed: false });
  await same('scan_tag', () => ({ tag_id: 'kitchen-nfc' }), { status: 200, sealed: false });
  const busEvents: Record<string, number> = {};
  for await (const r of h.hearth.log.read({ gt: 0 })) if (r.stream === 'bus' && (r.type === 'phone_fired' || r.type === 'tag_scanned')) busEvents[r.type] = (busEvents[r.type] ?? 0) + 1;
  t.same(busEvents, { phone_fired: 2, tag_scanned: 2 }, 'each phone fired its event and scanned its tag');

  const tpl = await same('render_template', () => ({ a: { template: '{{ 20 + 1 }}' }, b: { template: '{{ states("input_boolean.plain_switch") }}' } }), { status: 200, sealed: true });
  t.same(tpl.a.json, { a: 21, b: 'on' });
  const zones = await same('get_zones', () => undefined, { status: 200, sealed: true });
  t.same(zones.a.json.map((z: { entity_id: string }) => z.entity_id), ['zone.home', 'zone.work']);
  t.same(zones.a.json, (await call('GET', '/api/states')).json.filter((s: { entity_id: string }) => s.entity_id.startsWith('zone.')).sort((x: { entity_id: string }, y: { entity_id: string }) => (x.entity_id < y.entity_id ? -1 : 1)), 'the zone states, sorted by entity id');
  const cfg = await same('get_config', () => undefined, { status: 200, sealed: true });
  t.match(cfg.a.json, { core_device_id: String, entities: { battery_level: { disabled: false } } });
  const talk = await same('conversation_process', () => ({ text: 'turn on the porch', language: 'en' }), { status: 200, sealed: true });
  t.equal(talk.a.json.response.response_type, 'action_done');
  t.equal((await state('light.porch')).state, 'on');
  await same('stream_camera', () => ({ camera_entity_id: 'camera.none' }), { status: 400, sealed: true });
  await same('clear_notification', () => ({ tag: 'door' }), { status: 200, sealed: false });
  const upd = await same('update_registration', (who) => ({ app_version: '2025.2', device_name: who === 'plain' ? 'Plain Phone' : 'Sealed Phone', manufacturer: 'Apple', model: 'iPhone16,1', os_version: '18.3' }), { status: 200, sealed: true });
  t.match(upd.a.json, { app_version: '2025.2', model: 'iPhone16,1' });

  // enable_encryption: the plain phone gets a secret (never sealed), the sealed one already has one
  const enable = await send('enable_encryption', () => undefined);
  t.equal(enable.a.status, 200);
  t.match(enable.a.json, { secret: /^[0-9a-f]{64}$/ });
  t.same([enable.b.status, enable.b.json], [400, { success: false, error: { code: 'encryption_already_enabled', message: 'Encryption already enabled' } }]);
  const nowPlain = await hook(h.base, plain.webhook_id, { type: 'get_config' });
  t.same([nowPlain.status, nowPlain.json], [400, { success: false, error: { code: 'encryption_required', message: 'Encryption required' } }], 'plain text is refused from then on');
});
