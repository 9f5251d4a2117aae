// The login page at GET /auth/authorize, walked in headless Chromium against a real Hearth: a
// password login back to the client's redirect_uri and a token from its code, a wrong
// password, the TOTP step, incomplete links, and the headers that keep the page to itself.
import t from 'tap';
import { existsSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startTestHearth, onboard } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { exchange } from './harness.ts';
import { totpCode } from '../../../actors/auth/totp.ts';
import { wrongCode } from '../../helpers/totp.ts';
import { manualClock } from '../../../actors/clock.ts';

const CHROMIUM = '/usr/bin/chromium';
const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };

const missing = existsSync(CHROMIUM) ? false : `no browser: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;
const browser: Browser | undefined = missing
  ? undefined
  : await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
if (browser) t.teardown(() => browser.close());

interface Teardown {
  teardown(fn: () => unknown): void;
}

/**
 * The OAuth client: a local server whose origin is the client id, so Hearth accepts its /cb as
 * a redirect_uri. It notes every request, which is how a test sees where the browser went.
 */
async function startClient(t: Teardown, frameTarget?: () => string) {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url ?? '');
    res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
    if (req.url === '/frame' && frameTarget) res.end(`<!doctype html><title>Framing</title><iframe src="${frameTarget()}"></iframe>`);
    else res.end('<!doctype html><title>Client</title><p>Back at the client</p>');
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  t.teardown(
    () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  );
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { origin, clientId: `${origin}/`, redirectUri: `${origin}/cb`, seen, callbacks: () => seen.filter((u) => u.startsWith('/cb')) };
}

function authorizeUrl(base: string, params: Record<string, string>): string {
  return `${base}/auth/authorize?${new URLSearchParams({ response_type: 'code', ...params })}`;
}

async function newPage(t: Teardown): Promise<Page> {
  const context = await browser!.newContext();
  t.teardown(() => context.close());
  const page = await context.newPage();
  // well inside tap's own timeout, so a page that never shows what is awaited fails with a reason
  page.setDefaultTimeout(20_000);
  return page;
}

/** Fills the password step through its labels and sends it. */
async function logIn(page: Page, username: string, password: string) {
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
}

const errorText = async (page: Page) => (await page.getByRole('alert').textContent())?.trim();

/** Turns TOTP on for the token's user over WebSocket; the secret. */
async function enableTotp(base: string, token: string): Promise<string> {
  const c = await authedClient(base, token);
  let id = 1;
  const ask = async (msg: Record<string, unknown>) => {
    const mine = id++;
    c.send({ id: mine, ...msg });
    return c.until((m) => m.id === mine && m.type === 'result');
  };
  const init = await ask({ type: 'auth/setup_mfa', mfa_module_id: 'totp' });
  const secret: string = init.result.description_placeholders.code;
  // setup accepts the current step only: a step that ended on the way is answered invalid_code
  // (same secret), and the next step's code is then current
  for (;;) {
    const done = await ask({ type: 'auth/setup_mfa', flow_id: init.result.flow_id, user_input: { code: totpCode(secret, Date.now()) } });
    if (done.result.type === 'create_entry') break;
    if (done.result.errors?.base !== 'invalid_code') throw new Error(`TOTP setup failed: ${JSON.stringify(done)}`);
  }
  c.ws.close();
  return secret;
}

t.test('GET /auth/authorize: the page, its headers, and nothing of the query in it', async (t) => {
  const { base } = await startTestHearth(t);
  const hostile = '"><script>alert(1)</script>';
  const res = await fetch(authorizeUrl(base, { client_id: hostile, redirect_uri: hostile, state: hostile }));
  t.equal(res.status, 200);
  t.equal(res.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of ["default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'", "form-action 'none'"]) {
    t.ok(csp.split('; ').includes(directive), `CSP has ${directive}`);
  }
  t.notMatch(csp, /unsafe-inline|unsafe-eval/, 'no inline script or eval');
  t.equal(res.headers.get('x-frame-options'), 'DENY', 'the page replaces the default SAMEORIGIN, not added beside it');
  t.equal(res.headers.get('referrer-policy'), 'no-referrer');
  const html = await res.text();
  t.notOk(html.includes('alert(1)'), 'the query is never written into the page');
  t.match(html, /<script src="authorize\.js" defer><\/script>/);
  t.notMatch(html, /<script>/, 'no inline script');

  const js = await fetch(`${base}/auth/authorize.js`);
  t.equal(js.status, 200);
  t.equal(js.headers.get('content-type'), 'text/javascript; charset=utf-8');
  const css = await fetch(`${base}/auth/authorize.css`);
  t.equal(css.status, 200);
  t.equal(css.headers.get('content-type'), 'text/css; charset=utf-8');
  t.equal((await fetch(`${base}/auth/authorize`, { method: 'POST' })).status, 405, 'GET only');
});

t.test('in Chromium', { skip: missing }, async (t) => {
  t.test('username and password: back at redirect_uri with a code and the state; the code buys a token', async (t) => {
    const { base } = await startTestHearth(t);
    await onboard(base, OWNER);
    const client = await startClient(t);
    const page = await newPage(t);
    const problems: string[] = [];
    page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && problems.push(m.text()));
    page.on('pageerror', (e) => problems.push(String(e)));
    // Chromium asks for /favicon.ico, which Hearth does not have; any other failed load counts
    page.on('response', (r) => r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico' && problems.push(`${r.status()} ${r.url()}`));

    await page.goto(authorizeUrl(base, { client_id: client.clientId, redirect_uri: client.redirectUri, state: 'xyz' }));
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    t.match(await page.locator('#client').textContent(), client.clientId, 'says which app asks');
    t.equal(await page.getByLabel('Username').getAttribute('autocomplete'), 'username');
    t.equal(await page.getByLabel('Password').getAttribute('type'), 'password');
    t.equal(await page.getByLabel('Password').getAttribute('autocomplete'), 'current-password');

    await logIn(page, OWNER.username, OWNER.password);
    await page.waitForURL((url) => url.pathname === '/cb');
    const landed = new URL(page.url());
    t.equal(landed.origin, client.origin);
    t.same([...landed.searchParams.keys()], ['code', 'state']);
    t.equal(landed.searchParams.get('state'), 'xyz');
    const code = landed.searchParams.get('code')!;
    t.match(code, /^[0-9a-f]{32}$/, 'an authorization code');
    t.same(client.callbacks(), [`/cb?code=${code}&state=xyz`], 'the client got the callback, once');
    t.same(problems, [], 'no script or CSP errors on the page');

    const tokens = await exchange(base, code, client.clientId);
    t.equal(tokens.status, 200, 'the code is exchanged for tokens');
    const api = await fetch(`${base}/api/`, { headers: { Authorization: `Bearer ${tokens.json.access_token}` } });
    t.equal(api.status, 200, 'the token opens the API');
    t.same(await api.json(), { message: 'API running.' });
  });

  t.test('a wrong password: the error on the page, the username kept, no navigation', async (t) => {
    const { base } = await startTestHearth(t);
    await onboard(base, OWNER);
    const client = await startClient(t);
    const page = await newPage(t);
    const url = authorizeUrl(base, { client_id: client.clientId, redirect_uri: client.redirectUri, state: 'xyz' });
    await page.goto(url);

    await logIn(page, OWNER.username, 'not the password');
    await page.getByText('Invalid username or password').waitFor();
    t.equal(await errorText(page), 'Invalid username or password');
    t.equal(page.url(), url, 'still on the login page');
    t.same(client.callbacks(), [], 'the client heard nothing');
    t.equal(await page.getByLabel('Username').inputValue(), OWNER.username, 'the username is kept');
    t.equal(await page.getByLabel('Password').inputValue(), '', 'the password is not');
    t.ok(await page.getByLabel('Password').evaluate((el) => el === document.activeElement), 'the password field has the focus');

    // the same flow goes on with the right password
    await logIn(page, OWNER.username, OWNER.password);
    await page.waitForURL((u) => u.pathname === '/cb');
    t.equal(new URL(page.url()).searchParams.get('state'), 'xyz');
  });

  t.test('TOTP: the two-factor step, a wrong code, then the right one', async (t) => {
    const { base } = await startTestHearth(t);
    const own = await onboard(base, OWNER);
    const secret = await enableTotp(base, own.access_token);
    const client = await startClient(t);
    const page = await newPage(t);
    await page.goto(authorizeUrl(base, { client_id: client.clientId, redirect_uri: client.redirectUri, state: 'xyz' }));

    await logIn(page, OWNER.username, OWNER.password);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    t.equal(await page.locator('#description').textContent(), 'Enter the code from Authenticator app.');
    const codeField = page.getByLabel('Code');
    t.equal(await codeField.getAttribute('autocomplete'), 'one-time-code');
    t.equal(await codeField.getAttribute('inputmode'), 'numeric');

    await codeField.fill(wrongCode(secret));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.getByText('Invalid code').waitFor();
    t.equal(await errorText(page), 'Invalid code');
    t.equal(await page.getByLabel('Code').inputValue(), '', 'the wrong code is cleared');
    t.same(client.callbacks(), []);

    await page.getByLabel('Code').fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((u) => u.pathname === '/cb');
    const code = new URL(page.url()).searchParams.get('code')!;
    t.equal((await exchange(base, code, client.clientId)).status, 200, 'the code is good');
  });

  t.test('links and states the page cannot log in from', async (t) => {
    const { base } = await startTestHearth(t);
    const client = await startClient(t);
    const page = await newPage(t);

    // the query is shown as text, never as markup
    const odd = `${client.clientId}<b id="injected">x</b>`;
    await page.goto(authorizeUrl(base, { client_id: odd, redirect_uri: client.redirectUri }));
    await page.getByText('Hearth is not set up yet').waitFor();
    t.match(await errorText(page), /finish onboarding/, 'before onboarding: says so');
    t.match(await page.locator('#client').textContent(), odd);
    t.equal(await page.locator('#injected').count(), 0, 'no element made from the query');

    await onboard(base, OWNER);
    await page.goto(authorizeUrl(base, { client_id: client.clientId }));
    await page.getByText('This login link is incomplete').waitFor();
    t.match(await errorText(page), /redirect_uri/, 'no redirect_uri: an error');
    t.equal(await page.locator('form').count(), 0, 'and no form');
    t.equal(await page.getByRole('button', { name: 'Start over' }).count(), 0, 'nothing to start over');

    await page.goto(authorizeUrl(base, { redirect_uri: client.redirectUri }));
    await page.getByText('This login link is incomplete').waitFor();
    t.equal(await page.locator('form').count(), 0, 'no client_id: no form either');

    // a redirect_uri of another origin than the client id: Hearth answers 403 when the login
    // succeeds, and the page says so in words instead of going there
    const url = authorizeUrl(base, { client_id: client.clientId, redirect_uri: 'http://elsewhere.example/cb' });
    await page.goto(url);
    await logIn(page, OWNER.username, OWNER.password);
    await page.getByText('Invalid redirect URI').waitFor();
    t.equal(page.url(), url, 'still on the login page');
    t.equal(await page.locator('form').count(), 0);
    t.equal(await page.getByRole('button', { name: 'Start over' }).count(), 1);
  });

  t.test('too many wrong codes: the abort in words, and Start over', async (t) => {
    const { base } = await startTestHearth(t);
    const own = await onboard(base, OWNER);
    const secret = await enableTotp(base, own.access_token);
    const client = await startClient(t);
    const page = await newPage(t);
    await page.goto(authorizeUrl(base, { client_id: client.clientId, redirect_uri: client.redirectUri }));
    await logIn(page, OWNER.username, OWNER.password);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    // five wrong codes end the flow (the totp module's retry limit)
    for (let i = 0; i < 5; i++) {
      await page.getByLabel('Code').fill(wrongCode(secret));
      await page.getByRole('button', { name: 'Verify' }).click();
      // the sent form's button stays disabled; an enabled one is the answer's new form
      if (i < 4) await page.locator('button[type=submit]:enabled').waitFor();
    }
    await page.getByText('Too many attempts; start again').waitFor();
    await page.getByRole('button', { name: 'Start over' }).click();
    await page.getByRole('heading', { name: 'Log in' }).waitFor();
    await logIn(page, OWNER.username, OWNER.password);
    await page.getByRole('heading', { name: 'Two-factor authentication' }).waitFor();
    await page.getByLabel('Code').fill(totpCode(secret, Date.now()));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForURL((u) => u.pathname === '/cb');
    t.same(new URL(page.url()).searchParams.has('state'), false, 'no state asked, none given');
  });

  t.test("Hearth's login throttle: the wait in words, the form kept, a put-off start tried again", async (t) => {
    // the clock stands still, so the throttle's wait ends only when the test moves it on
    const clock = manualClock(Date.now());
    const { base } = await startTestHearth(t, { clock });
    await onboard(base, OWNER);
    const client = await startClient(t);
    const page = await newPage(t);
    const url = authorizeUrl(base, { client_id: client.clientId, redirect_uri: client.redirectUri, state: 'xyz' });
    await page.goto(url);
    for (let i = 0; i < 5; i++) {
      await logIn(page, OWNER.username, 'wrong');
      await page.locator('button[type=submit]:enabled').waitFor();
    }
    t.equal(await errorText(page), 'Invalid username or password', 'five failures are free');

    await logIn(page, OWNER.username, 'wrong again');
    await page.getByText('Too many failed login attempts').waitFor();
    t.equal(await errorText(page), 'Too many failed login attempts; try again in 1 s');
    t.equal(await page.getByLabel('Username').inputValue(), OWNER.username, 'the form stays');

    // a page opened while the wait lasts puts its flow off, and starts it once the wait is over
    await page.goto(url);
    await page.getByText('Trying again in 1 s').waitFor();
    clock.advance(1000);
    await page.getByLabel('Username').waitFor();
    await logIn(page, OWNER.username, OWNER.password);
    await page.waitForURL((u) => u.pathname === '/cb');
    t.equal(new URL(page.url()).searchParams.get('state'), 'xyz');
  });

  t.test('the page cannot be framed', async (t) => {
    const { base } = await startTestHearth(t);
    await onboard(base, OWNER);
    let target = '';
    const client = await startClient(t, () => target);
    target = authorizeUrl(base, { client_id: client.clientId, redirect_uri: client.redirectUri });
    const page = await newPage(t);
    const blocked: string[] = [];
    page.on('console', (m) => m.type() === 'error' && blocked.push(m.text()));
    // the parent's load waits for its frame, blocked or not
    await page.goto(`${client.origin}/frame`, { waitUntil: 'load' });
    const frame = page.frames().find((f) => f !== page.mainFrame());
    t.ok(frame, 'the frame exists');
    t.equal(await frame!.locator('#title').count(), 0, 'but the login page is not in it');
    t.ok(blocked.some((m) => m.includes("frame-ancestors 'none'")), 'refused for frame-ancestors');
  });

  t.test('two providers: a choice, a switch between them, the trusted-networks user picker, a redirect_uri with a query', async (t) => {
    const config = ['core:', '  auth_providers:', '    - type: core', '    - type: trusted_networks', '      trusted_networks: [127.0.0.0/8]'].join('\n');
    const { base } = await startTestHearth(t, { config });
    await onboard(base, OWNER);
    const client = await startClient(t);
    const page = await newPage(t);
    const calls: string[] = [];
    page.on('response', (r) => {
      const path = new URL(r.url()).pathname;
      if (path.startsWith('/auth/login_flow')) calls.push(`${r.request().method()} ${path.replace(/[0-9a-f]{32}$/, '<flow>')} ${r.status()}`);
    });

    const redirectUri = `${client.origin}/cb?from=app`;
    await page.goto(authorizeUrl(base, { client_id: client.clientId, redirect_uri: redirectUri, state: 'a b&c' }));
    await page.getByText('Choose how to log in:').waitFor();
    await page.getByRole('button', { name: 'Log in with Hearth Local' }).click();
    await page.getByLabel('Username').waitFor();
    // changing one's mind: the other provider, from the switch under the form
    await page.getByRole('button', { name: 'Log in with Trusted Networks' }).click();
    const picker = page.getByLabel('User', { exact: true });
    await picker.waitFor();
    t.same(await picker.locator('option').allTextContents(), ['Owner'], 'the users to pick from, by name');
    await picker.selectOption({ label: 'Owner' });
    t.equal(await page.getByRole('button', { name: 'Log in with Hearth Local' }).count(), 1, 'the way back to the other provider');
    await page.getByRole('button', { name: 'Log in', exact: true }).click();
    await page.waitForURL((u) => u.pathname === '/cb');

    const landed = new URL(page.url());
    const code = landed.searchParams.get('code')!;
    t.equal(page.url(), `${client.origin}/cb?from=app&code=${code}&state=a%20b%26c`, 'added to the query with &, encoded');
    t.same(
      calls,
      ['POST /auth/login_flow 200', 'DELETE /auth/login_flow/<flow> 200', 'POST /auth/login_flow 200', 'POST /auth/login_flow/<flow> 200'],
      'the abandoned flow is deleted',
    );
    const tokens = await exchange(base, code, client.clientId);
    t.equal(tokens.status, 200);
    t.equal(tokens.json.core_auth_provider, 'trusted_networks', 'logged in through the picker');
  });
});
