import t from 'tap';
import { CLIENT_ID, OWNER, REDIRECT_URI, call, exchange, getWith, login, onboardOwner, postForm, startAuthServer } from './harness.ts';

const startFlow = (base: string, body: Record<string, unknown> = {}) =>
  call(base, 'POST', '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_uri: REDIRECT_URI, ...body });

t.test('login flow: wrong password, then the right one, then the token grants', async (t) => {
  const { base } = await startAuthServer(t);
  await onboardOwner(base);

  let res = await startFlow(base);
  t.equal(res.status, 200);
  const flowId = res.json.flow_id;
  t.match(flowId, /^[0-9a-f]{32}$/);
  t.same(res.json, {
    type: 'form',
    flow_id: flowId,
    handler: ['core', null],
    step_id: 'init',
    data_schema: [
      { type: 'string', name: 'username', required: true },
      { type: 'string', name: 'password', required: true },
    ],
    errors: {},
    description_placeholders: null,
    last_step: null,
    preview: null,
  });

  res = await call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, username: OWNER.username, password: 'wrong' });
  t.equal(res.status, 200);
  t.equal(res.json.type, 'form');
  t.equal(res.json.step_id, 'init');
  t.same(res.json.errors, { base: 'invalid_auth' });

  res = await call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, username: 'nobody', password: 'wrong' });
  t.same(res.json.errors, { base: 'invalid_auth' }, 'an unknown user reads the same as a wrong password');

  res = await call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, username: ' Owner ', password: OWNER.password });
  t.equal(res.status, 200, 'usernames compare trimmed and lower-cased');
  t.same(Object.keys(res.json), ['version', 'minor_version', 'type', 'flow_id', 'handler', 'title', 'description', 'description_placeholders', 'result']);
  t.equal(res.json.type, 'create_entry');
  t.equal(res.json.flow_id, flowId);
  t.equal(res.json.title, 'Hearth Local');
  const code = res.json.result;
  t.match(code, /^[0-9a-f]{32}$/);

  res = await call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, username: OWNER.username, password: OWNER.password });
  t.equal(res.status, 404, 'a finished flow is gone');

  res = await exchange(base, code, 'http://other.example/');
  t.same(res.json, { error: 'invalid_request', error_description: 'Invalid code' }, 'a code is bound to its client id');

  res = await exchange(base, code);
  t.equal(res.status, 200);
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.equal(res.headers.get('pragma'), 'no-cache');
  t.equal(res.json.token_type, 'Bearer');
  t.equal(res.json.expires_in, 1800);
  t.equal(res.json.core_auth_provider, 'core');
  t.match(res.json.refresh_token, /^[0-9a-f]{128}$/);
  const [header, payload] = res.json.access_token.split('.').slice(0, 2).map((p: string) => JSON.parse(Buffer.from(p, 'base64url').toString()));
  t.same(header, { alg: 'EdDSA', typ: 'JWT' });
  t.same(Object.keys(payload), ['iss', 'iat', 'exp']);
  t.equal(payload.exp - payload.iat, 1800);
  const refreshToken = res.json.refresh_token;

  res = await exchange(base, code);
  t.equal(res.status, 400);
  t.same(res.json, { error: 'invalid_request', error_description: 'Invalid code' }, 'a code works once');

  res = await postForm(base, '/auth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: CLIENT_ID });
  t.equal(res.status, 200);
  t.same(Object.keys(res.json), ['access_token', 'token_type', 'expires_in'], 'no refresh_token in a refresh answer');
  t.equal(res.headers.get('cache-control'), 'no-store');
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${res.json.access_token}`)).status, 200);

  res = await postForm(base, '/auth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'http://other.example/' });
  t.equal(res.status, 400);
  t.equal(res.text, '{"error":"invalid_request"}', 'another client id');
  res = await postForm(base, '/auth/token', { grant_type: 'refresh_token', refresh_token: refreshToken });
  t.equal(res.text, '{"error":"invalid_request"}', 'no client id');
  res = await postForm(base, '/auth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'ftp://x/' });
  t.same(res.json, { error: 'invalid_request', error_description: 'Invalid client id' });
  res = await postForm(base, '/auth/token', { grant_type: 'refresh_token', client_id: CLIENT_ID });
  t.equal(res.text, '{"error":"invalid_request"}', 'no refresh token');
  res = await postForm(base, '/auth/token', { grant_type: 'refresh_token', refresh_token: 'f'.repeat(128), client_id: CLIENT_ID });
  t.equal(res.status, 400);
  t.equal(res.text, '{"error":"invalid_grant"}');
});

t.test('token endpoint refusals', async (t) => {
  const { base } = await startAuthServer(t);
  const code = await onboardOwner(base);

  let res = await call(base, 'POST', '/auth/token', { grant_type: 'authorization_code', code, client_id: CLIENT_ID });
  t.equal(res.status, 400);
  t.equal(res.text, '{"error":"unsupported_grant_type"}', 'a JSON body is not read');
  res = await postForm(base, '/auth/token', { grant_type: 'password' });
  t.equal(res.text, '{"error":"unsupported_grant_type"}');
  res = await postForm(base, '/auth/token', { grant_type: 'authorization_code', code });
  t.same(res.json, { error: 'invalid_request', error_description: 'Invalid client id' });
  res = await postForm(base, '/auth/token', { grant_type: 'authorization_code', code, client_id: 'http://user@ex.com/' });
  t.same(res.json, { error: 'invalid_request', error_description: 'Invalid client id' });
  res = await postForm(base, '/auth/token', { grant_type: 'authorization_code', client_id: CLIENT_ID });
  t.same(res.json, { error: 'invalid_request', error_description: 'Invalid code' });
  res = await postForm(base, '/auth/token', { grant_type: 'authorization_code', code: 'nope', client_id: CLIENT_ID });
  t.same(res.json, { error: 'invalid_request', error_description: 'Invalid code' });

  res = await exchange(base, code);
  t.equal(res.status, 200, 'refused attempts with other client ids did not use the code up');

  // the token endpoint is open to any origin
  const preflight = await fetch(`${base}/auth/token`, {
    method: 'OPTIONS',
    headers: { Origin: 'https://app.example', 'Access-Control-Request-Method': 'POST' },
  });
  t.equal(preflight.headers.get('access-control-allow-origin'), 'https://app.example');
  t.equal(preflight.headers.get('access-control-allow-methods'), 'POST');
});

t.test('login flow request errors', async (t) => {
  const { base } = await startAuthServer(t);
  await onboardOwner(base);

  let res = await call(base, 'GET', '/auth/login_flow');
  t.equal(res.status, 405, 'flows in progress cannot be listed');
  res = await startFlow(base, { client_id: 'https://203.0.113.9/' });
  t.equal(res.status, 400);
  t.same(res.json, { message: 'Invalid client id' });
  res = await startFlow(base, { handler: ['trusted_networks', null] });
  t.equal(res.status, 404);
  t.same(res.json, { message: 'Invalid handler specified' });
  res = await startFlow(base, { extra: 1 });
  t.same(res.json, { message: "Message format incorrect: extra keys not allowed @ data['extra']" });
  res = await call(base, 'POST', '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null] });
  t.same(res.json, { message: "Message format incorrect: required key not provided @ data['redirect_uri']" });

  res = await call(base, 'POST', '/auth/login_flow', { client_id: CLIENT_ID, handler: ['core', null], redirect_url: REDIRECT_URI });
  t.equal(res.status, 200, 'redirect_url (the seed spelling) is accepted too');
  const flowId = res.json.flow_id;

  res = await call(base, 'GET', `/auth/login_flow/${flowId}`);
  t.equal(res.status, 404);
  t.same(res.json, { message: 'Invalid flow specified' });
  res = await call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: 'nope', username: 'a', password: 'b' });
  t.same(res.json, { message: 'Invalid client id' });
  res = await call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, username: 'a' });
  t.equal(res.status, 400);
  t.same(res.json, { message: 'User input malformed' });
  res = await call(base, 'POST', `/auth/login_flow/${flowId}`, { client_id: CLIENT_ID, username: 'a', password: 1 });
  t.same(res.json, { message: 'User input malformed' });
  res = await call(base, 'POST', '/auth/login_flow/0123', { client_id: CLIENT_ID, username: 'a', password: 'b' });
  t.equal(res.status, 404);

  res = await call(base, 'DELETE', `/auth/login_flow/${flowId}`);
  t.equal(res.status, 200);
  t.same(res.json, { message: 'Flow aborted' });
  res = await call(base, 'DELETE', `/auth/login_flow/${flowId}`);
  t.equal(res.status, 404);
  t.same(res.json, { message: 'Invalid flow specified' });

  // newest behaviour: a redirect URI off the client's host is refused when the flow finishes
  res = await startFlow(base, { redirect_uri: 'https://evil.example/cb' });
  t.equal(res.status, 200);
  res = await call(base, 'POST', `/auth/login_flow/${res.json.flow_id}`, { client_id: CLIENT_ID, username: OWNER.username, password: OWNER.password });
  t.equal(res.status, 403);
  t.same(res.json, { message: 'Invalid redirect URI' });
});

t.test('a redirect URI listed on the client page is accepted', async (t) => {
  const pages: string[] = [];
  const { base } = await startAuthServer(t, {
    config: {
      fetchPage: async (url) => {
        pages.push(url);
        return '<html><head><link rel="redirect_uri" href="myapp://callback"></head></html>';
      },
    },
  });
  await onboardOwner(base);
  const clientId = 'https://app.example/';
  let res = await call(base, 'POST', '/auth/login_flow', { client_id: clientId, handler: ['core', null], redirect_uri: 'myapp://callback' });
  res = await call(base, 'POST', `/auth/login_flow/${res.json.flow_id}`, { client_id: clientId, username: OWNER.username, password: OWNER.password });
  t.equal(res.status, 200);
  t.equal(res.json.type, 'create_entry');
  t.same(pages, [clientId]);
});

t.test('revoking a refresh token kills its access tokens at once', async (t) => {
  const { base, auth } = await startAuthServer(t);
  const revoked: string[] = [];
  auth.onRefreshTokenRevoked((id) => revoked.push(id));
  const first = (await exchange(base, await onboardOwner(base))).json;
  const second = (await exchange(base, (await login(base, OWNER.username, OWNER.password)).json.result)).json;

  // warm the verified-token cache so the revocation has to get past it
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${first.access_token}`)).status, 200);
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${first.access_token}`)).status, 200);
  const rtId = auth.validateAccessToken(first.access_token)!.refreshTokenId;

  let res = await postForm(base, '/auth/revoke', { token: first.refresh_token });
  t.equal(res.status, 200);
  t.equal(res.text, '');
  t.same(revoked, [rtId], 'listeners hear of it after the commit');
  res = await getWith(base, '/api/test/whoami', `Bearer ${first.access_token}`);
  t.equal(res.status, 401);
  t.equal(res.text, '401: Unauthorized');
  res = await postForm(base, '/auth/token', { grant_type: 'refresh_token', refresh_token: first.refresh_token, client_id: CLIENT_ID });
  t.equal(res.text, '{"error":"invalid_grant"}');

  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${second.access_token}`)).status, 200, 'other tokens live on');
  res = await postForm(base, '/auth/token', { action: 'revoke', token: second.refresh_token });
  t.equal(res.status, 200, 'the deprecated action=revoke');
  t.equal(res.text, '');
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${second.access_token}`)).status, 401);

  res = await postForm(base, '/auth/revoke', { token: 'not-a-token' });
  t.equal(res.status, 200, 'unknown tokens still get 200');
  res = await postForm(base, '/auth/revoke', {});
  t.equal(res.status, 200);
});

t.test('the Authorization header must be exactly `Bearer <token>`', async (t) => {
  const { base } = await startAuthServer(t);
  const { access_token } = (await exchange(base, await onboardOwner(base))).json;
  t.equal((await getWith(base, '/api/test/whoami')).status, 401);
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${access_token}`)).status, 200);
  t.equal((await getWith(base, '/api/test/whoami', `bearer ${access_token}`)).status, 401);
  t.equal((await getWith(base, '/api/test/whoami', `BEARER ${access_token}`)).status, 401);
  t.equal((await getWith(base, '/api/test/whoami', `Bearer  ${access_token}`)).status, 401);
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${access_token}x`)).status, 401);
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${'a'.repeat(8000)}`)).status, 401);
  // past 8,190 bytes the header field itself is refused, as the original's HTTP layer does
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${'a'.repeat(9000)}`)).status, 400);
  const [h, p] = access_token.split('.');
  const forged = JSON.parse(Buffer.from(p, 'base64url').toString());
  forged.exp += 3600;
  t.equal((await getWith(base, '/api/test/whoami', `Bearer ${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${access_token.split('.')[2]}`)).status, 401);
});
