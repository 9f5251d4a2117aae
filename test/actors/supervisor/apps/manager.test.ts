// The installed apps' lifecycle without Docker: given the supervisor's records, when a command
// (install, start, stop, a crash, uninstall), then exactly the records it appended and what it
// asked of the engine. The real engine's tests beside this one (lifecycle, watchdog, e2e...)
// stay for what only it shows: images built, containers that serve, stdin, logs.
import t from 'tap';
import { buildSupervisor, jobLine, expectFixture, facts, fixtureRecords, type ScenarioSupervisor } from '../../../helpers/scenario.ts';
import { engineError } from '../../../helpers/fake-engine.ts';
import type { EventRecord } from '../../../../store/types.ts';

const ECHO = 'core_hearth_echo';
const CONTAINER = `app_${ECHO}`;
const IMAGE = 'core/amd64-addon-hearth_echo:1.0.0';
const INSTALLED = 'supervisor/apps/echo-installed';

/** The app's records and the jobs' names and ends: what a test states (configs left out, they are the store's). */
function told(records: EventRecord[]) {
  return records
    .filter((r) => r.stream.startsWith('supervisor/app/') || r.stream.startsWith('resolution/issue/') || r.type === 'job_created' || r.type === 'job_done')
    .map((r) => {
      if (r.type === 'job_created' || r.type === 'job_done') return jobLine(r)!;
      if (r.stream.startsWith('resolution/')) return `issue ${r.data.type} ${r.data.context} ${r.data.reference}`;
      const { container, config, user, ...rest } = r.data;
      return `${r.type} ${JSON.stringify(rest)}`;
    });
}

/** The echo app installed (the records of the first test), its image on the engine. */
async function installed(t: Parameters<typeof buildSupervisor>[0], more: Array<(s: ScenarioSupervisor) => Promise<unknown>> = []): Promise<ScenarioSupervisor> {
  const s = await buildSupervisor(t, await fixtureRecords(INSTALLED));
  s.docker.addImage(IMAGE);
  for (const step of more) await step(s);
  await s.jobs.flush();
  s.docker.calls.length = 0;
  return s;
}

const started = (s: ScenarioSupervisor) => s.apps.start(ECHO, s.context());
const watchdogOn = (s: ScenarioSupervisor) => s.apps.setUser(ECHO, { watchdog: true }, s.context());

t.test('install: the image built, a token issued, app_installed with its config and settings', async (t) => {
  const s = await buildSupervisor(t);
  const then = await s.when((s) => s.apps.install(ECHO, s.context()));
  t.error(then.error);
  t.same(told(then.records), ['job app_manager_install core_hearth_echo', 'job docker_interface_install app_core_hearth_echo', 'job done', 'app_installed {"repository":"core"}', 'job done']);
  t.same(s.docker.calls, [`build ${IMAGE}`], 'only the image: no container yet');
  const app = then.records.find((r) => r.type === 'app_installed')!.data;
  t.match(app.user, { version: '1.0.0', image: 'core/amd64-addon-hearth_echo', watchdog: false, boot: null });
  t.equal(app.user.access_token, s.tokens.list().find((x) => x.name === ECHO)?.token, 'the token issued for it');
  t.equal(s.apps.get(ECHO)?.state, 'stopped');
  // the records every other test starts from
  await expectFixture(t, INSTALLED, then.records);
});

t.test('install of an installed app: refused before any job, nothing recorded', async (t) => {
  const s = await installed(t);
  const then = await s.when((s) => s.apps.install(ECHO, s.context()));
  t.match(then.error, { message: 'App Echo is already installed', errorKey: 'app_already_installed_error' });
  t.same(then.records, []);
  t.same(s.docker.calls, []);
});

t.test('start: a container made and started, app_started', async (t) => {
  const s = await installed(t);
  const then = await s.when(started);
  t.error(then.error);
  t.same(told(then.records), ['job app_start core_hearth_echo', 'app_started {"version":"1.0.0"}', 'job done']);
  t.same(s.docker.calls, [`create ${CONTAINER}`, `start ${CONTAINER}`]);
  t.same(s.docker.state(), { [CONTAINER]: 'running' });
  const spec = s.docker.containers.get(CONTAINER)!.spec;
  t.equal(spec.Image, IMAGE);
  t.match(spec.Labels, { 'io.hass.type': 'app', 'io.hass.slug': ECHO });
  t.equal(s.apps.get(ECHO)?.state, 'started');
});

t.test('start with the image gone: built again from the store first', async (t) => {
  const s = await buildSupervisor(t, await fixtureRecords(INSTALLED));
  const then = await s.when(started);
  t.error(then.error);
  t.same(s.docker.calls, [`build ${IMAGE}`, `create ${CONTAINER}`, `start ${CONTAINER}`]);
});

