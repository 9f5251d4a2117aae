import t from 'tap';
import { initialTransition, transition } from 'xstate';
import { jobMachine, roundProgress, type JobEvent } from '../../machines/job.machine.ts';

const created = { uuid: 'a'.repeat(32), name: 'home_assistant_core_update', reference: null, parent_id: null, created: 1000, keep: false, internal: false };

function run(events: JobEvent[]) {
  let s = initialTransition(jobMachine, created)[0];
  for (const e of events) s = transition(jobMachine, s, e)[0];
  return s;
}

t.test('progress is kept within 0..100 with one decimal', async (t) => {
  t.equal(roundProgress(12.345), 12.3);
  t.equal(roundProgress(-5), 0);
  t.equal(roundProgress(250), 100);
  t.equal(roundProgress(Number.NaN), 0);
});

t.test('created -> running -> done; success ends at 100', async (t) => {
  const s = run([{ type: 'job_started' }, { type: 'job_progress', progress: 42.04 }, { type: 'job_stage', stage: 'pull' }, { type: 'job_done', at: 2000, errors: [] }]);
  t.equal(s.value, 'done');
  t.equal(s.context.progress, 100);
  t.equal(s.context.stage, 'pull');
  t.equal(s.context.done_at, 2000);
});

t.test('once done, progress, stage and extra are frozen; a failure keeps its progress and errors', async (t) => {
  const error = { type: 'Error', message: 'boom', stage: 'pull', error_key: null, extra_fields: null };
  const s = run([
    { type: 'job_started' },
    { type: 'job_progress', progress: 30 },
    { type: 'job_done', at: 2000, errors: [error] },
    { type: 'job_progress', progress: 90 },
    { type: 'job_stage', stage: 'later' },
    { type: 'job_extra', extra: { x: 1 } },
    { type: 'job_done', at: 3000, errors: [] },
  ]);
  t.equal(s.value, 'done');
  t.equal(s.context.progress, 30);
  t.equal(s.context.stage, null);
  t.equal(s.context.extra, null);
  t.same(s.context.errors, [error]);
  t.equal(s.context.done_at, 2000);
});

t.test('progress does not move before the job started', async (t) => {
  const s = run([{ type: 'job_progress', progress: 50 }]);
  t.equal(s.value, 'created');
  t.equal(s.context.progress, 0);
});

t.test('errors noted while it runs stay with the job, whether it succeeds or fails', async (t) => {
  const noted = { type: 'SupervisorError', message: 'one app left out', stage: 'apps', error_key: 'app_pre_post_backup_command_returned_error', extra_fields: { exit_code: 3 } };
  const failure = { type: 'Error', message: 'boom', stage: null, error_key: null, extra_fields: null };
  const ok = run([{ type: 'job_started' }, { type: 'job_error', error: noted }, { type: 'job_done', at: 2000, errors: [] }]);
  t.equal(ok.value, 'done');
  t.equal(ok.context.progress, 100);
  t.same(ok.context.errors, [noted], 'a job that went on past a failure keeps it');
  const failed = run([{ type: 'job_started' }, { type: 'job_error', error: noted }, { type: 'job_done', at: 2000, errors: [failure] }]);
  t.same(failed.context.errors, [noted, failure], 'the noted failure first, then the one that ended it');
  const late = run([{ type: 'job_started' }, { type: 'job_done', at: 2000, errors: [] }, { type: 'job_error', error: noted }]);
  t.same(late.context.errors, [], 'nothing is noted on a finished job');
});
