import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../helpers/supervisor.ts';
import { startSupervisor } from '../../../bin/supervisor-instance.ts';
import { SUPERVISOR_VERSION, CORE_VERSION } from '../../../actors/version.ts';

const INFO_V2 = ['version', 'version_latest', 'update_available', 'channel', 'arch', 'supported', 'healthy', 'ip_address', 'timezone', 'logging', 'debug', 'debug_block', 'diagnostics', 'auto_update', 'detect_blocking_io', 'country', 'feature_flags'];

t.test('/supervisor/info: v1 adds wait_boot, addons and addons_repositories; v2 (after the flag and a restart) has none of them', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  const v1 = await s1.json('GET', '/supervisor/info');
  t.equal(v1.status, 200);
  t.same(Object.keys(v1.body.data), [...INFO_V2, 'wait_boot', 'addons', 'addons_repositories']);
  t.same(v1.body.data.feature_flags, { supervisor_v2_api: false, supervisor_websocket_v2_api: false }, 'every known flag, default false');
  t.equal(v1.body.data.version, SUPERVISOR_VERSION);
  t.equal(v1.body.data.detect_blocking_io, false);
  t.equal(v1.body.data.wait_boot, 5);
  t.equal((await s1.call('GET', '/v2/supervisor/info')).status, 404, 'no /v2 tree before the flag');

  t.same((await s1.json('POST', '/supervisor/options', { body: { feature_flags: { supervisor_v2_api: true } } })).body, { result: 'ok', data: {} });
  t.same((await s1.json('GET', '/supervisor/info')).body.data.feature_flags, { supervisor_v2_api: true, supervisor_websocket_v2_api: false }, 'other flags unchanged');
  await s1.supervisor.stop();
  const s2 = await startTestSupervisor(t, { dataDir });
  const v2 = await s2.json('GET', '/v2/supervisor/info');
  t.equal(v2.status, 200);
  t.same(Object.keys(v2.body.data), INFO_V2);
  const bad = await s2.json('POST', '/v2/supervisor/options', { body: { wait_boot: 10 } });
  t.same(bad, { status: 400, body: { result: 'error', message: "extra keys not allowed @ data['wait_boot']. Got 10" } });
  t.equal((await s2.json('POST', '/v2/supervisor/options', { body: { addons_repositories: [] } })).status, 400);
  t.equal((await s2.json('POST', '/supervisor/options', { body: { wait_boot: 10 } })).status, 200, 'v1 still accepts it');
});

t.test('/supervisor/options: values persist across a restart; bad values are voluptuous-style 400s', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  const body = { timezone: 'Europe/Amsterdam', country: 'NL', debug: true, auto_update: false, diagnostics: false, detect_blocking_io: 'on-at-startup', wait_boot: 30 };
  t.same((await s1.json('POST', '/supervisor/options', { body })).body, { result: 'ok', data: {} });
  await s1.supervisor.stop();
  const s2 = await startTestSupervisor(t, { dataDir });
  const d = (await s2.json('GET', '/supervisor/info')).body.data;
  t.match(d, { timezone: 'Europe/Amsterdam', country: 'NL', debug: true, auto_update: false, diagnostics: false, detect_blocking_io: true, wait_boot: 30 });
  t.equal((await s2.json('GET', '/info')).body.data.timezone, 'Europe/Amsterdam');

  t.same((await s2.json('POST', '/supervisor/options', { body: { detect_blocking_io: 'on' } })).status, 200);
  t.equal((await s2.json('GET', '/supervisor/info')).body.data.detect_blocking_io, true);
  t.same((await s2.json('POST', '/supervisor/options', { body: { detect_blocking_io: 'off' } })).status, 200);
  t.equal((await s2.json('GET', '/supervisor/info')).body.data.detect_blocking_io, false);

  const cases: [unknown, string][] = [
    [{ bogus: 1 }, "extra keys not allowed @ data['bogus']. Got 1"],
    [{ channel: 'nightly' }, "value must be one of ['stable', 'beta', 'dev'] @ data['channel']. Got 'nightly'"],
    [{ logging: 'loud' }, "value must be one of ['debug', 'info', 'warning', 'error', 'critical'] @ data['logging']. Got 'loud'"],
    [{ wait_boot: 0 }, "value must be at least 1 @ data['wait_boot']. Got 0"],
    [{ feature_flags: { no_such_flag: true } }, "extra keys not allowed @ data['feature_flags']['no_such_flag']. Got True"],
    [{ feature_flags: { supervisor_v2_api: 'maybe' } }, "expected boolean @ data['supervisor_v2_api']. Got 'maybe'"],
    [{ timezone: 'Mars/Olympus' }, 'Invalid time zone passed in. Valid options can be found here: http://en.wikipedia.org/wiki/List_of_tz_database_time_zones'],
  ];
  for (const [b, message] of cases) t.same(await s2.json('POST', '/supervisor/options', { body: b }), { status: 400, body: { result: 'error', message } }, JSON.stringify(b));
  t.equal((await s2.json('GET', '/supervisor/info')).body.data.timezone, 'Europe/Amsterdam', 'a refused body changes nothing');
});

