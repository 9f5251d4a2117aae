import type { SupervisorApi, SupervisorCall } from '../api.ts';
import type { Context } from '../../../store/types.ts';
import type { Settings } from '../../../actors/supervisor/settings.ts';
import type { Resolution } from '../../../actors/supervisor/resolution/types.ts';
import { list, oneOf, schema, validate } from '../../../actors/supervisor/validate.ts';
import { notFound } from '../../../actors/supervisor/errors.ts';
import { JOB_CONDITIONS } from '../../../actors/supervisor/jobs/jobs.ts';
import type { JobView, Jobs } from '../../../actors/supervisor/jobs/types.ts';

/** The job manager's routes (supervisor-wire §4.4, §6). */

const optionsShape = schema({ ignore_conditions: list(oneOf(JOB_CONDITIONS)) });

/** Stage names the original still shows with `addon` on the legacy trees (§6.2). */
const LEGACY_STAGES: Record<string, string> = {
  app_repositories: 'addon_repositories',
  apps: 'addons',
  await_app_restarts: 'await_addon_restarts',
  remove_delta_apps: 'remove_delta_addons',
};
const LEGACY_STAGE_JOBS = new Set(['backup_manager_full_backup', 'backup_manager_partial_backup', 'backup_manager_full_restore', 'backup_manager_partial_restore']);

/** A job as the legacy naming shows it (v1, and v2 while `supervisor_websocket_v2_api` is off). */
export function legacyJob(job: JobView): JobView {
  const stage = job.stage !== null && job.name !== null && LEGACY_STAGE_JOBS.has(job.name) ? (LEGACY_STAGES[job.stage] ?? job.stage) : job.stage;
  return {
    ...job,
    name: job.name === 'app_manager_update' ? 'addon_manager_update' : job.name,
    stage,
    child_jobs: job.child_jobs.map(legacyJob),
  };
}

/** What the job manager's routes use. */
export interface JobRouteDeps {
  jobs: Jobs;
  /** evaluated again when the ignored conditions change */
  resolution: Resolution;
  /** the feature flags that pick the job names shown */
  settings: Settings;
  context(): Context;
}

/** Registers the job manager's routes. */
export function registerJobRoutes(api: SupervisorApi, deps: JobRouteDeps): void {
  const { jobs } = deps;
  // the legacy mapping is keyed on the websocket-v2 flag, on both trees (§6.2 note)
  const shown = (job: JobView) => {
    const flags = deps.settings.section('supervisor', { feature_flags: {} as Record<string, boolean> }).get().feature_flags;
    return flags?.supervisor_websocket_v2_api === true ? job : legacyJob(job);
  };
  const one = (call: SupervisorCall) => {
    const job = jobs.get(call.params.uuid);
    if (!job) throw notFound('Job does not exist');
    return job;
  };

  api.get('/jobs/info', () => ({ ignore_conditions: jobs.ignoredConditions(), jobs: jobs.list().map(shown) }));

  api.post('/jobs/options', async (call) => {
    const body = validate(call.body(), optionsShape);
    if (body.ignore_conditions !== undefined) await jobs.setIgnoredConditions(body.ignore_conditions, deps.context());
    // an ignored condition makes the system unsupported (`job_conditions`)
    await deps.resolution.evaluate();
    return {};
  });

  api.post('/jobs/reset', async () => {
    await jobs.setIgnoredConditions([], deps.context());
    await deps.resolution.evaluate();
    return {};
  });

  api.get('/jobs/:uuid', (call) => shown(one(call)));

  api.delete('/jobs/:uuid', async (call) => {
    one(call);
    await jobs.remove(call.params.uuid, deps.context());
    return {};
  });
}