t.test('a start the engine refuses: app_start_failed, the job fails, the container is removed', async (t) => {
  const s = await installed(t);
  s.docker.failNext('start', CONTAINER, engineError(500, 'OCI runtime create failed'));
  const then = await s.when(started);
  t.match(then.error, { message: '(HTTP code 500) OCI runtime create failed' });
  t.same(told(then.records), ['job app_start core_hearth_echo', 'app_start_failed {"message":"(HTTP code 500) OCI runtime create failed"}', 'job failed: (HTTP code 500) OCI runtime create failed']);
  t.same(s.docker.calls, [`create ${CONTAINER}`, `start ${CONTAINER}`, `remove ${CONTAINER}`]);
  t.same(s.docker.state(), {});
  t.not(s.apps.get(ECHO)?.state, 'started');
});

t.test("a port in use: the original's app_port_conflict, and an issue for it", async (t) => {
  const s = await installed(t);
  s.docker.failNext('start', CONTAINER, engineError(500, 'driver failed programming external connectivity: Bind for 0.0.0.0:8099 failed: port is already allocated'));
  const then = await s.when(started);
  t.match(then.error, { message: 'Cannot start app core_hearth_echo because port 8099 is already in use', errorKey: 'app_port_conflict' });
  t.same(told(then.records), [
    'job app_start core_hearth_echo',
    'issue app_port_conflict addon core_hearth_echo',
    'app_start_failed {"message":"Cannot start app core_hearth_echo because port 8099 is already in use"}',
    'job failed: Cannot start app core_hearth_echo because port 8099 is already in use',
  ]);
});

t.test('stop: the container stopped and removed, app_stopped; its death is no crash', async (t) => {
  const s = await installed(t, [watchdogOn, started]);
  const then = await s.when((s) => s.apps.stop(ECHO, s.context()));
  t.error(then.error);
  t.same(told(then.records), ['job app_stop core_hearth_echo', 'app_stopped {"version":"1.0.0"}', 'job done']);
  t.same(s.docker.calls, [`stop ${CONTAINER}`, `die ${CONTAINER} 0`, `remove ${CONTAINER}`]);
  // the engine's die event of the stop arrives after it: give it time to be judged
  const later = await s.when(() => new Promise((ok) => setTimeout(ok, 50)));
  t.same(later.records, [], 'no app_crashed, no watchdog');
  t.equal(s.apps.get(ECHO)?.state, 'stopped');
});

t.test('a crash with the watchdog on: app_crashed, then a new container and watchdog_restart', async (t) => {
  const s = await installed(t, [watchdogOn, started]);
  const then = await s.when((s) => s.docker.crash(CONTAINER, 3), { until: (r) => r.some((x) => x.type === 'job_done') });
  t.same(told(then.records), ['app_crashed {"exit_code":3}', 'job app_restart_after_problem core_hearth_echo', 'watchdog_restart {"version":"1.0.0"}', 'job done']);
  t.same(s.docker.calls, [`die ${CONTAINER} 3`, `remove ${CONTAINER}`, `create ${CONTAINER}`, `start ${CONTAINER}`], 'made anew, as every app start');
  t.equal(s.apps.get(ECHO)?.state, 'started');
});

t.test('a crash with the watchdog off: app_crashed and nothing more', async (t) => {
  const s = await installed(t, [started]);
  const then = await s.when((s) => s.docker.crash(CONTAINER, 1), { until: (r) => r.length > 0 });
  const later = await s.when(() => new Promise((ok) => setTimeout(ok, 50)));
  t.same(told([...then.records, ...later.records]), ['app_crashed {"exit_code":1}']);
  t.same(s.docker.calls, [`die ${CONTAINER} 1`]);
  t.equal(s.apps.get(ECHO)?.state, 'error');
});

t.test('a clean exit of an app is a crash too (as the original)', async (t) => {
  const s = await installed(t, [watchdogOn, started]);
  const then = await s.when((s) => s.docker.crash(CONTAINER, 0), { until: (r) => r.some((x) => x.type === 'job_done') });
  t.same(told(then.records).slice(0, 2), ['app_crashed {"exit_code":0}', 'job app_restart_after_problem core_hearth_echo']);
});

t.test('the watchdog gives up after 5 failed attempts: app_start_failed each time, watchdog_gave_up', async (t) => {
  const s = await installed(t, [watchdogOn, started]);
  for (let i = 0; i < 5; i++) s.docker.failNext('start', CONTAINER, engineError(500, `attempt ${i + 1} refused`));
  const then = await s.when((s) => s.docker.crash(CONTAINER, 2), { until: (r) => r.some((x) => x.type === 'job_done') });
  t.same(told(then.records), [
    'app_crashed {"exit_code":2}',
    'job app_restart_after_problem core_hearth_echo',
    ...[1, 2, 3, 4, 5].map((i) => `app_start_failed {"message":"(HTTP code 500) attempt ${i} refused"}`),
    'watchdog_gave_up {"reason":"attempts"}',
    'job done',
  ]);
  t.same(s.docker.state(), {}, 'no container left behind');
});

