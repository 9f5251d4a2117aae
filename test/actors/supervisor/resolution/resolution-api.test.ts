import t from 'tap';
import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { freeBytes } from '../../../../actors/supervisor/resolution/checks.ts';
import { evaluate } from '../../../../actors/supervisor/resolution/evaluations.ts';
import { recordsOn, type Readable } from '../../../helpers/log-records.ts';

const records = (log: Readable, prefix = 'resolution/') => recordsOn(log, prefix);

const docker = (...args: string[]) => execFileSync('docker', args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
const unique = () => `${process.pid}-${Math.random().toString(16).slice(2, 8)}`;

t.test('GET /resolution/info: the envelope with its five keys; checks with enabled and slug', async (t) => {
  const s = await startTestSupervisor(t);
  await s.json('POST', '/resolution/healthcheck');
  const { status, body } = await s.json('GET', '/resolution/info');
  t.equal(status, 200);
  t.equal(body.result, 'ok');
  t.same(Object.keys(body.data), ['unsupported', 'unhealthy', 'suggestions', 'issues', 'checks']);
  t.same(body.data.checks, [
    { enabled: true, slug: 'core_config' },
    { enabled: true, slug: 'core_health' },
    { enabled: true, slug: 'disk_lifetime' },
    { enabled: true, slug: 'free_space' },
    { enabled: true, slug: 'network_interface_ipv4' },
    { enabled: true, slug: 'systemd_unit_failure' },
  ]);
  // this host: a plain Linux with engine 20.10 and json-file logging
  t.ok(body.data.unsupported.includes('os'), 'a plain Linux host is not the appliance OS');
  const engine = docker('version', '--format', '{{.Server.Version}}');
  const major = Number(engine.split('.')[0]);
  t.equal(body.data.unsupported.includes('docker_version'), major < 24, `docker_version as engine ${engine} says`);
  const logging = docker('info', '--format', '{{.LoggingDriver}}');
  const driver = docker('info', '--format', '{{.Driver}}');
  t.equal(body.data.unsupported.includes('docker_configuration'), logging !== 'journald' || !['overlay2', 'overlayfs'].includes(driver));
  t.same([...body.data.unsupported].sort(), body.data.unsupported, 'sorted');
  t.same(body.data.unhealthy, [], 'the engine answers');
  t.same(s.supervisor.resolution.unsupported(), body.data.unsupported);
});

t.test('evaluations judge the facts given', async (t) => {
  const has = { dbus: true, systemd: true, journal: true, resolved: true, apparmor: true };
  const good = evaluate({ engine: { version: '27.1.0', apiVersion: '1.46', storageDriver: 'overlay2', loggingDriver: 'journald', cgroupVersion: '2' }, arch: 'x64', ignoredConditions: [], has });
  t.same(good, { unsupported: ['network_manager', 'os', 'os_agent'], unhealthy: [] });
  const old = evaluate({ engine: { version: '20.10.24+dfsg1', apiVersion: '1.41', storageDriver: 'vfs', loggingDriver: 'json-file', cgroupVersion: '1' }, arch: 'ia32', ignoredConditions: ['healthy'], has });
  t.same(old.unsupported, ['docker_configuration', 'docker_version', 'job_conditions', 'network_manager', 'os', 'os_agent', 'system_architecture']);
});

t.test('an ignored job condition makes the system unsupported (job_conditions), and reset undoes it', async (t) => {
  const s = await startTestSupervisor(t);
  await s.json('POST', '/jobs/options', { body: { ignore_conditions: ['healthy'] } });
  t.ok((await s.json('GET', '/resolution/info')).body.data.unsupported.includes('job_conditions'));
  await s.json('POST', '/jobs/reset');
  t.notOk((await s.json('GET', '/resolution/info')).body.data.unsupported.includes('job_conditions'));
});

t.test('unknown check, issue and suggestion: 404 with their error keys', async (t) => {
  const s = await startTestSupervisor(t);
  const uuid = '0123456789abcdef0123456789abcdef';
  const check = { status: 404, body: { result: 'error', message: "Check 'nope' does not exist", error_key: 'resolution_check_not_found_error', extra_fields: { check: 'nope' } } };
  t.same(await s.json('POST', '/resolution/check/nope/options', { body: { enabled: false } }), check);
  t.same(await s.json('POST', '/resolution/check/nope/run'), check);
  const issue = { status: 404, body: { result: 'error', message: `Issue ${uuid} does not exist`, error_key: 'resolution_issue_not_found_error', extra_fields: { uuid } } };
  t.same(await s.json('DELETE', `/resolution/issue/${uuid}`), issue);
  t.same(await s.json('GET', `/resolution/issue/${uuid}/suggestions`), issue);
  const suggestion = { status: 404, body: { result: 'error', message: `Suggestion ${uuid} does not exist`, error_key: 'resolution_suggestion_not_found_error', extra_fields: { uuid } } };
  t.same(await s.json('POST', `/resolution/suggestion/${uuid}`), suggestion);
  t.same(await s.json('DELETE', `/resolution/suggestion/${uuid}`), suggestion);
  const bad = await s.json('POST', '/resolution/check/free_space/options', { body: { enabled: 'no' } });
  t.same(bad, { status: 400, body: { result: 'error', message: "expected bool @ data['enabled']. Got 'no'" } });
});

t.test('reboot_required: one issue however often added, its suggestion cannot reboot this host, dismissing the issue takes the suggestion; survives a restart', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  const spec = { type: 'reboot_required', context: 'system' };
  const a = await s1.supervisor.resolution.addIssue(spec, [{ type: 'execute_reboot', context: 'system' }]);
  const b = await s1.supervisor.resolution.addIssue(spec, [{ type: 'execute_reboot', context: 'system' }]);
  t.equal(a.uuid, b.uuid, 'de-duplicated');
  t.match(a.uuid, /^[0-9a-f]{32}$/);
  const info = (await s1.json('GET', '/resolution/info')).body.data;
  t.same(info.issues, [{ type: 'reboot_required', context: 'system', reference: null, reference_extra: null, uuid: a.uuid }]);
  t.equal(info.suggestions.length, 1);
  const sug = info.suggestions[0];
  t.same(Object.keys(sug), ['type', 'context', 'reference', 'reference_extra', 'uuid', 'auto']);
  t.same({ ...sug, uuid: undefined }, { type: 'execute_reboot', context: 'system', reference: null, reference_extra: null, auto: false });
  t.same((await s1.json('GET', `/resolution/issue/${a.uuid}/suggestions`)).body, { result: 'ok', data: { suggestions: [sug] } });

  const applied = await s1.json('POST', `/resolution/suggestion/${sug.uuid}`);
  t.equal(applied.status, 400);
  t.match(applied.body.message, /^Cannot reboot the host/);
  t.equal((await s1.json('GET', '/resolution/info')).body.data.issues.length, 1, 'still there after the failed fix');
  await s1.supervisor.stop();

  const s2 = await startTestSupervisor(t, { dataDir });
  const after = (await s2.json('GET', '/resolution/info')).body.data;
  t.same(after.issues.map((i: any) => i.uuid), [a.uuid], 'the issue survives a restart');
  t.same(after.suggestions.map((x: any) => x.uuid), [sug.uuid]);
  t.same(await s2.json('DELETE', `/resolution/issue/${a.uuid}`), { status: 200, body: { result: 'ok', data: {} } });
  const gone = (await s2.json('GET', '/resolution/info')).body.data;
  t.same(gone.issues, []);
  t.same(gone.suggestions, [], 'the orphaned suggestion goes with it');
  const recs = await records(s2.supervisor.log);
  t.same(recs.filter((r) => r.stream === `resolution/issue/${a.uuid}`).map((r) => r.type), ['issue_created', 'issue_dismissed']);
  t.same(recs.filter((r) => r.stream === `resolution/suggestion/${sug.uuid}`).map((r) => r.type), ['suggestion_created', 'suggestion_resolved']);
});

