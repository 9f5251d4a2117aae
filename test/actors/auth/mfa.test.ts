// The totp multi-factor module end to end, against a real Hearth: set up over WebSocket,
// asked for by the login flow, deposed, kept over a restart, and never printed by replay.
import t from 'tap';
import { startTestHearth, onboard } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { call, exchange, CLIENT_ID, REDIRECT_URI } from './harness.ts';
import { totpCode } from '../../../actors/auth/totp.ts';
import { freshCode, wrongCode } from '../../helpers/totp.ts';
import { Redactor } from '../../../bin/redact.ts';
import { validateCore } from '../../../actors/core/core-section.ts';
import { manualClock, randomIds } from '../../../actors/clock.ts';
import { LoginFlows, type FlowProvider } from '../../../actors/auth/login-flows.ts';
import { qrSvg } from '../../../actors/auth/qr.ts';
import jsqr from 'jsqr';
import { allRecords } from '../../helpers/log-records.ts';

const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };
const FORM_KEYS = ['type', 'flow_id', 'handler', 'step_id', 'data_schema', 'errors', 'description_placeholders', 'last_step', 'preview'];

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

async function startLogin(base: string, password = OWNER.password) {
  const start = await call(base, 'POST', '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_uri: REDIRECT_URI });
  return call(base, 'POST', `/auth/login_flow/${start.json.flow_id}`, { client_id: CLIENT_ID, username: OWNER.username, password });
}

const mfaStep = (base: string, flowId: string, code: string) => call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, code });

