import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir, type TestSupervisor } from '../../helpers/supervisor.ts';
import { CORE_VERSION, SUPERVISOR_VERSION } from '../../../actors/version.ts';
import { manualClock } from '../../../actors/clock.ts';

/** The core as installed (the runtime records its version on the first install; none runs here). */
const installCore = (s: TestSupervisor) =>
  s.supervisor.settings.section('core', { version: null as string | null }).set({ version: CORE_VERSION }, { id: 'test', parent_id: null, user_id: null });
const doc = (over: Record<string, unknown> = {}) => JSON.stringify({ channel: 'stable', supervisor: SUPERVISOR_VERSION, core: { default: CORE_VERSION }, ...over });

t.test('GET /info lists the seed\'s fields in order with real values', async (t) => {
  const s = await startTestSupervisor(t);
  t.equal((await s.json('GET', '/info')).body.data.core, null, 'nothing installed yet');
  await installCore(s);
  const { status, body } = await s.json('GET', '/info');
  t.equal(status, 200);
  t.equal(body.result, 'ok');
  t.same(Object.keys(body.data), ['supervisor', 'core', 'core_os', 'docker', 'hostname', 'operating_system', 'features', 'machine', 'machine_id', 'arch', 'state', 'supported_arch', 'supported', 'channel', 'logging', 'timezone']);
  const d = body.data;
  t.equal(d.supervisor, SUPERVISOR_VERSION);
  t.equal(d.core, CORE_VERSION, 'the installed core');
  t.equal(d.core_os, null);
  t.match(d.docker, /^\d+\.\d+/, 'the engine\'s version');
  t.type(d.hostname, 'string');
  t.ok(['amd64', 'aarch64', 'armv7', 'i386'].includes(d.arch), d.arch);
  t.same(d.supported_arch, [d.arch]);
  t.equal(d.state, 'running');
  t.equal(d.supported, false, 'a plain Linux host: unsupported (os), as the resolution center says');
  t.equal(d.channel, 'stable');
  t.equal(d.logging, 'info');
  t.equal(d.timezone, 'Etc/UTC');
  t.same(d.features, (await s.json('GET', '/host/info')).body.data.features, 'the host\'s features, as /host/info lists them');
});

t.test('tokens: X-Supervisor-Token and Authorization Bearer both pass; none is text 401; unknown is text 403', async (t) => {
  const s = await startTestSupervisor(t);
  const token = s.supervisor.adminToken;
  t.equal((await s.call('GET', '/info', { token: null, headers: { 'X-Supervisor-Token': token } })).status, 200);
  t.equal((await s.call('GET', '/info', { token: null, headers: { Authorization: `Bearer ${token}` } })).status, 200);
  const none = await s.call('GET', '/info', { token: null });
  t.equal(none.status, 401);
  t.equal(await none.text(), '401: Unauthorized');
  const bad = await s.call('GET', '/available_updates', { token: 'f'.repeat(112) });
  t.equal(bad.status, 403);
  t.equal(await bad.text(), '403: Forbidden');
});

t.test('the shipped channel documents report no update on a fresh install', async (t) => {
  const s = await startTestSupervisor(t);
  t.same(await s.json('GET', '/available_updates'), { status: 200, body: { result: 'ok', data: { available_updates: [] } } });
  const info = await s.json('GET', '/supervisor/info');
  t.equal(info.body.data.version_latest, SUPERVISOR_VERSION);
  t.equal(info.body.data.update_available, false);
});

t.test('a newer core in a local channel document is listed; the deprecated alias answers the same', async (t) => {
  const dir = await supervisorDataDir();
  const file = join(dir, 'versions-{channel}.json');
  await writeFile(join(dir, 'versions-stable.json'), doc({ core: { default: '2099.1.0' }, supervisor: '2099.1.1' }));
  const s = await startTestSupervisor(t, { updaterUrl: file });
  await installCore(s);
  const expected = {
    result: 'ok',
    data: {
      available_updates: [
        { update_type: 'core', panel_path: '/update-available/core', version_latest: '2099.1.0' },
        { update_type: 'supervisor', panel_path: '/update-available/supervisor', version_latest: '2099.1.1' },
      ],
    },
  };
  t.same((await s.json('GET', '/available_updates')).body, expected);
  t.same((await s.json('GET', '/supervisor/available_updates')).body, expected);
  t.same((await s.json('GET', '/supervisor/info')).body.data.update_available, true);
});

