// The core's container without Docker: given the supervisor's records, when the core is started,
// stopped or its container dies, then exactly the records appended (on core/runtime, the jobs,
// the resolution center) and what was asked of the engine. The real engine's tests beside this
// one (boot, watchdog, update, dashboard) stay for the image and a core that really runs.
import t from 'tap';
import { buildSupervisor, jobLine, type ScenarioSupervisor } from '../../../helpers/scenario.ts';
import { engineError } from '../../../helpers/fake-engine.ts';
import type { EventRecord } from '../../../../store/types.ts';
import { CORE_CONTAINER_PORT } from '../../../../actors/supervisor/core/image.ts';

const CORE = 'hearth_core';

/** The runtime's records, jobs' names and ends and issues, as a test states them. */
function told(records: EventRecord[]) {
  return records
    .filter((r) => r.stream === 'core/runtime' || r.type === 'job_created' || r.type === 'job_done' || r.type === 'issue_created')
    .map((r) => {
      if (r.type === 'job_created' || r.type === 'job_done') return jobLine(r)!;
      if (r.type === 'issue_created') return `issue ${r.data.type} ${r.data.context} ${r.data.reference}`;
      const { container: _, port: __, ...data } = r.data;
      return `${r.type} ${JSON.stringify(data)}`;
    });
}

/** The core installed and running, the engine's calls so far forgotten. */
async function running(t: Parameters<typeof buildSupervisor>[0]): Promise<ScenarioSupervisor> {
  const s = await buildSupervisor(t);
  await s.core.start(s.context()).done;
  await s.jobs.flush();
  s.docker.calls.length = 0;
  return s;
}

t.test('the first start: installed from the image there, a container made with a new core token, started once it answers', async (t) => {
  const s = await buildSupervisor(t);
  const then = await s.when((s) => s.core.start(s.context()).done);
  t.error(then.error);
  t.same(told(then.records), [
    'job home_assistant_core_start',
    'job docker_interface_install hearth_core',
    'job done',
    'core_installed {"version":"2026.11.0","image":"hearth/core","built":false}',
    'core_container_created {"version":"2026.11.0","image":"hearth/core:2026.11.0"}',
    'core_started {"version":"2026.11.0"}',
    'job done',
  ]);
  t.same(s.docker.calls, [`create ${CORE}`, `start ${CORE}`]);
  const env: string[] = s.docker.containers.get(CORE)!.spec.Env;
  t.ok(env.includes(`SUPERVISOR_TOKEN=${s.tokens.list().find((x) => x.kind === 'core')!.token}`), 'the token issued for it');
  t.same(s.docker.containers.get(CORE)!.spec.HostConfig.PortBindings, { [`${CORE_CONTAINER_PORT}/tcp`]: [{ HostIp: '', HostPort: String(s.coreHttp.port) }] });
});

t.test('a start while it runs does nothing', async (t) => {
  const s = await running(t);
  const then = await s.when((s) => s.core.start(s.context()).done);
  t.same(told(then.records), ['job home_assistant_core_start', 'job done']);
  t.same(s.docker.calls, []);
});

t.test('a core that never answers: the start fails, the container is still wanted', async (t) => {
  const s = await buildSupervisor(t);
  s.coreHttp.answering = false;
  const then = await s.when((s) => s.core.start(s.context()).done);
  t.match(then.error, { message: /^The core did not answer on http:\/\/127\.0\.0\.1:\d+\/auth\/providers in time$/ });
  t.same(told(then.records).at(-1), `job failed: ${then.error!.message}`);
  t.notOk(then.records.some((r) => r.type === 'core_started'));
});

t.test('stop: core_stopped; the die event of the stop is no crash', async (t) => {
  const s = await running(t);
  const then = await s.when((s) => s.core.stop(s.context(), { force: true }));
  t.error(then.error);
  t.same(told(then.records), ['job home_assistant_core_stop', 'core_stopped {"version":"2026.11.0"}', 'job done']);
  t.same(s.docker.calls, [`stop ${CORE}`, `die ${CORE} 0`]);
  const later = await s.when(() => new Promise((ok) => setTimeout(ok, 50)));
  t.same(later.records, [], 'no core_crashed, no watchdog');
  t.same(s.docker.state(), { [CORE]: 'stopped' }, 'the container is kept');
});