t.test('totp: setup, login, depose, restart, redaction', async (t) => {
  const first = await startTestHearth(t);
  const own = await onboard(first.base, OWNER);
  const c = await authedClient(first.base, own.access_token);

  const before = await ask(c, { type: 'auth/current_user' });
  t.same(before.result.mfa_modules, [{ id: 'totp', name: 'Authenticator app', enabled: false }], 'the default module, not enabled');

  const noModule = await ask(c, { type: 'auth/setup_mfa', mfa_module_id: 'sms' });
  t.same(noModule.error, { code: 'no_module', message: 'MFA module sms is not found' });
  const both = await ask(c, { type: 'auth/setup_mfa', mfa_module_id: 'totp', flow_id: 'x' });
  t.equal(both.error.code, 'invalid_format');
  const neither = await ask(c, { type: 'auth/setup_mfa' });
  t.equal(neither.error.code, 'invalid_format');

  // setup: the init form with the secret
  const init = await ask(c, { type: 'auth/setup_mfa', mfa_module_id: 'totp' });
  t.equal(init.success, true);
  const form = init.result;
  t.same(Object.keys(form), FORM_KEYS, 'a data_entry_flow form result');
  t.match(form, { type: 'form', handler: 'totp', step_id: 'init', errors: {}, last_step: null, preview: null });
  t.same(form.data_schema, [{ type: 'string', name: 'code', required: true }]);
  const firstSecret: string = form.description_placeholders.code;
  t.match(firstSecret, /^[A-Z2-7]{32}$/, 'a base32 secret');
  t.equal(form.description_placeholders.url, `otpauth://totp/Home%20Assistant:Owner?secret=${firstSecret}&issuer=Home%20Assistant`);
  const qrCode: string = form.description_placeholders.qr_code;
  t.match(qrCode, /^<svg [^\n]*<\/svg>$/, 'qr_code: one line of SVG');
  t.equal(qrCode, qrSvg(form.description_placeholders.url, { scale: 4, quietZone: 4, level: 'H' }), 'drawn from url, at level H as the original');
  {
    // the path's runs of dark modules (M x y h n…), painted 3 pixels a module for jsQR to read
    const size = ((Number(/ width="(\d+)"/.exec(qrCode)![1]) / 4) * 3) | 0;
    const pixels = new Uint8ClampedArray(size * size * 4).fill(255);
    for (const [, x, y, n] of qrCode.matchAll(/M(\d+) (\d+)h(\d+)/g)) {
      for (let row = Number(y) * 3; row < Number(y) * 3 + 3; row++) pixels.fill(0, (row * size + Number(x) * 3) * 4, (row * size + (Number(x) + Number(n)) * 3) * 4);
    }
    for (let i = 3; i < pixels.length; i += 4) pixels[i] = 255;
    t.equal(jsqr.default(pixels, size, size)?.data, form.description_placeholders.url, 'qr_code reads back as url');
  }

  const empty = await ask(c, { type: 'auth/setup_mfa', flow_id: form.flow_id, user_input: {} });
  t.match(empty.result, { type: 'form', flow_id: form.flow_id, step_id: 'init', errors: {} }, 'no input: the first step again');
  t.not(empty.result.description_placeholders.code, form.description_placeholders.code, 'with a new secret, as the original');
  const secret: string = empty.result.description_placeholders.code;
  const wrong = await ask(c, { type: 'auth/setup_mfa', flow_id: form.flow_id, user_input: { code: wrongCode(secret) } });
  t.match(wrong.result, { type: 'form', flow_id: form.flow_id, step_id: 'init', errors: { base: 'invalid_code' } });
  t.equal(wrong.result.description_placeholders.code, secret, 'the same secret again');

  const done = await ask(c, { type: 'auth/setup_mfa', flow_id: form.flow_id, user_input: { code: await freshCode(secret) } });
  t.match(done.result, { type: 'create_entry', flow_id: form.flow_id, handler: 'totp', title: 'Authenticator app', data: { result: secret } });
  const gone = await ask(c, { type: 'auth/setup_mfa', flow_id: form.flow_id, user_input: { code: '000000' } });
  t.equal(gone.success, false, 'a finished flow is gone');

  const after = await ask(c, { type: 'auth/current_user' });
  t.same(after.result.mfa_modules, [{ id: 'totp', name: 'Authenticator app', enabled: true }]);

  // login: the password, then the mfa step
  const step = await startLogin(first.base);
  t.equal(step.status, 200);
  t.same(step.json, {
    type: 'form',
    flow_id: step.json.flow_id,
    handler: ['core', null],
    step_id: 'mfa',
    data_schema: [{ type: 'string', name: 'code', required: true }],
    errors: {},
    description_placeholders: { mfa_module_name: 'Authenticator app', mfa_module_id: 'totp' },
    last_step: null,
    preview: null,
  });
  const badCode = await mfaStep(first.base, step.json.flow_id, wrongCode(secret));
  t.match(badCode.json, { type: 'form', step_id: 'mfa', errors: { base: 'invalid_code' } });
  const good = await mfaStep(first.base, step.json.flow_id, await freshCode(secret));
  t.match(good.json, { type: 'create_entry', result: String });
  const tokens = await exchange(first.base, good.json.result);
  t.equal(tokens.status, 200, 'the code is exchanged for tokens');

  // too many wrong codes: five (the original's totp MAX_RETRY_TIME)
  const retry = await startLogin(first.base);
  for (let i = 1; i < 5; i++) {
    const again = await mfaStep(first.base, retry.json.flow_id, wrongCode(secret));
    t.match(again.json, { step_id: 'mfa', errors: { base: 'invalid_code' } }, `wrong code ${i}`);
  }
  const aborted = await mfaStep(first.base, retry.json.flow_id, wrongCode(secret));
  t.same(aborted.json, { type: 'abort', flow_id: retry.json.flow_id, handler: ['core', null], reason: 'too_many_retry', description_placeholders: null });

  // a wrong password never reaches the mfa step
  const badPassword = await startLogin(first.base, 'nope');
  t.match(badPassword.json, { step_id: 'init', errors: { base: 'invalid_auth' } });

  // restart: still enabled
  await first.hearth.stop();
  const second = await startTestHearth(t, { dataDir: first.dataDir });
  const c2 = await authedClient(second.base, tokens.json.access_token);
  t.same((await ask(c2, { type: 'auth/current_user' })).result.mfa_modules, [{ id: 'totp', name: 'Authenticator app', enabled: true }]);
  const afterRestart = await startLogin(second.base);
  t.equal(afterRestart.json.step_id, 'mfa', 'the mfa step after a restart');
  t.match((await mfaStep(second.base, afterRestart.json.flow_id, await freshCode(secret))).json, { type: 'create_entry' });

  // depose
  const unknown = await ask(c2, { type: 'auth/depose_mfa', mfa_module_id: 'sms' });
  t.same(unknown.error, { code: 'disable_failed', message: 'Cannot disable MFA Module sms: Unable find multi-factor auth module: sms' });
  const deposed = await ask(c2, { type: 'auth/depose_mfa', mfa_module_id: 'totp' });
  t.same(deposed, { id: deposed.id, type: 'result', success: true, result: 'done' });
  t.same((await ask(c2, { type: 'auth/current_user' })).result.mfa_modules, [{ id: 'totp', name: 'Authenticator app', enabled: false }]);
  const plain = await startLogin(second.base);
  t.match(plain.json, { type: 'create_entry' }, 'no mfa step once deposed');

  // the records, and what replay prints of them
  const records = await allRecords(second.hearth.log);
  const enabled = records.filter((r) => r.type === 'mfa_enabled');
  t.equal(enabled.length, 1);
  t.same(enabled[0].data, { module_id: 'totp', secret });
  t.same(records.filter((r) => r.type === 'mfa_disabled').map((r) => r.data), [{ module_id: 'totp' }]);
  const redactor = new Redactor();
  for (const r of records) redactor.learn(r);
  const printed = records.map((r) => redactor.format(r).text ?? '').join('\n');
  t.notOk(printed.includes(secret), 'the secret is never printed');
  t.ok(printed.includes('"secret":"***"'));

  // restart once more: disabled stays disabled
  await second.hearth.stop();
  const third = await startTestHearth(t, { dataDir: first.dataDir });
  t.match((await startLogin(third.base)).json, { type: 'create_entry' });
});

