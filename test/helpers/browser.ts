// Headless Chromium for the dashboard's tests: one browser per test file, a fresh context per
// page, and signIn() walking the real login page the way a user does.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** The owner test/helpers/hearth.ts's onboard() creates. */
export const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };

/** Why browser tests skip here (Chromium missing), or false when they can run. */
export const noBrowser: string | false = existsSync(CHROMIUM) ? false : `no browser: ${CHROMIUM} is missing (apt-get install chromium; .ci/run installs it)`;

interface Teardown {
  teardown(fn: () => unknown): void;
}

let launched: Promise<Browser> | undefined;

/** The file's browser, launched on first use and closed when the file's tests end. */
export function browser(t: Teardown): Promise<Browser> {
  if (!launched) {
    launched = chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const mine = launched;
    t.teardown(async () => {
      launched = undefined;
      await (await mine).close();
    });
  }
  return launched;
}

export interface PageProblems {
  /** script errors, console errors and failed loads, in order */
  problems: string[];
}

/**
 * A page in a fresh context (no stored tokens), closed when the test ends. `problems` collects
 * what a user would not see but a test should: script errors, CSP refusals, failed loads.
 */
export async function newPage(t: Teardown, options: BrowserContextOptions = {}): Promise<Page & PageProblems> {
  const context = await (await browser(t)).newContext(options);
  t.teardown(() => context.close());
  const page = (await context.newPage()) as Page & PageProblems;
  // well inside tap's own timeout, so a page that never shows what is awaited fails with a reason
  page.setDefaultTimeout(20_000);
  page.problems = [];
  page.on('console', (m) => m.type() === 'error' && !m.text().startsWith('Failed to load resource') && page.problems.push(m.text()));
  page.on('pageerror', (e) => page.problems.push(String(e)));
  page.on('response', (r) => r.status() >= 400 && new URL(r.url()).pathname !== '/favicon.ico' && page.problems.push(`${r.status()} ${r.url()}`));
  return page;
}

/**
 * Opens the dashboard at `base` + `hash`, is sent to the login page, logs in as `user` and
 * waits until the dashboard is back, signed in, with its navigation drawn.
 */
export async function signIn(page: Page, base: string, hash = '#/home', user: { username: string; password: string } = OWNER): Promise<void> {
  // the first page of a file starts the browser's renderer: on a loaded machine that takes a while
  const slow = { waitUntil: 'commit' as const, timeout: 45_000 };
  const step = async (what: string, action: () => Promise<unknown>) => {
    try {
      await action();
    } catch (err) {
      const boot = await page.locator('#boot').textContent({ timeout: 1000 }).catch(() => null);
      const problems = (page as Partial<PageProblems>).problems ?? [];
      throw new Error(`signIn: ${what} failed at ${page.url()} (boot text ${JSON.stringify(boot)}; page problems ${JSON.stringify(problems)}): ${(err as Error).message.split('\n')[0]}`);
    }
  };
  await step('opening the dashboard', () => page.goto(`${base}/${hash}`, { timeout: 45_000 }));
  await step('the redirect to the login page', () => page.waitForURL((url) => url.pathname === '/auth/authorize', slow));
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Log in', exact: true }).click();
  await step('the way back to the dashboard', () => page.waitForURL((url) => url.pathname === '/' && !url.search.includes('auth_callback'), slow));
  await step('the dashboard getting ready', () => page.locator('body[data-ready=true]').waitFor({ timeout: 45_000 }));
}
