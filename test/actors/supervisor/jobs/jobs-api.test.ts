// The jobs on the wire and across a real restart; the tracker's logic (records, errors,
// children, retention, interruption) is test/actors/supervisor/jobs/jobs.test.ts.
import t from 'tap';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { startSupervisor } from '../../../../bin/supervisor-instance.ts';
import { runInBackground, INTERRUPTED_MESSAGE } from '../../../../actors/supervisor/jobs/jobs.ts';
import { isoformat as isoTime } from '../../../../machines/python/isoformat.ts';
import { SupervisorError } from '../../../../actors/supervisor/errors.ts';
import { recordsOn, type Readable } from '../../../helpers/log-records.ts';
import { gate, until } from '../../../helpers/wait.ts';

const records = (log: Readable, prefix = 'job/') => recordsOn(log, prefix);

const JOB_KEYS = ['name', 'reference', 'uuid', 'progress', 'stage', 'done', 'errors', 'created', 'extra', 'child_jobs'];

t.test('isoTime prints microseconds and +00:00, and drops a zero fraction', async (t) => {
  t.equal(isoTime(Date.UTC(2026, 4, 1, 3, 0, 0, 123) + 0.456), '2026-05-01T03:00:00.123456+00:00');
  t.equal(isoTime(Date.UTC(2026, 4, 1, 3, 0, 0, 0)), '2026-05-01T03:00:00+00:00');
  t.equal(isoTime(Date.UTC(2026, 4, 1, 3, 0, 0, 5)), '2026-05-01T03:00:00.005000+00:00');
});

t.test('GET /jobs/info: ignore_conditions and the job tree, keys in the original order', async (t) => {
  const s = await startTestSupervisor(t);
  const empty = await s.json('GET', '/jobs/info');
  t.same(empty, { status: 200, body: { result: 'ok', data: { ignore_conditions: [], jobs: [] } } });

  const parentGate = gate();
  const childGate = gate();
  const { uuid, done } = s.supervisor.jobs.run({ name: 'home_assistant_core_update', reference: 'hearth_core' }, async (job) => {
    job.stage('download');
    job.progress(12.345);
    await job.child('docker_interface_install', 'hearth_core', async (c) => {
      c.progress(50);
      await childGate.promise;
    });
    await parentGate.promise;
  });
  s.supervisor.jobs.run({ name: 'secret_internal', internal: true }, () => parentGate.promise);
  await new Promise((ok) => setImmediate(ok));

  const { status, body } = await s.json('GET', '/jobs/info');
  t.equal(status, 200);
  t.equal(body.data.jobs.length, 1, 'the internal job is hidden');
  const job = body.data.jobs[0];
  t.same(Object.keys(job), JOB_KEYS);
  t.match(job.uuid, /^[0-9a-f]{32}$/);
  t.equal(job.uuid, uuid);
  t.same({ ...job, created: undefined, child_jobs: undefined, uuid: undefined }, {
    name: 'home_assistant_core_update',
    reference: 'hearth_core',
    progress: 12.3,
    stage: 'download',
    done: false,
    errors: [],
    extra: null,
  });
  t.match(job.created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?\+00:00$/);
  t.equal(job.child_jobs.length, 1);
  t.same(Object.keys(job.child_jobs[0]), JOB_KEYS);
  t.equal(job.child_jobs[0].name, 'docker_interface_install');
  t.equal(job.child_jobs[0].progress, 50);

  const one = await s.json('GET', `/jobs/${uuid}`);
  t.same(one.body, { result: 'ok', data: job }, 'GET /jobs/{uuid} is the same subtree');

  childGate.open();
  parentGate.open();
  await done;
  const finished = (await s.json('GET', `/jobs/${uuid}`)).body.data;
  t.equal(finished.done, true);
  t.equal(finished.progress, 100, 'a job that succeeds ends at 100');
  t.equal(finished.child_jobs[0].done, true);
});

t.test('GET and DELETE of an unknown job: 404 Job does not exist', async (t) => {
  const s = await startTestSupervisor(t);
  for (const method of ['GET', 'DELETE']) {
    const res = await s.json(method, '/jobs/0123456789abcdef0123456789abcdef');
    t.same(res, { status: 404, body: { result: 'error', message: 'Job does not exist' } }, method);
  }
});

t.test('DELETE a running job is refused; once done it is removed with a job_removed record', async (t) => {
  const s = await startTestSupervisor(t);
  const g = gate();
  const { uuid, done } = s.supervisor.jobs.run({ name: 'backup_manager_full_backup', keep: true }, async (job) => {
    job.stage('apps');
    await g.promise;
  });
  const refused = await s.json('DELETE', `/jobs/${uuid}`);
  t.same(refused, { status: 400, body: { result: 'error', message: `Job ${uuid} is not done!` } });

  // the legacy stage name on v1 while the websocket-v2 flag is off
  t.equal((await s.json('GET', `/jobs/${uuid}`)).body.data.stage, 'addons');

  g.open();
  await done;
  const kept = await s.json('GET', `/jobs/${uuid}`);
  t.equal(kept.body.data.done, true, 'a keep job stays after it is done');
  const removed = await s.json('DELETE', `/jobs/${uuid}`);
  t.same(removed, { status: 200, body: { result: 'ok', data: {} } });
  t.equal((await s.json('GET', `/jobs/${uuid}`)).status, 404);
  const recs = (await records(s.supervisor.log)).filter((r) => r.stream === `job/${uuid}`);
  t.same(recs.map((r) => r.type), ['job_created', 'job_started', 'job_stage', 'job_done', 'job_removed']);
});

