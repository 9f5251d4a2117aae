// The history page in headless Chromium: a numeric sensor's values as a uPlot line, another
// entity's states as bands with a legend, the period picker, and a range it refuses.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../../helpers/hearth.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';

t.test('in Chromium', { skip: noBrowser }, async (t) => {
  t.test('numbers as a line chart, states as bands, the period picker', async (t) => {
    const { base } = await startTestHearth(t);
    const owner = await onboard(base);
    const rest = api(base, owner.access_token);
    for (const value of ['230', '245.5', '198', '260']) {
      await rest('POST', '/api/states/sensor.power', { state: value, attributes: { friendly_name: 'Power', unit_of_measurement: 'W' } });
    }
    for (const state of ['off', 'on', 'off', 'on']) {
      await rest('POST', '/api/states/binary_sensor.door', { state, attributes: { friendly_name: 'Front door' } });
    }

    const page = await newPage(t);
    await signIn(page, base, '#/history/sensor.power');
    await page.getByRole('heading', { name: 'History of Power' }).waitFor();
    await page.locator('.chart canvas').waitFor();
    t.equal(await page.locator('.chart canvas').count(), 1, 'a canvas drawn by uPlot');
    const legend = page.getByRole('list', { name: 'Legend' });
    await legend.getByText('Power (W)').waitFor();
    t.match(await legend.textContent(), /min 198 · max 260 · 260 W/, 'the legend says the range and the last value');
    t.match(await page.locator('.u-legend').textContent(), /Power \(W\)/, "uPlot's own legend names the series");
    t.match(await page.getByRole('status').filter({ hasText: 'values' }).textContent(), /4 values/);

    // the period picker: the last hour has them too
    await page.getByLabel('Period', { exact: true }).selectOption('hour');
    await page.locator('.chart canvas').waitFor();
    t.equal(await page.locator('.chart canvas').count(), 1, 'redrawn, not added');

    // an end before the start is refused in words
    await page.getByLabel('Period', { exact: true }).selectOption('custom');
    await page.getByLabel('From', { exact: true }).fill('2030-01-02T10:00');
    await page.getByLabel('To', { exact: true }).fill('2030-01-01T10:00');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('The start must be before the end.').waitFor();
    t.pass('a backwards range is refused');

    // a period with nothing in it
    await page.getByLabel('From', { exact: true }).fill('2001-01-01T10:00');
    await page.getByLabel('To', { exact: true }).fill('2001-01-02T10:00');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.getByText('No history in this period.').waitFor();
    t.pass('an empty period says so');

    // a door: on/off as bands, with their legend
    await page.goto(`${base}/#/history/binary_sensor.door`);
    await page.getByRole('heading', { name: 'History of Front door' }).waitFor();
    await page.locator('.bands .band').first().waitFor({ state: 'attached' });
    t.same(await page.locator('.bands .band').evaluateAll((els) => els.map((e) => (e as HTMLElement).dataset.state)), ['off', 'on', 'off', 'on'], 'one band per run of a state');
    const items = await page.getByRole('list', { name: 'Legend' }).getByRole('listitem').allTextContents();
    t.same(items.map((s) => s.replace(/ \(.*\)$/, '')), ['off', 'on'], 'the legend names each state once');
    t.match(await page.locator('.bands').getAttribute('aria-label'), /^History of Front door: off .*, on .*, off .*, on /, 'the bands in words for a screen reader');
    t.equal(await page.locator('.chart canvas').count(), 0, 'no line for states that are not numbers');
    t.same(page.problems, [], 'no script, CSP or load errors');
  });
});
