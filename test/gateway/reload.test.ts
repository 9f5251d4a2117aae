// Reload services read configuration.yaml again: helpers appear, change and go; the core config follows.
import t from 'tap';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';
import { authedClient } from '../helpers/ws.ts';

t.test('reload services', async (t) => {
  const { base, dataDir } = await startTestHearth(t, {
    config: 'core:\n  name: Before\ninput_boolean:\n  porch:\n    name: Porch\n',
  });
  const tokens = await onboard(base);
  const rest = api(base, tokens.access_token);

  const ws = await authedClient(base, tokens.access_token);
  ws.send({ id: 1, type: 'subscribe_events', event_type: 'core_config_updated' });
  await ws.next();

  await writeFile(join(dataDir, 'configuration.yaml'), 'core:\n  name: After\ninput_boolean:\n  garden:\n    name: Garden\n    initial: true\n');
  t.equal((await rest('POST', '/api/services/input_boolean/reload', {})).status, 200);
  t.equal((await rest('GET', '/api/states/input_boolean.porch')).status, 404, 'an item no longer configured is removed');
  const garden = await rest('GET', '/api/states/input_boolean.garden');
  t.same([garden.json.state, garden.json.attributes.friendly_name], ['on', 'Garden'], 'a new item appears');

  t.equal((await rest('POST', '/api/services/core/reload_core_config', {})).status, 200);
  t.equal((await rest('GET', '/api/config')).json.location_name, 'After');
  const event = await ws.until((m) => m.type === 'event');
  t.equal(event.event.event_type, 'core_config_updated');
  ws.ws.close();

  await writeFile(join(dataDir, 'configuration.yaml'), 'input_boolean:\n  bad key: {}\n');
  const broken = await rest('POST', '/api/services/input_boolean/reload', {});
  t.equal(broken.status, 400, 'a broken configuration is refused');
  t.match(broken.text, /input_boolean/);
  t.equal((await rest('GET', '/api/states/input_boolean.garden')).json.state, 'on', 'and nothing changed');
});

t.test('service_registered is recorded for every service at start', async (t) => {
  const { hearth } = await startTestHearth(t, { config: 'counter:\n  c:\n    initial: 1\n' });
  const registered: string[] = [];
  for await (const r of hearth.log.read()) if (r.type === 'service_registered') registered.push(`${r.data.domain}.${r.data.service}`);
  for (const name of ['core.turn_on', 'core.set_location', 'counter.increment', 'counter.reload', 'input_boolean.toggle']) {
    t.ok(registered.includes(name), `${name} registered`);
  }
});
