// The job tracker's logic: given job records, when work runs as a job (or the supervisor starts
// again over them), then exactly the records on `job/<uuid>` and the jobs as the API lists them.
// The wire (keys, 404s, background answers, options) stays in jobs-api.test.ts.
import t from 'tap';
import { buildSupervisor, fact, facts } from '../../../helpers/scenario.ts';
import { gate } from '../../../helpers/wait.ts';
import { FINISHED_VISIBLE_MS, INTERRUPTED_MESSAGE } from '../../../../actors/supervisor/jobs/jobs.ts';
import { SupervisorError } from '../../../../actors/supervisor/errors.ts';
import type { EventRecord } from '../../../../store/types.ts';

/** Each job record as `<type> <data>`, its job named by the order jobs were created in (`#1`, `#2`...). */
function told(records: EventRecord[]) {
  const names = new Map<string, string>();
  return records
    .filter((r) => r.stream.startsWith('job/'))
    .map((r) => {
      if (!names.has(r.stream)) names.set(r.stream, `#${names.size + 1}`);
      const { uuid: _u, created: _c, ...data } = r.data;
      if (data.parent_id) data.parent_id = names.get(`job/${data.parent_id}`);
      return `${names.get(r.stream)} ${r.type} ${JSON.stringify(data)}`;
    });
}

t.test('a job that succeeds: created, started, its stages and progress, done without errors', async (t) => {
  const s = await buildSupervisor(t);
  const then = await s.when((s) =>
    s.jobs.run({ name: 'home_assistant_core_update', reference: 'core' }, async (job) => {
      job.stage('pull');
      job.progress(40.4);
      job.progress(40.4);
      job.stage('pull');
      job.extra({ total: 3 });
      return 'ok';
    }).done,
  );
  t.equal(then.result, 'ok');
  t.same(told(then.records), [
    '#1 job_created {"name":"home_assistant_core_update","reference":"core","parent_id":null,"keep":false,"internal":false}',
    '#1 job_started {}',
    '#1 job_stage {"stage":"pull"}',
    '#1 job_progress {"progress":40.4}',
    '#1 job_extra {"extra":{"total":3}}',
    '#1 job_done {"errors":[]}',
  ], 'a progress or stage that does not change records nothing');
});

t.test('a failing job records its error; progress and stage are frozen once done', async (t) => {
  const s = await buildSupervisor(t);
  let handle: any;
  const then = await s.when(
    (s) =>
      s.jobs.run({ name: 'home_assistant_core_update' }, async (job) => {
        handle = job;
        job.stage('pull');
        job.progress(40);
        throw new SupervisorError('Downloading Home Assistant version 1.2.3 failed', { errorKey: 'homeassistant_update_image_error', extraFields: { version: '1.2.3' } });
      }).done,
  );
  t.match(then.error, { message: 'Downloading Home Assistant version 1.2.3 failed' });
  const error = { type: 'SupervisorError', message: 'Downloading Home Assistant version 1.2.3 failed', stage: 'pull', error_key: 'homeassistant_update_image_error', extra_fields: { version: '1.2.3' } };
  t.same(told(then.records).slice(2), ['#1 job_stage {"stage":"pull"}', '#1 job_progress {"progress":40}', `#1 job_done ${JSON.stringify({ errors: [error] })}`]);
  const later = await s.when(() => {
    handle.progress(90);
    handle.stage('later');
  });
  t.same(later.records, []);
  t.match(s.jobs.get(then.records[0].data.uuid), { done: true, progress: 40, stage: 'pull', errors: [error] });
});

t.test('a failure noted on a running job stays on it when it succeeds (job_error, then a clean job_done)', async (t) => {
  const s = await buildSupervisor(t);
  const then = await s.when(
    (s) =>
      s.jobs.run({ name: 'backup_store_apps', keep: true }, async (job) => {
        job.stage('apps');
        job.capture(new SupervisorError('one app left out', { errorKey: 'app_pre_post_backup_command_returned_error', extraFields: { exit_code: 3 } }));
        job.progress(50);
      }).done,
  );
  const noted = { type: 'SupervisorError', message: 'one app left out', stage: 'apps', error_key: 'app_pre_post_backup_command_returned_error', extra_fields: { exit_code: 3 } };
  t.same(told(then.records).slice(2), ['#1 job_stage {"stage":"apps"}', `#1 job_error ${JSON.stringify({ error: noted })}`, '#1 job_progress {"progress":50}', '#1 job_done {"errors":[]}']);

  const again = await buildSupervisor(t, then.records);
  t.match(again.jobs.get(then.records[0].data.uuid), { done: true, progress: 100, errors: [noted] }, 'restored: done, at 100%, with the failure it went on past');
});

