// The live home in headless Chromium against a real Hearth: signed in through the login page,
// entities grouped by area and domain, a REST write seen live, controls that call services (the
// API then shows the new state), the search box, the keyboard, a click to the history page.
import t from 'tap';
import { startTestHearth, onboard, api } from '../../../helpers/hearth.ts';
import { authedClient } from '../../../helpers/ws.ts';
import { sorting } from '../../../helpers/ws-sorting.ts';
import { newPage, noBrowser, signIn } from '../../../helpers/browser.ts';
import { freePort } from '../../../helpers/ports.ts';

const CONFIG = [
  'input_boolean:',
  '  kettle: { name: Kettle }',
  '  porch: { name: Porch, icon: "mdi:lightbulb-outline" }',
  'input_select:',
  '  mode: { name: Mode, options: [eco, comfort, away] }',
  'light:',
  '  - platform: virtual',
  '    name: Ceiling',
  '    unique_id: ceiling',
  '    supported_color_modes: [brightness]',
  '  - platform: virtual',
  '    name: Hall',
  '    supported_color_modes: onoff',
].join('\n');

async function home(t: { teardown(fn: () => unknown): void }) {
  const h = await startTestHearth(t, { config: CONFIG });
  const owner = await onboard(h.base);
  const rest = api(h.base, owner.access_token);
  const ws = await authedClient(h.base, owner.access_token);
  t.teardown(() => ws.ws.close());
  const ask = sorting(ws).result;
  return { ...h, rest, ask };
}

const stateOf = async (rest: ReturnType<typeof api>, entityId: string) => (await rest('GET', `/api/states/${entityId}`)).json?.state;

/** Polls the API until `check` holds (the service call's state change lands in a moment). */
async function eventually<T>(read: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  for (let i = 0; ; i++) {
    const v = await read();
    if (check(v) || i >= 100) return v;
    await new Promise((ok) => setTimeout(ok, 50));
  }
}

