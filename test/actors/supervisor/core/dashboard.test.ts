// The dashboard as an operator of a supervised install meets it: the core runs in its image on
// the real engine (production dependencies only), and Chromium signs in and sees it ready.
// The image once lacked a library the page imports, so the page never left "Loading…".
import t from 'tap';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { coreContainerName, freePort, runtimeRecords } from '../../../helpers/core-container.ts';
import { onboard } from '../../../helpers/hearth.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';
import { eventually } from '../../../helpers/wait.ts';

t.test('the dashboard loads from the core container in a browser', { skip: noBrowser }, async (t) => {
  const name = coreContainerName(t, 'dashboard');
  const port = await freePort();
  const s = await startTestSupervisor(t, { dataDir: await supervisorDataDir(), coreContainer: name, corePort: port, bootCore: true });
  await eventually('core_started recorded', async () => (await runtimeRecords(s.supervisor.log)).find((r) => r.type === 'core_started'), 240_000);
  const base = `http://127.0.0.1:${port}`;
  await eventually('the core answering 401', async () => (await fetch(`${base}/api/`).catch(() => undefined))?.status === 401, 60_000);

  // every module the page imports is served by the container itself
  const page = await newPage(t);
  const failed: string[] = [];
  page.on('response', (res) => {
    if (res.url().startsWith(`${base}/dashboard/`) && res.status() >= 400) failed.push(`${res.status()} ${res.url()}`);
  });
  await onboard(base);
  await signIn(page, base);
  t.same(failed, [], 'no dashboard file missing from the image');
  t.equal(await page.locator('body').getAttribute('data-ready'), 'true', 'the dashboard is ready, signed in');
  t.same(page.problems, [], 'no errors on the page');
});
