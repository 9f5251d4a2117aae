// Discovery end to end (supervisor-wire §4.12): apps send messages to the supervisor with their
// tokens, the supervisor pushes them to a real Hearth core process it runs by env SUPERVISOR /
// SUPERVISOR_TOKEN, and the core shows each as a discovery flow (config_entries/flow/progress)
// and records it in its log.
import t from 'tap';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { withFixtureApps, enableV2, type FixtureApp } from '../../../helpers/fixture-apps.ts';
import { startSupervisedCore, onboard } from '../../../helpers/supervised-core.ts';
import { authedClient } from '../../../helpers/ws.ts';
import { freePort } from '../../../helpers/ports.ts';
import { openEventLog } from '../../../../store/log.ts';
import { eventually } from '../../../helpers/wait.ts';

const APPS: FixtureApp[] = [
  { slug: 'core_mosquitto', name: 'Mosquitto broker', services: ['mqtt:provide'], discovery: ['mqtt'] },
  { slug: 'local_zigbee', discovery: ['zha', 'mqtt'] },
  { slug: 'local_sleeping', discovery: ['mqtt'], state: 'stopped' },
  { slug: 'local_plain' },
];
const ctx = { id: 'test', parent_id: null, user_id: null };

t.test('messages, their rules, and the core showing them as discovery flows', async (t) => {
  const dataDir = await supervisorDataDir();
  const corePort = await freePort();
  const first = await startTestSupervisor(t, { dataDir });
  await enableV2(first.supervisor);
  await first.supervisor.stop();
  const sup = await startTestSupervisor(t, { dataDir, coreUrl: `http://127.0.0.1:${corePort}` });
  const { view, tokens } = await withFixtureApps(sup.supervisor, APPS);
  const coreToken = (await sup.supervisor.tokens.rotateCore(ctx)).token;
  const as = (slug: string) => ({ token: tokens[slug] });
  const mqtt = { host: 'core-mosquitto', port: 1883, username: 'addons', password: 'pw' };

  // before any core runs: the message is kept, the push waits
  const sent = await sup.json('POST', '/discovery', { ...as('core_mosquitto'), body: { service: 'mqtt', config: mqtt } });
  t.equal(sent.status, 200);
  t.match(sent.body, { result: 'ok', data: { uuid: /^[0-9a-f]{32}$/ } });
  const uuid = sent.body.data.uuid;
  t.same((await sup.json('POST', '/discovery', { ...as('core_mosquitto'), body: { service: 'mqtt', config: mqtt } })).body.data, { uuid }, 'the same app and service: the same uuid');
  t.same(await sup.json('POST', '/discovery', { ...as('local_plain'), body: { service: 'mqtt', config: {} } }), {
    status: 403,
    body: { result: 'error', message: 'Apps must list services they provide via discovery in their config!' },
  });
  t.same((await sup.json('POST', '/discovery', { ...as('core_mosquitto'), body: { service: 'mqtt' } })).body, { result: 'error', message: "required key not provided @ data['config']. Got None" });
  t.equal((await sup.json('POST', '/discovery', { ...as('core_mosquitto'), body: { service: 'mqtt', config: null } })).status, 400, 'config null');
  const sleeping = (await sup.json('POST', '/discovery', { ...as('local_sleeping'), body: { service: 'mqtt', config: { host: 'x' } } })).body.data.uuid;

  // reading is the core's alone
  const byApp = await sup.call('GET', '/discovery', as('core_mosquitto'));
  t.same([byApp.status, await byApp.text()], [401, '401: Unauthorized'], 'an app reading: text 401');
  t.equal((await sup.call('GET', `/discovery/${uuid}`, {})).status, 401, 'the operator is not the core');
  const listed = await sup.json('GET', '/discovery', { token: coreToken });
  t.same(listed.body.data.discovery, [{ addon: 'core_mosquitto', service: 'mqtt', uuid, config: mqtt }], 'only messages of started apps, v1 key `addon`');
  t.match(listed.body.data.services, { mqtt: ['core_mosquitto', 'local_zigbee', 'local_sleeping'], zha: ['local_zigbee'] }, 'who declares which service');
  t.same((await sup.json('GET', `/v2/discovery/${uuid}`, { token: coreToken })).body.data, { app: 'core_mosquitto', service: 'mqtt', uuid, config: mqtt }, 'v2 key `app`');
  t.same(await sup.json('GET', '/discovery/nope', { token: coreToken }), { status: 404, body: { result: 'error', message: 'Discovery message not found' } });
  t.same(await sup.json('DELETE', '/discovery/nope', as('core_mosquitto')), { status: 404, body: { result: 'error', message: 'Discovery message not found' } });
  t.same(await sup.json('DELETE', `/discovery/${uuid}`, as('local_zigbee')), { status: 403, body: { result: 'error', message: "Can't remove discovery message" } }, 'only the sender removes');

  // the core starts: it hands over its refresh token and opens a flow for what is there
  const core = await startSupervisedCore(t, sup, corePort);
  const owner = await onboard(core.base);
  const ws = await authedClient(core.base, owner.access_token);
  t.teardown(() => ws.ws.close());
  let id = 1;
  const progress = async () => {
    ws.send({ id: ++id, type: 'config_entries/flow/progress' });
    const m = await ws.until((x) => x.id === id);
    t.equal(m.success, true);
    return m.result as any[];
  };
  const flows = await eventually('the flow of the message already there', async () => ((await progress()).length >= 1 ? progress() : undefined));
  t.match(flows, [{ flow_id: /^[0-9a-f]{32}$/, handler: 'mqtt', step_id: 'hassio_confirm', context: { source: 'hassio', unique_id: uuid } }], 'the message sent before the core ran');
  t.notOk(flows.some((f) => f.context.unique_id === sleeping), 'no flow for a stopped app');

  // a push while the core runs
  const zha = (await sup.json('POST', '/v2/discovery', { ...as('local_zigbee'), body: { service: 'zha', config: { device: '/dev/ttyUSB0' } } })).body.data.uuid;
  const withZha = await eventually('the pushed message becomes a flow', async () => (await progress()).find((f) => f.context.unique_id === zha));
  t.match(withZha, { handler: 'zha', context: { source: 'hassio', title_placeholders: { addon: 'local_zigbee' } } });

  // a changed config keeps the uuid
  t.same((await sup.json('POST', '/discovery', { ...as('core_mosquitto'), body: { service: 'mqtt', config: { ...mqtt, port: 1884 } } })).body.data, { uuid });
  t.same((await sup.json('GET', `/discovery/${uuid}`, { token: coreToken })).body.data.config.port, 1884);

  // the sender withdraws: the flow goes
  t.same((await sup.json('DELETE', `/discovery/${zha}`, as('local_zigbee'))).body, { result: 'ok', data: {} });
  await eventually('the withdrawn message\'s flow ends', async () => !(await progress()).some((f) => f.context.unique_id === zha));
  t.ok((await progress()).some((f) => f.context.unique_id === uuid), 'the other flow stays');

  view.apps[0].state = 'stopped';
  t.same((await sup.json('GET', '/discovery', { token: coreToken })).body.data.discovery, [], 'the app stopped: its message is not listed');

  // the core's log holds the flows' starts and ends, without the configs
  await sup.supervisor.deps.discovery!.settled();
  await core.stop();
  const log = await openEventLog({ path: join(core.dataDir, 'log') });
  const records: Array<{ stream: string; type: string; data: any }> = [];
  for await (const r of log.readStreams('hassio/discovery/')) records.push({ stream: r.stream, type: r.type, data: r.data });
  await log.close();
  t.same(records.map((r) => [r.stream, r.type]).sort(), [
    [`hassio/discovery/${uuid}`, 'discovery_flow_started'],
    [`hassio/discovery/${zha}`, 'discovery_flow_started'],
    [`hassio/discovery/${zha}`, 'discovery_flow_removed'],
  ].sort());
  t.notOk(JSON.stringify(records).includes('"pw"'), 'no config (and no password) in the core\'s log');

  // the supervisor's messages survive its restart
  const supRecords: string[] = [];
  for await (const r of sup.supervisor.log.readStreams('supervisor/discovery/')) supRecords.push(`${r.type} ${(r.data as any).app}`);
  t.same(supRecords.sort(), ['discovery_removed local_zigbee', 'discovery_sent core_mosquitto', 'discovery_sent core_mosquitto', 'discovery_sent local_sleeping', 'discovery_sent local_zigbee'].sort());
});

t.test('the same message sent twice at once keeps one uuid', async (t) => {
  const sup = await startTestSupervisor(t);
  const { tokens } = await withFixtureApps(sup.supervisor, APPS);
  const send = (port: number) => sup.json('POST', '/discovery', { token: tokens.core_mosquitto, body: { service: 'mqtt', config: { host: 'h', port } } });
  const [a, b] = await Promise.all([send(1), send(2)]);
  t.equal(a.body.data.uuid, b.body.data.uuid);
  t.equal(sup.supervisor.deps.discovery!.all().length, 1);
});