t.test('background: job_id at once, then GET /jobs/{uuid} shows progress up to done; validation errors fail fast', async (t) => {
  const s = await startTestSupervisor(t);
  const steps = [gate(), gate()];
  // a route of the kind the core update uses, registered for this test
  s.supervisor.api.post('/test/slow', async (call) => {
    const body = call.body() as { background?: boolean; bad?: boolean };
    return runInBackground(
      s.supervisor.jobs,
      { name: 'home_assistant_core_update' },
      async (job) => {
        if (body.bad) throw new SupervisorError('Home Assistant version 1.0 is already installed', { errorKey: 'homeassistant_update_already_installed_error', extraFields: { version: '1.0' } });
        await steps[0].promise;
        job.progress(50);
        await steps[1].promise;
        return {};
      },
      body.background === true,
    );
  });
  const started = await s.json('POST', '/test/slow', { body: { background: true } });
  t.equal(started.status, 200);
  t.same(Object.keys(started.body.data), ['job_id']);
  const id = started.body.data.job_id;
  t.match(id, /^[0-9a-f]{32}$/);
  t.same((await s.json('GET', `/jobs/${id}`)).body.data.progress, 0);
  steps[0].open();
  const mid = await until(async () => {
    const j = (await s.json('GET', `/jobs/${id}`)).body.data;
    return j.progress === 50 && j;
  });
  t.equal(mid.progress, 50);
  t.equal(mid.done, false);
  steps[1].open();
  const end = await until(async () => {
    const j = (await s.json('GET', `/jobs/${id}`)).body.data;
    return j.done === true && j;
  });
  t.equal(end.done, true);
  t.equal(end.progress, 100);
  t.ok((await s.json('GET', '/jobs/info')).body.data.jobs.some((j: any) => j.uuid === id), 'a finished job stays listed for a while');

  const bad = await s.json('POST', '/test/slow', { body: { background: true, bad: true } });
  t.same(bad, {
    status: 400,
    body: { result: 'error', message: 'Home Assistant version 1.0 is already installed', error_key: 'homeassistant_update_already_installed_error', extra_fields: { version: '1.0' } },
  });
});

t.test('a restart turns a running job into a failed one; records prove it', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  const g = gate();
  t.teardown(() => g.open());
  const { uuid } = s1.jobs.run({ name: 'home_assistant_core_update' }, async (job) => {
    job.progress(30);
    job.stage('pull');
    await g.promise;
  });
  await s1.jobs.flush();
  await s1.stop();

  const s2 = await startSupervisor({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  t.teardown(() => s2.stop());
  const res = await fetch(`http://127.0.0.1:${s2.port}/jobs/${uuid}`, { headers: { Authorization: `Bearer ${s2.adminToken}` } });
  const job = ((await res.json()) as any).data;
  t.equal(job.done, true, 'not stuck');
  t.equal(job.progress, 30);
  t.same(job.errors, [{ type: 'JobInterruptedError', message: INTERRUPTED_MESSAGE, stage: 'pull', error_key: null, extra_fields: null }]);
  const recs = (await records(s2.log)).filter((r) => r.stream === `job/${uuid}`);
  t.same(recs.map((r) => r.type), ['job_created', 'job_started', 'job_progress', 'job_stage', 'job_done']);
  t.equal(recs[4].data.errors[0].message, INTERRUPTED_MESSAGE);

  // the first supervisor's work ending later changes nothing in the log
  g.open();
  await new Promise((ok) => setImmediate(ok));
  t.equal((await records(s2.log)).filter((r) => r.stream === `job/${uuid}`).length, 5);
});

t.test('POST /jobs/options persists ignore_conditions across a restart; bad values refused; reset', async (t) => {
  const dataDir = await supervisorDataDir();
  const s1 = await startTestSupervisor(t, { dataDir });
  const set = await s1.json('POST', '/jobs/options', { body: { ignore_conditions: ['free_space', 'healthy'] } });
  t.same(set, { status: 200, body: { result: 'ok', data: {} } });
  const bad = await s1.json('POST', '/jobs/options', { body: { ignore_conditions: ['nope'] } });
  t.equal(bad.status, 400);
  t.match(bad.body.message, /^value must be one of \[.*'free_space'.*\] @ data\['ignore_conditions'\]\. Got \['nope'\]$/);
  const extra = await s1.json('POST', '/jobs/options', { body: { other: 1 } });
  t.same(extra.body, { result: 'error', message: "extra keys not allowed @ data['other']. Got 1" });
  await s1.supervisor.stop();

  const s2 = await startTestSupervisor(t, { dataDir });
  t.same((await s2.json('GET', '/jobs/info')).body.data.ignore_conditions, ['free_space', 'healthy']);
  t.same((await s2.json('POST', '/jobs/reset')).body, { result: 'ok', data: {} });
  t.same((await s2.json('GET', '/jobs/info')).body.data.ignore_conditions, []);
});

t.test('jobs routes need the manager role', async (t) => {
  const s = await startTestSupervisor(t);
  t.equal((await s.call('GET', '/jobs/info', { token: null })).status, 401);
});