t.test('auth_mfa_modules in the core section', async (t) => {
  t.same(validateCore({ auth_mfa_modules: [{ type: 'totp' }] }).auth_mfa_modules, [{ type: 'totp' }]);
  t.same(validateCore({ auth_mfa_modules: { type: 'totp', id: 'a', name: 'A' } }).auth_mfa_modules, [{ type: 'totp', id: 'a', name: 'A' }], 'one is a list of one');
  t.throws(() => validateCore({ auth_mfa_modules: [{ type: 'sms' }] }), /Unable to load mfa module sms/);
  t.throws(() => validateCore({ auth_mfa_modules: [{ type: 'totp', extra: 1 }] }), /extra keys not allowed/);
  t.throws(() => validateCore({ auth_mfa_modules: [{ name: 'x' }] }), /required key not provided/);
  t.throws(() => validateCore({ auth_mfa_modules: [{ type: 'totp' }, { type: 'totp' }] }), /Duplicate mfa module totp found/);
  t.same((validateCore({ auth_mfa_modules: [{ type: 'totp' }, { type: 'totp', id: 'second' }] }).auth_mfa_modules as unknown[]).length, 2);
});

t.test('several enabled modules: the select_mfa_module step first', async (t) => {
  const flows = new LoginFlows({
    clock: manualClock(Date.UTC(2025, 0, 2)),
    ids: randomIds(),
    verifyMfaCode: async (_user, module, code) => module === 'second' && code === '123456',
    mfaModuleName: (id) => (id === 'totp' ? 'Authenticator app' : 'Second'),
  });
  const info = { handler: ['core', null] as [string, null], clientId: CLIENT_ID, redirectUri: REDIRECT_URI, ip: '10.0.0.1', flowType: 'authorize', credentialOnly: false };
  const provider: FlowProvider = {
    name: 'Test',
    open: () => ({ kind: 'form', schema: [{ type: 'string', name: 'username', required: true }, { type: 'string', name: 'password', required: true }] }),
    check: async () => ({ credentialId: 'c', userId: 'u1', mfaModules: ['totp', 'second'] }),
  };
  const started = await flows.start(info, provider);
  if (started.kind !== 'form') throw new Error(`expected a form, got ${started.kind}`);
  const { flow } = started;
  const select = await flows.step(flow.flowId, { username: 'u', password: 'p' }, info.ip);
  t.match(select, { kind: 'form', stepId: 'select_mfa_module' });
  if (select.kind !== 'form') return;
  t.same(select.body.data_schema, [{ type: 'select', options: [['totp', 'Authenticator app'], ['second', 'Second']], name: 'multi_factor_auth_module' }]);
  t.same(select.body.errors, {});
  const invalid = await flows.step(flow.flowId, { multi_factor_auth_module: 'sms' }, info.ip);
  t.match(invalid, { kind: 'form', stepId: 'select_mfa_module', body: { errors: { base: 'invalid_auth_module' } } });
  const mfa = await flows.step(flow.flowId, { multi_factor_auth_module: 'second' }, info.ip);
  t.match(mfa, { kind: 'form', stepId: 'mfa', body: { errors: {}, description_placeholders: { mfa_module_name: 'Second', mfa_module_id: 'second' } } });
  t.match(await flows.step(flow.flowId, { code: '123456' }, info.ip), { kind: 'finished' });
});

t.test('the modules configured under core: auth_mfa_modules are the ones a running Hearth offers', async (t) => {
  const cases: [string, unknown[]][] = [
    ['core:\n  auth_mfa_modules:\n    - type: totp\n      id: phone\n      name: Phone app\n', [{ id: 'phone', name: 'Phone app', enabled: false }]],
    ['core:\n  auth_mfa_modules: []\n', []],
  ];
  for (const [config, expected] of cases) {
    const h = await startTestHearth(t, { config });
    const tokens = await onboard(h.base, OWNER);
    const c = await authedClient(h.base, tokens.access_token);
    const me = await ask(c, { type: 'auth/current_user' });
    t.same(me.result.mfa_modules, expected, config);
    const setup = await ask(c, { type: 'auth/setup_mfa', mfa_module_id: 'totp' });
    t.same([setup.success, setup.error?.code], [false, 'no_module'], 'a module that is not configured cannot be set up');
    c.ws.close();
    await h.hearth.stop();
  }
});
