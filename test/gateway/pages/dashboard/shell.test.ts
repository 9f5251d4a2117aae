// The dashboard's shell in a real Hearth: its files and headers, then in Chromium the sign-in
// through the login page and the hash router.
import t from 'tap';
import { startTestHearth, onboard, CLIENT_ID } from '../../../helpers/hearth.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';

t.test('the files: the page with its CSP, modules, vendored libraries, icons; nothing else', async (t) => {
  const { base } = await startTestHearth(t);
  const res = await fetch(`${base}/`);
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const d of ["default-src 'none'", "script-src 'self'", "connect-src 'self' ws: wss:", "frame-ancestors 'none'"]) t.ok(csp.split('; ').includes(d), `CSP has ${d}`);
  t.notMatch(csp, /unsafe-inline|unsafe-eval/);
  t.notMatch(await res.text(), /<script>/, 'no inline script');

  for (const [path, type] of [
    ['/dashboard/app.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/style.css', 'text/css; charset=utf-8'],
    ['/dashboard/pages/home.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/vendor/haws/index.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/vendor/haws/socket.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/vendor/uplot/uPlot.esm.js', 'text/javascript; charset=utf-8'],
    ['/dashboard/vendor/uplot/uPlot.min.css', 'text/css; charset=utf-8'],
    ['/dashboard/icons/lightbulb.svg', 'image/svg+xml'],
  ]) {
    const r = await fetch(`${base}${path}`);
    t.equal(r.status, 200, path);
    t.equal(r.headers.get('content-type'), type, `${path}: ${type}`);
  }
  t.match(await (await fetch(`${base}/dashboard/icons/lightbulb-outline.svg`)).text(), /^<svg [^>]*viewBox="0 0 24 24"><path fill="currentColor" d="M/);
  for (const path of [
    '/dashboard/icons/no-such-icon.svg',
    '/dashboard/icons/..%2Fapp.js',
    '/dashboard/index.html',
    '/dashboard/..%2F..%2Fhttp.ts',
    '/dashboard/vendor/haws/..%2F..%2Fpackage.json',
    '/dashboard/vendor/haws/haws.cjs',
    '/dashboard/vendor/uplot/uPlot.cjs.js',
    '/dashboard/pages/nothing.js',
  ]) {
    t.equal((await fetch(`${base}${path}`)).status, 404, `${path}: 404`);
  }
});

t.test('POST /auth/token takes multipart/form-data, as a browser FormData sends it', async (t) => {
  const { base } = await startTestHearth(t);
  const res = await fetch(`${base}/api/onboarding/users`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ client_id: CLIENT_ID, language: 'en', name: 'Owner', username: 'owner', password: 'correct horse battery' }),
  });
  const { auth_code } = (await res.json()) as { auth_code: string };
  const form = new FormData();
  form.append('client_id', CLIENT_ID);
  form.append('code', auth_code);
  form.append('grant_type', 'authorization_code');
  const token = await fetch(`${base}/auth/token`, { method: 'POST', body: form });
  t.equal(token.status, 200);
  const tokens = (await token.json()) as { refresh_token: string; token_type: string };
  t.equal(tokens.token_type, 'Bearer');
  const again = new FormData();
  again.append('client_id', CLIENT_ID);
  again.append('grant_type', 'refresh_token');
  again.append('refresh_token', tokens.refresh_token);
  t.equal((await fetch(`${base}/auth/token`, { method: 'POST', body: again })).status, 200, 'a refresh too');
  const odd = await fetch(`${base}/auth/token`, { method: 'POST', headers: { 'Content-Type': 'multipart/form-data' }, body: 'grant_type=refresh_token' });
  t.equal(odd.status, 400, 'no boundary: no fields');
  t.same(await odd.json(), { error: 'unsupported_grant_type' });
});

t.test('in Chromium', { skip: noBrowser }, async (t) => {
  t.test('signs in through the login page, keeps the page asked for, routes by hash', async (t) => {
    const { base } = await startTestHearth(t);
    await onboard(base);
    const page = await newPage(t);
    await signIn(page, base, '#/nowhere');
    t.equal(new URL(page.url()).hash, '#/nowhere', 'back at the page asked for');
    await page.getByText('No such page: nowhere').waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    t.same(await nav.getByRole('link').allTextContents(), ['Home', 'Log'], 'no operator link without a supervisor');
    await nav.getByRole('link', { name: 'Home' }).click();
    await page.getByRole('heading', { name: 'Home' }).first().waitFor();
    t.equal(await nav.getByRole('link', { name: 'Home' }).getAttribute('aria-current'), 'page');
    t.same(page.problems, [], 'no script, CSP or load errors');

    // a reload signs in from the stored tokens, without the login page
    await page.reload();
    await page.locator('body[data-ready=true]').waitFor();
    t.equal(new URL(page.url()).pathname, '/');

    await page.getByRole('button', { name: 'Sign out' }).click();
    // two navigations (the page, then on to the login page): the heading waits through both
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    t.equal(new URL(page.url()).pathname, '/auth/authorize', 'signed out: back at the login page');
  });

  t.test('the language from the browser: German', async (t) => {
    const { base } = await startTestHearth(t);
    await onboard(base);
    const page = await newPage(t, { locale: 'de-DE' });
    await signIn(page, base);
    await page.getByRole('link', { name: 'Übersicht' }).waitFor();
    t.equal(await page.locator('html').getAttribute('lang'), 'de');
  });
});