t.test('dismissing a suggestion keeps its issue', async (t) => {
  const s = await startTestSupervisor(t);
  const issue = await s.supervisor.resolution.addIssue({ type: 'reboot_required', context: 'system' }, [{ type: 'execute_reboot', context: 'system' }]);
  const [sug] = s.supervisor.resolution.suggestions();
  t.same(await s.json('DELETE', `/resolution/suggestion/${sug.uuid}`), { status: 200, body: { result: 'ok', data: {} } });
  const info = (await s.json('GET', '/resolution/info')).body.data;
  t.same(info.suggestions, []);
  t.same(info.issues.map((i: any) => i.uuid), [issue.uuid]);
});

t.test("a check's enabled flag is persisted; a disabled check does not run in the healthcheck", async (t) => {
  const dataDir = await supervisorDataDir();
  const free = await freeBytes(dataDir);
  // a threshold above the disk's free space: the check finds a problem when it runs
  const s1 = await startTestSupervisor(t, { dataDir, freeSpaceMinBytes: free + 2 ** 40 });
  t.same(await s1.json('POST', '/resolution/check/free_space/options', { body: { enabled: false } }), { status: 200, body: { result: 'ok', data: {} } });
  await s1.json('POST', '/resolution/check/free_space/run');
  // the explicit run found the issue; dismiss it and see that the healthcheck does not bring it back
  const issue = (await s1.json('GET', '/resolution/info')).body.data.issues.find((i: any) => i.type === 'free_space');
  t.ok(issue);
  await s1.json('DELETE', `/resolution/issue/${issue.uuid}`);
  await s1.supervisor.stop();

  const s2 = await startTestSupervisor(t, { dataDir, freeSpaceMinBytes: free + 2 ** 40 });
  await s2.json('POST', '/resolution/healthcheck');
  const info = (await s2.json('GET', '/resolution/info')).body.data;
  t.same(info.checks.find((c: any) => c.slug === 'free_space'), { enabled: false, slug: 'free_space' });
  t.notOk(info.issues.some((i: any) => i.type === 'free_space'), 'disabled: not run by the healthcheck');
  const recs = (await records(s2.supervisor.log)).filter((r) => r.stream === 'resolution/check/free_space');
  t.same(recs.map((r) => [r.type, r.data]), [['check_options_changed', { enabled: false }]]);
});