t.test('in Chromium', { skip: noBrowser }, async (t) => {
  t.test('grouped by area and domain, live after a REST write, controls that call services', async (t) => {
    const { base, rest, ask } = await home(t);
    const area = await ask({ type: 'config/area_registry/create', name: 'Kitchen' });
    await ask({ type: 'config/entity_registry/update', entity_id: 'input_boolean.kettle', area_id: area.area_id });
    await ask({ type: 'config/entity_registry/update', entity_id: 'light.ceiling', area_id: area.area_id });
    await rest('POST', '/api/states/sensor.outside', { state: '12.5', attributes: { friendly_name: 'Outside', unit_of_measurement: '°C', device_class: 'temperature' } });

    const page = await newPage(t);
    await signIn(page, base);
    const row = (entityId: string) => page.locator(`.vrow.entity[data-entity-id="${entityId}"]`);
    await row('sensor.outside').waitFor();

    // the headings in order: the Kitchen with its domains, then the rest
    const headings = await page.locator('#home-list [role=heading]').allTextContents();
    t.same(headings.slice(0, 3), ['Kitchen', 'input boolean', 'light'], 'the area first, its domains under it');
    t.equal(headings[3], 'Unassigned');
    t.ok(headings.includes('sensor'), 'a domain heading for sensors');
    t.equal(await row('sensor.outside').locator('.state').textContent(), '12.5 °C', 'the state with its unit');
    t.equal(await row('sensor.outside').locator('.name a').textContent(), 'Outside', 'the friendly name');
    // the path is there at once and gets its outline when the icon has been fetched
    const drawn = row('sensor.outside').locator('svg.icon path[d]');
    await drawn.waitFor({ timeout: 15_000 });
    t.match(await drawn.getAttribute('d'), /^M/, 'an icon drawn');

    // a REST write shows on the page without a reload
    await rest('POST', '/api/states/sensor.outside', { state: '13.75', attributes: { friendly_name: 'Outside', unit_of_measurement: '°C' } });
    await row('sensor.outside').locator('.state', { hasText: '13.75 °C' }).waitFor();
    t.pass('the REST write is seen live');

    // an input_boolean toggled from the page: the API shows it on
    t.equal(await stateOf(rest, 'input_boolean.kettle'), 'off');
    const kettle = page.getByRole('button', { name: 'Turn Kettle on or off' });
    t.equal(await kettle.getAttribute('aria-pressed'), 'false');
    await kettle.click();
    t.equal(await eventually(() => stateOf(rest, 'input_boolean.kettle'), (s) => s === 'on'), 'on', 'the API shows the kettle on');
    await page.locator('button[aria-label="Turn Kettle on or off"][aria-pressed=true]').waitFor();
    t.pass('and the switch shows it pressed');

    // a light: on from the page, then its brightness from the slider
    await page.getByRole('button', { name: 'Turn Ceiling on or off' }).click();
    t.equal(await eventually(() => stateOf(rest, 'light.ceiling'), (s) => s === 'on'), 'on', 'the light is on');
    const slider = page.getByRole('slider', { name: 'Brightness of Ceiling' });
    await slider.waitFor();
    await slider.fill('40');
    const bright = await eventually(
      async () => (await rest('GET', '/api/states/light.ceiling')).json?.attributes?.brightness,
      (b) => b === 102,
    );
    t.equal(bright, 102, '40 % is brightness 102');
    t.equal(await page.getByRole('slider', { name: 'Brightness of Hall' }).count(), 0, 'no slider for an on/off light');

    // an input_select from its list
    await page.getByRole('combobox', { name: 'Option of Mode' }).selectOption('away');
    t.equal(await eventually(() => stateOf(rest, 'input_select.mode'), (s) => s === 'away'), 'away');

    // the icon an entity names is the one drawn
    const porchIcon = await (await fetch(`${base}/dashboard/icons/lightbulb-outline.svg`)).text();
    const d = /d="([^"]+)"/.exec(porchIcon)![1];
    await page.locator(`.vrow.entity[data-entity-id="input_boolean.porch"] svg.icon path[d="${d}"]`).waitFor();
    t.pass("the entity's mdi: icon");

    t.same(page.problems, [], 'no script, CSP or load errors');
  });

  t.test('the controls of covers, locks, climate, timers and helpers: each a service call the API then shows', async (t) => {
    const config = [
      'input_number:',
      '  level: { name: Level, min: 0, max: 10, step: 1 }',
      'timer:',
      '  tea: { name: Tea, duration: 600 }',
      'input_button:',
      '  bell: { name: Bell }',
      'cover:',
      '  - platform: virtual',
      '    name: Blind',
      'lock:',
      '  - platform: virtual',
      '    name: Front',
      'climate:',
      '  - platform: virtual',
      '    name: Heating',
      'scene:',
      '  - platform: virtual',
      '    name: Movie night',
      '    icon: mdi:movie',
    ].join('\n');
    const h = await startTestHearth(t, { config });
    const owner = await onboard(h.base);
    const rest = api(h.base, owner.access_token);
    const page = await newPage(t);
    await signIn(page, h.base);
    await page.locator('.vrow.entity').first().waitFor();
    // the list shows what fits; the search brings each one into view
    const search = page.getByRole('searchbox', { name: 'Search entities' });
    const attr = (id: string, key: string) => async () => (await rest('GET', `/api/states/${id}`)).json?.attributes?.[key];

    await search.fill('blind');
    await page.getByRole('button', { name: 'Open Blind' }).click();
    t.equal(await eventually(() => stateOf(rest, 'cover.blind'), (s) => s === 'open'), 'open', 'the cover opened');
    await page.getByRole('slider', { name: 'Position of Blind' }).fill('30');
    t.equal(await eventually(attr('cover.blind', 'current_position'), (p) => p === 30), 30, 'and moved to 30 %');

    await search.fill('front');
    const before = await stateOf(rest, 'lock.front');
    await page.getByRole('button', { name: before === 'locked' ? 'Unlock Front' : 'Lock Front' }).click();
    const after = before === 'locked' ? 'unlocked' : 'locked';
    t.equal(await eventually(() => stateOf(rest, 'lock.front'), (s) => s === after), after, `the lock is ${after}`);

    await search.fill('heating');
    const target = page.getByRole('spinbutton', { name: 'Target temperature of Heating' });
    await target.fill('23.5');
    await target.press('Enter');
    t.equal(await eventually(attr('climate.heating', 'temperature'), (v) => v === 23.5), 23.5, 'the target temperature');
    // a refused call is said on the page, and changes nothing
    await target.fill('500');
    await target.press('Enter');
    await page.getByRole('alert').filter({ hasText: /^Failed: / }).waitFor();
    t.match(await page.getByRole('alert').filter({ hasText: /^Failed: / }).textContent(), /Failed: .+/, 'the refusal in words');
    t.equal(await attr('climate.heating', 'temperature')(), 23.5, 'the target unchanged');

    await search.fill('tea');
    await page.getByRole('button', { name: 'Start Tea' }).click();
    t.equal(await eventually(() => stateOf(rest, 'timer.tea'), (s) => s === 'active'), 'active', 'the timer runs');
    await page.locator('.vrow.entity[data-entity-id="timer.tea"] .state', { hasText: 'active' }).waitFor();
    await page.getByRole('button', { name: 'Cancel Tea' }).click();
    t.equal(await eventually(() => stateOf(rest, 'timer.tea'), (s) => s === 'idle'), 'idle', 'and is cancelled');

    await search.fill('level');
    await page.getByRole('slider', { name: 'Value of Level' }).fill('7');
    t.equal(await eventually(() => stateOf(rest, 'input_number.level'), (s) => s === '7.0'), '7.0', 'the input_number');

    await search.fill('bell');
    t.equal(await stateOf(rest, 'input_button.bell'), 'unknown');
    await page.getByRole('button', { name: 'Press Bell' }).click();
    t.match(await eventually(() => stateOf(rest, 'input_button.bell'), (s) => s !== 'unknown'), /^\d{4}-\d\d-\d\dT/, 'the button pressed: its state is the moment');

    await search.fill('movie');
    await page.getByRole('button', { name: 'Activate Movie night' }).click();
    t.match(await eventually(() => stateOf(rest, 'scene.movie_night'), (s) => s !== 'unknown'), /^\d{4}-\d\d-\d\dT/, 'the scene activated');
    t.same(page.problems, []);
  });

  t.test('Tab walks a list longer than the view in order, the rows coming in as it goes', async (t) => {
    const { base, rest } = await home(t);
    const ids = Array.from({ length: 60 }, (_, i) => `sensor.row_${String(i).padStart(2, '0')}`);
    for (const id of ids) await rest('POST', `/api/states/${id}`, { state: '1', attributes: { friendly_name: id.replace('sensor.', 'Row ') } });
    const page = await newPage(t);
    await signIn(page, base);
    await page.locator('.vrow.entity').first().waitFor();
    const search = page.getByRole('searchbox', { name: 'Search entities' });
    await search.fill('row_');
    await page.getByText(/^60 of \d+ entities$/).waitFor();
    const inDom = await page.locator('.vrow.entity').count();
    t.ok(inDom < 60, `not all 60 rows are in the page (${inDom})`);
    await search.focus();
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const id = await page.evaluate(() => (document.activeElement?.closest('.vrow') as HTMLElement | null)?.dataset.entityId ?? null);
      if (id) seen.push(id);
    }
    t.same(seen, ids, 'every row, in order, each once');
  });

  t.test('Hearth restarts under the open page: it says so, reconnects, and is live again', async (t) => {
    const port = await freePort();
    const first = await startTestHearth(t, { port });
    const owner = await onboard(first.base);
    await api(first.base, owner.access_token)('POST', '/api/states/sensor.garden', { state: '1', attributes: { friendly_name: 'Garden' } });
    const page = await newPage(t);
    await signIn(page, first.base);
    const garden = page.locator('.vrow.entity[data-entity-id="sensor.garden"] .state');
    await garden.getByText('1', { exact: true }).waitFor();

    await first.hearth.stop();
    await page.getByText('Connection lost, reconnecting…').waitFor();
    t.pass('the lost connection is shown');
    const second = await startTestHearth(t, { port, dataDir: first.dataDir });
    const rest = api(second.base, owner.access_token);
    await page.getByText('Connection lost, reconnecting…').waitFor({ state: 'detached', timeout: 30_000 }).catch(() => {});
    await rest('POST', '/api/states/sensor.garden', { state: '2', attributes: { friendly_name: 'Garden' } });
    await rest('POST', '/api/states/sensor.shed', { state: 'new', attributes: { friendly_name: 'Shed' } });
    await garden.getByText('2', { exact: true }).waitFor({ timeout: 30_000 });
    await page.locator('.vrow.entity[data-entity-id="sensor.shed"]').waitFor();
    t.pass('live again after the restart, new entities included');
    t.equal(await page.locator('#conn').textContent(), '', 'the notice is gone');
  });

  t.test('the search box, the keyboard, and a name that opens the history', async (t) => {
    const { base, rest } = await home(t);
    for (const [id, name] of [
      ['sensor.attic_temperature', 'Attic temperature'],
      ['sensor.cellar_temperature', 'Cellar temperature'],
      ['sensor.attic_humidity', 'Attic humidity'],
    ]) {
      await rest('POST', `/api/states/${id}`, { state: '20', attributes: { friendly_name: name } });
    }
    const total = (await rest('GET', '/api/states')).json.length;
    const page = await newPage(t);
    await signIn(page, base);
    const names = () => page.locator('.vrow.entity .name a').allTextContents();
    await page.locator('.vrow.entity[data-entity-id="sensor.attic_humidity"]').waitFor();

    // "/" focuses the search box; typing filters by name
    await page.locator('body').press('/');
    const search = page.getByRole('searchbox', { name: 'Search entities' });
    t.ok(await search.evaluate((el) => el === document.activeElement), '"/" focuses the search');
    await page.keyboard.type('attic');
    await page.getByText(new RegExp(`^2 of ${total} entities$`)).waitFor();
    t.same((await names()).sort(), ['Attic humidity', 'Attic temperature']);
    // and by entity id
    await search.fill('cellar_temp');
    await page.getByText(new RegExp(`^1 of ${total} entities$`)).waitFor();
    t.same(await names(), ['Cellar temperature']);
    await search.fill('nothing like it');
    await page.getByText('No entities match.').waitFor();
    await search.fill('kettle');
    await page.getByText(new RegExp(`^1 of ${total} entities$`)).waitFor();

    // Tab from the search reaches the row's controls; Space acts on the switch
    await search.focus();
    const kettle = page.getByRole('button', { name: 'Turn Kettle on or off' });
    for (let i = 0; i < 6 && !(await kettle.evaluate((el) => el === document.activeElement)); i++) await page.keyboard.press('Tab');
    t.ok(await kettle.evaluate((el) => el === document.activeElement), 'Tab reaches the switch');
    await page.keyboard.press('Space');
    t.equal(await eventually(() => stateOf(rest, 'input_boolean.kettle'), (s) => s === 'on'), 'on', 'Space turned it on');

    await search.fill('attic temp');
    await page.getByRole('link', { name: 'Attic temperature' }).click();
    await page.waitForURL((u) => u.hash === '#/history/sensor.attic_temperature');
    await page.getByRole('heading', { name: 'History of Attic temperature' }).waitFor();
    t.pass('the name opens the history');
    t.same(page.problems, []);
  });
});
