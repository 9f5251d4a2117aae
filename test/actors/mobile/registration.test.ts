// POST /api/mobile_app/registrations, the config entries of the registrations, deletion.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { REGISTRATION, hook, register } from './app.ts';

t.test('a registration answers 201 with its webhook id and secret in the original key order', async (t) => {
  const { base, hearth } = await startTestHearth(t);
  const call = api(base, (await onboard(base)).access_token);
  const res = await call('POST', '/api/mobile_app/registrations', { ...REGISTRATION, supports_encryption: true, unknown_key: 1 });
  t.equal(res.status, 201);
  t.same(Object.keys(res.json), ['cloudhook_url', 'remote_ui_url', 'secret', 'webhook_id']);
  t.equal(res.json.cloudhook_url, null);
  t.equal(res.json.remote_ui_url, null);
  t.match(res.json.webhook_id, /^[0-9a-f]{64}$/);
  t.match(res.json.secret, /^[0-9a-f]{64}$/);

  const plain = await register(call);
  t.equal(plain.secret, null);
  t.not(plain.webhook_id, res.json.webhook_id);

  // the device is in the device registry, its id is what get_config calls core_device_id
  const reg = hearth.mobile.registrations.get(res.json.webhook_id)!;
  const device = hearth.registries.getDevice(reg.core_device_id)!;
  t.equal(device.name, 'Test Phone');
  t.equal(device.manufacturer, 'Apple');
  t.equal(device.model, 'iPhone15,2');
  t.equal(device.sw_version, '18.2');
  t.same(device.identifiers, [['mobile_app', 'A1B2C3D4']]);
  t.notOk('unknown_key' in reg);
  const cfg = await hook(base, plain.webhook_id, { type: 'get_config' });
  t.equal(cfg.status, 200);
});

t.test('registration bodies the schema refuses', async (t) => {
  const { base, hearth } = await startTestHearth(t);
  const call = api(base, (await onboard(base)).access_token);
  const bad = async (body: unknown, msg: string) => {
    const res = await call('POST', '/api/mobile_app/registrations', body);
    t.equal(res.status, 400, msg);
    t.same(res.json, { message: msg });
  };
  await bad('{"app_id": ', 'Invalid JSON.');
  const { app_name: _, ...noName } = REGISTRATION;
  await bad(noName, "Message format incorrect: required key not provided @ data['app_name']");
  await bad({ ...REGISTRATION, model: 7 }, "Message format incorrect: expected str for dictionary value @ data['model']");
  await bad({ ...REGISTRATION, supports_encryption: 'yes' }, "Message format incorrect: expected bool for dictionary value @ data['supports_encryption']");
  await bad({ ...REGISTRATION, app_data: { push_token: 'abc' } }, "Message format incorrect: some but not all values in the same group of inclusion 'push_cloud' @ data['app_data'][<push_cloud>]");
  await bad({ ...REGISTRATION, app_data: { push_token: 'abc', push_url: 'not a url' } }, "Message format incorrect: invalid url for dictionary value @ data['app_data']['push_url']");
  t.same(hearth.mobile.registrations.list(), [], 'nothing registered');
  const anon = await fetch(`${base}/api/mobile_app/registrations`, { method: 'POST', body: JSON.stringify(REGISTRATION) });
  t.equal(anon.status, 401);
  const ok = await register(call, { app_data: { push_token: 'abc', push_url: 'https://push.example/send' } });
  t.same(hearth.mobile.registrations.get(ok.webhook_id)!.app_data, { push_token: 'abc', push_url: 'https://push.example/send' });
});

t.test('device name fallback and a generated device id', async (t) => {
  const { base, hearth } = await startTestHearth(t);
  const call = api(base, (await onboard(base)).access_token);
  const { device_id: _, ...noId } = REGISTRATION;
  const res = await call('POST', '/api/mobile_app/registrations', { ...noId, device_name: '📱' });
  t.equal(res.status, 201);
  const reg = hearth.mobile.registrations.get(res.json.webhook_id)!;
  t.match(reg.device_id, /^[0-9a-f]{32}$/);
  t.equal(reg.device_name, reg.device_id);
  t.equal(hearth.registries.getDevice(reg.core_device_id)!.name, reg.device_id);
});

t.test('registrations survive a restart; deleting the config entry gives 410 and removes the device', async (t) => {
  const first = await startTestHearth(t);
  const token = (await onboard(first.base)).access_token;
  const call = api(first.base, token);
  const a = await register(call);
  const b = await register(call, { device_id: 'OTHER', device_name: 'Tablet' });
  const records: string[] = [];
  for await (const r of first.hearth.log.read({ gt: 0 })) if (r.stream.startsWith('mobile_app/registration/')) records.push(r.type);
  t.same(records, ['registration_created', 'registration_created']);
  await first.hearth.stop();

  const second = await startTestHearth(t, { dataDir: first.dataDir });
  const base = second.base;
  t.equal(second.hearth.mobile.registrations.list().length, 2, 'both restored');
  const reg = second.hearth.mobile.registrations.get(a.webhook_id)!;
  t.ok(second.hearth.registries.getDevice(reg.core_device_id), 'device restored');
  const admin = api(base, token);

  const listed = await admin('GET', '/api/config/config_entries/entry?domain=mobile_app');
  t.equal(listed.status, 200);
  t.equal(listed.json.length, 2);
  const entry = listed.json.find((e: any) => e.title === 'Test Phone');
  t.match(entry, { domain: 'mobile_app', source: 'registration', state: 'loaded', disabled_by: null });
  t.match(entry.entry_id, /^[0-9a-f]{32}$/);

  const gone = await admin('DELETE', `/api/config/config_entries/entry/${entry.entry_id}`);
  t.equal(gone.status, 200);
  t.same(gone.json, { require_restart: false });
  const again = await admin('DELETE', `/api/config/config_entries/entry/${entry.entry_id}`);
  t.equal(again.status, 404);
  t.same(again.json, { message: 'Invalid entry specified' });

  const after = await hook(base, a.webhook_id, { type: 'get_config' });
  t.equal(after.status, 410);
  t.equal(after.text, '');
  t.notOk(second.hearth.registries.getDevice(reg.core_device_id), 'device removed');
  t.equal((await hook(base, b.webhook_id, { type: 'get_config' })).status, 200, 'the other registration still served');
  await second.hearth.stop();

  // still gone (410) after another restart
  const third = await startTestHearth(t, { dataDir: first.dataDir });
  t.equal((await hook(third.base, a.webhook_id, { type: 'get_config' })).status, 410);
  t.equal(third.hearth.mobile.registrations.list().length, 1);
});
