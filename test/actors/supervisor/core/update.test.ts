import t from 'tap';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { coreContainerName, docker, freePort, runtimeRecords } from '../../../helpers/core-container.ts';
import { CORE_VERSION } from '../../../../actors/version.ts';
import { eventually } from '../../../helpers/wait.ts';

// another version of the core is this one's image under a newer tag (nothing can be pulled)
const NEXT = `2099.1.${process.pid % 1000}`;
const name = coreContainerName(t, 'update');
const port = await freePort();
// on every address: the core in its container hands the supervisor its token over the bridge (a backup needs it)
const s = await startTestSupervisor(t, { coreContainer: name, corePort: port, host: '0.0.0.0' });
t.teardown(() => docker('rmi', `hearth/core:${NEXT}`).catch(() => ''));

t.test('refusals come at once: same version, an image that cannot be had, a backup, bad keys', async (t) => {
  t.equal((await s.json('POST', '/core/start')).status, 200);
  await docker('tag', `hearth/core:${CORE_VERSION}`, `hearth/core:${NEXT}`);
  for (const background of [false, true]) {
    const same = await s.json('POST', '/core/update', { body: { version: CORE_VERSION, background } });
    t.same(same, {
      status: 400,
      body: { result: 'error', message: `Home Assistant version ${CORE_VERSION} is already installed`, error_key: 'homeassistant_update_already_installed_error', extra_fields: { version: CORE_VERSION } },
    });
  }
  t.same((await s.json('POST', '/core/update')).body.error_key, 'homeassistant_update_already_installed_error', 'the default is the latest, which is this one');
  const missing = await s.json('POST', '/core/update', { body: { version: '2099.9.9' } });
  t.same(missing, {
    status: 400,
    body: { result: 'error', message: 'Downloading Home Assistant version 2099.9.9 failed', error_key: 'homeassistant_update_image_error', extra_fields: { version: '2099.9.9' } },
  });
  const backup = await s.json('POST', '/core/update', { body: { version: NEXT, backup: true } });
  t.equal(backup.status, 400);
  t.match(backup.body.message, /backup/i);
  const extra = await s.json('POST', '/core/update', { body: { version: NEXT, force: true } });
  t.same(extra.body, { result: 'error', message: "extra keys not allowed @ data['force']. Got True" });
  t.equal((await s.json('GET', '/core/info')).body.data.version, CORE_VERSION, 'nothing changed');
  t.notOk((await runtimeRecords(s.supervisor.log)).some((r) => r.type === 'core_updated'));
});

t.test('a background update answers a job id; the job is home_assistant_core_update; the core runs the new image', async (t) => {
  const res = await s.json('POST', '/core/update', { body: { version: NEXT, background: true } });
  t.equal(res.status, 200);
  t.match(res.body.data, { job_id: /^[0-9a-f]{32}$/ });
  const job = await s.json('GET', `/jobs/${res.body.data.job_id}`);
  if (job.status === 200) t.equal(job.body.data.name, 'home_assistant_core_update');
  else t.equal(job.status, 404, 'a finished update job is gone');
  await eventually('core_updated recorded', async () => (await runtimeRecords(s.supervisor.log)).find((r) => r.type === 'core_updated'), 60_000);
  const info = (await s.json('GET', '/core/info')).body.data;
  t.equal(info.version, NEXT);
  t.equal(info.update_available, false);
  const inspect = JSON.parse(await docker('inspect', name))[0];
  t.equal(inspect.Config.Image, `hearth/core:${NEXT}`);
  t.equal(inspect.State.Running, true);
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401, 'the updated core answers');
  const updated = (await runtimeRecords(s.supervisor.log)).find((r) => r.type === 'core_updated');
  t.match(updated?.data, { from: CORE_VERSION, to: NEXT, container: name });
});

t.test('a foreground update back on the legacy path answers {} when done', async (t) => {
  const res = await s.json('POST', '/homeassistant/update', { body: { version: CORE_VERSION } });
  t.same(res, { status: 200, body: { result: 'ok', data: {} } });
  t.equal((await s.json('GET', '/core/info')).body.data.version, CORE_VERSION);
  t.equal(JSON.parse(await docker('inspect', name))[0].Config.Image, `hearth/core:${CORE_VERSION}`);
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
  t.equal((await s.json('GET', '/jobs/info')).body.data.jobs.filter((j: any) => j.name === 'home_assistant_core_update' && !j.done).length, 0);
});

t.test('a stopped core is updated without being started', async (t) => {
  t.equal((await s.json('POST', '/core/stop')).status, 200);
  t.equal((await s.json('POST', '/core/update', { body: { version: NEXT } })).status, 200);
  const inspect = JSON.parse(await docker('inspect', name))[0];
  t.equal(inspect.Config.Image, `hearth/core:${NEXT}`);
  t.equal(inspect.State.Running, false);
  t.equal((await s.json('GET', '/core/info')).body.data.version, NEXT);
});

