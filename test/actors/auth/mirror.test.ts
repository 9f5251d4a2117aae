// Read replicas check the primary's access tokens with what it publishes under authpub/ (public
// keys, user access, revocations) and nothing secret: a real primary issues and revokes tokens,
// a MirroredAuth built from its authpub/ records (replayed, followed live, or from a snapshot)
// accepts and refuses them as the primary does.
import t from 'tap';
import { generateKeyPairSync } from 'node:crypto';
import { createSigner } from 'fast-jwt';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { exchange, login, onboardOwner, postForm, startAuthServer, CLIENT_ID } from './harness.ts';
import { MirroredAuth } from '../../../actors/auth/mirror.ts';
import { replayArea } from '../../../actors/restore.ts';
import { isExported } from '../../../actors/export/subjects.ts';
import { authMain } from '../../../bin/auth-cli.ts';
import type { EventLog } from '../../../store/types.ts';
import { openEventLog } from '../../../store/log.ts';
import { join } from 'node:path';
import { collect } from '../../helpers/log-records.ts';

const OWNER = { name: 'Ownername Zq', username: 'ownerlogin-zq', password: 'owner-password-canary-7781' };
const GROUPS = `core:
  auth_groups:
    - id: kids
      name: Kids
      policy:
        entities:
          entity_ids:
            input_boolean.kids_room: true
          domains:
            sensor:
              read: true
`;
const clock = { now: () => Date.now() };

let nextId = 1;
async function ask(c: RawClient, msg: Record<string, unknown>): Promise<any> {
  const id = nextId++;
  c.send({ id, ...msg });
  return c.until((m) => m.id === id && m.type === 'result');
}

const claims = (token: string) => JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
const b64 = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

// readStreams: by the per-stream index, as the mirror reads
const records = (log: EventLog, prefix = '') => (prefix ? collect(log.readStreams(prefix)) : collect(log.read()));

/** A replica's auth rebuilt from the primary's authpub/ records alone. */
async function replayed(log: EventLog): Promise<MirroredAuth> {
  const mirror = new MirroredAuth({ clock });
  await replayArea(log, mirror);
  return mirror;
}

/** A user made by the owner, with a password, logged in through the login flow. */
async function userIn(base: string, owner: RawClient, name: string, username: string, groupIds: string[]) {
  const created = await ask(owner, { type: 'config/auth/create', name, group_ids: groupIds });
  if (!created.success) throw new Error(`cannot create ${name}: ${JSON.stringify(created.error)}`);
  const id = created.result.user.id as string;
  const password = `${username}-password-canary`;
  await ask(owner, { type: 'config/auth_provider/homeassistant/create', user_id: id, username, password });
  const step = await login(base, username, password);
  const tokens = (await exchange(base, step.json.result)).json as { access_token: string; refresh_token: string };
  return { id, username, password, ...tokens };
}

