// The live home with 10,000 entities: measures (and prints) the time to the first render and to
// apply 1,000 changes written on the API while the page is open. Only generous bounds are
// asserted: they prove the page does not freeze, not that it is fast on this machine.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../../helpers/hearth.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';

const COUNT = 10_000;
const CHANGES = 1_000;
const id = (i: number) => `sensor.load_${String(i).padStart(5, '0')}`;

/** Runs `work` for 0..n-1 with at most `width` at a time. */
async function pool(n: number, width: number, work: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) await work(next++);
    }),
  );
}

t.test('in Chromium', { skip: noBrowser }, async (t) => {
  t.test(`${COUNT} entities: first render, then ${CHANGES} changes`, async (t) => {
    const { base } = await startTestHearth(t);
    const owner = await onboard(base);
    const rest = api(base, owner.access_token);
    const write = (i: number, state: string) =>
      rest('POST', `/api/states/${id(i)}`, { state, attributes: { friendly_name: `Load ${String(i).padStart(5, '0')}`, unit_of_measurement: 'W' } }).then((r) => {
        if (r.status !== 200 && r.status !== 201) throw new Error(`write ${id(i)}: ${r.status} ${r.text}`);
      });
    const written = Date.now();
    await pool(COUNT, 32, (i) => write(i, String(i % 500)));
    const writeMs = Date.now() - written;
    const total = (await rest('GET', '/api/states')).json.length;

    const page = await newPage(t);
    await signIn(page, base);
    await page.getByText(`${total} of ${total} entities`).waitFor({ timeout: 60_000 });

    // the first render of a page that already has its tokens: open to the rows drawn
    const opened = Date.now();
    await page.reload();
    await page.getByText(`${total} of ${total} entities`).waitFor({ timeout: 60_000 });
    await page.locator(`.vrow.entity[data-entity-id="${id(0)}"]`).waitFor();
    const firstRenderMs = Date.now() - opened;
    const rowsInDom = await page.locator('.vrow').count();
    t.ok(rowsInDom < 200, `only the rows in view are in the page (${rowsInDom} of ${total}+ rows)`);

    // 1,000 writes while the page is open, the last to the row at the top; done when it shows
    const started = Date.now();
    await pool(CHANGES - 1, 16, (k) => write(((k + 1) * 7) % COUNT, `changed ${k}`));
    const writesDoneMs = Date.now() - started;
    await write(0, 'last');
    await page.locator(`.vrow.entity[data-entity-id="${id(0)}"] .state`, { hasText: 'last W' }).waitFor({ timeout: 60_000 });
    const changesMs = Date.now() - started;

    // the page still answers: a search over all of them
    const searched = Date.now();
    await page.getByRole('searchbox', { name: 'Search entities' }).fill('load 09999');
    await page.getByText(`1 of ${total} entities`).waitFor();
    const searchMs = Date.now() - searched;

    const line = `dashboard 10k: wrote ${COUNT} states in ${writeMs} ms; first render ${firstRenderMs} ms; ${CHANGES} changes shown ${changesMs} ms after the first write (writes took ${writesDoneMs} ms); search ${searchMs} ms; ${rowsInDom} rows in the DOM`;
    console.log(line);
    t.comment(line);
    t.ok(firstRenderMs < 15_000, 'first render well under 15 s');
    t.ok(changesMs < 60_000, '1,000 changes shown within a minute');
    t.same(page.problems, [], 'no script errors');
  });
});