t.test('reload_updates reads the document again (throttled to once per 30 s); a broken one is refused and the last good stays', async (t) => {
  const dir = await supervisorDataDir();
  const file = join(dir, 'stable.json');
  await writeFile(file, doc());
  const clock = manualClock(Date.now(), 1);
  const s = await startTestSupervisor(t, { updaterUrl: file, clock });
  await installCore(s);
  t.same((await s.json('GET', '/available_updates')).body.data.available_updates, []);

  await writeFile(file, doc({ core: { default: '2099.2.0' } }));
  t.same(await s.json('POST', '/reload_updates'), { status: 200, body: { result: 'ok', data: {} } });
  t.same((await s.json('GET', '/available_updates')).body.data.available_updates, [], 'within 30 s of the last read: not read again');
  clock.advance(31_000);
  t.same(await s.json('POST', '/reload_updates'), { status: 200, body: { result: 'ok', data: {} } });
  t.same((await s.json('GET', '/available_updates')).body.data.available_updates.map((u: any) => [u.update_type, u.version_latest]), [['core', '2099.2.0']]);

  for (const [broken, why] of [
    ['{not json', /^Can't parse versions: /],
    [doc({ channel: 'beta' }), /^Can't process version data: channel is "beta", expected "stable"$/],
    [doc({ core: '2099.3.0' }), /`core` must be a map/],
    [JSON.stringify({ channel: 'stable', core: { default: '1.0.0' } }), /`supervisor` must be a version string/],
  ] as const) {
    await writeFile(file, broken);
    clock.advance(31_000);
    const res = await s.json('POST', '/reload_updates');
    t.equal(res.status, 400, String(broken));
    t.equal(res.body.result, 'error');
    t.match(res.body.message, why);
    t.same((await s.json('GET', '/available_updates')).body.data.available_updates.map((u: any) => u.version_latest), ['2099.2.0'], 'the last good document stays');
  }
  t.ok(s.lines.some((l) => /Can't process version data/.test(l)), 'the reason is logged');
});

t.test('fetched versions are records in the log and survive a restart without the document', async (t) => {
  const dir = await supervisorDataDir();
  const file = join(dir, 'stable.json');
  await writeFile(file, doc({ core: { default: '2099.4.0' } }));
  const s1 = await startTestSupervisor(t, { updaterUrl: file });
  await installCore(s1);
  const records = [];
  for await (const r of s1.supervisor.log.readStreams('supervisor/updater/')) records.push(r);
  t.equal(records.length, 1);
  t.equal(records[0].type, 'updater_fetched');
  t.equal(records[0].stream, 'supervisor/updater/stable');
  t.equal(records[0].data.versions.core, '2099.4.0');
  await s1.supervisor.stop();
  await writeFile(file, 'gone');
  // no updaterUrl now: the source given before is kept; its document is broken, the recorded versions answer
  const s2 = await startTestSupervisor(t, { dataDir: s1.dataDir });
  t.same((await s2.json('GET', '/available_updates')).body.data.available_updates.map((u: any) => u.version_latest), ['2099.4.0']);
  t.equal(s2.supervisor.updater.location(), file);
});

t.test('/refresh_updates and /available_updates are v1 only; reload_updates needs admin on v1 and manager on v2', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  const manager = await s1.supervisor.tokens.issue({ name: 'm', kind: 'app', role: 'manager' }, { id: 'x', parent_id: null, user_id: null });
  t.equal((await s1.call('POST', '/reload_updates', { token: manager.token })).status, 403, 'v1: manager is not enough');
  t.equal((await s1.call('POST', '/refresh_updates', { token: manager.token })).status, 200);
  t.equal((await s1.call('GET', '/available_updates', { token: manager.token })).status, 200);
  t.equal((await s1.call('POST', '/v2/reload_updates')).status, 404, 'no /v2 tree before the flag');
  t.same((await s1.json('POST', '/supervisor/options', { body: { feature_flags: { supervisor_v2_api: true } } })).body, { result: 'ok', data: {} });
  t.equal((await s1.call('POST', '/v2/reload_updates')).status, 404, 'the flag takes effect on restart');
  await s1.supervisor.stop();
  const s2 = await startTestSupervisor(t, { dataDir });
  t.equal((await s2.call('POST', '/v2/reload_updates', { token: manager.token })).status, 200, 'v2: manager');
  t.equal((await s2.call('POST', '/reload_updates', { token: manager.token })).status, 403, 'v1 still admin');
  t.equal((await s2.call('GET', '/v2/available_updates')).status, 404);
  t.equal((await s2.call('POST', '/v2/refresh_updates')).status, 404);
  t.equal((await s2.call('GET', '/v2/info')).status, 200);
});

t.test('supported follows the resolution center\'s unsupported reasons', async (t) => {
  const s = await startTestSupervisor(t);
  const { unsupported } = (await s.json('GET', '/resolution/info')).body.data;
  // a plain Linux host is not the original's operating system: honestly unsupported
  t.ok(unsupported.includes('os'), 'os is among the reasons here');
  t.equal((await s.json('GET', '/info')).body.data.supported, false);
  t.equal((await s.json('GET', '/supervisor/info')).body.data.supported, false);
});
