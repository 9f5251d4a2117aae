// The operator pages in Chromium, against a real supervisor running this Hearth's core: the
// jobs with live progress, the resolution center's suggestions applied and dismissed (and gone
// on the supervisor's API), the apps' empty state; no operator link without a supervisor.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHearth, onboard } from '../../../helpers/hearth.ts';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';
import { userToken } from '../../../helpers/ws-sorting.ts';

t.test('the operator pages with a supervisor', { skip: noBrowser }, async (t) => {
  const s = await startTestSupervisor(t);
  const core = await s.supervisor.tokens.rotateCore(s.supervisor.deps.context());
  const { base } = await startTestHearth(t, { supervisor: { url: s.base, token: core.token } });
  const tokens = await onboard(base);

  // a job under way, with a step of its own
  let step!: (pct: number) => void;
  let finish!: () => void;
  const finished = new Promise<void>((ok) => (finish = ok));
  s.supervisor.jobs.run({ name: 'home_assistant_core_update', reference: 'hearth_core' }, async (job) => {
    job.stage('download');
    job.progress(25);
    step = (pct) => job.progress(pct);
    await job.child('docker_interface_install', 'hearth_core', async (c) => {
      c.progress(10);
      await finished;
    });
  });
  // an issue the way the supervisor raises one, with its suggestion
  const issue = await s.supervisor.resolution.addIssue({ type: 'reboot_required', context: 'system' }, [{ type: 'execute_reboot', context: 'system' }]);

  const page = await newPage(t);
  await signIn(page, base, '#/operator');
  await page.getByRole('navigation').getByRole('link', { name: 'Operator' }).waitFor();
  await page.getByRole('heading', { name: 'Operator', level: 1 }).waitFor();

  // jobs: the running job, its stage and progress, its child job; progress follows live
  const job = page.locator('li.op-job').filter({ hasText: 'home_assistant_core_update' }).first();
  await job.getByText('Stage: download').waitFor();
  await job.locator('.op-job-progress').first().getByText('25 %').waitFor();
  await job.locator('li.op-job').filter({ hasText: 'docker_interface_install' }).getByText('10 %').waitFor();
  t.equal(await job.getByRole('progressbar', { name: 'Progress of home_assistant_core_update' }).getAttribute('value'), '25');
  step(60);
  await job.locator('.op-job-progress').first().getByText('60 %').waitFor();
  t.pass('the progress moved on the page without a reload');

  // the resolution center: the issue, its suggestion
  const resolution = page.locator('#op-resolution');
  await resolution.locator('li.op-issue').getByText('reboot_required').waitFor();
  t.ok(await resolution.getByText('free_space').isVisible(), 'the checks are listed');
  const suggestion = resolution.locator('li.op-suggestion').filter({ hasText: 'execute_reboot' });
  // applying it cannot reboot this host: the supervisor's reason is shown, the suggestion stays
  await suggestion.getByRole('button', { name: 'Apply execute_reboot' }).click();
  await page.getByRole('alert').getByText(/^Applying failed: Cannot reboot the host/).waitFor();
  t.equal((await s.json('GET', '/resolution/info')).body.data.suggestions.length, 1, 'still there on the supervisor');

  // dismissed from the keyboard: gone on the page and on the supervisor's API
  await suggestion.getByRole('button', { name: 'Dismiss execute_reboot' }).focus();
  await page.keyboard.press('Enter');
  await page.getByRole('status').getByText('Dismissed: execute_reboot').waitFor();
  await resolution.getByText('No suggestions.').waitFor();
  const after = (await s.json('GET', '/resolution/info')).body.data;
  t.same(after.suggestions, [], 'the suggestion is gone on the supervisor');
  t.same(after.issues.map((i: any) => i.uuid), [issue.uuid], 'the issue itself stays until dismissed or fixed');
  t.ok(await page.evaluate(() => document.activeElement?.id === 'op-resolution-title'), 'the keyboard carries on from the section');

  // apps: none installed
  await page.locator('#op-apps').getByText('No apps are installed.').waitFor();
  await page.locator('#op-apps').getByText('No app offers a panel.').waitFor();

  // the job done: shown as done
  finish();
  await job.locator('.op-job-state').first().getByText('done').waitFor();
  t.same(page.problems, [], 'no script, CSP or load errors');

  // a user who is no admin has no operator link, and the page refuses
  const userTok = await userToken(base, tokens.access_token);
  t.ok(userTok);
  const other = await newPage(t);
  await signIn(other, base, '#/operator', { username: 'user1', password: 'user pass 123' });
  await other.getByText('The operator pages are for administrators.').waitFor();
  t.equal(await other.getByRole('navigation').getByRole('link', { name: 'Operator' }).count(), 0, 'no operator link');
});