t.test('logging changes the supervisor\'s log level', async (t) => {
  const s = await startTestSupervisor(t);
  await s.json('POST', '/supervisor/options', { body: { logging: 'warning' } });
  t.equal((await s.json('POST', '/supervisor/repair')).status, 200);
  t.notOk(s.lines.some((l) => l.startsWith('repair:')), 'info lines are skipped at warning');
  await s.json('POST', '/supervisor/options', { body: { logging: 'debug' } });
  t.same(await s.json('POST', '/supervisor/repair'), { status: 200, body: { result: 'ok', data: {} } });
  t.ok(s.lines.some((l) => l.startsWith('repair: container engine reachable')), 'and written at debug');
  t.equal((await s.json('GET', '/info')).body.data.logging, 'debug');
});

t.test('reload answers exactly {"result":"ok","data":{}}', async (t) => {
  const s = await startTestSupervisor(t);
  const res = await s.call('POST', '/supervisor/reload');
  t.equal(res.status, 200);
  t.equal(await res.text(), '{"result":"ok","data":{}}');
});

t.test('stats of the supervisor process', async (t) => {
  const s = await startTestSupervisor(t);
  const { status, body } = await s.json('GET', '/supervisor/stats');
  t.equal(status, 200);
  const d = body.data;
  t.same(Object.keys(d), ['cpu_percent', 'memory_usage', 'memory_limit', 'memory_percent', 'network_rx', 'network_tx', 'blk_read', 'blk_write']);
  t.ok(d.memory_usage > 0 && d.memory_usage < d.memory_limit, 'resident memory below the host\'s');
  t.equal(d.memory_percent, Math.round((d.memory_usage / d.memory_limit) * 10000) / 100);
  t.ok(d.cpu_percent >= 0 && d.cpu_percent <= 100);
  t.ok(Number.isInteger(d.blk_read) && Number.isInteger(d.blk_write));
  const manager = await s.supervisor.tokens.issue({ name: 'd', kind: 'app', role: 'default' }, { id: 'x', parent_id: null, user_id: null });
  t.equal((await s.call('GET', '/supervisor/stats', { token: manager.token })).status, 403, 'default role: refused');
  t.equal((await s.call('GET', '/supervisor/info', { token: manager.token })).status, 200, 'default role: info');
});

t.test('update: nothing newer is a 400 naming the version; a newer one says how to install it', async (t) => {
  const dir = await supervisorDataDir();
  const file = join(dir, 'stable.json');
  await writeFile(file, JSON.stringify({ channel: 'stable', supervisor: SUPERVISOR_VERSION, core: { default: CORE_VERSION } }));
  const s = await startTestSupervisor(t, { updaterUrl: file });
  t.same(await s.json('POST', '/supervisor/update'), { status: 400, body: { result: 'error', message: `No supervisor update available - ${SUPERVISOR_VERSION}` } });
  t.equal((await s.json('POST', '/supervisor/update', { body: { version: 5 } })).body.message, "expected str @ data['version']. Got 5");
  await writeFile(file, JSON.stringify({ channel: 'stable', supervisor: '2099.1.0', core: { default: CORE_VERSION } }));
  await s.supervisor.updater.reload({ force: true });
  const res = await s.json('POST', '/supervisor/update');
  t.equal(res.status, 400);
  t.match(res.body.message, /^Supervisor 2099\.1\.0 is available, .*npm install -g hearth@2099\.1\.0/);
});

t.test('restart: answers first, then a fresh instance serves the same port and data', async (t) => {
  const s = await startTestSupervisor(t);
  const port = s.supervisor.port;
  await s.json('POST', '/supervisor/options', { body: { feature_flags: { supervisor_v2_api: true }, country: 'DE' } });
  t.same(await s.json('POST', '/supervisor/restart'), { status: 200, body: { result: 'ok', data: {} } });
  t.ok(s.supervisor.restarted, 'a restart is under way');
  await s.supervisor.restarted;
  t.equal(s.supervisor.port, port);
  t.ok(s.lines.includes('supervisor restarting'));
  const info = await s.json('GET', '/v2/supervisor/info');
  t.equal(info.status, 200, 'the new instance serves /v2');
  t.equal(info.body.data.country, 'DE');
});

t.test('restart twice through the same handle, then stop', async (t) => {
  const dataDir = await supervisorDataDir();
  const sup = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  t.teardown(() => sup.stop());
  for (let i = 0; i < 2; i++) {
    const res = await fetch(`http://127.0.0.1:${sup.port}/supervisor/restart`, { method: 'POST', headers: { Authorization: `Bearer ${sup.adminToken}` } });
    t.equal(res.status, 200);
    await sup.restarted;
  }
  const ping = await fetch(`http://127.0.0.1:${sup.port}/supervisor/ping`);
  t.equal(ping.status, 200);
});
