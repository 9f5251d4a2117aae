import { initialTransition, transition, type SnapshotFrom } from 'xstate';
import { isoformat } from '../../../machines/python/isoformat.ts';
import { jobEventOf, jobMachine, roundProgress, type JobContext, type JobCreated, type JobError, type JobEvent, type JobRecord, type JobStepRecord } from '../../../machines/job.machine.ts';
import type { Area } from '../../area.ts';
import type { Clock, Ids } from '../../clock.ts';
import type { Context, EventLog, EventRecord } from '../../../store/types.ts';
import { typedRecords, type RecordOf } from '../../../store/typed-records.ts';
import type { Settings } from '../settings.ts';
import { SupervisorError, UNKNOWN_ERROR, notFound } from '../errors.ts';
import type { JobErrorView, JobHandle, JobSpec, JobView, Jobs } from './types.ts';
import { requireConditions, type ConditionFacts, type JobCondition } from './conditions.ts';

/**
 * The job tracker. Every job is an actor (machines/job.machine.ts) whose changes are records on
 * `job/<uuid>`: `job_created`, `job_started`, `job_progress`, `job_stage`, `job_extra`, `job_error`,
 * `job_done` (with its errors) and `job_removed`.
 *
 * Retention (a deliberate difference from the original, which forgets every job at restart and
 * drops a finished job from the list at once): a finished job stays listed and queryable for
 * FINISHED_VISIBLE_MS (so a client that got a `job_id` for a background core update can watch it
 * reach 100%), a `keep` job (backups, restores) until DELETE /jobs/{uuid}. Jobs survive a
 * restart through their records; one that was still running when the supervisor stopped is
 * recorded as failed when it starts again, never left running.
 */

export const JOB_PREFIX = 'job/';
/** how long a finished job that is not `keep` stays listed */
export const FINISHED_VISIBLE_MS = 10 * 60 * 1000;
/** the job manager's persisted options (settings section `jobs`) */
export const JOBS_DEFAULTS = { ignore_conditions: [] as string[] };

/** The original's job conditions, the values `ignore_conditions` accepts. */
export const JOB_CONDITIONS = [
  'auto_update',
  'free_space',
  'frozen',
  'haos',
  'healthy',
  'home_assistant_core_supported',
  'host_network',
  'internet_host',
  'internet_system',
  'mount_available',
  'os_agent',
  'os_supported',
  'plugins_updated',
  'running',
  'supervisor_updated',
  'architecture_supported',
] as const;

/** The error a job gets when the supervisor stopped while it ran. */
export const INTERRUPTED_TYPE = 'JobInterruptedError';
export const INTERRUPTED_MESSAGE = 'The supervisor restarted while this job was running; it did not finish';

const SNAPSHOT_VERSION = 1;
const streamOf = (uuid: string) => JOB_PREFIX + uuid;
const jobRecords = typedRecords<JobRecord>(JOB_PREFIX, {
  job_created: true,
  job_started: true,
  job_progress: true,
  job_stage: true,
  job_extra: true,
  job_error: true,
  job_done: true,
  job_removed: true,
});

type JobSnapshot = SnapshotFrom<typeof jobMachine>;

/** A handle for work run without a tracker (a bare manager in tests): nothing is recorded, children run inline. */
export function untrackedJob(uuid: string): JobHandle {
  const handle: JobHandle = { uuid, progress() {}, stage() {}, extra() {}, capture() {}, validated() {}, child: (_n, _r, work) => work(handle) };
  return handle;
}

/**
 * The job tracker's stand-in where there is none (a bare manager or runtime in tests): the work
 * just runs, untracked, and no condition refuses. Only `run` and `requireConditions` answer.
 */
export function untrackedJobs(ids: Pick<Ids, 'uuidHex'>): Jobs {
  const jobs: Pick<Jobs, 'run' | 'requireConditions'> = {
    run: (_spec, work) => {
      const uuid = ids.uuidHex();
      return { uuid, done: work(untrackedJob(uuid)) };
    },
    requireConditions: async () => {},
  };
  return jobs as Jobs;
}

