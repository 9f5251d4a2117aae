// The dashboard's language from the user's settings: the words of every page in English and
// German, and in headless Chromium a user whose browser speaks English seeing the page switch to
// German live when their stored language changes (through the API and through the page's own
// chooser), keeping it over a reload; the core's language where neither the user nor the browser
// names one the dashboard has.
import t from 'tap';
import { readdirSync, readFileSync } from 'node:fs';
import { startTestHearth, onboard } from '../../../helpers/hearth.ts';
import { authedClient } from '../../../helpers/ws.ts';
import { sorting } from '../../../helpers/ws-sorting.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';
// @ts-expect-error: a plain browser module without types
import { LANGUAGES, hasText } from '../../../../gateway/pages/dashboard/i18n.js';

const DIR = new URL('../../../../gateway/pages/dashboard/', import.meta.url);

t.test('every key the pages use is in English and German', async (t) => {
  const files = ['app.js', 'language.js', ...readdirSync(new URL('pages/', DIR)).filter((f) => f.endsWith('.js')).map((f) => `pages/${f}`)];
  const used = new Set<string>();
  for (const file of files) {
    const text = readFileSync(new URL(file, DIR), 'utf8');
    for (const m of text.matchAll(/\bt\(\s*'([a-z_]+\.[a-z0-9_]+)'/g)) used.add(m[1]);
  }
  // keys the pages build from parts: history's periods, the log's columns
  for (const p of ['hour', 'day', 'week', 'custom']) used.add(`history.${p}`);
  for (const c of ['seq', 'time', 'what', 'who', 'context']) used.add(`log.col_${c}`);
  t.ok(used.size > 50, `found ${used.size} keys`);
  t.same(LANGUAGES, ['en', 'de']);
  for (const lang of LANGUAGES) {
    const missing = [...used].filter((k) => !hasText(lang, k));
    t.same(missing, [], `no key missing in ${lang}`);
  }
});

t.test('the language from the user settings', { skip: noBrowser }, async (t) => {
  const h = await startTestHearth(t);
  const tokens = await onboard(h.base);
  const ws = await authedClient(h.base, tokens.access_token);
  t.teardown(() => ws.ws.close());
  const ask = sorting(ws).result;

  const page = await newPage(t, { locale: 'en-US' });
  await signIn(page, h.base);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home', exact: true }).waitFor();
  await page.getByRole('searchbox', { name: 'Search entities' }).waitFor();
  t.equal(await page.locator('html').getAttribute('lang'), 'en', 'the browser speaks English and nothing is stored');
  t.equal(await page.getByLabel('Language').inputValue(), 'en');

  // the stored language changed elsewhere (another device): this page follows without a reload
  await ask({ type: 'frontend/set_user_data', key: 'language', value: { language: 'de', number_format: 'comma_decimal' } });
  await page.getByRole('link', { name: 'Übersicht', exact: true }).waitFor();
  await page.getByRole('searchbox', { name: 'Entitäten suchen' }).waitFor();
  await page.getByRole('button', { name: 'Abmelden' }).waitFor();
  t.equal(await page.locator('html').getAttribute('lang'), 'de');
  t.equal(await page.getByLabel('Sprache').inputValue(), 'de', 'the chooser shows the stored language');

  // a new load of the page starts in German
  await page.reload();
  await page.locator('body[data-ready=true]').waitFor();
  await page.getByRole('link', { name: 'Protokoll', exact: true }).waitFor();
  t.equal(await page.locator('html').getAttribute('lang'), 'de', 'German after a reload');

  // the page's own chooser: back to English, saved as the user's data (the number format kept)
  // as a keyboard user would: focus on the chooser, then a choice
  await page.getByLabel('Sprache').focus();
  await page.getByLabel('Sprache').selectOption('en');
  await page.getByRole('link', { name: 'Log', exact: true }).waitFor();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  t.same(await ask({ type: 'frontend/get_user_data', key: 'language' }), { value: { language: 'en', number_format: 'comma_decimal' } });
  t.equal(await page.evaluate(() => document.activeElement?.id), 'language', 'focus stays on the chooser');

  // and German again from the chooser, which a second page of the same user follows
  const second = await newPage(t, { locale: 'en-US' });
  await signIn(second, h.base);
  await second.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Home', exact: true }).waitFor();
  await page.getByLabel('Language').selectOption('de');
  await page.getByRole('link', { name: 'Übersicht', exact: true }).waitFor();
  await second.getByRole('link', { name: 'Übersicht', exact: true }).waitFor();
  t.pass('both pages switched to German');
  t.same(page.problems, []);
  t.same(second.problems, []);
});

t.test("the core's language where the user and the browser name none the dashboard has", { skip: noBrowser }, async (t) => {
  const h = await startTestHearth(t, { config: 'homeassistant:\n  language: de\n' });
  await onboard(h.base);
  const page = await newPage(t, { locale: 'fr-FR' });
  await signIn(page, h.base);
  await page.getByRole('link', { name: 'Übersicht', exact: true }).waitFor();
  t.equal(await page.locator('html').getAttribute('lang'), 'de');
  t.same(page.problems, []);
});
