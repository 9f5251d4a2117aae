import t from 'tap';
import { CLIENT_ID, OWNER, call, exchange, getWith, onboardOwner, startAuthServer } from './harness.ts';

t.test('onboarding creates the owner; its code yields tokens that open protected routes', async (t) => {
  const { base, auth } = await startAuthServer(t);

  let res = await call(base, 'GET', '/api/onboarding');
  t.same(res.json, [
    { step: 'user', done: false },
    { step: 'core_config', done: false },
    { step: 'analytics', done: false },
    { step: 'integration', done: false },
  ]);
  res = await call(base, 'GET', '/api/onboarding/installation_type');
  t.equal(res.status, 200);
  t.same(res.json, { installation_type: 'Hearth Core' });

  res = await call(base, 'GET', '/auth/providers');
  t.equal(res.status, 400, 'no providers before the first user');
  t.equal(res.text, '{"message":"Onboarding not finished","code":"onboarding_required"}');
  t.notOk(auth.hasUsers());

  const code = await onboardOwner(base);
  t.match(code, /^[0-9a-f]{32}$/);
  t.ok(auth.hasUsers());

  res = await call(base, 'GET', '/api/onboarding/installation_type');
  t.equal(res.status, 401, 'installation type is hidden once onboarding started');

  res = await call(base, 'GET', '/auth/providers');
  t.equal(res.status, 200);
  t.equal(res.text, '{"providers":[{"name":"Hearth Local","id":null,"type":"core"}],"preselect_remember_me":true}');

  res = await exchange(base, code);
  t.equal(res.status, 200);
  t.same(Object.keys(res.json), ['access_token', 'token_type', 'refresh_token', 'expires_in', 'core_auth_provider']);
  t.equal(res.json.core_auth_provider, 'core');
  const token = res.json.access_token;

  const who = await getWith(base, '/api/test/whoami', `Bearer ${token}`);
  t.equal(who.status, 200);
  t.equal(who.json.isAdmin, true);
  t.equal(who.json.isOwner, true);
  const user = auth.currentUser(who.json.userId);
  t.same(user, {
    id: who.json.userId,
    name: OWNER.name,
    is_owner: true,
    is_admin: true,
    credentials: [{ auth_provider_type: 'core', auth_provider_id: null }],
    // the original's default: the authenticator app, offered and not yet set up
    mfa_modules: [{ id: 'totp', name: 'Authenticator app', enabled: false }],
  });
  t.equal((await getWith(base, '/api/test/admin', `Bearer ${token}`)).status, 200);

  res = await call(base, 'GET', '/api/onboarding');
  t.same(res.json[0], { step: 'user', done: true });
});

t.test('the user step runs once; bad bodies are refused before anything is written', async (t) => {
  const { base, log } = await startAuthServer(t);
  const body = { client_id: CLIENT_ID, name: 'A', username: 'a', password: 'pw-a', language: 'en' };

  for (const missing of ['name', 'username', 'password', 'client_id', 'language']) {
    const partial: Record<string, string> = { ...body };
    delete partial[missing];
    const res = await call(base, 'POST', '/api/onboarding/users', partial);
    t.equal(res.status, 400, `missing ${missing}`);
    t.equal(res.json.message, `Message format incorrect: required key not provided @ data['${missing}']`);
  }
  let res = await call(base, 'POST', '/api/onboarding/users', { ...body, name: 3 });
  t.equal(res.status, 400);
  t.equal(res.json.message, "Message format incorrect: expected str for dictionary value @ data['name']");
  res = await call(base, 'POST', '/api/onboarding/users', '{"name":');
  t.same(res.json, { message: 'Invalid JSON.' });
  t.equal(log.lastSeq(), 0, 'nothing appended for refused requests');

  // two racing requests: exactly one wins
  const [a, b] = await Promise.all([call(base, 'POST', '/api/onboarding/users', body), call(base, 'POST', '/api/onboarding/users', { ...body, username: 'b' })]);
  t.same([a.status, b.status].sort(), [200, 403]);

  res = await call(base, 'POST', '/api/onboarding/users', body);
  t.equal(res.status, 403);
  t.same(res.json, { message: 'User step already done' });
});

t.test('core_config, analytics and integration need a bearer token and run once', async (t) => {
  const { base } = await startAuthServer(t);
  const tokens = (await exchange(base, await onboardOwner(base))).json;

  for (const [step, refusal] of [
    ['core_config', 'Core config step already done'],
    ['analytics', 'Analytics config step already done'],
  ]) {
    let res = await call(base, 'POST', `/api/onboarding/${step}`);
    t.equal(res.status, 401, `${step} without a token`);
    res = await call(base, 'POST', `/api/onboarding/${step}`, undefined, tokens.access_token);
    t.equal(res.status, 200);
    t.same(res.json, {});
    res = await call(base, 'POST', `/api/onboarding/${step}`, undefined, tokens.access_token);
    t.equal(res.status, 403);
    t.same(res.json, { message: refusal });
  }

  let res = await call(base, 'POST', '/api/onboarding/integration', { client_id: CLIENT_ID, redirect_uri: 'https://elsewhere.example/cb' }, tokens.access_token);
  t.equal(res.status, 400);
  t.same(res.json, { message: 'invalid client id or redirect uri' });

  res = await call(base, 'POST', '/api/onboarding/integration', { client_id: CLIENT_ID, redirect_uri: `${CLIENT_ID}?auth_callback=1` }, tokens.access_token);
  t.equal(res.status, 200);
  const again = await exchange(base, res.json.auth_code);
  t.equal(again.status, 200, 'the integration code logs the same user in');

  res = await call(base, 'POST', '/api/onboarding/integration', { client_id: CLIENT_ID, redirect_uri: CLIENT_ID }, tokens.access_token);
  t.equal(res.status, 403);
  t.same(res.json, { message: 'Integration step already done' });

  res = await call(base, 'GET', '/api/onboarding');
  t.ok(res.json.every((s: { done: boolean }) => s.done));
});
