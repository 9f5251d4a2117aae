// The configured auth providers end to end over HTTP on a real Hearth: trusted_networks (user
// picker, bypass, proxies, refresh re-check), command_line (a real program, its meta lines),
// insecure_example, several at once, and link_user.
import t from 'tap';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CLIENT_ID, api, dataDirWith, onboard, startTestHearth } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { validateCore } from '../../../actors/core/core-section.ts';
import { totpCode } from '../../../actors/auth/totp.ts';

const REDIRECT_URI = `${CLIENT_ID}?auth_callback=1`;

async function post(base: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: any;
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = text;
  }
  return { status: res.status, json };
}

async function form(base: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${base}/auth/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(fields).toString(),
  });
  return { status: res.status, json: await res.json().catch(() => undefined) };
}

async function startFlow(base: string, handler: [string, string | null], headers: Record<string, string> = {}, type = 'authorize') {
  return post(base, '/auth/login_flow', { client_id: CLIENT_ID, handler, redirect_uri: REDIRECT_URI, type }, headers);
}

/** Logs in with a provider whose init form takes `fields`; the last step and the token answer. */
async function login(base: string, handler: [string, string | null], fields: Record<string, string>, headers: Record<string, string> = {}) {
  const started = await startFlow(base, handler, headers);
  const step = await post(base, `/auth/login_flow/${started.json.flow_id}`, { client_id: CLIENT_ID, ...fields }, headers);
  if (step.json?.type !== 'create_entry') return { step, token: undefined };
  const token = await form(base, { grant_type: 'authorization_code', code: step.json.result, client_id: CLIENT_ID }, headers);
  return { step, token };
}

async function currentUser(base: string, accessToken: string) {
  const c = await authedClient(base, accessToken);
  try {
    c.send({ id: 1, type: 'auth/current_user' });
    return (await c.until((m: any) => m.id === 1)).result;
  } finally {
    c.ws.close();
  }
}

