// An app's ingress panel in the core's sidebar (supervisor-wire §4.14, §10.3): the real echo app
// installed on the engine, a real Hearth core process run by the supervisor (env SUPERVISOR), and
// what a WebSocket client of the core sees: `get_panels` and the `panels_updated` events.
import t from 'tap';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { appPrefix } from '../../../helpers/apps.ts';
import { startSupervisedCore, onboard } from '../../../helpers/supervised-core.ts';
import { authedClient, type RawClient } from '../../../helpers/ws.ts';
import { userToken } from '../../../helpers/ws-sorting.ts';
import { freePort } from '../../../helpers/ports.ts';
import { eventually } from '../../../helpers/wait.ts';

const ECHO = 'core_hearth_echo';

/** The echo app's panel as the original's hassio integration registers it. */
const ECHO_PANEL = {
  component_name: 'custom',
  icon: 'mdi:message-reply-text',
  title: 'Echo',
  config: {
    ingress: ECHO,
    _panel_custom: { name: 'hassio-main', embed_iframe: true, trust_external: false, js_url: '/api/hassio/app/entrypoint.js' },
  },
  url_path: ECHO,
  require_admin: true,
  config_panel_domain: null,
};

const BUILT_IN = {
  lovelace: { component_name: 'lovelace', icon: null, title: null, config: { mode: 'storage' }, url_path: 'lovelace', require_admin: false, config_panel_domain: null },
  history: { component_name: 'history', icon: 'mdi:chart-box', title: 'history', config: null, url_path: 'history', require_admin: false, config_panel_domain: null },
};

function client(ws: RawClient) {
  let id = 100;
  return {
    async panels(): Promise<Record<string, unknown>> {
      const my = ++id;
      ws.send({ id: my, type: 'get_panels' });
      const m = await ws.until((x) => x.id === my && x.type === 'result');
      if (!m.success) throw new Error(`get_panels: ${JSON.stringify(m.error)}`);
      return m.result;
    },
    async subscribe(): Promise<number> {
      const my = ++id;
      ws.send({ id: my, type: 'subscribe_events', event_type: 'panels_updated' });
      const m = await ws.until((x) => x.id === my && x.type === 'result');
      if (!m.success) throw new Error(`subscribe_events: ${JSON.stringify(m.error)}`);
      return my;
    },
    updated: (sub: number) => ws.until((x) => x.id === sub && x.type === 'event', 10_000),
  };
}

t.test('ingress_panel shows the app in the core, a restarted core shows it again, uninstall drops it', async (t) => {
  const corePort = await freePort();
  const dataDir = await supervisorDataDir();
  const sup = await startTestSupervisor(t, { dataDir, coreUrl: `http://127.0.0.1:${corePort}`, appContainerPrefix: appPrefix(t, 'panels'), bootApps: false });
  t.equal((await sup.json('POST', `/store/addons/${ECHO}/install`)).status, 200);

  let core = await startSupervisedCore(t, sup, corePort);
  const owner = await onboard(core.base);
  let ws = await authedClient(core.base, owner.access_token);
  t.teardown(() => ws.ws.close());
  let c = client(ws);
  t.same(await c.panels(), BUILT_IN, 'before the option: the built-in panels only');

  // the option set: the supervisor pushes, the core reads the panel back and announces it
  let sub = await c.subscribe();
  t.equal((await sup.json('POST', `/addons/${ECHO}/options`, { body: { ingress_panel: true } })).status, 200);
  const event = await c.updated(sub);
  t.match(event.event, { event_type: 'panels_updated', data: {}, origin: 'LOCAL' });
  t.same((await c.panels())[ECHO], ECHO_PANEL, 'the app\'s panel, in the original\'s shape');
  t.same(Object.keys(await c.panels()).sort(), ['core_hearth_echo', 'history', 'lovelace']);

  // an admin-only panel (the app's panel_admin default) is hidden from other users
  const user = await authedClient(core.base, await userToken(core.base, owner.access_token));
  t.same(await client(user).panels(), BUILT_IN, 'a user who is no admin does not see it');
  user.ws.close();

  // only the supervisor's system user may push panels
  const asOwner = (method: string, slug: string) => fetch(`${core.base}/api/hassio_push/panel/${slug}`, { method, headers: { Authorization: `Bearer ${owner.access_token}` } });
  const refused = await asOwner('DELETE', ECHO);
  t.same([refused.status, await refused.text()], [401, '401: Unauthorized'], 'an admin who is not the supervisor');
  t.equal((await asOwner('POST', ECHO)).status, 401);
  t.equal((await fetch(`${core.base}/api/hassio_push/panel/${ECHO}`, { method: 'POST' })).status, 401, 'no token');
  t.ok((await c.panels())[ECHO], 'the refused delete changed nothing');
  // the supervisor pushing a slug it has no enabled panel for
  const coreApi = sup.supervisor.deps.coreApi!;
  t.equal((await coreApi.request('POST', '/api/hassio_push/panel/local_nothing')).status, 400, 'no such panel at the supervisor');
  t.equal((await coreApi.request('POST', '/api/hassio_push/panel/history')).status, 400, 'no app panel by a built-in panel\'s name');

  // the core restarts: it reads the enabled panels from the supervisor
  ws.ws.close();
  await core.stop();
  core = await startSupervisedCore(t, sup, corePort, core.dataDir);
  ws = await authedClient(core.base, owner.access_token);
  c = client(ws);
  t.same(await eventually('the restarted core registers the enabled panel', async () => (await c.panels())[ECHO]), ECHO_PANEL);

  // the option cleared: the panel goes, announced
  sub = await c.subscribe();
  t.equal((await sup.json('POST', `/addons/${ECHO}/options`, { body: { ingress_panel: false } })).status, 200);
  t.match((await c.updated(sub)).event, { event_type: 'panels_updated' });
  t.same(await c.panels(), BUILT_IN, 'the panel is gone');

  // set again, then the app uninstalled: its panel goes with it
  t.equal((await sup.json('POST', `/addons/${ECHO}/options`, { body: { ingress_panel: true } })).status, 200);
  await c.updated(sub);
  t.ok((await c.panels())[ECHO]);
  t.equal((await sup.json('POST', `/addons/${ECHO}/uninstall`)).status, 200);
  await c.updated(sub);
  t.same(await c.panels(), BUILT_IN, 'uninstalled: no panel');
});

t.test('a core that does not answer does not fail the option', async (t) => {
  const sup = await startTestSupervisor(t, { coreUrl: `http://127.0.0.1:${await freePort()}`, appContainerPrefix: appPrefix(t, 'panels_nocore'), bootApps: false });
  t.equal((await sup.json('POST', `/store/addons/${ECHO}/install`)).status, 200);
  t.same(await sup.json('POST', `/addons/${ECHO}/options`, { body: { ingress_panel: true } }), { status: 200, body: { result: 'ok', data: {} } });
  t.match((await sup.json('GET', '/ingress/panels')).body.data.panels[ECHO], { title: 'Echo', icon: 'mdi:message-reply-text', admin: true, enable: true });
  t.equal((await sup.json('POST', `/addons/${ECHO}/uninstall`)).status, 200);
});