t.test('a port conflict ends the watchdog at once', async (t) => {
  const s = await installed(t, [watchdogOn, started]);
  s.docker.failNext('start', CONTAINER, engineError(500, 'Bind for 0.0.0.0:8099 failed: port is already allocated'));
  const then = await s.when((s) => s.docker.crash(CONTAINER, 2), { until: (r) => r.some((x) => x.type === 'job_done') });
  t.same(told(then.records).filter((r) => !r.startsWith('issue')), [
    'app_crashed {"exit_code":2}',
    'job app_restart_after_problem core_hearth_echo',
    'app_start_failed {"message":"Cannot start app core_hearth_echo because port 8099 is already in use"}',
    'watchdog_gave_up {"reason":"attempts"}',
    'job done',
  ]);
});

t.test('uninstall: the container and image removed, the token revoked, app_uninstalled', async (t) => {
  const s = await installed(t, [started]);
  const then = await s.when((s) => s.apps.uninstall(ECHO, s.context()));
  t.error(then.error);
  t.same(told(then.records), ['job app_manager_uninstall core_hearth_echo', 'app_uninstalled {"remove_config":false}', 'job done']);
  t.same(
    facts(then.records).filter((r) => r.stream.startsWith('supervisor/token/')).map((r) => r.type),
    ['token_revoked'],
  );
  t.same(s.docker.calls, [`stop ${CONTAINER}`, `die ${CONTAINER} 0`, `remove ${CONTAINER}`, `remove-image ${IMAGE}`]);
  t.same(s.docker.state(), {});
  t.equal(s.apps.get(ECHO), undefined);
});

t.test('restored from its records: an app recorded started whose container is gone is started again at boot (boot: auto)', async (t) => {
  const s = await installed(t, [started]);
  const records: EventRecord[] = [];
  for await (const r of s.log.read()) records.push(r);
  const again = await buildSupervisor(t, records);
  t.equal(again.apps.get(ECHO)?.state, 'started', 'as recorded');
  const then = await again.when((s) => s.apps.boot(s.context()), { until: (r) => r.some((x) => x.type === 'app_started') });
  t.same(told(then.records), ['job app_start core_hearth_echo', 'app_started {"version":"1.0.0"}', 'job done'], 'boot: auto starts it again');
});

/** The install's records with the app at an older version than the store has. */
async function installedAt(version: string): Promise<EventRecord[]> {
  return (await fixtureRecords(INSTALLED)).map((r) =>
    r.type === 'app_installed' ? { ...r, data: { ...r.data, config: { ...r.data.config, version }, user: { ...r.data.user, version } } } : r,
  );
}

t.test('given an older version running: update builds the new image, makes the container anew, drops the old image', async (t) => {
  const s = await buildSupervisor(t, await installedAt('0.9.0'));
  const old = 'core/amd64-addon-hearth_echo:0.9.0';
  s.docker.addImage(old);
  await s.apps.start(ECHO, s.context());
  await s.jobs.flush();
  s.docker.calls.length = 0;
  const then = await s.when((s) => s.apps.update(ECHO, s.context()));
  t.error(then.error);
  t.same(told(then.records), [
    'job app_manager_update core_hearth_echo',
    'job docker_interface_install app_core_hearth_echo',
    'job done',
    'app_updated {"from":"0.9.0","to":"1.0.0"}',
    'app_started {"version":"1.0.0"}',
    'job done',
  ]);
  t.same(s.docker.calls, [`build ${IMAGE}`, `stop ${CONTAINER}`, `die ${CONTAINER} 0`, `remove ${CONTAINER}`, `remove-image ${old}`, `create ${CONTAINER}`, `start ${CONTAINER}`]);
  t.equal(s.docker.containers.get(CONTAINER)?.spec.Image, IMAGE);
  t.same({ version: s.apps.get(ECHO)?.user.version, state: s.apps.get(ECHO)?.state }, { version: '1.0.0', state: 'started' });
});

t.test('update with nothing newer: refused before any job', async (t) => {
  const s = await installed(t);
  const then = await s.when((s) => s.apps.update(ECHO, s.context()));
  t.match(then.error, { message: 'No update available for app Echo', errorKey: 'app_no_update_available_error' });
  t.same(then.records, []);
});

t.test('rebuild of a running app: stopped without a record, built again, app_rebuilt, started again', async (t) => {
  const s = await installed(t, [started]);
  const then = await s.when((s) => s.apps.rebuild(ECHO, s.context()));
  t.error(then.error);
  t.same(told(then.records), ['job app_rebuild core_hearth_echo', 'app_rebuilt {"version":"1.0.0"}', 'app_started {"version":"1.0.0"}', 'job done']);
  t.same(s.docker.calls, [`stop ${CONTAINER}`, `die ${CONTAINER} 0`, `remove ${CONTAINER}`, `build ${IMAGE}`, `create ${CONTAINER}`, `start ${CONTAINER}`]);
});
