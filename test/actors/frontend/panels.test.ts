// The panel registry's rules (actors/frontend/panels.ts), with the events it fires recorded, and
// `get_panels` on a core no supervisor runs: the built-in panels, in the original's shape.
import t from 'tap';
import { Panels, PanelInUseError, appPanel, BUILT_IN_PANELS } from '../../../actors/frontend/panels.ts';
import { startTestHearth, onboard } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';

const ctx = { id: 'c', parent_id: null, user_id: null };

function registry() {
  const fired: string[] = [];
  const warnings: string[] = [];
  const logger = { name: 'test', debug() {}, info() {}, error() {}, critical() {}, logLine() {}, warning: (m: string) => void warnings.push(m) };
  const panels = new Panels({ fireEvent: async (type) => void fired.push(type), logger });
  return { panels, fired, warnings };
}

const echo = appPanel('local_echo', { title: 'Echo', icon: 'mdi:message', admin: false });

t.test('an app panel is added, replaced, removed; each change fires panels_updated', async (t) => {
  const { panels, fired, warnings } = registry();
  await panels.register(echo, ctx);
  t.same(panels.get('local_echo'), echo);
  await panels.register({ ...echo, title: 'Echo 2' }, ctx);
  t.equal(panels.get('local_echo')?.title, 'Echo 2', 'pushed again: replaced');
  await panels.remove('local_echo', ctx);
  t.equal(panels.get('local_echo'), undefined);
  t.same(fired, ['panels_updated', 'panels_updated', 'panels_updated']);
  await panels.remove('local_echo', ctx);
  t.same(warnings, ['Removing unknown panel local_echo'], 'an unknown panel: a warning');
  t.equal(fired.length, 3, 'and no event');
});

t.test('a built-in panel is neither overwritten nor removed', async (t) => {
  const { panels, fired } = registry();
  await t.rejects(panels.register(appPanel('history', { title: 'x', icon: 'mdi:x', admin: false }), ctx), new PanelInUseError('Overwriting panel history'));
  await panels.remove('lovelace', ctx);
  t.same(panels.visibleTo(true), Object.fromEntries(BUILT_IN_PANELS.map((p) => [p.url_path, p])));
  t.same(fired, []);
});

t.test('admin-only panels are listed to admins alone', async (t) => {
  const { panels } = registry();
  await panels.register({ ...echo, require_admin: true }, ctx);
  t.ok(panels.visibleTo(true).local_echo);
  t.notOk(panels.visibleTo(false).local_echo);
});

t.test('get_panels without a supervisor: the built-in panels', async (t) => {
  const h = await startTestHearth(t);
  const c = await authedClient(h.base, (await onboard(h.base)).access_token);
  t.teardown(() => c.ws.close());
  c.send({ id: 1, type: 'get_panels' });
  t.same(await c.until((m) => m.id === 1), {
    id: 1,
    type: 'result',
    success: true,
    result: {
      lovelace: { component_name: 'lovelace', icon: null, title: null, config: { mode: 'storage' }, url_path: 'lovelace', require_admin: false, config_panel_domain: null },
      history: { component_name: 'history', icon: 'mdi:chart-box', title: 'history', config: null, url_path: 'history', require_admin: false, config_panel_domain: null },
    },
  });
  c.send({ id: 2, type: 'get_panels', extra: 1 });
  t.match(await c.until((m) => m.id === 2), { success: false, error: { code: 'invalid_format' } }, 'an unknown field is refused');
  const push = await fetch(`${h.base}/api/hassio_push/panel/x`, { method: 'POST' });
  t.equal(push.status, 404, 'no supervisor: no push route');
});