t.test('a replica accepts the primary tokens and refuses revoked, deactivated and forged ones', async (t) => {
  const { hearth, base } = await startTestHearth(t, { config: GROUPS });
  const own = await onboard(base, OWNER);
  const owner = await authedClient(base, own.access_token);
  const kid = await userIn(base, owner, 'Kidname Zq', 'kidlogin-zq', ['kids']);
  const lazy = await userIn(base, owner, 'Lazyname Zq', 'lazylogin-zq', ['system-users']);

  t.match(own.access_token.split('.')[0], b64({ alg: 'EdDSA', typ: 'JWT' }), 'new access tokens are EdDSA JWTs');

  // a replica that replayed the log so far, and follows what is committed from now on
  const live = await replayed(hearth.log);
  live.follow(hearth.log);
  const heard: string[] = [];
  live.onRefreshTokenRevoked((id) => heard.push(id));

  const ownP = live.validateAccessToken(own.access_token);
  t.match(ownP, { isAdmin: true, isOwner: true, refreshTokenId: claims(own.access_token).iss });
  t.equal(ownP?.permissions.all, true, 'the owner may do everything');
  t.equal(live.authenticate(`Bearer ${own.access_token}`, undefined as never)?.userId, ownP?.userId);
  t.equal(live.authenticate(`bearer ${own.access_token}`, undefined as never), undefined, 'the scheme exactly');
  t.equal(live.authenticate(undefined, undefined as never), undefined);
  t.equal(live.hasUsers(), true);
  t.same(live.user(kid.id), { id: kid.id, isAdmin: false, isOwner: false, isActive: true });

  const kidP = live.validateAccessToken(kid.access_token)!;
  t.match(kidP, { userId: kid.id, isAdmin: false, isOwner: false });
  const perms = kidP.permissions;
  t.ok(perms.canControl('input_boolean.kids_room'), 'the group grants its entity');
  t.ok(perms.canRead('sensor.outside'));
  t.notOk(perms.canControl('sensor.outside'), 'sensors: read only');
  t.notOk(perms.canRead('input_boolean.porch'), 'nothing else');

  // a refresh mints a new access token of the same key
  const refreshed = await postForm(base, '/auth/token', { grant_type: 'refresh_token', refresh_token: kid.refresh_token, client_id: CLIENT_ID });
  t.equal(refreshed.status, 200);
  t.equal(live.validateAccessToken(refreshed.json.access_token)?.userId, kid.id, 'a refreshed token too');

  // forged tokens
  const { iss, iat, exp } = claims(kid.access_token);
  const other = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
  const published = (await records(hearth.log, `authpub/token/${iss}`)).at(-1)!.data as { public_key: string };
  const forged = {
    'another key': createSigner({ key: other, algorithm: 'EdDSA' })({ iss, iat, exp }),
    'alg none': `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ iss, iat, exp })}.`,
    'HS256 keyed by the raw public key': createSigner({ key: published.public_key, algorithm: 'HS256' })({ iss, iat, exp }),
    'HS256 keyed by the public key PEM': createSigner({ key: publicPem(published.public_key), algorithm: 'HS256' })({ iss, iat, exp }),
    'a changed payload': kid.access_token.replace(/\.[^.]+\./, `.${b64({ iss, iat, exp: exp + 3600 })}.`),
    'an unknown issuer': createSigner({ key: other, algorithm: 'EdDSA' })({ iss: 'nobody', iat, exp }),
    'garbage': 'not.a.jwt',
  };
  for (const [what, token] of Object.entries(forged)) {
    t.equal(live.validateAccessToken(token), undefined, `the replica refuses ${what}`);
    t.equal((await api(base, token)('GET', '/api/')).status, 401, `the primary refuses ${what}`);
  }

  // a change of groups reaches the permissions a replica handed out
  const updated = await ask(owner, { type: 'config/auth/update', user_id: kid.id, group_ids: [] });
  t.equal(updated.success, true);
  t.notOk(perms.canControl('input_boolean.kids_room'), 'no group: the same permissions object allows nothing now');

  // a deactivated user's token
  const lazyToken = claims(lazy.access_token).iss;
  t.ok(live.validateAccessToken(lazy.access_token));
  t.equal((await ask(owner, { type: 'config/auth/update', user_id: lazy.id, is_active: false })).success, true);
  t.equal(live.validateAccessToken(lazy.access_token), undefined, 'an inactive user is refused');
  t.equal((await api(base, lazy.access_token)('GET', '/api/')).status, 401, 'by the primary too');
  t.ok(heard.includes(lazyToken), 'the deactivation closes its sockets');
  t.same(live.user(lazy.id), { id: lazy.id, isAdmin: false, isOwner: false, isActive: false });

  // auth/delete_refresh_token over the WebSocket
  const kidSocket = await authedClient(base, kid.access_token);
  const kidToken = claims(kid.access_token).iss;
  // deleting the connection's own token answers first, then revokes it
  const kidRevoked = new Promise<void>((resolve) => live.onRefreshTokenRevoked((id) => id === kidToken && resolve()));
  t.equal((await ask(kidSocket, { type: 'auth/delete_refresh_token', refresh_token_id: kidToken })).success, true);
  await kidRevoked;
  t.equal(live.validateAccessToken(kid.access_token), undefined, 'a deleted refresh token: its access tokens are refused');
  t.equal(live.validateAccessToken(refreshed.json.access_token), undefined, 'all of them');
  t.ok(heard.includes(kidToken), 'the listeners heard of it');

  // POST /auth/revoke with the refresh token
  const second = await exchange(base, (await login(base, OWNER.username, OWNER.password)).json.result);
  t.ok(live.validateAccessToken(second.json.access_token));
  t.equal((await postForm(base, '/auth/revoke', { token: second.json.refresh_token })).status, 200);
  t.equal(live.validateAccessToken(second.json.access_token), undefined, 'a revoked refresh token');

  // deleting a user
  t.equal((await ask(owner, { type: 'config/auth/delete', user_id: lazy.id })).success, true);
  t.equal(live.user(lazy.id), undefined, 'a deleted user is gone');

  // a replica replaying the log now agrees, and so does one restored from a snapshot
  const fresh = await replayed(hearth.log);
  const restored = new MirroredAuth({ clock });
  restored.restore(JSON.parse(JSON.stringify(live.snapshot())));
  for (const [name, m] of Object.entries({ replayed: fresh, snapshot: restored })) {
    t.equal(m.validateAccessToken(own.access_token)?.userId, ownP?.userId, `${name}: the owner's token`);
    t.equal(m.validateAccessToken(kid.access_token), undefined, `${name}: the deleted token`);
    t.equal(m.validateAccessToken(second.json.access_token), undefined, `${name}: the revoked token`);
    t.equal(m.validateAccessToken(lazy.access_token), undefined, `${name}: the deleted user`);
    t.same(m.user(kid.id), { id: kid.id, isAdmin: false, isOwner: false, isActive: true });
  }

  // what the authpub/ records hold, exactly
  const pub = await records(hearth.log, 'authpub/');
  const shapes = new Map<string, string[]>([
    ['token_key_published', ['token_id', 'user_id', 'public_key', 'token_type', 'expire_at']],
    ['token_key_revoked', ['token_id']],
    ['user_access', ['user_id', 'is_active', 'is_admin', 'is_owner', 'local_only', 'policy']],
    ['user_access_removed', ['user_id']],
  ]);
  for (const r of pub) t.same(Object.keys(r.data as object), shapes.get(r.type), `${r.stream} ${r.type}`);
  t.same([...new Set(pub.map((r) => r.type))].sort(), [...shapes.keys()].sort(), 'every kind was written');
  const kidAccess = pub.filter((r) => r.stream === `authpub/user/${kid.id}`).map((r) => r.data);
  t.match(kidAccess[0], { is_active: true, is_admin: false, policy: { entities: { entity_ids: { 'input_boolean.kids_room': true } } } });
  t.same((kidAccess.at(-1) as { policy: unknown }).policy, {}, 'the groups change republished the policy');
  for (const r of pub) t.ok(isExported(r.stream), `${r.stream} is exported`);

  // nothing secret in what is exported: grep every exported record
  const all = await records(hearth.log);
  const secrets = new Set<string>([OWNER.password, kid.password, lazy.password, own.access_token, own.refresh_token, kid.access_token, kid.refresh_token]);
  for (const token of [lazy.access_token, lazy.refresh_token, refreshed.json.access_token, second.json.access_token, second.json.refresh_token]) secrets.add(token);
  for (const r of all) {
    const data = r.data as Record<string, unknown>;
    for (const key of ['password_hash', 'jwt_key', 'private_key', 'token']) if (typeof data?.[key] === 'string') secrets.add(data[key] as string);
  }
  t.ok([...secrets].some((s) => s.includes('PRIVATE KEY')), 'the private keys are among the secrets looked for');
  const exported = all.filter((r) => isExported(r.stream)).map((r) => JSON.stringify(r));
  t.ok(exported.length > pub.length);
  const leaks = [...secrets].filter((s) => exported.some((line) => line.includes(s) || line.includes(s.slice(0, 40))));
  t.same(leaks, [], 'no exported record holds a password, hash, key or token');
  const personal = [OWNER.name, OWNER.username, 'Kidname Zq', 'kidlogin-zq', 'Lazyname Zq', 'lazylogin-zq'];
  const pubText = pub.map((r) => JSON.stringify(r)).join('\n');
  t.same(personal.filter((p) => pubText.includes(p)), [], 'no name or username in authpub/');
});

