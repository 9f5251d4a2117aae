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