t.test('free_space reads the disk: an issue at or below the threshold, cleared above it', async (t) => {
  const dataDir = await supervisorDataDir();
  const free = await freeBytes(dataDir);
  const df = Number(execFileSync('df', ['-B1', '--output=avail', dataDir], { encoding: 'utf8' }).trim().split('\n')[1]);
  // the same disk measured two ways (other writers may move it a little)
  t.ok(Math.abs(df - free) < 256 * 1024 ** 2, `statfs ${free} vs df ${df}`);
  const low = await startTestSupervisor(t, { dataDir, freeSpaceMinBytes: free + 2 ** 40 });
  await low.json('POST', '/resolution/check/free_space/run');
  const found = (await low.json('GET', '/resolution/info')).body.data.issues.filter((i: any) => i.type === 'free_space');
  t.equal(found.length, 1);
  t.same({ ...found[0], uuid: undefined }, { type: 'free_space', context: 'system', reference: null, reference_extra: null });
  await low.supervisor.stop();

  const high = await startTestSupervisor(t, { dataDir, freeSpaceMinBytes: 1024 });
  await high.json('POST', '/resolution/check/free_space/run');
  t.same((await high.json('GET', '/resolution/info')).body.data.issues, []);
  const recs = (await records(high.supervisor.log)).filter((r) => r.stream === `resolution/issue/${found[0].uuid}`);
  t.same(recs.map((r) => r.type), ['issue_created', 'issue_resolved']);
});

