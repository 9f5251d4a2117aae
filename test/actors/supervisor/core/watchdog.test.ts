// The core's watchdog on the real engine, end to end: a killed core answers again, a removed
// container is made again by a start. Its logic (stops, watchdog off, giving up) is
// container.test.ts beside this one, on the fake engine.
import t from 'tap';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { coreContainerName, docker, freePort, runtimeRecords } from '../../../helpers/core-container.ts';
import { eventually } from '../../../helpers/wait.ts';

t.test('a killed core is restarted by the watchdog, with records and a resolution issue', async (t) => {
  const name = coreContainerName(t, 'watchdog');
  const port = await freePort();
  const s = await startTestSupervisor(t, { coreContainer: name, corePort: port });
  t.equal((await s.json('POST', '/core/start')).status, 200);
  const before = JSON.parse(await docker('inspect', name))[0];
  await docker('kill', name);
  const restart = await eventually('watchdog_restart recorded', async () => (await runtimeRecords(s.supervisor.log)).find((r) => r.type === 'watchdog_restart'), 60_000);
  const types = (await runtimeRecords(s.supervisor.log)).map((r) => r.type);
  t.ok(types.indexOf('core_crashed') >= 0 && types.indexOf('core_crashed') < types.indexOf('watchdog_restart'), 'crashed, then restarted');
  t.match((await runtimeRecords(s.supervisor.log)).find((r) => r.type === 'core_crashed')?.data, { exit_code: 137, container: name });
  t.match(restart.data, { attempt: 1 });
  const after = JSON.parse(await docker('inspect', name))[0];
  t.equal(after.State.Running, true);
  t.equal(after.Id, before.Id, 'the same container started again');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401, 'the core answers again');
  const jobs = (await s.json('GET', '/jobs/info')).body.data.jobs;
  t.ok(jobs.some((j: any) => j.name === 'home_assistant_core_restart_after_problem'), 'the restart ran as the original\'s job');
  const issues = s.supervisor.resolution.issues();
  t.ok(issues.some((i) => i.type === 'boot_fail' && i.context === 'core' && i.reference === name), 'a boot_fail issue of context core');
});

t.test('a core container removed behind the supervisor\'s back is not made again by the watchdog', async (t) => {
  const name = coreContainerName(t, 'removed');
  const port = await freePort();
  const s = await startTestSupervisor(t, { coreContainer: name, corePort: port });
  t.equal((await s.json('POST', '/core/start')).status, 200);
  await docker('rm', '-f', name);
  const gaveUp = await eventually('watchdog_gave_up recorded', async () => (await runtimeRecords(s.supervisor.log)).find((r) => r.type === 'watchdog_gave_up'), 60_000);
  t.match(gaveUp.data, { reason: 'removed' });
  t.equal(await docker('ps', '-a', '--filter', `name=^${name}$`, '--format', '{{.Names}}'), '', 'no container');
  // an explicit start makes it again
  t.equal((await s.json('POST', '/core/start')).status, 200);
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
});