t.test('an update whose core does not start goes back to the version before: 200, records, an update_rollback issue', async (t) => {
  // back on this version and running
  t.equal((await s.json('POST', '/core/update', { body: { version: CORE_VERSION } })).status, 200);
  t.equal((await s.json('POST', '/core/start')).status, 200);
  const BROKEN = `2099.2.${process.pid % 1000}`;
  const scratch = await docker('create', `hearth/core:${CORE_VERSION}`);
  await docker('commit', '--change', 'CMD ["node","-e","console.log(\'broken core\'); process.exit(3)"]', scratch, `hearth/core:${BROKEN}`);
  await docker('rm', scratch);
  t.teardown(() => docker('rmi', `hearth/core:${BROKEN}`).catch(() => ''));
  const res = await s.json('POST', '/core/update', { body: { version: BROKEN } });
  t.same(res, { status: 200, body: { result: 'ok', data: {} } });
  const types = (await runtimeRecords(s.supervisor.log)).map((r) => r.type);
  t.same(types.slice(types.lastIndexOf('core_update_failed')), ['core_update_failed', 'core_container_created', 'core_started', 'core_update_rolled_back'], 'failed, then the previous version recreated');
  const failed = (await runtimeRecords(s.supervisor.log)).filter((r) => r.type === 'core_update_failed').at(-1);
  t.match(failed?.data, { from: CORE_VERSION, to: BROKEN, message: /ended while starting \(exit code 3\)/ });
  t.equal((await s.json('GET', '/core/info')).body.data.version, CORE_VERSION);
  t.equal(JSON.parse(await docker('inspect', name))[0].Config.Image, `hearth/core:${CORE_VERSION}`);
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401, 'the previous core answers');
  t.ok(s.supervisor.resolution.issues().some((i) => i.type === 'update_rollback' && i.context === 'core'));
});

t.test('a restore runs the core version the backup was made on; one whose image cannot be had fails the restore, and the core runs on', async (t) => {
  t.equal((await s.json('GET', '/core/info')).body.data.version, CORE_VERSION);
  t.equal((await s.json('POST', '/core/start')).status, 200);
  const made = await s.json('POST', '/backups/new/partial', { body: { name: 'at this version', homeassistant: true } });
  t.equal(made.status, 200, JSON.stringify(made.body).slice(0, 300) + JSON.stringify(made.body.job_id ? (await s.json('GET', `/jobs/${made.body.job_id}`)).body : ''));
  const slug = made.body.data.slug;
  t.equal((await s.json('GET', `/backups/${slug}/info`)).body.data.homeassistant, CORE_VERSION);

  await docker('tag', `hearth/core:${CORE_VERSION}`, `hearth/core:${NEXT}`);
  t.equal((await s.json('POST', '/core/update', { body: { version: NEXT } })).status, 200);
  const restored = await s.json('POST', `/backups/${slug}/restore/partial`, { body: { homeassistant: true } });
  t.equal(restored.status, 200, JSON.stringify(restored.body).slice(0, 300));
  const info = (await s.json('GET', '/core/info')).body.data;
  t.equal(info.version, CORE_VERSION, 'back on the backup\'s version');
  const inspect = JSON.parse(await docker('inspect', name))[0];
  t.equal(inspect.Config.Image, `hearth/core:${CORE_VERSION}`);
  t.equal(inspect.State.Running, true);
  t.ok(inspect.Config.Env.includes(`SUPERVISOR_RESTORE_JOB_ID=${restored.body.data.job_id}`), 'one container, made after the switch');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401, 'the core answers');
  const job = (await s.json('GET', `/jobs/${restored.body.data.job_id}`)).body.data;
  if (job) {
    const core = job.child_jobs.find((c: any) => c.name === 'backup_restore_homeassistant');
    t.same(core?.child_jobs.map((c: any) => [c.name, c.done, c.errors]), [['home_assistant_core_update', true, []]], 'the switch is a core update job inside the core\'s restore');
  }
  const records = await runtimeRecords(s.supervisor.log);
  t.match(records.filter((r) => r.type === 'core_updated').at(-1)?.data, { from: NEXT, to: CORE_VERSION, reason: 'restore' });

  // a backup of a version whose image is gone
  t.equal((await s.json('POST', '/core/update', { body: { version: NEXT } })).status, 200);
  const next = await s.json('POST', '/backups/new/partial', { body: { name: 'at the next version', homeassistant: true } });
  t.equal(next.status, 200);
  t.equal((await s.json('POST', '/core/update', { body: { version: CORE_VERSION } })).status, 200);
  await docker('rmi', `hearth/core:${NEXT}`);
  const failed = await s.json('POST', `/backups/${next.body.data.slug}/restore/partial`, { body: { homeassistant: true } });
  t.equal(failed.status, 400);
  t.equal(failed.body.message, `An error occurred during restore of ${next.body.data.slug}, check job '${failed.body.job_id}' or supervisor logs for details`);
  const failedJob = (await s.json('GET', `/jobs/${failed.body.job_id}`)).body.data;
  const update = failedJob?.child_jobs.find((c: any) => c.name === 'backup_restore_homeassistant')?.child_jobs.find((c: any) => c.name === 'home_assistant_core_update');
  t.match(update?.errors, [{ message: `Downloading Home Assistant version ${NEXT} failed` }], 'the job says which version could not be had');
  t.equal((await s.json('GET', '/core/info')).body.data.version, CORE_VERSION, 'the version stays');
  t.equal(JSON.parse(await docker('inspect', name))[0].State.Running, true, 'and the core runs again');
  t.equal((await fetch(`http://127.0.0.1:${port}/api/`)).status, 401);
});
