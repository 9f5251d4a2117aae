// Encrypted webhooks as the apps send them: current (hex) and legacy key derivations, the
// upgrade that retires the legacy key, sealed answers, and what is left plain.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { hexKey, hook, legacyKey, openWith, register, sealFor, sealText } from './app.ts';

async function setup(t: { teardown(fn: () => unknown): void }) {
  const h = await startTestHearth(t);
  const call = api(h.base, (await onboard(h.base)).access_token);
  const reg = await register(call, { supports_encryption: true });
  const secret = reg.secret!;
  const sealed = (type: string, data: unknown, key: Uint8Array) => hook(h.base, reg.webhook_id, { type, encrypted: true, encrypted_data: sealFor(data, key) });
  const retired = async () => {
    let n = 0;
    for await (const r of h.hearth.log.read({ gt: 0 })) if (r.type === 'legacy_encryption_retired') n++;
    return n;
  };
  return { ...h, call, reg, secret, sealed, retired };
}

t.test('a legacy app: its key works, answers are sealed with the legacy key', async (t) => {
  const { sealed, secret, retired, hearth, reg } = await setup(t);
  const res = await sealed('render_template', { a: { template: '{{ 1 + 1 }}' } }, legacyKey(secret));
  t.equal(res.status, 200);
  t.same(Object.keys(res.json), ['encrypted', 'encrypted_data']);
  t.equal(res.json.encrypted, true);
  t.same(openWith(res.json.encrypted_data, legacyKey(secret)), { a: 2 });
  t.throws(() => openWith(res.json.encrypted_data, hexKey(secret)), 'not the current key yet');
  t.equal(await retired(), 0);
  t.equal(hearth.mobile.registrations.get(reg.webhook_id)!.no_legacy_encryption, false);
});

t.test('the current key retires the legacy one, for this very answer and after a restart', async (t) => {
  const { sealed, secret, retired, hearth, dataDir, reg } = await setup(t);
  const res = await sealed('get_config', {}, hexKey(secret));
  t.equal(res.status, 200);
  const cfg = openWith(res.json.encrypted_data, hexKey(secret)) as Record<string, unknown>;
  t.equal(cfg.theme_color, '#03A9F4');
  t.equal(await retired(), 1);
  await sealed('get_config', {}, hexKey(secret));
  t.equal(await retired(), 1, 'recorded once');

  const legacy = await sealed('get_config', {}, legacyKey(secret));
  t.same([legacy.status, legacy.json], [200, {}], 'the legacy key no longer opens');
  await hearth.stop();
  const again = await startTestHearth(t, { dataDir });
  t.equal(again.hearth.mobile.registrations.get(reg.webhook_id)!.no_legacy_encryption, true);
  const after = await hook(again.base, reg.webhook_id, { type: 'get_config', encrypted: true, encrypted_data: sealFor({}, legacyKey(secret)) });
  t.same(after.json, {});
});

t.test('plaintext is refused; bad ciphertexts and errors are plain empty OKs', async (t) => {
  const { base, reg, secret, sealed, retired } = await setup(t);
  const plain = await hook(base, reg.webhook_id, { type: 'get_config', data: {} });
  t.equal(plain.status, 400);
  t.same(plain.json, { success: false, error: { code: 'encryption_required', message: 'Encryption required' } });

  const wrongKey = await sealed('get_config', {}, new Uint8Array(32).fill(7));
  t.same([wrongKey.status, wrongKey.json], [200, {}]);
  const notJson = await hook(base, reg.webhook_id, { type: 'get_config', encrypted: true, encrypted_data: sealText('{"not json', hexKey(secret)) });
  t.same([notJson.status, notJson.json], [200, {}], 'invalid JSON inside the box');
  const truncated = sealFor({}, hexKey(secret)).slice(0, 40);
  t.same((await hook(base, reg.webhook_id, { type: 'get_config', encrypted: true, encrypted_data: truncated })).json, {});
  const noData = await hook(base, reg.webhook_id, { type: 'get_config', encrypted: true });
  t.same([noData.status, noData.text], [200, ''], 'no encrypted_data: the original fails reading it (an empty 200)');
  const notTrue = await hook(base, reg.webhook_id, { type: 'get_config', encrypted: false, encrypted_data: sealFor({}, hexKey(secret)) });
  t.same([notTrue.status, notTrue.json], [200, {}], '`encrypted` must be true');
  const nullInside = await hook(base, reg.webhook_id, { type: 'get_config', encrypted: true, encrypted_data: sealText('null', hexKey(secret)) });
  t.same([nullInside.status, nullInside.json], [200, {}], 'a null payload is no payload');

  // the enable_encryption error stays plain for an encrypting registration
  const already = await sealed('enable_encryption', {}, hexKey(secret));
  t.equal(already.status, 400);
  t.same(already.json, { success: false, error: { code: 'encryption_already_enabled', message: 'Encryption already enabled' } });
  // an unknown camera is answered through webhook_response: sealed, status 400
  const cam = await sealed('stream_camera', { camera_entity_id: 'camera.none' }, hexKey(secret));
  t.equal(cam.status, 400);
  t.same(openWith(cam.json.encrypted_data, hexKey(secret)), { success: false });
  // the empty OK of a schema failure is never sealed
  const bad = await sealed('fire_event', { nothing: true }, hexKey(secret));
  t.same([bad.status, bad.json], [200, {}]);
  t.equal(await retired(), 1);
});

t.test('enable_encryption on a plain registration: a plain secret, the legacy key until the current one is used', async (t) => {
  const h = await startTestHearth(t);
  const call = api(h.base, (await onboard(h.base)).access_token);
  const reg = await register(call);
  const res = await hook(h.base, reg.webhook_id, { type: 'enable_encryption' });
  t.equal(res.status, 200);
  const secret = res.json.secret as string;
  t.match(secret, /^[0-9a-f]{64}$/);
  const plain = await hook(h.base, reg.webhook_id, { type: 'get_config' });
  t.same([plain.status, plain.json?.error?.code], [400, 'encryption_required'], 'plaintext refused from now on');
  // as the original: the legacy key opens until the app first uses the current one
  const legacy = await hook(h.base, reg.webhook_id, { type: 'get_config', encrypted: true, encrypted_data: sealFor({}, legacyKey(secret)) });
  t.equal((openWith(legacy.json.encrypted_data, legacyKey(secret)) as any).theme_color, '#03A9F4');
  const current = await hook(h.base, reg.webhook_id, { type: 'get_config', encrypted: true, encrypted_data: sealFor({}, hexKey(secret)) });
  t.equal((openWith(current.json.encrypted_data, hexKey(secret)) as any).theme_color, '#03A9F4');
  const after = await hook(h.base, reg.webhook_id, { type: 'get_config', encrypted: true, encrypted_data: sealFor({}, legacyKey(secret)) });
  t.same(after.json, {}, 'then the legacy key no longer opens');
});