/** A failure as a job records it. */
export function jobErrorOf(err: unknown, stage: string | null): JobError {
  const e = err as { name?: unknown; message?: unknown; errorKey?: unknown; extraFields?: unknown } | null;
  const message = typeof e?.message === 'string' && e.message ? e.message : '';
  if (!message) return { type: 'HassioError', message: UNKNOWN_ERROR, stage, error_key: null, extra_fields: null };
  return {
    type: typeof e?.name === 'string' && e.name ? e.name : 'Error',
    message,
    stage,
    error_key: typeof e?.errorKey === 'string' ? e.errorKey : null,
    extra_fields: e?.extraFields && typeof e.extraFields === 'object' ? (e.extraFields as Record<string, unknown>) : null,
  };
}

export interface JobTrackerDeps {
  log: EventLog;
  clock: Clock;
  ids: Ids;
  settings: Settings;
  /** a context for records nobody asked for (progress of a job started without one) */
  context(): Context;
  /** where a record that could not be written is told */
  warn?(line: string): void;
}

export class JobTracker implements Jobs, Area<RecordOf<JobRecord>> {
  readonly name = 'supervisor-jobs';
  readonly snapshotVersion = SNAPSHOT_VERSION;
  readonly streamPrefix = JOB_PREFIX;
  readonly latestSuffices = false;
  private readonly jobs = new Map<string, JobSnapshot>();
  private readonly children = new Map<string, string[]>();
  private readonly contexts = new Map<string, Context>();
  private readonly pending = new Set<Promise<unknown>>();
  private closed = false;
  private conditionFacts: ConditionFacts = {};

  constructor(private readonly deps: JobTrackerDeps) {}

  // ---- Area: restored from the log ----

  owns(record: EventRecord): record is RecordOf<JobRecord> {
    return jobRecords.owns(record);
  }

  evolve(record: RecordOf<JobRecord>): void {
    const uuid = record.stream.slice(JOB_PREFIX.length);
    if (record.type === 'job_created') this.add(initialTransition(jobMachine, record.data)[0]);
    else if (record.type === 'job_removed') this.forget(uuid);
    else this.step(uuid, jobEventOf(record, record.time));
  }

  snapshot(): unknown {
    return [...this.jobs.values()].map((s) => ({ value: s.value, context: s.context }));
  }

  restore(data: unknown): void {
    this.jobs.clear();
    this.children.clear();
    for (const s of data as Array<{ value: unknown; context: unknown }>) this.add(jobMachine.resolveState(s as Parameters<typeof jobMachine.resolveState>[0]));
  }

  /**
   * After a restore: every job that was not done is recorded as failed (the supervisor stopped
   * under it), and finished jobs past their retention are dropped. Resolves once recorded.
   */
  async settleInterrupted(context: Context): Promise<void> {
    const now = this.deps.clock.now();
    for (const [uuid, s] of this.jobs) {
      if (s.value === 'done') continue;
      const error: JobError = { type: INTERRUPTED_TYPE, message: INTERRUPTED_MESSAGE, stage: s.context.stage, error_key: null, extra_fields: null };
      this.emit(uuid, { type: 'job_done', data: { errors: [error] } }, context, now);
    }
    this.prune(now);
    await this.flush();
  }

  // ---- Jobs ----

  run<T>(spec: JobSpec, work: (job: JobHandle) => Promise<T>): { uuid: string; done: Promise<T> } {
    return this.start(spec, work, null);
  }

  get(uuid: string): JobView | undefined {
    const s = this.jobs.get(uuid);
    if (!s || !this.visible(s, this.deps.clock.now())) return undefined;
    return this.view(s);
  }

  list(): JobView[] {
    const now = this.deps.clock.now();
    this.prune(now);
    return [...this.jobs.values()]
      .filter((s) => s.context.parent_id === null || !this.jobs.has(s.context.parent_id))
      .filter((s) => !s.context.internal && this.visible(s, now))
      .sort((a, b) => b.context.created - a.context.created)
      .map((s) => this.view(s));
  }

  async remove(uuid: string, context: Context): Promise<void> {
    const s = this.jobs.get(uuid);
    if (!s || !this.visible(s, this.deps.clock.now())) throw notFound('Job does not exist');
    if (s.value !== 'done') throw new SupervisorError(`Job ${uuid} is not done!`);
    for (const id of this.subtree(uuid).reverse()) {
      const job = this.jobs.get(id);
      if (job && job.value === 'done') {
        this.forget(id);
        this.record(id, { type: 'job_removed', data: {} }, context);
      }
    }
    await this.flush();
  }