t.test('a crash: core_crashed and a boot_fail issue, then the same container started again (watchdog_restart)', async (t) => {
  const s = await running(t);
  const then = await s.when((s) => s.docker.crash(CORE, 137), { until: (r) => r.some((x) => x.type === 'job_done') });
  t.same(told(then.records), [
    'core_crashed {"exit_code":137,"version":"2026.11.0"}',
    `issue boot_fail core ${CORE}`,
    'job home_assistant_core_restart_after_problem',
    'watchdog_restart {"attempt":1,"exit_code":137}',
    'job done',
  ]);
  t.same(s.docker.calls, [`die ${CORE} 137`, `start ${CORE}`], 'not made anew');
});

t.test('a clean exit of the core is the core stopping itself, not a crash', async (t) => {
  const s = await running(t);
  const then = await s.when((s) => s.docker.crash(CORE, 0));
  const later = await s.when(() => new Promise((ok) => setTimeout(ok, 50)));
  t.same([...then.records, ...later.records], []);
});

t.test('a crash with the watchdog off: core_crashed and the issue, nothing more', async (t) => {
  const s = await running(t);
  await s.core.setOptions({ watchdog: false }, s.context());
  const then = await s.when((s) => s.docker.crash(CORE, 1), { until: (r) => r.some((x) => x.type === 'issue_created') });
  const later = await s.when(() => new Promise((ok) => setTimeout(ok, 50)));
  t.same(told([...then.records, ...later.records]), ['core_crashed {"exit_code":1,"version":"2026.11.0"}', `issue boot_fail core ${CORE}`]);
  t.same(s.docker.calls, [`die ${CORE} 1`]);
});

t.test('a crash after which the engine will not start it: 5 attempts, then watchdog_gave_up', async (t) => {
  const s = await running(t);
  for (let i = 1; i <= 5; i++) s.docker.failNext('start', CORE, engineError(500, `start ${i} refused`));
  const then = await s.when((s) => s.docker.crash(CORE, 3), { until: (r) => r.some((x) => x.type === 'job_done') });
  t.same(told(then.records), [
    'core_crashed {"exit_code":3,"version":"2026.11.0"}',
    `issue boot_fail core ${CORE}`,
    'job home_assistant_core_restart_after_problem',
    'watchdog_gave_up {"reason":"attempts"}',
    'job done',
  ]);
  t.same(
    s.lines.filter((l) => l.startsWith('watchdog: restart')),
    [1, 2, 3, 4, 5].map((i) => `watchdog: restart ${i} of the core failed: (HTTP code 500) start ${i} refused`),
  );
});

t.test('a restart that runs but does not answer in time: one failed attempt, then it is found up and left running', async (t) => {
  const s = await running(t);
  s.coreHttp.answering = false;
  const then = await s.when((s) => s.docker.crash(CORE, 3), { until: (r) => r.some((x) => x.type === 'job_done') });
  t.same(told(then.records), ['core_crashed {"exit_code":3,"version":"2026.11.0"}', `issue boot_fail core ${CORE}`, 'job home_assistant_core_restart_after_problem', 'job done']);
  t.same(s.docker.calls, [`die ${CORE} 3`, `start ${CORE}`]);
  t.same(s.docker.state(), { [CORE]: 'running' });
});

t.test('a container removed behind the supervisor\'s back is not made again by the watchdog; a start makes it', async (t) => {
  const s = await running(t);
  const then = await s.when(
    (s) => {
      s.docker.crash(CORE, 137);
      s.docker.containers.delete(CORE);
    },
    { until: (r) => r.some((x) => x.type === 'job_done') },
  );
  t.same(told(then.records).slice(2), ['job home_assistant_core_restart_after_problem', 'watchdog_gave_up {"reason":"removed"}', 'job done']);
  t.same(s.docker.state(), {}, 'no container');
  const started = await s.when((s) => s.core.start(s.context()).done);
  t.same(told(started.records), ['job home_assistant_core_start', 'core_container_created {"version":"2026.11.0","image":"hearth/core:2026.11.0"}', 'core_started {"version":"2026.11.0"}', 'job done']);
});