t.test('children: recorded under their parent; a child that fails fails the parent it is awaited by', async (t) => {
  const s = await buildSupervisor(t);
  const then = await s.when(
    (s) =>
      s.jobs.run({ name: 'backup_manager_full_backup' }, async (job) => {
        await job.child('backup_store_homeassistant', null, async () => {});
        await job.child('backup_store_apps', 'x', async () => {
          throw new Error('no room');
        });
      }).done,
  );
  t.match(then.error, { message: 'no room' });
  t.same(
    told(then.records).filter((l) => /job_created|job_done/.test(l)),
    [
      '#1 job_created {"name":"backup_manager_full_backup","reference":null,"parent_id":null,"keep":false,"internal":false}',
      '#2 job_created {"name":"backup_store_homeassistant","reference":null,"parent_id":"#1","keep":false,"internal":false}',
      '#2 job_done {"errors":[]}',
      '#3 job_created {"name":"backup_store_apps","reference":"x","parent_id":"#1","keep":false,"internal":false}',
      '#3 job_done {"errors":[{"type":"Error","message":"no room","stage":null,"error_key":null,"extra_fields":null}]}',
      '#1 job_done {"errors":[{"type":"Error","message":"no room","stage":null,"error_key":null,"extra_fields":null}]}',
    ],
  );
});

t.test('listed: roots newest first, children oldest first', async (t) => {
  const s = await buildSupervisor(t);
  const g = gate();
  t.teardown(() => g.open());
  const first = s.jobs.run({ name: 'first' }, (job) => Promise.all([job.child('kid_a', null, () => g.promise), job.child('kid_b', null, () => g.promise)]));
  s.clock.advance(1);
  const second = s.jobs.run({ name: 'second' }, () => g.promise);
  t.same(s.jobs.list().map((j) => j.uuid), [second.uuid, first.uuid]);
  t.same(s.jobs.list()[1].child_jobs.map((j) => j.name), ['kid_a', 'kid_b']);
});

t.test('given a job the supervisor stopped under: failed as interrupted at the next start, at its stage and progress', async (t) => {
  const uuid = '0123456789abcdef0123456789abcdef';
  const stream = `job/${uuid}`;
  const s = await buildSupervisor(t, [
    fact(stream, 'job_created', { uuid, name: 'home_assistant_core_update', reference: null, parent_id: null, created: 0, keep: false, internal: false }),
    fact(stream, 'job_started', {}),
    fact(stream, 'job_progress', { progress: 30 }),
    fact(stream, 'job_stage', { stage: 'pull' }),
  ]);
  const then = await s.when((s) => s.jobs.settleInterrupted(s.context()));
  t.same(facts(then.records), [
    { stream, type: 'job_done', data: { errors: [{ type: 'JobInterruptedError', message: INTERRUPTED_MESSAGE, stage: 'pull', error_key: null, extra_fields: null }] } },
  ]);
  t.match(s.jobs.get(uuid), { done: true, progress: 30, stage: 'pull' });
  t.same((await s.when((s) => s.jobs.settleInterrupted(s.context()))).records, [], 'a done job is left as it is');
});

t.test('remove: refused while running; once done a job_removed for it and each child', async (t) => {
  const s = await buildSupervisor(t);
  const g = gate();
  const job = s.jobs.run({ name: 'backup_manager_full_backup', keep: true }, (job) => job.child('backup_store_apps', null, () => g.promise));
  const refused = await s.when((s) => s.jobs.remove(job.uuid, s.context()));
  t.match(refused.error, { message: `Job ${job.uuid} is not done!` });
  t.same(refused.records, []);
  g.open();
  await job.done;
  await s.jobs.flush();
  const removed = await s.when((s) => s.jobs.remove(job.uuid, s.context()));
  t.same(removed.records.map((r) => [r.stream === `job/${job.uuid}` ? 'parent' : 'child', r.type]), [['child', 'job_removed'], ['parent', 'job_removed']]);
  t.equal(s.jobs.get(job.uuid), undefined);
  t.match((await s.when((s) => s.jobs.remove(job.uuid, s.context()))).error, { message: 'Job does not exist', status: 404 });
});

t.test('a finished job vanishes after its retention; a keep job stays until removed', async (t) => {
  const s = await buildSupervisor(t);
  const quick = s.jobs.run({ name: 'home_assistant_core_restart' }, async () => {});
  const kept = s.jobs.run({ name: 'backup_manager_full_backup', keep: true }, async () => {});
  await Promise.all([quick.done, kept.done]);
  t.ok(s.jobs.get(quick.uuid), 'still there just after');
  s.clock.advance(FINISHED_VISIBLE_MS + 1000);
  t.equal(s.jobs.get(quick.uuid), undefined);
  t.same(s.jobs.list().map((j) => j.uuid), [kept.uuid]);
});

t.test('ignored conditions: kept as a settings record, and a condition that fails is then not checked', async (t) => {
  const s = await buildSupervisor(t, [], { conditions: { state: () => 'freeze', warn: () => {} } });
  const refused = await s.when((s) => s.jobs.requireConditions('BackupManager.full_backup', ['running']));
  t.match(refused.error, { message: "'BackupManager.full_backup' blocked from execution, system is not running - freeze" });
  const set = await s.when((s) => s.jobs.setIgnoredConditions(['running', 'running'], s.context()));
  t.same(facts(set.records).map((r) => [r.stream, r.data]), [['supervisor/settings/jobs', { ignore_conditions: ['running'] }]]);
  t.error((await s.when((s) => s.jobs.requireConditions('BackupManager.full_backup', ['running']))).error);
});