t.test('users and tokens from before authpub/ are published once at start; legacy HS256 tokens keep working', async (t) => {
  const first = await startTestHearth(t);
  const own = await onboard(first.base, OWNER);
  const { log } = first.hearth;
  const ownerUser = (await records(log, 'auth/refresh_token/')).find((r) => r.type === 'refresh_token_created')!.data as { user_id: string };

  // a refresh token in the format from before key pairs: only an HMAC key
  const legacyId = 'legacy0000000000000000000000000a';
  const jwtKey = 'ab'.repeat(64);
  const now = Date.now();
  await log.append([
    {
      time: now,
      stream: `auth/refresh_token/${legacyId}`,
      type: 'refresh_token_created',
      data: {
        id: legacyId,
        user_id: ownerUser.user_id,
        client_id: CLIENT_ID,
        client_name: null,
        client_icon: null,
        token_type: 'normal',
        created_at: now,
        access_token_expiration: 1800,
        expire_at: now + 86_400_000,
        credential_id: null,
        version: 'old',
        token: 'cd'.repeat(64),
        jwt_key: jwtKey,
      },
      context: { id: '01J0000000000000000000000A', parent_id: null, user_id: ownerUser.user_id },
    },
  ]);
  const iat = Math.floor(now / 1000);
  const legacy = createSigner({ key: jwtKey, algorithm: 'HS256' })({ iss: legacyId, iat, exp: iat + 1800 });
  t.equal((await api(first.base, legacy)('GET', '/api/')).status, 200, 'an HS256 token of an old refresh token works on the primary');
  await first.hearth.stop();

  // a user added while Hearth is stopped: no authpub/ record yet
  const added = await authMain(['add', 'cli-user-zq', 'cli-password-canary', '--name', 'Cli Zq', '--data', first.dataDir]);
  t.equal(added, 0);

  const second = await startTestHearth(t, { dataDir: first.dataDir });
  t.equal((await api(second.base, legacy)('GET', '/api/')).status, 200, 'the legacy token survives a restart (old snapshot or replay)');
  const userStreams = new Set((await records(second.hearth.log, 'authpub/user/')).map((r) => r.stream));
  t.equal(userStreams.size, 2, 'the user added offline was published at start');
  const mirror = await replayed(second.hearth.log);
  t.equal(mirror.validateAccessToken(own.access_token)?.userId, ownerUser.user_id, 'the replica takes tokens issued before the restart');
  t.equal(mirror.validateAccessToken(legacy), undefined, 'a legacy token has no public key to check');
  t.equal((await records(second.hearth.log, `authpub/token/${legacyId}`)).length, 0, 'nor is one published for it');
  const count = (await records(second.hearth.log, 'authpub/')).length;
  await second.hearth.stop();

  // an auth snapshot of the format before key pairs is not loaded: the area replays its log
  const closed = await openEventLog({ path: join(first.dataDir, 'log') });
  await closed.saveSnapshot('auth', { seq: closed.lastSeq(), version: 1, time: Date.now(), data: { users: [], credentials: [], tokens: [], onboarding: [], seq: 0 } });
  await closed.close();

  const third = await startTestHearth(t, { dataDir: first.dataDir });
  t.ok(third.lines.some((l) => /snapshot of auth has format 1/.test(l)), 'the old snapshot is set aside');
  t.equal((await records(third.hearth.log, 'authpub/')).length, count, 'the catch-up appends nothing when nothing is missing');
  t.equal((await api(third.base, own.access_token)('GET', '/api/')).status, 200, 'an EdDSA token after the replay');
  t.equal((await api(third.base, legacy)('GET', '/api/')).status, 200, 'an HS256 token after the replay');
});

