import { assign, setup } from 'xstate';

/** One failure of a job as the original reports it. */
export interface JobError {
  type: string;
  message: string;
  stage: string | null;
  error_key: string | null;
  extra_fields: Record<string, unknown> | null;
}

/** The data of a `job_created` record (times epoch ms). */
export interface JobCreated {
  uuid: string;
  name: string | null;
  reference: string | null;
  parent_id: string | null;
  created: number;
  keep: boolean;
  internal: boolean;
}

export interface JobContext extends JobCreated {
  progress: number;
  stage: string | null;
  extra: Record<string, unknown> | null;
  errors: JobError[];
  /** when it finished (epoch ms), null while not done */
  done_at: number | null;
}

/** A job's log records after `job_created`, used as the machine's events. */
export type JobEvent =
  | { type: 'job_started' }
  | { type: 'job_progress'; progress: number }
  | { type: 'job_stage'; stage: string | null }
  | { type: 'job_extra'; extra: Record<string, unknown> | null }
  /** a failure the job noted and went on past (one app of a backup, say) */
  | { type: 'job_error'; error: JobError }
  | { type: 'job_done'; at: number; errors: JobError[] };

/** A job's records on `job/<uuid>`, as the log holds them (`job_done`'s time is the record's). */
export type JobRecord =
  | { type: 'job_created'; data: JobCreated }
  | JobStepRecord
  | { type: 'job_removed'; data: Record<string, never> };

/** The records of a job that step its machine. */
export type JobStepRecord =
  | { type: 'job_started'; data: Record<string, never> }
  | { type: 'job_progress'; data: { progress: number } }
  | { type: 'job_stage'; data: { stage: string | null } }
  | { type: 'job_extra'; data: { extra: Record<string, unknown> | null } }
  | { type: 'job_error'; data: { error: JobError } }
  | { type: 'job_done'; data: { errors: JobError[] } };

/** The machine's event for a step record written at `at`. */
export function jobEventOf(record: JobStepRecord, at: number): JobEvent {
  switch (record.type) {
    case 'job_started':
      return { type: record.type };
    case 'job_progress':
      return { type: record.type, progress: record.data.progress };
    case 'job_stage':
      return { type: record.type, stage: record.data.stage };
    case 'job_extra':
      return { type: record.type, extra: record.data.extra };
    case 'job_error':
      return { type: record.type, error: record.data.error };
    case 'job_done':
      return { type: record.type, at, errors: record.data.errors };
  }
}

/** Progress as the original keeps it: within 0..100, one decimal. */
export function roundProgress(value: number): number {
  if (!Number.isFinite(value)) return 0;
  return Math.round(Math.min(100, Math.max(0, value)) * 10) / 10;
}

/**
 * A job: created, then running, then done (successfully or with errors). Progress, stage and
 * extra move only while it runs; once done they are frozen. A job that succeeds ends at 100%,
 * keeping the failures it noted on the way (as the original's captured errors).
 */
export const jobMachine = setup({
  types: {
    context: {} as JobContext,
    events: {} as JobEvent,
    input: {} as JobCreated,
  },
  guards: {
    succeeded: ({ event }) => event.type === 'job_done' && event.errors.length === 0,
  },
  actions: {
    setProgress: assign(({ event }) => (event.type === 'job_progress' ? { progress: roundProgress(event.progress) } : {})),
    setStage: assign(({ event }) => (event.type === 'job_stage' ? { stage: event.stage } : {})),
    setExtra: assign(({ event }) => (event.type === 'job_extra' ? { extra: event.extra } : {})),
    addError: assign(({ context, event }) => (event.type === 'job_error' ? { errors: [...context.errors, event.error] } : {})),
    // the failures it went on past stay with it
    finishWell: assign(({ event }) => (event.type === 'job_done' ? { progress: 100, done_at: event.at } : {})),
    finishBadly: assign(({ context, event }) => (event.type === 'job_done' ? { errors: [...context.errors, ...event.errors], done_at: event.at } : {})),
  },
}).createMachine({
  id: 'job',
  context: ({ input }) => ({ ...input, progress: 0, stage: null, extra: null, errors: [], done_at: null }),
  initial: 'created',
  states: {
    created: {
      on: {
        job_started: 'running',
        // a job that never started (its checks refused it) still ends as done with its errors
        job_done: { target: 'done', actions: 'finishBadly' },
      },
    },
    running: {
      on: {
        job_progress: { actions: 'setProgress' },
        job_stage: { actions: 'setStage' },
        job_extra: { actions: 'setExtra' },
        job_error: { actions: 'addError' },
        job_done: [
          { guard: 'succeeded', target: 'done', actions: 'finishWell' },
          { target: 'done', actions: 'finishBadly' },
        ],
      },
    },
    done: {},
  },
});
