// The supervisor's mqtt service handed over through discovery: the hassio flow the core shows
// (config_entries/flow/progress) is finished through the config flow API; the service's host,
// port, username and password become the config entry (a record) once a connection with them
// works, the core connects at once, and again after a restart with no flow shown any more.
import t from 'tap';
import { connectAsync } from 'mqtt';
import { startTestSupervisor } from '../../helpers/supervisor.ts';
import { withFixtureApps } from '../../helpers/fixture-apps.ts';
import { startTestHearth, onboard, api } from '../../helpers/hearth.ts';
import { startMosquitto } from '../../helpers/mosquitto.ts';
import { freePort } from '../../helpers/ports.ts';
import { authedClient } from '../../helpers/ws.ts';
import { eventually } from '../../helpers/mqtt.ts';

const ctx = { id: 'test', parent_id: null, user_id: null };

t.test('finishing the hassio flow connects, and the connection comes back after a restart', async (t) => {
  const broker = await startMosquitto(t, { users: { addons: 'pw' } });
  const corePort = await freePort();
  const sup = await startTestSupervisor(t, { coreUrl: `http://127.0.0.1:${corePort}` });
  const { tokens } = await withFixtureApps(sup.supervisor, [{ slug: 'core_mosquitto', name: 'Mosquitto broker', services: ['mqtt:provide'], discovery: ['mqtt'] }]);
  const service = { host: '127.0.0.1', port: broker.port, ssl: false, protocol: '3.1.1', username: 'addons', password: 'wrong' };
  await sup.json('POST', '/discovery', { token: tokens.core_mosquitto, body: { service: 'mqtt', config: service } });
  const coreToken = (await sup.supervisor.tokens.rotateCore(ctx)).token;
  const supervisor = { url: sup.base, token: coreToken };

  const h = await startTestHearth(t, { port: corePort, supervisor });
  const { access_token } = await onboard(h.base);
  const call = api(h.base, access_token);
  const ws = await authedClient(h.base, access_token);
  t.teardown(() => ws.ws.close());
  let id = 0;
  const progress = async () => {
    ws.send({ id: ++id, type: 'config_entries/flow/progress' });
    return (await ws.until((m) => m.id === id)).result as any[];
  };
  const flow = await eventually(async () => (await progress()).find((f) => f.handler === 'mqtt'), 'the mqtt flow');
  t.match(flow, { handler: 'mqtt', step_id: 'hassio_confirm', context: { source: 'hassio' } });
  // the app's name as the supervisor tells it (its slug when it tells none)
  const app = flow.context.title_placeholders.addon;
  t.same((await call('GET', `/api/config/config_entries/flow/${flow.flow_id}`)).json, {
    type: 'form', flow_id: flow.flow_id, handler: 'mqtt', step_id: 'hassio_confirm', data_schema: [], errors: null, description_placeholders: { addon: app }, last_step: null, preview: null,
  });

  // a password the broker refuses: the form again, cannot_connect
  const refused = await call('POST', `/api/config/config_entries/flow/${flow.flow_id}`, {});
  t.match(refused.json, { type: 'form', errors: { base: 'cannot_connect' } });

  // the app sends its service again with the right password (same uuid): the flow takes it
  await sup.json('POST', '/discovery', { token: tokens.core_mosquitto, body: { service: 'mqtt', config: { ...service, password: 'pw' } } });
  const done = await eventually(async () => {
    const r = await call('POST', `/api/config/config_entries/flow/${flow.flow_id}`, {});
    return r.json?.type === 'create_entry' ? r.json : undefined;
  }, 'the entry made');
  t.match(done, { type: 'create_entry', handler: 'mqtt', title: app, result: { domain: 'mqtt', source: 'hassio', title: app, state: 'loaded' } });
  await eventually(() => h.lines.includes(`Connected to MQTT server 127.0.0.1:${broker.port}`), 'connected with the service\'s credentials');
  t.same(await progress(), [], 'the flow is done');

  // the devices' side: discovery reaches the core
  const device = await connectAsync(broker.url, { username: 'addons', password: 'pw' });
  t.teardown(() => device.endAsync());
  await device.publishAsync('homeassistant/binary_sensor/hall/motion/config', JSON.stringify({ name: 'Hall motion', state_topic: 'hall/motion', device_class: 'motion', unique_id: 'hall_motion' }), { retain: true });
  await eventually(async () => (await call('GET', '/api/states/binary_sensor.hall_motion')).status === 200, 'the discovered entity');
  await h.hearth.stop();

  // restarted: the entry (a record) connects again; the message is still the supervisor's, but no flow is shown
  const again = await startTestHearth(t, { port: corePort, supervisor, dataDir: h.dataDir });
  await eventually(() => again.lines.includes(`Connected to MQTT server 127.0.0.1:${broker.port}`), 'connected after the restart');
  const ws2 = await authedClient(again.base, access_token);
  t.teardown(() => ws2.ws.close());
  await new Promise((r) => setTimeout(r, 500));
  ws2.send({ id: 1, type: 'config_entries/flow/progress' });
  t.same((await ws2.until((m) => m.id === 1)).result, [], 'an MQTT entry exists: no flow');
  const entries = (await api(again.base, access_token)('GET', '/api/config/config_entries/entry?domain=mqtt')).json;
  t.match(entries, [{ domain: 'mqtt', source: 'hassio', title: app, state: 'loaded' }]);
});
