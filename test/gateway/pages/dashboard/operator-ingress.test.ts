// The operator page's "Open" link of an app with ingress, in Chromium: it asks the supervisor for
// an ingress session for this user (through the core's `supervisor/api`), sets the
// `ingress_session` cookie for /api/hassio_ingress/, and opens the app's page through the core's
// ingress hop. The supervisor here is a small stand-in that checks the cookie on its proxy path.
import t from 'tap';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startTestHearth, onboard } from '../../../helpers/hearth.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';

const SESSION = 'ab'.repeat(64);

async function ingressSupervisor(t: { teardown(fn: () => unknown): void }, token: string) {
  const app = { name: 'File editor', slug: 'core_configurator', version: '5.8.0', state: 'started', installed: true };
  const sessions: unknown[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const send = (status: number, body: unknown, type = 'application/json') => {
        res.writeHead(status, { 'Content-Type': type });
        res.end(typeof body === 'string' ? body : JSON.stringify(body));
      };
      // the proxy path: no token, the cookie
      if (req.url!.startsWith('/ingress/abc123/')) {
        if (!(req.headers.cookie ?? '').includes(`ingress_session=${SESSION}`)) return send(401, '401: Unauthorized', 'text/plain');
        return send(200, `<!doctype html><p id="app">the app, under ${req.headers['x-ingress-path']}</p>`, 'text/html');
      }
      if (req.headers.authorization !== `Bearer ${token}`) return send(401, { result: 'error', message: 'Unauthorized' });
      const ok = (data: unknown) => send(200, { result: 'ok', data });
      if (req.url === '/jobs/info') return ok({ ignore_conditions: [], jobs: [] });
      if (req.url === '/resolution/info') return ok({ unsupported: [], unhealthy: [], suggestions: [], issues: [], checks: [] });
      if (req.url === '/addons') return ok({ addons: [{ ...app }] });
      if (req.url === `/addons/${app.slug}/info`) return ok({ ...app, ingress: true, ingress_panel: true, ingress_url: '/api/hassio_ingress/abc123/', ingress_entry: '/api/hassio_ingress/abc123' });
      if (req.method === 'POST' && req.url === '/ingress/session') {
        sessions.push(JSON.parse(Buffer.concat(chunks).toString() || '{}'));
        return ok({ session: SESSION });
      }
      send(404, { result: 'error', message: `No route ${req.url}` });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(() => new Promise((ok) => server.close(ok)));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, sessions };
}

t.test("the app's Open link gets a session, sets the cookie and opens the app through ingress", { skip: noBrowser }, async (t) => {
  const sup = await ingressSupervisor(t, 'core-token');
  const { base } = await startTestHearth(t, { supervisor: { url: sup.url, token: 'core-token' } });
  await onboard(base);
  const page = await newPage(t);
  await signIn(page, base, '#/operator');
  const link = page.locator('#op-apps li.op-app').filter({ hasText: 'File editor' }).getByRole('link', { name: 'Open File editor' });
  await link.waitFor();
  const [tab] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  await tab.locator('#app').waitFor();
  t.equal(await tab.locator('#app').textContent(), 'the app, under /api/hassio_ingress/abc123');
  t.equal(new URL(tab.url()).pathname, '/api/hassio_ingress/abc123/');
  t.equal(sup.sessions.length, 1, 'one session asked for');
  t.type((sup.sessions[0] as { user_id?: unknown }).user_id, 'string', "for the signed-in user (the core adds the user's id)");
  const cookie = (await page.context().cookies(`${base}/api/hassio_ingress/abc123/`)).find((c) => c.name === 'ingress_session');
  t.equal(cookie?.value, SESSION);
  t.equal(cookie?.path, '/api/hassio_ingress/');
  t.same(page.problems, []);
});