t.test('no supervisor: no operator link', { skip: noBrowser }, async (t) => {
  const { base } = await startTestHearth(t, { supervisor: null });
  await onboard(base);
  const page = await newPage(t);
  await signIn(page, base, '#/operator');
  await page.getByText('No supervisor runs this Hearth').waitFor();
  t.equal(await page.getByRole('navigation').getByRole('link', { name: 'Operator' }).count(), 0);
  t.same(page.problems, []);
});

/**
 * A stand-in supervisor with one installed app (this supervisor installs none yet): what the
 * original answers for /addons and /addons/<slug>/info, and start/stop that change its state.
 */
async function appSupervisor(t: { teardown(fn: () => unknown): void }, token: string) {
  const app = { name: 'File editor', slug: 'core_configurator', version: '5.8.0', state: 'started', installed: true };
  const calls: string[] = [];
  const server = createServer((req, res) => {
    const send = (status: number, body: unknown) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.headers.authorization !== `Bearer ${token}`) return send(401, { result: 'error', message: 'Unauthorized' });
    calls.push(`${req.method} ${req.url}`);
    const ok = (data: unknown) => send(200, { result: 'ok', data });
    if (req.url === '/jobs/info') return ok({ ignore_conditions: [], jobs: [] });
    if (req.url === '/resolution/info') return ok({ unsupported: [], unhealthy: [], suggestions: [], issues: [], checks: [] });
    if (req.url === '/addons') return ok({ addons: [{ ...app }] });
    if (req.url === `/addons/${app.slug}/info`) {
      return ok({ ...app, ingress: true, ingress_panel: true, ingress_url: `/api/hassio_ingress/abc123/`, ingress_entry: '/api/hassio_ingress/abc123' });
    }
    if (req.method === 'POST' && req.url === `/addons/${app.slug}/stop`) {
      app.state = 'stopped';
      return ok({});
    }
    if (req.method === 'POST' && req.url === `/addons/${app.slug}/start`) {
      app.state = 'started';
      return ok({});
    }
    send(404, { result: 'error', message: `No route ${req.url}` });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise((ok) => server.close(ok)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, app, calls };
}

t.test('apps: start and stop, the ingress panel', { skip: noBrowser }, async (t) => {
  const sup = await appSupervisor(t, 'core-token');
  const { base } = await startTestHearth(t, { supervisor: { url: sup.url, token: 'core-token' } });
  await onboard(base);
  const page = await newPage(t);
  await signIn(page, base, '#/operator');
  const apps = page.locator('#op-apps');
  const row = apps.locator('li.op-app').filter({ hasText: 'File editor' });
  await row.locator('.op-app-state').getByText('started').waitFor();
  t.equal(await row.locator('.op-app-version').textContent(), '5.8.0');
  t.equal(await row.getByRole('link', { name: 'Open File editor' }).getAttribute('href'), '/api/hassio_ingress/abc123/');
  t.equal(await apps.locator('.op-panels').getByRole('link', { name: 'File editor' }).count(), 1, 'listed among the ingress panels');

  await row.getByRole('button', { name: 'Stop File editor' }).click();
  await page.getByRole('status').getByText('Stopped File editor').waitFor();
  await row.locator('.op-app-state').getByText('stopped').waitFor();
  t.ok(sup.calls.includes('POST /addons/core_configurator/stop'), 'the stop reached the supervisor');
  t.equal(sup.app.state, 'stopped');

  await row.getByRole('button', { name: 'Start File editor' }).click();
  await row.locator('.op-app-state').getByText('started').waitFor();
  t.equal(sup.app.state, 'started');
  await page.locator('#op-jobs').getByText('No jobs are running.').waitFor();
  t.same(page.problems, []);
});