  /** What the job conditions are judged on; given once the parts that know it are made. */
  useConditionFacts(facts: ConditionFacts): void {
    this.conditionFacts = facts;
  }

  requireConditions(method: string, conditions: readonly JobCondition[]): Promise<void> {
    return requireConditions(method, conditions, this.conditionFacts, this.ignoredConditions());
  }

  ignoredConditions(): string[] {
    return [...this.deps.settings.section('jobs', JOBS_DEFAULTS).get().ignore_conditions];
  }

  async setIgnoredConditions(conditions: string[], context: Context): Promise<void> {
    await this.deps.settings.section('jobs', JOBS_DEFAULTS).set({ ignore_conditions: [...new Set(conditions)] }, context);
  }

  /** Resolves once every record asked for so far is written (or failed). */
  async flush(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  /** No more records: jobs still running after this change only in memory (the log is closing). */
  async close(): Promise<void> {
    await this.flush();
    this.closed = true;
  }

  // ---- internals ----

  private start<T>(spec: JobSpec, work: (job: JobHandle) => Promise<T>, parentId: string | null): { uuid: string; done: Promise<T> } {
    const { clock, ids } = this.deps;
    const uuid = ids.uuidHex();
    const context = spec.context ?? this.deps.context();
    const parent = parentId ? this.jobs.get(parentId) : undefined;
    const created: JobCreated = {
      uuid,
      name: spec.name,
      reference: spec.reference ?? null,
      parent_id: parentId,
      created: clock.now(),
      keep: Boolean(spec.keep || parent?.context.keep),
      internal: Boolean(spec.internal),
    };
    this.contexts.set(uuid, context);
    this.add(initialTransition(jobMachine, created)[0]);
    this.record(uuid, { type: 'job_created', data: created }, context, created.created);
    this.emit(uuid, { type: 'job_started', data: {} }, context);

    const handle: JobHandle = {
      uuid,
      progress: (percent) => {
        const s = this.jobs.get(uuid);
        if (s && s.value === 'running' && roundProgress(percent) !== s.context.progress) this.emit(uuid, { type: 'job_progress', data: { progress: roundProgress(percent) } }, context);
      },
      stage: (stage) => {
        const s = this.jobs.get(uuid);
        if (s && s.value === 'running' && stage !== s.context.stage) this.emit(uuid, { type: 'job_stage', data: { stage } }, context);
      },
      extra: (extra) => {
        const s = this.jobs.get(uuid);
        if (s && s.value === 'running') this.emit(uuid, { type: 'job_extra', data: { extra } }, context);
      },
      capture: (err) => {
        const s = this.jobs.get(uuid);
        if (s && s.value === 'running') this.emit(uuid, { type: 'job_error', data: { error: jobErrorOf(err, s.context.stage) } }, context);
      },
      child: (name, reference, childWork) => this.start({ name, reference, context }, childWork, uuid).done,
      // only runInBackground listens for this (it wraps the handle)
      validated: () => {},
    };
    const done = (async () => {
      try {
        const result = await work(handle);
        this.emit(uuid, { type: 'job_done', data: { errors: [] } }, context);
        return result;
      } catch (err) {
        this.emit(uuid, { type: 'job_done', data: { errors: [jobErrorOf(err, this.jobs.get(uuid)?.context.stage ?? null)] } }, context);
        throw err;
      }
    })();
    // a caller that does not wait for the job must not turn its failure into an unhandled rejection
    done.catch(() => {});
    return { uuid, done };
  }

  /** Applies an event to the job's machine and records it when the machine took it. */
  private emit(uuid: string, step: JobStepRecord, context: Context, at = this.deps.clock.now()): void {
    if (this.step(uuid, jobEventOf(step, at))) this.record(uuid, step, context, at);
  }

  private step(uuid: string, event: JobEvent): boolean {
    const s = this.jobs.get(uuid);
    if (!s || !s.can(event)) return false;
    this.jobs.set(uuid, transition(jobMachine, s, event)[0]);
    return true;
  }

  private record(uuid: string, kind: JobRecord, context: Context, time = this.deps.clock.now()): void {
    if (this.closed) return;
    const p = this.deps.log
      .append([jobRecords.make(streamOf(uuid), kind, context, time)])
      .catch((err) => this.deps.warn?.(`job ${uuid}: record ${kind.type} not written: ${(err as Error)?.message ?? err}`))
      .finally(() => this.pending.delete(p));
    this.pending.add(p);
  }

  private add(s: JobSnapshot): void {
    const { uuid, parent_id } = s.context;
    this.jobs.set(uuid, s);
    if (parent_id) this.children.set(parent_id, [...(this.children.get(parent_id) ?? []), uuid]);
  }

  private forget(uuid: string): void {
    const s = this.jobs.get(uuid);
    this.jobs.delete(uuid);
    this.contexts.delete(uuid);
    if (s?.context.parent_id) {
      const siblings = this.children.get(s.context.parent_id)?.filter((id) => id !== uuid);
      if (siblings?.length) this.children.set(s.context.parent_id, siblings);
      else this.children.delete(s.context.parent_id);
    }
  }

  private subtree(uuid: string): string[] {
    const out = [uuid];
    for (const child of this.children.get(uuid) ?? []) out.push(...this.subtree(child));
    return out;
  }

  private visible(s: JobSnapshot, now: number): boolean {
    const c = s.context;
    if (s.value !== 'done' || c.keep) return true;
    // a child is shown as long as its parent is
    if (c.parent_id !== null) {
      const parent = this.jobs.get(c.parent_id);
      if (parent) return this.visible(parent, now);
    }
    return c.done_at !== null && now - c.done_at < FINISHED_VISIBLE_MS;
  }

  /** Forgets (in memory only) finished root jobs past their retention, with their subtrees. */
  private prune(now: number): void {
    for (const [uuid, s] of [...this.jobs]) {
      if (!this.jobs.has(uuid)) continue;
      const root = s.context.parent_id === null || !this.jobs.has(s.context.parent_id);
      if (root && !this.visible(s, now)) for (const id of this.subtree(uuid)) this.forget(id);
    }
  }

  private view(s: JobSnapshot): JobView {
    const c: JobContext = s.context;
    const kids = (this.children.get(c.uuid) ?? [])
      .map((id) => this.jobs.get(id))
      .filter((k): k is JobSnapshot => k !== undefined && !k.context.internal)
      .sort((a, b) => a.context.created - b.context.created);
    return {
      name: c.name,
      reference: c.reference,
      uuid: c.uuid,
      progress: c.progress,
      stage: c.stage,
      done: s.value === 'created' ? null : s.value === 'done',
      errors: c.errors.map((e): JobErrorView => ({ type: e.type, message: e.message, stage: e.stage, error_key: e.error_key, extra_fields: e.extra_fields })),
      created: isoformat(c.created),
      extra: c.extra,
      child_jobs: kids.map((k) => this.view(k)),
    };
  }
}

/**
 * Runs `work` as a job for a route that accepts `background` (supervisor-wire §1.8).
 *
 * Waits until the work has done its validation, then: with `background` true and the work still
 * running, answers `{ job_id }` at once; otherwise awaits the work and answers its result (its
 * failure thrown as is, so a validation error is a normal error even in background mode).
 * Validation is over when the work calls `job.validated()` (with `validates: true`), else at the
 * work's first pause: an error thrown before its first await reaches the caller.
 */
export async function runInBackground<T>(
  jobs: Jobs,
  spec: JobSpec,
  work: (job: JobHandle) => Promise<T>,
  background: boolean,
  options: { validates?: boolean } = {},
): Promise<T | { job_id: string }> {
  let signal: () => void = () => {};
  const validated = new Promise<void>((ok) => (signal = ok));
  let settled = false;
  const { uuid, done } = jobs.run(spec, (job) =>
    work({
      uuid: job.uuid,
      progress: (p) => job.progress(p),
      stage: (s) => job.stage(s),
      extra: (e) => job.extra(e),
      capture: (err) => job.capture(err),
      child: (name, reference, w) => job.child(name, reference, w),
      validated: () => {
        signal();
        job.validated();
      },
    }),
  );
  if (!background) return done;
  const finished = done.then(
    () => (settled = true),
    () => (settled = true),
  );
  const ready = options.validates ? validated : new Promise<void>((ok) => setImmediate(ok));
  await Promise.race([finished, ready]);
  if (settled) return done;
  return { job_id: uuid };
}
