// The log explorer in Chromium: signed in through the login page, the slider moved to a past
// moment shows the state the home had then, and a change is followed back to its service call,
// the user who made it and the token's client.
import t from 'tap';
import { manualClock } from '../../../../actors/clock.ts';
import { startTestHearth, onboard, api, CLIENT_ID } from '../../../helpers/hearth.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';
import { userToken } from '../../../helpers/ws-sorting.ts';

const CONFIG = 'input_boolean:\n  porch:\n    name: Porch\n';
const S = 1000;

t.test('the log explorer in Chromium', { skip: noBrowser }, async (t) => {
  // whole seconds, so the slider's one-second steps land on the moments below
  const T0 = Math.floor(Date.now() / S) * S;
  const clock = manualClock(T0, 0.001);
  const { base } = await startTestHearth(t, { config: CONFIG, clock });
  const tokens = await onboard(base);
  const owner = api(base, tokens.access_token);
  // T0+10 s: the porch turned on by a service call over REST; T0+20 s: toggled off again
  clock.set(T0 + 10 * S);
  t.equal((await owner('POST', '/api/services/input_boolean/turn_on', { entity_id: 'input_boolean.porch' })).status, 200);
  clock.set(T0 + 20 * S);
  t.equal((await owner('POST', '/api/services/input_boolean/toggle', { entity_id: 'input_boolean.porch' })).status, 200);
  t.equal((await owner('GET', '/api/states/input_boolean.porch')).json.state, 'off');
  clock.set(T0 + 30 * S);

  const page = await newPage(t, { timezoneId: 'UTC' });
  await signIn(page, base, '#/log');
  await page.getByRole('heading', { name: 'Log explorer' }).waitFor();
  const porchRow = page.locator('tr[data-entity="input_boolean.porch"]');
  const status = page.locator('#log-moment-text');
  await status.getByText(/^The home at .* entities$/).waitFor();
  t.equal(await porchRow.locator('.log-state').textContent(), 'off', 'the home now: the porch is off');

  // the slider to T0+15 s: between the two calls, the porch was on
  await page.getByLabel('Moment in the log').fill(String(T0 + 15 * S));
  await porchRow.locator('.log-state').getByText('on', { exact: true }).waitFor();
  // the browser drops zero seconds from a datetime-local value (21:14:00 reads as 21:14)
  const minuteOrSecond = (v: string) => v.replace(/:00$/, '');
  t.equal(minuteOrSecond(await page.getByLabel('Moment', { exact: true }).inputValue()), minuteOrSecond(new Date(T0 + 15 * S).toISOString().slice(0, 19)), 'the date field follows the slider');

  // back before the first call, typed into the date field: off again
  await page.getByLabel('Moment', { exact: true }).fill(new Date(T0 + 5 * S).toISOString().slice(0, 19));
  await porchRow.locator('.log-state').getByText('off', { exact: true }).waitFor();

  // and to T0+15 s again
  await page.getByLabel('Moment in the log').fill(String(T0 + 15 * S));
  await porchRow.locator('.log-state').getByText('on', { exact: true }).waitFor();

  // the record that turned it on is among the records around the moment: follow its context
  const change = page.getByRole('row').filter({ hasText: 'input_boolean.porch: off → on' });
  t.match(await change.textContent(), /Owner/, 'who made it');
  await change.getByRole('button', { name: /Follow the context of record/ }).click();
  const panel = page.locator('.log-context');
  await panel.locator('.log-cause').first().waitFor();
  t.match(await panel.locator('.log-cause').first().textContent(), /^Service call input_boolean\.turn_on .*input_boolean\.porch/, 'the service call');
  t.equal(await panel.locator('.log-user').first().textContent(), 'Owner', "the user's name");
  t.match(await panel.locator('.log-token').first().textContent(), new RegExp(`^${CLIENT_ID.replace(/[.:/]/g, '\\$&')} \\(normal\\)`), "the token's client");
  t.match(await panel.locator('.log-made').first().textContent(), /call_service|input_boolean\.turn_on/);
  t.ok(await page.evaluate(() => document.activeElement?.id === 'log-context-title'), 'focus moves to the context');
  await page.keyboard.press('Escape');
  t.equal(await panel.isHidden(), true, 'Escape closes it');
  t.match(await page.evaluate(() => document.activeElement?.getAttribute('aria-label')), /^Follow the context of record/, 'and the focus is back on the button');

  // the "why?" of the porch's state at that moment is the same chain
  await porchRow.getByRole('button', { name: 'Follow the context of the last change of input_boolean.porch' }).click();
  await panel.locator('.log-cause').getByText(/input_boolean\.turn_on/).waitFor();

  // keyboard: focus on the slider, End goes to the last moment, where the porch is off
  await page.getByLabel('Moment in the log').focus();
  await page.keyboard.press('End');
  await porchRow.locator('.log-state').getByText('off', { exact: true }).waitFor();
  t.same(page.problems, [], 'no script, CSP or load errors');
});

t.test('not for a user who is no admin', { skip: noBrowser }, async (t) => {
  const { base } = await startTestHearth(t);
  const tokens = await onboard(base);
  await userToken(base, tokens.access_token);
  const page = await newPage(t);
  await signIn(page, base, '#/log', { username: 'user1', password: 'user pass 123' });
  await page.getByText('The log explorer is for administrators').waitFor();
  t.pass('told so, and shown nothing of the log');
});
