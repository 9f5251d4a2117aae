import type { JobCondition } from './conditions.ts';
import type { Context } from '../../../store/types.ts';

/**
 * What the rest of the supervisor needs of the job tracker (actors/supervisor/jobs/). Every long
 * operation runs as a job: an actor whose changes are records on `job/<uuid>`.
 */

/** A job as the API shows it (key order as the original emits it). */
export interface JobView {
  name: string | null;
  reference: string | null;
  uuid: string;
  progress: number;
  stage: string | null;
  done: boolean | null;
  errors: JobErrorView[];
  created: string;
  extra: Record<string, unknown> | null;
  child_jobs: JobView[];
}

export interface JobErrorView {
  type: string;
  message: string;
  stage: string | null;
  error_key: string | null;
  extra_fields: Record<string, unknown> | null;
}

/** The running job, as the work inside it sees it. */
export interface JobHandle {
  readonly uuid: string;
  /** 0..100; ignored once done */
  progress(percent: number): void;
  stage(stage: string | null): void;
  extra(extra: Record<string, unknown> | null): void;
  /** notes a failure on the job, which goes on (and still succeeds unless it throws) */
  capture(err: unknown): void;
  /** runs `work` as a child job of this one; its failure is recorded on the child and rethrown */
  child<T>(name: string, reference: string | null, work: (job: JobHandle) => Promise<T>): Promise<T>;
  /**
   * Says that the checks which should fail a request fast are done: a `background` caller
   * (runInBackground with `validates: true`) answers `{job_id}` from here on.
   */
  validated(): void;
}

export interface JobSpec {
  /** the original's job name (`home_assistant_core_update`) */
  name: string;
  reference?: string | null;
  /** kept after it is done until DELETE /jobs/{uuid} (backups); others vanish when done */
  keep?: boolean;
  /** hidden from /jobs/info */
  internal?: boolean;
  context?: Context;
}

export interface Jobs {
  /**
   * Starts `work` as a job. `started` is the job's uuid at once; `done` settles with the work
   * (a failure is recorded as the job's error, then rethrown).
   */
  run<T>(spec: JobSpec, work: (job: JobHandle) => Promise<T>): { uuid: string; done: Promise<T> };
  /** A job and its children, or undefined (unknown, or finished and no longer kept). */
  get(uuid: string): JobView | undefined;
  /** The visible jobs: roots newest first, children oldest first, internal ones hidden. */
  list(): JobView[];
  /** Forgets a finished job and its children (a `job_removed` record each); throws when not done. */
  remove(uuid: string, context: Context): Promise<void>;
  /** The job conditions the operator chose to ignore (`/jobs/options`), persisted. */
  ignoredConditions(): string[];
  setIgnoredConditions(conditions: string[], context: Context): Promise<void>;
  /**
   * Throws the original's `'<method>' blocked from execution, ...` 400 when one of `conditions`
   * (not ignored) does not hold; called before a job is started.
   */
  requireConditions(method: string, conditions: readonly JobCondition[]): Promise<void>;
}
