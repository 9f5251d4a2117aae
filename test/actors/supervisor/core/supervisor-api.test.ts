// The core's `supervisor/api` WebSocket command against a real supervisor: the core started the
// way the supervisor's container starts it (SUPERVISOR and SUPERVISOR_TOKEN, here as options),
// with the core token the supervisor issued.
import t from 'tap';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { startTestHearth, onboard } from '../../../helpers/hearth.ts';
import { authedClient } from '../../../helpers/ws.ts';
import { sorting, userToken } from '../../../helpers/ws-sorting.ts';
import { supervisorFromEnv } from '../../../../actors/supervisor-client/client.ts';

async function coreWithSupervisor(t: any) {
  const s = await startTestSupervisor(t);
  const core = await s.supervisor.tokens.rotateCore(s.supervisor.deps.context());
  const { base } = await startTestHearth(t, { supervisor: { url: s.base, token: core.token } });
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  t.teardown(() => c.ws.close());
  return { s, base, tokens, ask: sorting(c).ask };
}

t.test('supervisor/api reaches the supervisor with the core token', async (t) => {
  const { s, base, tokens, ask } = await coreWithSupervisor(t);

  const config = await ask({ type: 'get_config' });
  t.ok(config.result.components.includes('hassio'), 'hassio is loaded');

  const info = await ask({ type: 'supervisor/api', endpoint: '/info', method: 'get' });
  t.equal(info.success, true);
  t.type(info.result.supervisor, 'string', 'the envelope is unwrapped: /info data');
  t.notOk('result' in info.result && info.result.result === 'ok');

  const jobs = await ask({ type: 'supervisor/api', endpoint: '/jobs/info', method: 'get', timeout: null });
  t.same(jobs.result, { ignore_conditions: [], jobs: [] });

  // a running job is seen through the core
  let release!: () => void;
  const held = new Promise<void>((ok) => (release = ok));
  s.supervisor.jobs.run({ name: 'home_assistant_core_update', reference: 'hearth_core' }, async (job) => {
    job.stage('download');
    job.progress(40);
    await held;
  });
  const running = await ask({ type: 'supervisor/api', endpoint: '/jobs/info', method: 'get' });
  t.match(running.result.jobs, [{ name: 'home_assistant_core_update', stage: 'download', progress: 40, done: false }]);
  release();

  // a POST with data changes the supervisor: an ignored job condition makes it unsupported
  const posted = await ask({ type: 'supervisor/api', endpoint: '/jobs/options', method: 'post', data: { ignore_conditions: ['healthy'] } });
  t.same(posted, { id: posted.id, type: 'result', success: true, result: {} });
  t.same((await s.json('GET', '/jobs/info')).body.data.ignore_conditions, ['healthy'], 'seen on the supervisor');
  const resolution = await ask({ type: 'supervisor/api', endpoint: '/resolution/info', method: 'get' });
  t.ok(resolution.result.unsupported.includes('job_conditions'));

  // the supervisor's refusal is the original's unknown_error with the supervisor's message
  const uuid = '0123456789abcdef0123456789abcdef';
  const missing = await ask({ type: 'supervisor/api', endpoint: `/resolution/suggestion/${uuid}`, method: 'post' });
  t.same(missing.error, { code: 'unknown_error', message: `Suggestion ${uuid} does not exist` });
  const bad = await ask({ type: 'supervisor/api', endpoint: '/jobs/options', method: 'post', data: { ignore_conditions: ['nope'] } });
  t.equal(bad.success, false);
  t.equal(bad.error.code, 'unknown_error');
  t.match(bad.error.message, /ignore_conditions/);

  // bad input: a clear error, never a crash
  const shape = await ask({ type: 'supervisor/api', endpoint: '/info' });
  t.equal(shape.error.code, 'invalid_format');
  const odd = await ask({ type: 'supervisor/api', endpoint: 'info', method: 'get' });
  t.same(odd.error, { code: 'unknown_error', message: 'Invalid endpoint "info": it must be a path starting with /' });

  // a user who is no admin is refused, except for the ingress endpoints
  const userTok = await userToken(base, tokens.access_token);
  const u = await authedClient(base, userTok);
  t.teardown(() => u.ws.close());
  const refused = await sorting(u).ask({ type: 'supervisor/api', endpoint: '/jobs/info', method: 'get' });
  t.same(refused.error, { code: 'unauthorized', message: 'Unauthorized' });
  const appInfo = await sorting(u).ask({ type: 'supervisor/api', endpoint: '/addons/none/info', method: 'get' });
  t.not(appInfo.error?.code, 'unauthorized', 'an app info may be asked by any user (ingress panels)');
});

t.test('a supervisor that does not answer: the original unknown_error, a clear message', async (t) => {
  const { base } = await startTestHearth(t, { supervisor: { url: 'http://127.0.0.1:9', token: 'x' } });
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  t.teardown(() => c.ws.close());
  const r = await sorting(c).ask({ type: 'supervisor/api', endpoint: '/info', method: 'get', timeout: 5 });
  t.equal(r.error.code, 'unknown_error');
  t.match(r.error.message, /^Client error on \/info request/);
});

t.test('without a supervisor: no hassio, the command is unknown', async (t) => {
  const { base } = await startTestHearth(t, { supervisor: null });
  const tokens = await onboard(base);
  const c = await authedClient(base, tokens.access_token);
  t.teardown(() => c.ws.close());
  const { ask } = sorting(c);
  t.notOk((await ask({ type: 'get_config' })).result.components.includes('hassio'));
  t.same((await ask({ type: 'supervisor/api', endpoint: '/info', method: 'get' })).error, { code: 'unknown_command', message: 'Unknown command.' });
});

t.test('the endpoint from the environment', async (t) => {
  t.same(supervisorFromEnv({ SUPERVISOR: 'http://supervisor:1703/', SUPERVISOR_TOKEN: 'abc' }), { url: 'http://supervisor:1703', token: 'abc' });
  t.same(supervisorFromEnv({ SUPERVISOR: 'supervisor', SUPERVISOR_TOKEN: 'abc' }), { url: 'http://supervisor', token: 'abc' });
  t.equal(supervisorFromEnv({ SUPERVISOR: 'http://supervisor' }), undefined);
  t.equal(supervisorFromEnv({}), undefined);
});
