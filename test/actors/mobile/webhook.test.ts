// The webhook channel as a companion app sees it (plain registrations): transport rules and the
// actions that are not about sensors or push.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { hook, register } from './app.ts';

const CONFIG = `
input_boolean:
  porch:
    name: Porch
zone:
  - name: Work
    latitude: 52.1
    longitude: 4.9
    radius: 100
  - name: Beach
    latitude: 52.4
    longitude: 4.5
    radius: 200
`;

async function setup(t: { teardown(fn: () => unknown): void }) {
  const h = await startTestHearth(t, { config: CONFIG });
  const token = (await onboard(h.base)).access_token;
  const call = api(h.base, token);
  const reg = await register(call);
  const send = (body: unknown, method?: string) => hook(h.base, reg.webhook_id, body, method);
  const records = async (type: string) => {
    const out: any[] = [];
    for await (const r of h.hearth.log.read({ gt: 0 })) if (r.type === type) out.push(r);
    return out;
  };
  return { ...h, call, reg, send, records };
}

t.test('transport: unknown ids, methods, CORS, bad JSON, bad envelopes, unknown types', async (t) => {
  const { base, send, reg } = await setup(t);
  const unknown = await hook(base, 'f'.repeat(64), { type: 'get_config' });
  t.equal(unknown.status, 200);
  t.equal(unknown.text, '');
  const get = await fetch(`${base}/api/webhook/${reg.webhook_id}`);
  t.equal(get.status, 405);
  t.equal(await get.text(), '');
  const head = await fetch(`${base}/api/webhook/${reg.webhook_id}`, { method: 'HEAD' });
  t.equal(head.status, 200);
  const put = await send({ type: 'fire_event', data: { event_type: 'via_put' } }, 'PUT');
  t.equal(put.status, 200);
  t.same(put.json, {});
  const cors = await fetch(`${base}/api/webhook/${reg.webhook_id}`, { method: 'POST', headers: { Origin: 'https://anywhere.example' }, body: '{"type":"get_zones"}' });
  t.equal(cors.headers.get('access-control-allow-origin'), 'https://anywhere.example');

  const invalid = await send('{"type": ');
  t.equal(invalid.status, 400);
  t.same(invalid.json, {});
  t.match(invalid.type, /application\/json/);
  for (const body of ['5', 'null', 'true']) {
    const res = await send(body);
    t.same([res.status, res.text], [200, ''], `${body}: the original's handler raises on it`);
  }
  for (const envelope of [[], '"text"', { data: {} }, { type: 'get_config', data: 5 }, { type: 'get_config', extra: 1 }, { type: {} }, { type: 'get_config', encrypted: 'yes' }, { type: 'get_config', encrypted: false }, { type: 'get_config', data: {}, encrypted: true }]) {
    const res = await send(envelope);
    t.equal(res.status, 200, JSON.stringify(envelope));
    t.same(res.json, {}, JSON.stringify(envelope));
  }
  const nope = await send({ type: 'no_such_action', data: {} });
  t.same([nope.status, nope.json], [200, {}]);
});

t.test('call_service, fire_event, scan_tag run as the registration user', async (t) => {
  const { send, call, records, hearth, reg } = await setup(t);
  const me = (await call('GET', '/api/auth/current_user')).json;
  const userId = me?.id ?? hearth.mobile.registrations.get(reg.webhook_id)!.user_id;

  const on = await send({ type: 'call_service', data: { domain: 'input_boolean', service: 'turn_on', service_data: { entity_id: 'input_boolean.porch' } } });
  t.same([on.status, on.json], [200, {}]);
  const state = await call('GET', '/api/states/input_boolean.porch');
  t.equal(state.json.state, 'on');
  t.equal(state.json.context.user_id, userId);

  const missing = await send({ type: 'call_service', data: { domain: 'nope', service: 'nothing' } });
  t.equal(missing.status, 200);
  t.equal(missing.text, '', 'a failing call escapes as an empty 200');
  const badShape = await send({ type: 'call_service', data: { domain: 'input_boolean' } });
  t.same([badShape.status, badShape.json], [200, {}]);

  const fired = await send({ type: 'fire_event', data: { event_type: 'app_said', event_data: { hello: 'world' } } });
  t.same([fired.status, fired.json], [200, {}]);
  const [event] = await records('app_said');
  t.same(event.data, { hello: 'world' });
  t.equal(event.origin, 'REMOTE');
  t.equal(event.context.user_id, userId);
  t.same((await send({ type: 'fire_event', data: { event_data: {} } })).json, {});
  t.equal((await records('app_said')).length, 1, 'a bad fire_event fires nothing');

  const tag = await send({ type: 'scan_tag', data: { tag_id: 'kitchen-nfc' } });
  t.same([tag.status, tag.json], [200, {}]);
  const [scanned] = await records('tag_scanned');
  t.same(scanned.data, { tag_id: 'kitchen-nfc', name: null, device_id: hearth.mobile.registrations.get(reg.webhook_id)!.core_device_id }, 'an unknown tag has no name');
});

