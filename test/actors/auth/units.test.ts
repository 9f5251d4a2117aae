import t from 'tap';
import { createActor, fromPromise, initialTransition, transition, waitFor } from 'xstate';
import { findRedirectUris, isLocalAddress, verifyClientId, verifyRedirectUri } from '../../../actors/auth/client-id.ts';
import { createPasswordHasher } from '../../../actors/auth/passwords.ts';
import { AccessTokens } from '../../../actors/auth/jwt.ts';
import { AuthCodes } from '../../../actors/auth/codes.ts';
import { manualClock, sequentialIds } from '../../../actors/clock.ts';
import { loginFlowMachine, type CredentialCheck, type VerifiedCredential } from '../../../machines/login-flow.machine.ts';
import { REFRESH_TOKEN_EXPIRATION_MS, refreshTokenMachine } from '../../../machines/refresh-token.machine.ts';
import { userMachine } from '../../../machines/user.machine.ts';
import { TEST_SCRYPT } from './harness.ts';

t.test('client id rules', async (t) => {
  const table: Array<[string, boolean]> = [
    ['http://www.home-assistant.io/', true],
    ['https://ex.com', true],
    ['http://ex.com:8080/app', true],
    ['http://[::1]', true],
    ['http://127.0.0.1', true],
    ['http://10.0.0.0', true],
    ['http://10.255.255.255', true],
    ['http://172.16.0.0', true],
    ['http://172.31.255.255', true],
    ['http://192.168.0.0', true],
    ['http://192.168.255.255', true],
    ['http://255.255.255.255/', false],
    ['http://11.0.0.0/', false],
    ['http://172.32.0.0/', false],
    ['http://192.167.0.0/', false],
    ['ftp://ex.com/', false],
    ['ex.com', false],
    ['http://ex.com/hello/.world', true],
    ['http://ex.com/hello./.world', true],
    ['http://ex.com/.', false],
    ['http://ex.com/hello/./yo', false],
    ['http://ex.com/hello/../yo', false],
    ['http://ex.com/#yoo', false],
    ['http://user@ex.com/', false],
    ['http://user:pass@ex.com/', false],
    ['http://ex.com:port/', false],
    ['http://ex.com:99999/', false],
    // the original checks the netloc with its port, so a public IP with a port passes
    ['http://203.0.113.5:8123/', true],
  ];
  for (const [id, valid] of table) t.equal(verifyClientId(id), valid, id);
  t.equal(verifyClientId(undefined), false);
});

t.test('local addresses', async (t) => {
  for (const ip of ['127.0.0.1', '::1', '10.1.2.3', '172.20.0.1', '192.168.1.10', '169.254.0.1', 'fd00::1', 'fe80::1', '::ffff:192.168.1.1'])
    t.ok(isLocalAddress(ip), ip);
  for (const ip of ['8.8.8.8', '2001:db8::1', '::ffff:8.8.8.8', 'not-an-ip', '']) t.notOk(isLocalAddress(ip), ip);
});