t.test('auth_providers is checked as the original checks it, with errors that name the problem', async (t) => {
  const refused = (providers: unknown, pattern: RegExp) => t.throws(() => validateCore({ auth_providers: providers }), pattern);
  refused([{ type: 'ldap' }], /auth_providers: Unable to load auth provider ldap/);
  refused([{ name: 'x' }], /required key not provided @ data\['type'\]/);
  refused([{ type: 'core', id: 'second' }], /ID is not allowed for the core auth provider/);
  refused([{ type: 'core' }, { type: 'core' }], /Duplicate auth provider core found/);
  refused([{ type: 'command_line', command: 'check.sh' }], /command must be an absolute path/);
  refused([{ type: 'command_line' }], /required key not provided @ data\['command'\]/);
  refused([{ type: 'trusted_networks' }], /required key not provided @ data\['trusted_networks'\]/);
  refused([{ type: 'trusted_networks', trusted_networks: ['10.0.0.1/8'] }], /invalid IP network/);
  refused([{ type: 'trusted_networks', trusted_networks: ['10.0.0.0/8'], trusted_users: { '10.0.0.0/8': [42] } }], /expected a user id or \{group/);
  refused([{ type: 'insecure_example', users: [{ username: 'a' }] }], /\['users'\]\[0\]\['password'\]/);
  refused([{ type: 'insecure_example', users: [], colour: 'red' }], /extra keys not allowed @ data\['colour'\]/);
  const ok = validateCore({
    auth_providers: [
      { type: 'core' },
      { type: 'trusted_networks', trusted_networks: '192.168.0.0/16', trusted_users: { '192.168.1.0/24': ['abc', { group: 'system-users' }] }, allow_bypass_login: 'yes' },
      { type: 'trusted_networks', id: 'second', trusted_networks: ['10.0.0.0/8'] },
    ],
  });
  t.same(validateCore(ok), ok, 'checking a checked section again changes nothing');
  t.same((ok.auth_providers as any[])[1], {
    type: 'trusted_networks',
    trusted_networks: ['192.168.0.0/16'],
    trusted_users: { '192.168.1.0/24': ['abc', { group: ['system-users'] }] },
    allow_bypass_login: true,
  });
  const dataDir = await dataDirWith('core:\n  auth_providers:\n    - type: nope\n');
  await t.rejects(startTestHearth(t, { dataDir }), /auth_providers: Unable to load auth provider nope/, 'Hearth refuses to start with it');
});

t.test('trusted_networks: listed and usable only from a trusted address, never through a proxy', async (t) => {
  const config = [
    'http:',
    '  use_x_forwarded_for: true',
    '  trusted_proxies: 127.0.0.1/32',
    'core:',
    '  auth_providers:',
    '    - type: core',
    '    - type: trusted_networks',
    '      trusted_networks: [127.0.0.0/8, 192.168.0.0/16]',
  ].join('\n');
  const h = await startTestHearth(t, { config });
  const owner = await onboard(h.base);
  const from = (ip: string) => ({ 'X-Forwarded-For': ip });

  const providers = async (headers: Record<string, string>) => (await (await fetch(`${h.base}/auth/providers`, { headers })).json()).providers;
  t.same(await providers(from('192.168.1.5')), [
    { name: 'Hearth Local', id: null, type: 'core' },
    { name: 'Trusted Networks', id: null, type: 'trusted_networks' },
  ]);
  t.same(await providers(from('8.8.8.8')), [{ name: 'Hearth Local', id: null, type: 'core' }], 'an untrusted address sees core only');
  t.same(await providers({}), [{ name: 'Hearth Local', id: null, type: 'core' }], 'the proxy itself is not trusted');

  const refusedHere = await startFlow(h.base, ['trusted_networks', null], from('8.8.8.8'));
  t.equal(refusedHere.status, 200);
  t.match(refusedHere.json, { type: 'abort', handler: ['trusted_networks', null], reason: 'not_allowed', description_placeholders: null });
  t.match((await startFlow(h.base, ['trusted_networks', null])).json, { type: 'abort', reason: 'not_allowed' }, 'from the proxy: refused');

  const me = await currentUser(h.base, owner.access_token);
  const picker = await startFlow(h.base, ['trusted_networks', null], from('192.168.1.5'));
  t.match(picker.json, { type: 'form', step_id: 'init', errors: {} });
  t.same(picker.json.data_schema, [{ type: 'select', options: [[me.id, 'Owner']], name: 'user', required: true }], 'a user picker, without bypass');
  const wrong = await post(h.base, `/auth/login_flow/${picker.json.flow_id}`, { client_id: CLIENT_ID, user: 'nobody' }, from('192.168.1.5'));
  t.same(wrong, { status: 400, json: { message: 'User input malformed' } }, 'a user not offered is malformed input');
  const done = await post(h.base, `/auth/login_flow/${picker.json.flow_id}`, { client_id: CLIENT_ID, user: me.id }, from('192.168.1.5'));
  t.match(done.json, { type: 'create_entry', title: 'Trusted Networks', handler: ['trusted_networks', null] });
  const token = await form(h.base, { grant_type: 'authorization_code', code: done.json.result, client_id: CLIENT_ID }, from('192.168.1.5'));
  t.equal(token.status, 200);
  t.equal(token.json.core_auth_provider, 'trusted_networks');
  const who = await currentUser(h.base, token.json.access_token);
  t.equal(who.id, me.id, 'logged in as the picked user');
  t.same(
    who.credentials.map((c: any) => c.auth_provider_type).sort(),
    ['core', 'trusted_networks'],
    'the flow linked a trusted_networks credential to that user',
  );

  const refresh = (ip: string) => form(h.base, { grant_type: 'refresh_token', refresh_token: token.json.refresh_token, client_id: CLIENT_ID }, from(ip));
  t.equal((await refresh('192.168.7.7')).status, 200, 'refreshed from a trusted address');
  t.same(await refresh('8.8.8.8'), { status: 403, json: { error: 'access_denied', error_description: 'Not in trusted_networks' } });
  const viaProxy = await form(h.base, { grant_type: 'refresh_token', refresh_token: token.json.refresh_token, client_id: CLIENT_ID });
  t.same(viaProxy.json, { error: 'access_denied', error_description: "Can't allow access from a proxy server" });

  // a second login picks the same credential: no second one is linked
  const again = await login(h.base, ['trusted_networks', null], { user: me.id }, from('192.168.1.6'));
  t.equal(again.token?.status, 200);
  t.equal((await currentUser(h.base, again.token!.json.access_token)).credentials.length, 2);
});

t.test('trusted_networks: trusted_users narrows the picker per network, and allow_bypass_login skips it', async (t) => {
  const dataDir = await dataDirWith();
  const h = await startTestHearth(t, { dataDir });
  const owner = await onboard(h.base);
  const c = await authedClient(h.base, owner.access_token);
  c.send({ id: 1, type: 'config/auth/create', name: 'Kid', group_ids: ['system-users'] });
  const kid = (await c.until((m: any) => m.id === 1)).result.user;
  c.ws.close();
  const ownerId = (await currentUser(h.base, owner.access_token)).id;
  await h.hearth.stop();

  const config = [
    'core:',
    '  auth_providers:',
    '    - type: trusted_networks',
    '      trusted_networks: 127.0.0.1/32',
    '      allow_bypass_login: true',
    '      trusted_users:',
    '        127.0.0.1/32: [{ group: system-users }]',
  ].join('\n');
  await writeFile(join(dataDir, 'configuration.yaml'), config + '\n');
  const h2 = await startTestHearth(t, { dataDir });
  const bypass = await startFlow(h2.base, ['trusted_networks', null]);
  t.match(bypass.json, { type: 'create_entry', title: 'Trusted Networks' }, 'one candidate and bypass: finished at once');
  const token = await form(h2.base, { grant_type: 'authorization_code', code: bypass.json.result, client_id: CLIENT_ID });
  const who = await currentUser(h2.base, token.json.access_token);
  t.equal(who.id, kid.id, 'the only user of the group the network allows');
  t.not(who.id, ownerId);
});

/** A command_line program: accepts alice/s3cret (printing meta lines) and bob/pw; proves its environment holds nothing else. */
async function checker(dir: string): Promise<string> {
  const path = join(dir, 'check-login.sh');
  await writeFile(
    path,
    [
      '#!/bin/sh',
      '[ -z "$HOME" ] || exit 3',
      'if [ "$username" = "alice" ] && [ "$password" = "s3cret" ]; then',
      '  echo "# meta for Hearth"',
      '  echo "name = Alice Liddell"',
      '  echo "  group = system-users"',
      '  echo "colour = blue"',
      '  echo "local_only = false"',
      '  exit 0',
      'fi',
      '[ "$username" = "bob" ] && [ "$password" = "pw" ] && exit 0',
      'exit 1',
      '',
    ].join('\n'),
  );
  await chmod(path, 0o755);
  return path;
}

t.test('command_line: the program decides, its meta lines make the new user, MFA still applies', async (t) => {
  const dataDir = await dataDirWith();
  const script = await checker(dataDir);
  const config = ['core:', '  auth_providers:', '    - type: core', '    - type: command_line', `      command: ${script}`, '      meta: true'].join('\n');
  await writeFile(join(dataDir, 'configuration.yaml'), config + '\n');
  const h = await startTestHearth(t, { dataDir });
  await onboard(h.base);

  const bad = await login(h.base, ['command_line', null], { username: 'alice', password: 'nope' });
  t.match(bad.step.json, { type: 'form', step_id: 'init', errors: { base: 'invalid_auth' } });
  t.ok(h.lines.some((l) => /User "alice" failed to authenticate: command exited with code 1/.test(l)), 'the refusal is logged');
  t.notOk(h.lines.some((l) => l.includes('nope')), 'never the password');

  const first = await login(h.base, ['command_line', null], { username: '  alice ', password: 's3cret' });
  t.match(first.step.json, { type: 'create_entry', title: 'Command Line Authentication', handler: ['command_line', null] });
  t.equal(first.token?.status, 200);
  t.equal(first.token!.json.core_auth_provider, 'command_line');
  const alice = await currentUser(h.base, first.token!.json.access_token);
  t.match(alice, { name: 'Alice Liddell', is_owner: false, is_admin: false, credentials: [{ auth_provider_type: 'command_line', auth_provider_id: null }] });

  const second = await login(h.base, ['command_line', null], { username: 'alice', password: 's3cret' });
  t.equal((await currentUser(h.base, second.token!.json.access_token)).id, alice.id, 'the next login is the same user');

  const bob = await login(h.base, ['command_line', null], { username: 'bob', password: 'pw' });
  const bobUser = await currentUser(h.base, bob.token!.json.access_token);
  t.match(bobUser, { name: null, is_admin: true }, 'no meta lines: no name, and the original default group (administrators)');

  // a second factor is layered on this provider like on any other
  const c = await authedClient(h.base, second.token!.json.access_token);
  c.send({ id: 1, type: 'auth/setup_mfa', mfa_module_id: 'totp' });
  const setup = (await c.until((m: any) => m.id === 1)).result;
  c.send({ id: 2, type: 'auth/setup_mfa', flow_id: setup.flow_id, user_input: { code: totpCode(setup.description_placeholders.code, Date.now()) } });
  t.match((await c.until((m: any) => m.id === 2)).result, { type: 'create_entry' });
  c.ws.close();
  const withMfa = await login(h.base, ['command_line', null], { username: 'alice', password: 's3cret' });
  t.match(withMfa.step.json, { type: 'form', step_id: 'mfa', description_placeholders: { mfa_module_id: 'totp' } });
});

t.test('command_line: a program that cannot run refuses the login with a line that says why', async (t) => {
  const config = ['core:', '  auth_providers:', '    - type: command_line', '      command: /nonexistent/check'].join('\n');
  const h = await startTestHearth(t, { config });
  await onboard(h.base);
  const tried = await login(h.base, ['command_line', null], { username: 'x', password: 'y' });
  t.match(tried.step.json, { type: 'form', errors: { base: 'invalid_auth' } });
  t.ok(h.lines.some((l) => /cannot run the command/.test(l)));
  t.equal((await startFlow(h.base, ['core', null])).status, 404, 'core is not configured here: its handler is unknown');
});

t.test('insecure_example: users from the configuration, and a warning at start', async (t) => {
  const config = [
    'core:',
    '  auth_providers:',
    '    - type: insecure_example',
    '      name: Dev users',
    '      users:',
    '        - username: test',
    '          password: pass',
    '          name: Test User',
  ].join('\n');
  const h = await startTestHearth(t, { config });
  await onboard(h.base);
  t.ok(h.lines.some((l) => /insecure_example is enabled.*development only/.test(l)));
  const listed = await (await fetch(`${h.base}/auth/providers`)).json();
  t.same(listed.providers, [{ name: 'Dev users', id: null, type: 'insecure_example' }]);
  t.match((await login(h.base, ['insecure_example', null], { username: 'test', password: 'nope' })).step.json, { errors: { base: 'invalid_auth' } });
  t.match((await login(h.base, ['insecure_example', null], { username: 'nobody', password: 'pass' })).step.json, { errors: { base: 'invalid_auth' } });
  const ok = await login(h.base, ['insecure_example', null], { username: 'test', password: 'pass' });
  t.match(ok.step.json, { type: 'create_entry', title: 'Dev users' });
  t.match(await currentUser(h.base, ok.token!.json.access_token), { name: 'Test User', is_admin: true, is_owner: false });
});

t.test('link_user: a credential from a link_user flow is attached to the caller', async (t) => {
  const config = [
    'core:',
    '  auth_providers:',
    '    - type: core',
    '    - type: insecure_example',
    '      users:',
    '        - { username: dev, password: devpass }',
    '        - { username: other, password: otherpass }',
  ].join('\n');
  const h = await startTestHearth(t, { config });
  const owner = await onboard(h.base);
  const ownerId = (await currentUser(h.base, owner.access_token)).id;
  const bearer = { Authorization: `Bearer ${owner.access_token}` };

  const linkFlow = async (username: string, password: string) => {
    const started = await startFlow(h.base, ['insecure_example', null], {}, 'link_user');
    const step = await post(h.base, `/auth/login_flow/${started.json.flow_id}`, { client_id: CLIENT_ID, username, password });
    t.equal(step.json.type, 'create_entry');
    return step.json.result as string;
  };

  const code = await linkFlow('dev', 'devpass');
  t.equal((await post(h.base, '/auth/link_user', { client_id: CLIENT_ID, code })).status, 401, 'a bearer token is required');
  t.same(await post(h.base, '/auth/link_user', { client_id: 'http://other.example/', code }, bearer), { status: 400, json: { message: 'Invalid code' } }, 'the code belongs to its client');
  t.same(await post(h.base, '/auth/link_user', { client_id: CLIENT_ID, code: 'f00d' }, bearer), { status: 400, json: { message: 'Invalid code' } });
  t.same(await post(h.base, '/auth/link_user', { client_id: CLIENT_ID, code }, bearer), { status: 200, json: { message: 'User linked' } });
  t.same(await post(h.base, '/auth/link_user', { client_id: CLIENT_ID, code }, bearer), { status: 400, json: { message: 'Invalid code' } }, 'a code is used once');

  const me = await currentUser(h.base, owner.access_token);
  t.same(me.credentials.map((c: any) => c.auth_provider_type).sort(), ['core', 'insecure_example']);
  const viaDev = await login(h.base, ['insecure_example', null], { username: 'dev', password: 'devpass' });
  t.equal((await currentUser(h.base, viaDev.token!.json.access_token)).id, ownerId, 'logging in as dev now is the owner');

  const same = await linkFlow('dev', 'devpass');
  t.same(await post(h.base, '/auth/link_user', { client_id: CLIENT_ID, code: same }, bearer), { status: 200, json: { message: 'User linked' } }, 'linking again to the same user is a no-op');

  // `other` logs in first (becoming a user of its own); linking it to the owner is refused
  const other = await login(h.base, ['insecure_example', null], { username: 'other', password: 'otherpass' });
  t.equal(other.token?.status, 200);
  const taken = await linkFlow('other', 'otherpass');
  t.same(await post(h.base, '/auth/link_user', { client_id: CLIENT_ID, code: taken }, bearer), { status: 400, json: { message: 'Credential already linked' } });
  t.same((await post(h.base, '/auth/link_user', { client_id: CLIENT_ID }, bearer)).json, { message: "Message format incorrect: required key not provided @ data['code']" });

  const call = api(h.base, owner.access_token);
  t.equal((await call('GET', '/api/')).status, 200, 'the owner token still works');
});