t.test('core_config parses configuration.yaml with the core loader: broken -> fatal_error/core, fixed -> resolved', async (t) => {
  const s = await startTestSupervisor(t);
  const coreDir = join(s.dataDir, 'core');
  await mkdir(coreDir, { recursive: true });
  await s.json('POST', '/resolution/check/core_config/run');
  t.same((await s.json('GET', '/resolution/info')).body.data.issues, [], 'no file: the defaults, no issue');

  await writeFile(join(coreDir, 'configuration.yaml'), 'homeassistant:\n  name: [unclosed\n');
  await s.json('POST', '/resolution/check/core_config/run');
  const issues = (await s.json('GET', '/resolution/info')).body.data.issues;
  t.equal(issues.length, 1);
  t.equal(issues[0].type, 'fatal_error');
  t.equal(issues[0].context, 'core');
  t.equal(issues[0].reference, 'configuration.yaml');
  t.match(issues[0].reference_extra.error, /invalid YAML/);

  await writeFile(join(coreDir, 'configuration.yaml'), 'recorder:\n  purge_keep_days: 0\n');
  await s.json('POST', '/resolution/check/core_config/run');
  const other = (await s.json('GET', '/resolution/info')).body.data.issues;
  t.equal(other.length, 1, 'one issue, with the newest message');
  t.match(other[0].reference_extra.error, /purge_keep_days/);

  await writeFile(join(coreDir, 'configuration.yaml'), 'recorder:\n  purge_keep_days: 3\n');
  await s.json('POST', '/resolution/healthcheck');
  t.same((await s.json('GET', '/resolution/info')).body.data.issues, []);
});

t.test('core_health inspects the core container: exited non-zero -> boot_fail with execute_restart, which really restarts it', async (t) => {
  // a tiny image: busybox-static alone
  const image = `hearth-resolution-test-${unique()}:1`;
  const root = await mkdtemp(join(tmpdir(), 'hearth-busybox-'));
  await mkdir(join(root, 'bin'));
  await cp('/bin/busybox', join(root, 'bin', 'busybox'));
  execFileSync('sh', ['-c', `tar -C '${root}' -cf - . | docker import - ${image}`], { stdio: 'ignore' });
  await rm(root, { recursive: true, force: true });
  const name = `hearth-resolution-core-${unique()}`;
  t.teardown(() => {
    try {
      docker('rm', '-f', name);
    } catch {}
    try {
      docker('rmi', '-f', image);
    } catch {}
  });

  const s = await startTestSupervisor(t, { coreContainer: name });
  await s.json('POST', '/resolution/check/core_health/run');
  t.same((await s.json('GET', '/resolution/info')).body.data.issues, [], 'no container yet: not installed, no issue');

  // fails the first time, runs the second (the marker stays in the container's filesystem)
  docker('create', '--name', name, image, '/bin/busybox', 'sh', '-c', 'if [ -f /marker ]; then exec /bin/busybox sleep 600; else /bin/busybox touch /marker; exit 3; fi');
  docker('start', name);
  t.equal(docker('wait', name), '3');

  await s.json('POST', '/resolution/check/core_health/run');
  const info = (await s.json('GET', '/resolution/info')).body.data;
  t.equal(info.issues.length, 1);
  const issue = info.issues[0];
  t.same({ ...issue, uuid: undefined }, { type: 'boot_fail', context: 'core', reference: name, reference_extra: null });
  const sugs = (await s.json('GET', `/resolution/issue/${issue.uuid}/suggestions`)).body.data.suggestions;
  t.equal(sugs.length, 1);
  t.same({ ...sugs[0], uuid: undefined }, { type: 'execute_restart', context: 'core', reference: name, reference_extra: null, auto: false });

  t.same(await s.json('POST', `/resolution/suggestion/${sugs[0].uuid}`), { status: 200, body: { result: 'ok', data: {} } });
  t.equal(docker('inspect', '--format', '{{.State.Status}}', name), 'running', 'the fix restarted the container');
  const after = (await s.json('GET', '/resolution/info')).body.data;
  t.same(after.issues, []);
  t.same(after.suggestions, []);
  const recs = await records(s.supervisor.log);
  t.same(recs.filter((r) => r.stream === `resolution/issue/${issue.uuid}`).map((r) => r.type), ['issue_created', 'issue_resolved']);
  t.same(recs.filter((r) => r.stream === `resolution/suggestion/${sugs[0].uuid}`).map((r) => r.type), ['suggestion_created', 'suggestion_applied']);
});

t.test('resolution routes need the manager role', async (t) => {
  const s = await startTestSupervisor(t);
  t.equal((await s.call('GET', '/resolution/info', { token: null })).status, 401);
});