t.test('redirect URIs', async (t) => {
  const noFetch = async () => {
    throw new Error('must not fetch');
  };
  t.ok(await verifyRedirectUri('http://ex.com/', 'http://ex.com/cb?x=1', noFetch), 'same scheme and host');
  t.ok(await verifyRedirectUri('http://EX.com:8123/', 'http://ex.COM:8123/', noFetch), 'host compared lower-cased');
  t.ok(await verifyRedirectUri('https://home-assistant.io/iOS', 'homeassistant://auth-callback', noFetch));
  t.ok(await verifyRedirectUri('https://home-assistant.io/android', 'https://wear.googleapis.com/3p_auth/io.homeassistant.companion.android', noFetch));
  t.notOk(await verifyRedirectUri('not a url', 'http://ex.com/', noFetch));

  const page = `<!doctype html><link rel="redirect_uri" href="/callback"><link rel="stylesheet" href="/x.css">
    <link rel='redirect_uri' href='app://done'><link rel="redirect_uri me" href="https://no.example/">`;
  t.same(findRedirectUris(page, 'https://app.example/start'), ['https://app.example/callback', 'app://done']);
  const fetched: string[] = [];
  const fetchPage = async (url: string, limit: number) => {
    fetched.push(`${url} ${limit}`);
    return page;
  };
  t.ok(await verifyRedirectUri('https://app.example/start', 'app://done', fetchPage));
  t.notOk(await verifyRedirectUri('https://app.example/start', 'https://no.example/', fetchPage));
  t.same(fetched, ['https://app.example/start 10240', 'https://app.example/start 10240']);
  t.notOk(await verifyRedirectUri('https://app.example/', 'app://done', async () => ''), 'an unreachable page lists nothing');

  // a client metadata document (JSON) names its redirect URIs itself
  const doc = JSON.stringify({ client_id: 'https://mcp.example/client.json', client_name: 'An agent', redirect_uris: ['https://mcp.example/cb', 42] });
  t.ok(await verifyRedirectUri('https://mcp.example/client.json', 'https://mcp.example/cb', async () => doc));
  t.ok(await verifyRedirectUri('https://mcp.example/client.json', 'https://other.example/cb', async () => JSON.stringify({ client_id: 'https://mcp.example/client.json', redirect_uris: ['https://other.example/cb'] })), 'another host, listed');
  t.notOk(await verifyRedirectUri('https://mcp.example/client.json', 'https://evil.example/cb', async () => doc), 'not listed');
  t.notOk(
    await verifyRedirectUri('https://mcp.example/client.json', 'https://evil.example/cb', async () => JSON.stringify({ client_id: 'https://evil.example/c.json', redirect_uris: ['https://evil.example/cb'] })),
    "a document for another client id vouches for nothing",
  );
  const far = JSON.stringify({ client_id: 'https://mcp.example/client.json', redirect_uris: ['https://other.example/cb'] });
  t.notOk(await verifyRedirectUri('https://mcp.example/client.json', 'https://other.example/cb', async () => far.slice(0, -2)), 'a cut document is not read');
});

t.test('passwords', async (t) => {
  const hasher = createPasswordHasher(TEST_SCRYPT);
  const one = await hasher.hash('secret');
  const two = await hasher.hash('secret');
  t.match(one, /^scrypt\$4096\$8\$1\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/);
  t.not(one, two, 'every hash has its own salt');
  t.notOk(one.includes('secret'));
  t.ok(await hasher.verify('secret', one));
  t.ok(await hasher.verify('secret', two));
  t.notOk(await hasher.verify('Secret', one));
  t.notOk(await hasher.verify('secret', 'garbage'));
  t.notOk(await hasher.verify('secret', 'scrypt$4096$8$1$AAAA$AAAA'));
  await hasher.burn('whatever');
  t.pass('burning a check for an unknown user resolves');
});

