// The components list (get_config, GET /api/config, GET /api/components) against the parts a
// running Hearth has loaded: its services, routes, WebSocket commands and platform entities.
// Clients decide what to offer from it, so a served part left out is a feature they hide.
import t from 'tap';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';
import { hook, register } from '../actors/mobile/app.ts';
import { coreCommands } from '../../gateway/ws/commands.ts';
import { componentOfCommand, componentsOfCommands } from '../../gateway/ws/command-components.ts';
import { Router } from '../../gateway/router.ts';
import { LoadedComponents } from '../../actors/core/components.ts';

const CONFIG = `
sensor:
  - { platform: virtual, name: Outside }
input_boolean:
  porch:
`;

t.test('every loaded part is listed', async (t) => {
  const h = await startTestHearth(t, { config: CONFIG });
  const token = (await onboard(h.base)).access_token;
  const rest = api(h.base, token);
  const listed = async () => (await rest('GET', '/api/components')).json as string[];

  const before = await listed();
  t.same(before, [...new Set(before)].sort(), 'sorted, each once');
  for (const name of ['mobile_app', 'webhook', 'api', 'auth', 'config', 'http', 'websocket_api', 'history', 'onboarding', 'conversation', 'intent', 'recorder', 'zone', 'sensor', 'input_boolean', 'virtual']) {
    t.ok(before.includes(name), `${name} is listed`);
  }
  t.notOk(before.includes('hassio'), 'no supervisor, no hassio');
  t.notOk(before.includes('device_tracker'), 'no companion app registered yet: its platforms are not set up');

  const services = (await rest('GET', '/api/services')).json as Array<{ domain: string }>;
  t.same(services.map((s) => s.domain).filter((d) => !before.includes(d)), [], 'every domain with a service');
  const families = [...coreCommands.types()].filter((type) => componentOfCommand(type) !== null && !before.includes(componentOfCommand(type)!));
  t.same(families, [], 'every WebSocket command family');

  const reg = await register(rest);
  const after = await listed();
  for (const name of ['device_tracker', 'sensor', 'binary_sensor']) t.ok(after.includes(name), `${name}: the platforms of a registration`);

  const config = (await rest('GET', '/api/config')).json;
  t.same(config.components, after, 'GET /api/config');
  const ws = await authedClient(h.base, token);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'get_config' });
  t.same((await ws.until((m) => m.id === 1)).result.components, after, 'get_config over the WebSocket');
  const app = await hook(h.base, reg.webhook_id, { type: 'get_config' });
  t.same(app.json.components, after, "the companion app's get_config");
});

t.test('a part that registers itself is listed, with no list to edit', async (t) => {
  const router = new Router({ authenticator: { authenticate: () => undefined } as never });
  const components = new LoadedComponents();
  let tagServices: string[] = [];
  components.follow(() => router.components());
  components.follow(() => componentsOfCommands(['get_states', 'tag/list', 'config_entries/flow/progress', 'supervisor/api', 'hearth/log']));
  components.follow(() => tagServices);
  t.same(components.list(), ['config', 'hassio', 'tag', 'websocket_api'], 'command families name their components; hearth/ is none');

  router.of('input_datetime').get('/api/input_datetime', { access: 'user' }, () => ({ status: 200, body: '' }));
  router.get('/dashboard', { access: 'none' }, () => ({ status: 200, body: '' }));
  tagServices = ['tag', 'person'];
  t.same(components.list(), ['config', 'hassio', 'http', 'input_datetime', 'person', 'tag', 'websocket_api'], 'read when asked: a route or service added later is there');
});
