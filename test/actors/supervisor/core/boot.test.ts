import t from 'tap';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { coreContainerName, docker, freePort, runtimeRecords } from '../../../helpers/core-container.ts';
import { CORE_VERSION } from '../../../../actors/version.ts';
import { eventually } from '../../../helpers/wait.ts';

t.test('a supervisor with boot on installs and starts the core in the background; boot off leaves it down after a restart', async (t) => {
  const name = coreContainerName(t, 'boot');
  const port = await freePort();
  const dataDir = await supervisorDataDir();
  const s = await startTestSupervisor(t, { dataDir, coreContainer: name, corePort: port, bootCore: true });
  // the API answers at once, whatever the core is doing
  t.equal((await s.json('GET', '/core/info')).status, 200);
  await eventually('core_started recorded', async () => (await runtimeRecords(s.supervisor.log)).find((r) => r.type === 'core_started'), 60_000);
  t.same(
    (await runtimeRecords(s.supervisor.log)).map((r) => r.type),
    ['core_installed', 'core_container_created', 'core_started'],
  );
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
  const jobs = (await s.json('GET', '/jobs/info')).body.data.jobs;
  t.notOk(jobs.some((j: any) => j.name?.startsWith('home_assistant_core') && j.done === false), 'no core job left running');
  const install = jobs.find((j: any) => j.name === 'home_assistant_core_install');
  t.match(install, { done: true, errors: [], child_jobs: [{ name: 'docker_interface_install', reference: name, done: true }] }, 'the image as a child job');

  // boot off, core stopped: a new supervisor leaves it alone
  t.equal((await s.json('POST', '/core/options', { body: { boot: false } })).status, 200);
  t.equal((await s.json('POST', '/core/stop')).status, 200);
  await s.supervisor.stop();
  const again = await startTestSupervisor(t, { dataDir, coreContainer: name, corePort: port, bootCore: true });
  t.equal((await again.json('GET', '/core/info')).body.data.version, CORE_VERSION);
  await new Promise((r) => setTimeout(r, 1000));
  t.equal(JSON.parse(await docker('inspect', name))[0].State.Running, false);

  // boot on again: the next start brings the existing container up
  t.equal((await again.json('POST', '/core/options', { body: { boot: true } })).status, 200);
  await again.supervisor.stop();
  const third = await startTestSupervisor(t, { dataDir, coreContainer: name, corePort: port, bootCore: true });
  await eventually('the core container running', async () => JSON.parse(await docker('inspect', name))[0].State.Running, 60_000);
  await eventually('core_started recorded twice', async () => (await runtimeRecords(third.supervisor.log)).filter((r) => r.type === 'core_started').length === 2, 60_000);
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
});