function publicPem(raw: string): string {
  const der = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(raw, 'base64url')]);
  return `-----BEGIN PUBLIC KEY-----\n${der.toString('base64')}\n-----END PUBLIC KEY-----\n`;
}

t.test('two appends of one tick derived from the same state: the committed state is published after them', async (t) => {
  const server = await startAuthServer(t);
  const own = (await exchange(server.base, await onboardOwner(server.base))).json;
  const tokenId = claims(own.access_token).iss as string;
  const ownerId = server.auth.refreshToken(tokenId)!.userId;
  const created = await server.auth.createUser(ownerId, { name: 'Racer', groupIds: ['system-users'] });
  t.equal(created.ok, true);
  const userId = created.ok ? created.value.id : '';
  const lastOf = async (stream: string) => (await records(server.log, stream)).at(-1)!;
  const marker = () => server.log.append([{ time: Date.now(), stream: 'test/marker', type: 'marker', data: {}, context: { id: '01J0000000000000000000000M', parent_id: null, user_id: null } }]);

  // a revocation beside an expiry change: the second one's key record is derived from the live token
  await Promise.all([server.auth.revokeRefreshToken(tokenId), server.auth.setRefreshTokenExpiry(ownerId, tokenId, false)]);
  await marker(); // committed after the correction, which was asked for first
  const types = (await records(server.log, `authpub/token/${tokenId}`)).map((r) => r.type);
  t.same(types.slice(-3), ['token_key_revoked', 'token_key_published', 'token_key_revoked'], 'the stale key record is revoked again');
  t.equal((await replayed(server.log)).validateAccessToken(own.access_token), undefined, 'a replica refuses the revoked token');

  // a deactivation beside a group change
  await Promise.all([server.auth.updateUser(ownerId, userId, { isActive: false }), server.auth.updateUser(ownerId, userId, { groupIds: [] })]);
  await marker();
  t.match((await lastOf(`authpub/user/${userId}`)).data, { is_active: false, policy: {} }, 'the last user_access is the committed state');
});
