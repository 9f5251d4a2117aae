import t from 'tap';
import { readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { coreContainerName, docker, freePort, runtimeRecords } from '../../../helpers/core-container.ts';
import { CORE_VERSION } from '../../../../actors/version.ts';
import type { CoreRuntime } from '../../../../actors/supervisor/core/runtime.ts';

// one supervisor and one core container for the whole file: starting the core takes seconds
const name = coreContainerName(t, 'runtime');
let port = await freePort();
const s = await startTestSupervisor(t, { coreContainer: name, corePort: port });
const coreToken = () => s.supervisor.tokens.ofKind('core')?.token;

t.test('before any start: info shows the defaults, stats is a 400, nothing installed', async (t) => {
  const info = await s.json('GET', '/core/info');
  t.equal(info.status, 200);
  t.same(Object.keys(info.body.data), ['version', 'version_latest', 'update_available', 'machine', 'ip_address', 'arch', 'image', 'boot', 'port', 'ssl', 'watchdog', 'audio_input', 'audio_output', 'backups_exclude_database', 'duplicate_log_file']);
  t.match(info.body.data, { version: null, version_latest: CORE_VERSION, update_available: false, image: 'hearth/core', boot: true, port, ssl: false, watchdog: true, backups_exclude_database: false, duplicate_log_file: false });
  const stats = await s.json('GET', '/core/stats');
  t.equal(stats.status, 400);
  t.equal(stats.body.result, 'error');
  t.match(stats.body.message, /not running/);
});

t.test('start builds or reuses the image, creates the container and the core answers HTTP on the published port', async (t) => {
  const res = await s.json('POST', '/core/start');
  t.same(res, { status: 200, body: { result: 'ok', data: {} } });
  const api = await fetch(`http://127.0.0.1:${port}/api/`);
  t.equal(api.status, 401, 'the Hearth core inside refuses a call without a token');
  const inspect = JSON.parse(await docker('inspect', name))[0];
  t.equal(inspect.Config.Image, `hearth/core:${CORE_VERSION}`);
  t.equal(inspect.Config.Labels.supervisor_managed, '');
  t.ok(inspect.Config.Env.includes(`SUPERVISOR_TOKEN=${coreToken()}`), 'the core token is handed to the container');
  t.ok(inspect.Config.Env.includes(`HASSIO_TOKEN=${coreToken()}`));
  t.ok(inspect.Config.Env.some((e: string) => e.startsWith('SUPERVISOR=http://supervisor:')));
  t.ok(inspect.Config.Env.includes('TZ=Etc/UTC'));
  t.same(inspect.HostConfig.Binds, [`${join(s.dataDir, 'core')}:/config`]);
  t.equal(inspect.HostConfig.PortBindings['1702/tcp'][0].HostPort, String(port));
  t.match(await docker('logs', name), /Hearth listening on/);
  t.ok((await stat(join(s.dataDir, 'core'))).isDirectory(), 'the core data directory was made');
  const info = (await s.json('GET', '/core/info')).body.data;
  t.equal(info.version, CORE_VERSION);
  t.match(info.ip_address, /^\d+\.\d+\.\d+\.\d+$/);
  const types = (await runtimeRecords(s.supervisor.log)).map((r) => r.type);
  t.same(types.slice(0, 3), ['core_installed', 'core_container_created', 'core_started']);
  // the legacy prefix answers the same
  t.same((await s.json('GET', '/homeassistant/info')).body.data.version, CORE_VERSION);
  // a second start while running changes nothing
  t.equal((await s.json('POST', '/core/start')).status, 200);
  t.equal((await runtimeRecords(s.supervisor.log)).length, types.length);
});

t.test('the image is lean: the app and its production packages, no tests, no dev packages', async (t) => {
  const probe = `const fs = require('fs'); console.log(JSON.stringify({
    app: ['bin/hearth.js', 'actors', 'machines', 'store', 'streams', 'gateway', 'node_modules/tsx', 'node_modules/xstate', 'node_modules/classic-level'].filter((p) => !fs.existsSync(p)),
    unwanted: ['test', 'bench', 'docs', 'node_modules/tap', 'node_modules/typescript', 'node_modules/playwright-core', 'node_modules/@types/node'].filter((p) => fs.existsSync(p)),
    tmp: fs.statSync('/tmp').mode & 0o7777, home: process.env.HOME, cwd: process.cwd() }))`;
  const out = JSON.parse(await docker('run', '--rm', `hearth/core:${CORE_VERSION}`, 'node', '-e', probe));
  t.same(out, { app: [], unwanted: [], tmp: 0o1777, home: '/root', cwd: '/app' });
  const image = JSON.parse(await docker('image', 'inspect', `hearth/core:${CORE_VERSION}`))[0];
  t.same(image.Config.Cmd, ['node', 'bin/hearth.js', 'serve', '--port', '1702', '--data', '/config']);
  t.ok('1702/tcp' in image.Config.ExposedPorts);
  t.match(image.Config.Labels, { 'io.hass.version': CORE_VERSION, 'hearth.source': /^[0-9a-f]{16}$/ });
});

t.test('stats of the running core: the original\'s fields', async (t) => {
  const res = await s.json('GET', '/core/stats');
  t.equal(res.status, 200);
  t.same(Object.keys(res.body.data), ['cpu_percent', 'memory_usage', 'memory_limit', 'memory_percent', 'network_rx', 'network_tx', 'blk_read', 'blk_write']);
  t.ok(res.body.data.memory_usage > 0, 'the core uses memory');
  t.ok(res.body.data.memory_limit >= res.body.data.memory_usage);
});

t.test('restart keeps the container and its token; safe_mode touches <config>/safe-mode', async (t) => {
  const before = JSON.parse(await docker('inspect', name))[0];
  const token = coreToken();
  const res = await s.json('POST', '/core/restart', { body: { safe_mode: true } });
  t.same(res.body, { result: 'ok', data: {} });
  await stat(join(s.dataDir, 'core', 'safe-mode'));
  const after = JSON.parse(await docker('inspect', name))[0];
  t.equal(after.Id, before.Id, 'the same container');
  t.not(after.State.StartedAt, before.State.StartedAt, 'started again');
  t.equal(coreToken(), token, 'no new token on a restart');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
  t.equal((await runtimeRecords(s.supervisor.log)).at(-1)?.type, 'core_restarted');
});

t.test('rebuild makes a new container with a new core token, published on a changed port', async (t) => {
  const before = JSON.parse(await docker('inspect', name))[0];
  const token = coreToken();
  const newPort = await freePort();
  t.equal((await s.json('POST', '/core/options', { body: { port: newPort, duplicate_log_file: true } })).status, 200);
  t.equal((await s.json('POST', '/core/restart')).status, 200, 'a restart still waits on the port the container publishes');
  port = newPort;
  const res = await s.json('POST', '/homeassistant/rebuild', { body: { force: true } });
  t.same(res.body, { result: 'ok', data: {} });
  const after = JSON.parse(await docker('inspect', name))[0];
  t.not(after.Id, before.Id, 'another container');
  t.not(coreToken(), token, 'a new token');
  t.equal(s.supervisor.tokens.lookup(token!), undefined, 'the old token no longer works');
  t.ok(after.Config.Env.includes(`SUPERVISOR_TOKEN=${coreToken()}`));
  t.ok(after.Config.Env.includes('HA_DUPLICATE_LOG_FILE=1'), 'duplicate_log_file applies to the new container');
  t.notOk(before.Config.Env.includes('HA_DUPLICATE_LOG_FILE=1'));
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
  t.equal((await runtimeRecords(s.supervisor.log)).at(-1)?.type, 'core_rebuilt');
});

t.test('check runs the configuration check in a throwaway container', async (t) => {
  const dir = join(s.dataDir, 'core');
  await mkdir(dir, { recursive: true });
  t.same((await s.json('POST', '/core/check')).body, { result: 'ok', data: {} });
  const file = join(dir, 'configuration.yaml');
  await writeFile(file, 'recorder:\n  commit: sometimes\n');
  const bad = await s.json('POST', '/core/check');
  t.equal(bad.status, 400);
  t.equal(bad.body.result, 'error');
  t.match(bad.body.message, /recorder: commit must be 'durable' or 'fast', got "sometimes"/);
  t.notMatch(bad.body.message, /\x1b\[/, 'no colours');
  await writeFile(file, '');
  const left = await docker('ps', '-a', '--filter', 'label=supervisor_managed', '--filter', `ancestor=hearth/core:${CORE_VERSION}`, '--format', '{{.Names}}');
  t.same(left.split('\n').filter((n) => n && !n.startsWith('hearth_core')), [], 'no check container is left');
  t.ok(await readFile(file, 'utf8').then(() => true));
});

t.test('stop stops the container without removing it; stats then is a 400; start brings it back', async (t) => {
  const res = await s.json('POST', '/core/stop');
  t.same(res.body, { result: 'ok', data: {} });
  const inspect = JSON.parse(await docker('inspect', name))[0];
  t.equal(inspect.State.Running, false);
  t.equal((await s.json('GET', '/core/stats')).status, 400);
  t.equal((await runtimeRecords(s.supervisor.log)).at(-1)?.type, 'core_stopped');
  t.equal((await s.json('POST', '/core/start')).status, 200);
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
  t.equal(JSON.parse(await docker('inspect', name))[0].Id, inspect.Id, 'the same container started again');
});

t.test('after a restore the core container is made anew with SUPERVISOR_RESTORE_JOB_ID; a rebuild drops it', async (t) => {
  const runtime = s.supervisor.deps.core as CoreRuntime;
  const context = { id: 'restore-test', parent_id: null, user_id: null };
  const before = JSON.parse(await docker('inspect', name))[0];
  t.equal(await runtime.stopForRestore(context), true, 'it ran before the restore');
  await t.rejects(docker('inspect', name), 'the container is gone while the data is swapped');
  const jobId = 'f'.repeat(32);
  await runtime.startAfterRestore(context, jobId);
  const after = JSON.parse(await docker('inspect', name))[0];
  t.not(after.Id, before.Id, 'a new container');
  t.ok(after.Config.Env.includes(`SUPERVISOR_RESTORE_JOB_ID=${jobId}`), 'told which restore job it comes back from');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401, 'and the core answers');
  t.equal((await s.json('POST', '/core/rebuild')).status, 200);
  const rebuilt = JSON.parse(await docker('inspect', name))[0];
  t.notOk(rebuilt.Config.Env.some((e: string) => e.startsWith('SUPERVISOR_RESTORE_JOB_ID=')), 'a later container is not');
});

t.test('a host port in use is the original\'s docker_container_port_conflict', async (t) => {
  const { createServer } = await import('node:net');
  const busy = createServer();
  await new Promise<void>((ok) => busy.listen(0, '0.0.0.0', ok));
  const busyPort = (busy.address() as { port: number }).port;
  t.teardown(() => new Promise((ok) => busy.close(ok)));
  t.equal((await s.json('POST', '/core/options', { body: { port: busyPort } })).status, 200);
  const res = await s.json('POST', '/core/rebuild');
  t.same(res, {
    status: 400,
    body: { result: 'error', message: `Cannot start container ${name} because port ${busyPort} is already in use`, error_key: 'docker_container_port_conflict', extra_fields: { name, port: busyPort } },
  });
  await new Promise((ok) => busy.close(ok));
  t.equal((await s.json('POST', '/core/start')).status, 200, 'started once the port is free');
  t.equal((await fetch(`http://127.0.0.1:${busyPort}/api/`)).status, 401);
});
