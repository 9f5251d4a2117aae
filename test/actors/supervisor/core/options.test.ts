import t from 'tap';
import { createServer, type Server } from 'node:http';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { freePort } from '../../../helpers/core-container.ts';
import { offlineMigrationRunning, MIGRATION_MESSAGE } from '../../../../actors/supervisor/core/migration.ts';

/** A stand-in for a core that reports a database migration (its token exchange and its state). */
async function fakeCore(t: { teardown(fn: () => unknown): void }, recorder: { migration_in_progress: boolean; migration_is_live: boolean }) {
  const asked: string[] = [];
  const server: Server = createServer((req, res) => {
    asked.push(`${req.method} ${req.url}`);
    let body = '';
    req.on('data', (d) => (body += d));
    req.on('end', () => {
      if (req.method === 'POST' && req.url === '/auth/token') {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== 'the-refresh-token') {
          res.writeHead(400).end('{"error":"invalid_grant"}');
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{"access_token":"the-access-token","token_type":"Bearer","expires_in":1800}');
      } else if (req.url === '/api/core/state') {
        if (req.headers.authorization !== 'Bearer the-access-token') {
          res.writeHead(401).end();
          return;
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ state: 'RUNNING', recorder_state: recorder }));
      } else res.writeHead(404).end();
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise((ok) => server.close(ok)));
  return { port: (server.address() as { port: number }).port, asked };
}

t.test('the migration guard asks the core with the refresh token of the options', async (t) => {
  const migrating = await fakeCore(t, { migration_in_progress: true, migration_is_live: false });
  const url = `http://127.0.0.1:${migrating.port}`;
  t.equal(await offlineMigrationRunning({ url, refreshToken: 'the-refresh-token' }), true);
  t.same(migrating.asked, ['POST /auth/token', 'GET /api/core/state']);
  t.equal(await offlineMigrationRunning({ url, refreshToken: null }), false, 'no token: nothing to ask with');
  t.equal(await offlineMigrationRunning({ url, refreshToken: 'wrong' }), false, 'a refused token: not known to migrate');
  const live = await fakeCore(t, { migration_in_progress: true, migration_is_live: true });
  t.equal(await offlineMigrationRunning({ url: `http://127.0.0.1:${live.port}`, refreshToken: 'the-refresh-token' }), false, 'a live migration does not block');
  t.equal(await offlineMigrationRunning({ url: `http://127.0.0.1:${await freePort()}`, refreshToken: 'the-refresh-token' }), false, 'nobody answers');
});

t.test('update, stop, restart and rebuild answer 503 during an offline migration; force passes stop', async (t) => {
  const core = await fakeCore(t, { migration_in_progress: true, migration_is_live: false });
  const s = await startTestSupervisor(t, { coreContainer: `hearth_core_test_guard_${process.pid}` });
  t.same((await s.json('POST', '/core/options', { body: { port: core.port, refresh_token: 'the-refresh-token' } })).status, 200);
  for (const [path, body] of [
    ['/core/update', { version: '2099.1.1' }],
    ['/core/stop', {}],
    ['/core/restart', {}],
    ['/core/rebuild', { safe_mode: true }],
    ['/homeassistant/stop', {}],
  ] as const) {
    const res = await s.json('POST', path, { body });
    t.same(res, { status: 503, body: { result: 'error', message: MIGRATION_MESSAGE } }, path);
  }
  t.same((await s.json('POST', '/core/stop', { body: { force: true } })).body, { result: 'ok', data: {} }, 'force skips the guard (no container: nothing to stop)');
  t.ok(core.asked.filter((a) => a === 'GET /api/core/state').length >= 5);
});

t.test('options round-trip, are checked, and unknown keys are refused', async (t) => {
  const s = await startTestSupervisor(t, { coreContainer: `hearth_core_test_options_${process.pid}` });
  const set = await s.json('POST', '/core/options', {
    body: { watchdog: false, backups_exclude_database: 'yes', duplicate_log_file: true, boot: false, ssl: true, port: 8124, audio_input: 'mic', image: 'registry.example.org/someone/core' },
  });
  t.same(set.body, { result: 'ok', data: {} });
  let info = (await s.json('GET', '/homeassistant/info')).body.data;
  t.match(info, { watchdog: false, backups_exclude_database: true, duplicate_log_file: true, boot: false, ssl: true, port: 8124, audio_input: 'mic', audio_output: null, image: 'registry.example.org/someone/core' });
  t.notOk('refresh_token' in info, 'the refresh token is never shown');
  t.same((await s.json('POST', '/core/options', { body: { image: null } })).body, { result: 'ok', data: {} });
  info = (await s.json('GET', '/core/info')).body.data;
  t.equal(info.image, 'hearth/core', 'null puts the built image back');
  t.equal(info.watchdog, false, 'other options kept');
  for (const [body, message] of [
    [{ wait_boot: 3 }, "extra keys not allowed @ data['wait_boot']. Got 3"],
    [{ port: 0 }, "value must be at least 1 @ data['port']. Got 0"],
    [{ port: 70000 }, "value must be at most 65535 @ data['port']. Got 70000"],
    [{ watchdog: 'sometimes' }, "expected boolean @ data['watchdog']. Got 'sometimes'"],
    [{ image: 'Not An Image' }, /^does not match regular expression .* @ data\['image'\]\. Got 'Not An Image'$/],
  ] as const) {
    const res = await s.json('POST', '/core/options', { body });
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body.message, message);
  }
  // restart the supervisor: the options are records in its log
  await s.supervisor.stop();
  const again = await startTestSupervisor(t, { dataDir: s.dataDir, coreContainer: `hearth_core_test_options_${process.pid}` });
  t.match((await again.json('GET', '/core/info')).body.data, { watchdog: false, port: 8124, ssl: true, image: 'hearth/core' });
});

t.test('roles: info for every role, the rest for core and up; v2 has /core only', async (t) => {
  const dataDir = await supervisorDataDir();
  const first = await startTestSupervisor(t, { dataDir });
  await first.supervisor.settings.write('supervisor', { ...first.supervisor.settings.read('supervisor'), feature_flags: { supervisor_v2_api: true, supervisor_websocket_v2_api: false } }, { id: 'x', parent_id: null, user_id: null });
  await first.supervisor.stop();
  const s = await startTestSupervisor(t, { dataDir });
  const ctx = { id: 'y', parent_id: null, user_id: null };
  const app = await s.supervisor.tokens.issue({ name: 'some app', kind: 'app', role: 'default' }, ctx);
  const manager = await s.supervisor.tokens.issue({ name: 'manager app', kind: 'app', role: 'manager' }, ctx);
  t.equal((await s.json('GET', '/core/info', { token: app.token })).status, 200);
  t.equal((await s.call('POST', '/core/options', { token: app.token, body: { watchdog: true } })).status, 403);
  t.equal((await s.json('POST', '/core/options', { token: manager.token, body: { watchdog: true } })).status, 200);
  t.equal((await s.json('GET', '/v2/core/info')).status, 200);
  t.equal((await s.call('GET', '/v2/homeassistant/info')).status, 404);
  t.equal((await s.call('GET', '/core/info', { token: null })).status, 401);
});