t.test('render_template parses results and reports errors inline', async (t) => {
  const { send } = await setup(t);
  const res = await send({
    type: 'render_template',
    data: {
      one: { template: 'Hello {{ name }}', variables: { name: 'Paulus' } },
      num: { template: '{{ 40 + 2 }}' },
      list: { template: '{{ [1, 2] }}' },
      bad: { template: '{{ now() 3 }}' },
      state: { template: "{{ states('input_boolean.porch') }}" },
    },
  });
  t.equal(res.status, 200);
  t.equal(res.json.one, 'Hello Paulus');
  t.equal(res.json.num, 42);
  t.same(res.json.list, [1, 2]);
  t.match(res.json.bad, { error: /^TemplateSyntaxError: / });
  t.equal(res.json.state, 'off');
  t.same((await send({ type: 'render_template', data: { x: { nottemplate: 1 } } })).json, {});
  // the body is the app's JSON: a key named __proto__ is a name like any other
  const named = await send({ type: 'render_template', data: JSON.parse('{"__proto__":{"template":"{{ 1 + 1 }}"},"constructor":{"template":"c"}}') });
  t.equal(named.text, '{"__proto__":2,"constructor":"c"}');
});

t.test('get_zones, get_config, update_registration, stream_camera, enable_encryption', async (t) => {
  const { send, hearth, reg, records } = await setup(t);
  const zones = await send({ type: 'get_zones' });
  t.equal(zones.status, 200);
  t.same(zones.json.map((z: any) => z.entity_id), ['zone.beach', 'zone.home', 'zone.work']);

  // the device tracker is made once the registration is committed, in the background: wait for it
  let cfg = await send({ type: 'get_config' });
  for (let i = 0; i < 100 && Object.keys(cfg.json.entities ?? {}).length === 0; i++) {
    await new Promise((r) => setTimeout(r, 50));
    cfg = await send({ type: 'get_config' });
  }
  t.equal(cfg.status, 200);
  t.same(Object.keys(cfg.json), ['latitude', 'longitude', 'elevation', 'core_device_id', 'unit_system', 'location_name', 'time_zone', 'components', 'version', 'theme_color', 'entities']);
  t.equal(cfg.json.theme_color, '#03A9F4');
  t.equal(cfg.json.core_device_id, hearth.mobile.registrations.get(reg.webhook_id)!.core_device_id);
  t.same(cfg.json.entities, { A1B2C3D4: { disabled: false } }, 'the device tracker, keyed by the device id');
  hearth.mobile.entitiesOf = () => ({ steps: { disabled: true } });
  t.same((await send({ type: 'get_config' })).json.entities, { steps: { disabled: true } });

  const upd = await send({ type: 'update_registration', data: { app_version: '2025.2', device_name: 'Renamed', manufacturer: 'Apple', model: 'iPhone16,1', os_version: '18.3', app_data: { push_websocket_channel: true } } });
  t.equal(upd.status, 200);
  t.same(upd.json, { app_data: { push_websocket_channel: true }, app_id: 'io.robbie.HomeAssistant', app_name: 'Home Assistant', app_version: '2025.2', device_name: 'Renamed', manufacturer: 'Apple', model: 'iPhone16,1', os_version: '18.3', supports_encryption: false });
  const device = hearth.registries.getDevice(hearth.mobile.registrations.get(reg.webhook_id)!.core_device_id)!;
  t.same([device.name, device.model, device.sw_version], ['Renamed', 'iPhone16,1', '18.3']);
  t.equal((await records('registration_updated')).length, 1);
  const badUpd = await send({ type: 'update_registration', data: { app_version: '2025.3' } });
  t.same(badUpd.json, {});
  t.equal(hearth.mobile.registrations.get(reg.webhook_id)!.app_version, '2025.2', 'nothing half-applied');

  const cam = await send({ type: 'stream_camera', data: { camera_entity_id: 'camera.nope' } });
  t.same([cam.status, cam.json], [400, { success: false }]);

  const enc = await send({ type: 'enable_encryption' });
  t.equal(enc.status, 200);
  t.same(Object.keys(enc.json), ['secret']);
  t.match(enc.json.secret, /^[0-9a-f]{64}$/);
  const plain = await send({ type: 'get_config' });
  t.equal(plain.status, 400);
  t.same(plain.json, { success: false, error: { code: 'encryption_required', message: 'Encryption required' } });
  t.equal((await records('encryption_enabled')).length, 1);
});

t.test('conversation_process answers with the conversation result', async (t) => {
  const { send } = await setup(t);
  const res = await send({ type: 'conversation_process', data: { text: 'turn on the porch', language: 'en' } });
  t.equal(res.status, 200);
  t.same(Object.keys(res.json), ['response', 'conversation_id', 'continue_conversation']);
  t.equal(res.json.response.language, 'en');
  t.same((await send({ type: 'conversation_process', data: {} })).json, {});
});