t.test('access tokens', async (t) => {
  const tokens = new AccessTokens(2);
  const rt = { id: 'a'.repeat(32), jwtKey: 'b'.repeat(128) };
  const other = { id: 'c'.repeat(32), jwtKey: 'd'.repeat(128) };
  let live: Record<string, typeof rt> = { [rt.id]: rt, [other.id]: other };
  const lookup = (id: string) => live[id];
  const iat = 1_700_000_000;
  const jwt = tokens.sign(rt, iat, iat + 1800);
  const [, payload] = jwt.split('.');
  t.same(JSON.parse(Buffer.from(payload, 'base64url').toString()), { iss: rt.id, iat, exp: iat + 1800 });

  t.same(tokens.verify(jwt, iat * 1000, lookup), { iss: rt.id, iat, exp: iat + 1800 });
  t.ok(tokens.verify(jwt, (iat + 1800 + 9) * 1000, lookup), 'within the 10 s leeway after exp');
  t.notOk(tokens.verify(jwt, (iat + 1800 + 10) * 1000, lookup), 'expired past the leeway (cached entry too)');
  t.notOk(tokens.verify(jwt, (iat - 11) * 1000, lookup), 'issued in the future');
  t.ok(tokens.verify(jwt, (iat - 9) * 1000, lookup));

  const foreign = tokens.sign({ id: rt.id, jwtKey: other.jwtKey }, iat, iat + 1800);
  t.notOk(tokens.verify(foreign, iat * 1000, lookup), 'signed with another key');
  const wrongIss = tokens.sign(other, iat, iat + 1800).split('.');
  const swapped = [wrongIss[0], Buffer.from(JSON.stringify({ iss: rt.id, iat, exp: iat + 1800 })).toString('base64url'), wrongIss[2]].join('.');
  t.notOk(tokens.verify(swapped, iat * 1000, lookup));
  t.notOk(tokens.verify('x'.repeat(8193), iat * 1000, lookup), 'too long');
  t.notOk(tokens.verify('not.a.jwt', iat * 1000, lookup));
  const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${payload}.`;
  t.notOk(tokens.verify(none, iat * 1000, lookup), 'alg none');

  t.ok(tokens.verify(jwt, iat * 1000, lookup));
  live = { [other.id]: other };
  t.notOk(tokens.verify(jwt, iat * 1000, lookup), 'a cached token dies with its refresh token');
});

t.test('authorization codes', async (t) => {
  const clock = manualClock(1_000_000);
  const codes = new AuthCodes(clock, sequentialIds());
  const code = codes.create('http://a/', 'cred1');
  t.equal(codes.take('http://b/', code), undefined, 'another client');
  clock.advance(10 * 60 * 1000 - 1);
  t.equal(codes.take('http://a/', code), 'cred1', 'valid at 9:59.999');
  t.equal(codes.take('http://a/', code), undefined, 'single use');
  const late = codes.create('http://a/', 'cred2');
  clock.advance(10 * 60 * 1000);
  t.equal(codes.take('http://a/', late), undefined, 'expired at 10:00');
});

t.test('refresh token machine', async (t) => {
  const created = {
    id: 'r1',
    user_id: 'u1',
    client_id: 'http://a/',
    client_name: null,
    client_icon: null,
    token_type: 'normal' as const,
    created_at: 1000,
    access_token_expiration: 1800,
    expire_at: 1000 + REFRESH_TOKEN_EXPIRATION_MS,
    credential_id: 'c1',
    version: 'x',
  };
  let [s] = initialTransition(refreshTokenMachine, created);
  t.equal(s.value, 'active');
  [s] = transition(refreshTokenMachine, s, { type: 'refresh_token_used', last_used_at: 5000, last_used_ip: '127.0.0.1' });
  t.match(s.context, { lastUsedAt: 5000, lastUsedIp: '127.0.0.1', expireAt: 5000 + REFRESH_TOKEN_EXPIRATION_MS }, 'use slides the expiry');
  t.notOk(s.can({ type: 'refresh_token_used', last_used_at: 5000 + REFRESH_TOKEN_EXPIRATION_MS, last_used_ip: null }), 'expired');
  [s] = transition(refreshTokenMachine, s, { type: 'refresh_token_expiry_set', enable_expiry: false, at: 6000 });
  t.equal(s.context.expireAt, null);
  t.ok(s.can({ type: 'refresh_token_used', last_used_at: 1e15, last_used_ip: null }), 'no expiry, never expires');
  [s] = transition(refreshTokenMachine, s, { type: 'refresh_token_expiry_set', enable_expiry: true, at: 6000 });
  t.equal(s.context.expireAt, 5000 + REFRESH_TOKEN_EXPIRATION_MS, 'expiry counts from the last use');
  [s] = transition(refreshTokenMachine, s, { type: 'refresh_token_revoked' });
  t.equal(s.status, 'done');
  t.notOk(s.can({ type: 'refresh_token_used', last_used_at: 7000, last_used_ip: null }));
});

t.test('user machine', async (t) => {
  const created = { id: 'u1', name: 'N', is_owner: false, is_active: true, system_generated: false, local_only: false, group_ids: ['system-users'], created_at: 1 };
  let [s] = initialTransition(userMachine, created);
  t.equal(s.value, 'active');
  t.notOk(s.can({ type: 'user_activated' }));
  [s] = transition(userMachine, s, { type: 'user_deactivated' });
  t.equal(s.value, 'inactive');
  [s] = transition(userMachine, s, { type: 'user_updated', group_ids: ['system-admin'], name: 'M' });
  t.match(s.context, { name: 'M', groupIds: ['system-admin'] });
  [s] = transition(userMachine, s, { type: 'user_owner_set', is_owner: true });
  t.equal(s.context.isOwner, true);
  t.equal(initialTransition(userMachine, { ...created, is_active: false })[0].value, 'inactive');
  const [sys] = initialTransition(userMachine, { ...created, system_generated: true });
  t.notOk(sys.can({ type: 'user_owner_set', is_owner: true }), 'a system user is never owner');
});

t.test('login flow machine', async (t) => {
  const good: VerifiedCredential = { credentialId: 'c1', userId: 'u1', mfaModules: [] };
  const seen: Array<Record<string, string>> = [];
  const machine = (credential: VerifiedCredential, validCode = '123456') =>
    loginFlowMachine.provide({
      actors: {
        verifyCredentials: fromPromise<CredentialCheck, { flowId: string; fields: Record<string, string> }>(async ({ input }) => {
          seen.push(input.fields);
          return input.fields.password === 'right' ? credential : null;
        }),
        verifyMfaCode: fromPromise(async ({ input }: { input: { userId: string | null; module: string; code: string } }) => input.code === validCode),
      },
    });
  const settle = (a: ReturnType<typeof createActor<typeof loginFlowMachine>>) => waitFor(a, (s) => s.status !== 'active' || s.hasTag('form'));

  const flow = createActor(machine(good), { input: { flowId: 'f', startedAt: 0 } }).start();
  t.ok(flow.getSnapshot().matches('init'));
  flow.send({ type: 'submit', input: { username: 'u', password: 'wrong' }, at: 1 });
  let s = await settle(flow);
  t.ok(s.matches('init'));
  t.same(s.context.errors, { base: 'invalid_auth' });
  t.equal(s.context.username, 'u');
  t.notOk(JSON.stringify(s.context).includes('wrong'), 'the password never enters the context');
  flow.send({ type: 'submit', input: { username: 'u', password: 'right' }, at: 2 });
  s = await settle(flow);
  t.equal(s.status, 'done');
  t.same(s.output, { credential: good });
  t.same(seen, [
    { username: 'u', password: 'wrong' },
    { username: 'u', password: 'right' },
  ]);

  const mfa = createActor(machine({ ...good, mfaModules: ['totp'] }), { input: { flowId: 'g', startedAt: 0 } }).start();
  mfa.send({ type: 'submit', input: { username: 'u', password: 'right' }, at: 1 });
  s = await settle(mfa);
  t.ok(s.matches('mfa'), 'a user with an MFA module gets the mfa step');
  t.equal(s.context.mfaModule, 'totp');
  mfa.send({ type: 'submit', input: { code: '000000' }, at: 2 });
  s = await settle(mfa);
  t.same(s.context.errors, { base: 'invalid_code' });
  mfa.send({ type: 'submit', input: { code: '123456' }, at: 3 });
  s = await settle(mfa);
  t.same(s.output, { credential: { ...good, mfaModules: ['totp'] } });

  const retries = createActor(machine({ ...good, mfaModules: ['totp'] }), { input: { flowId: 'h', startedAt: 0 } }).start();
  retries.send({ type: 'submit', input: { username: 'u', password: 'right' }, at: 1 });
  await settle(retries);
  for (let i = 0; i < 5; i++) {
    retries.send({ type: 'submit', input: { code: 'bad' }, at: 2 });
    s = await settle(retries);
  }
  t.same(s.output, { abortReason: 'too_many_retry' });

  const slow = createActor(machine({ ...good, mfaModules: ['totp'] }), { input: { flowId: 'i', startedAt: 0 } }).start();
  slow.send({ type: 'submit', input: { username: 'u', password: 'right' }, at: 1 });
  await settle(slow);
  slow.send({ type: 'submit', input: { code: '123456' }, at: 5 * 60 * 1000 + 1 });
  s = await settle(slow);
  t.same(s.output, { abortReason: 'login_expired' });
});
