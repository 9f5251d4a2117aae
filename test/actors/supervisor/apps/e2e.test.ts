// The whole chain as an operator meets it: a supervisor, the core it serves (a Hearth process on
// the host with SUPERVISOR and its token), the built-in apps installed from the store and run on
// the real engine. A browser opens the echo app through the core's ingress hop with a session the
// core asked for its signed-in user: the page shows who the app was told is asking, its WebSocket
// echoes through both hops, a wrong or expired session is refused. The Mosquitto app publishes its
// service, a consumer app (a local repository app made here) reads it from its own container, and
// the mqtt discovery message reaches the core as a discovery flow.
import t from 'tap';
import { mkdir, writeFile, chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { startSupervisedCore, onboard } from '../../../helpers/supervised-core.ts';
import { appPrefix, freePort } from '../../../helpers/apps.ts';
import { authedClient } from '../../../helpers/ws.ts';
import { sorting } from '../../../helpers/ws-sorting.ts';
import { newPage, noBrowser } from '../../../helpers/browser.ts';
import { manualClock } from '../../../../actors/clock.ts';
import { eventually } from '../../../helpers/wait.ts';

const ECHO = 'core_hearth_echo';
const MQTT = 'core_hearth_mqtt';
const READER = 'local_mqtt_reader';

/** A local repository app that reads the mqtt service with its own token, logs what it got, then writes a state through the core's API proxy. */
async function writeReaderApp(supervisorData: string): Promise<void> {
  const dir = join(supervisorData, 'apps', 'local', 'mqtt_reader');
  await mkdir(join(dir, 'rootfs', 'usr', 'bin'), { recursive: true });
  await writeFile(
    join(dir, 'config.yaml'),
    ['name: MQTT reader', 'version: "1.0.0"', 'slug: mqtt_reader', 'description: Reads the mqtt service', 'arch: [amd64, aarch64]', 'startup: application', 'boot: manual', 'init: false', 'homeassistant_api: true', 'services:', '  - mqtt:need', ''].join('\n'),
  );
  await writeFile(join(dir, 'Dockerfile'), 'ARG BUILD_FROM\nFROM $BUILD_FROM\nCOPY rootfs/ /\nCMD ["/usr/bin/reader"]\n');
  const script = join(dir, 'rootfs', 'usr', 'bin', 'reader');
  await writeFile(
    script,
    [
      '#!/bin/sh',
      'while true; do',
      '  answer=$(wget -qO- --header "Authorization: Bearer ${SUPERVISOR_TOKEN}" "${SUPERVISOR}/services/mqtt" 2>/dev/null)',
      '  case "$answer" in *\'"result":"ok"\'*) echo "mqtt reader: $answer"; break;; esac',
      '  sleep 1',
      'done',
      // and writes a state into the core through the supervisor's proxy of the core's API
      'posted=$(wget -qO- --header "Authorization: Bearer ${SUPERVISOR_TOKEN}" --header "Content-Type: application/json" --post-data \'{"state":"written by an app"}\' "${SUPERVISOR}/core/api/states/sensor.from_app" 2>&1)',
      'echo "core api: $posted"',
      'exec sleep 100000',
      '',
    ].join('\n'),
  );
  await chmod(script, 0o755);
}

t.test('apps through the supervisor and the core, end to end', async (t) => {
  const dataDir = await supervisorDataDir();
  await writeReaderApp(dataDir);
  const corePort = await freePort();
  const clock = manualClock(Date.now());
  const s = await startTestSupervisor(t, { dataDir, host: '0.0.0.0', clock, appContainerPrefix: appPrefix(t, 'e2e'), bootApps: false, coreUrl: `http://127.0.0.1:${corePort}` });
  const core = await startSupervisedCore(t, s, corePort);
  const owner = await onboard(core.base);
  const c = await authedClient(core.base, owner.access_token);
  t.teardown(() => c.ws.close());
  const ask = sorting(c).ask;
  const me = (await ask({ type: 'auth/current_user' })).result;

  // the operator installs and starts the apps
  for (const app of [ECHO, MQTT, READER]) t.same((await s.json('POST', `/store/addons/${app}/install`)).body, { result: 'ok', data: {} }, `${app} installed`);
  // the broker's port stays unpublished: tests run side by side on one host
  t.equal((await s.json('POST', `/addons/${MQTT}/options`, { body: { network: { '1883/tcp': null } } })).status, 200);
  for (const app of [ECHO, MQTT]) t.equal((await s.json('POST', `/addons/${app}/start`)).status, 200, `${app} started`);

  await t.test('the provider publishes mqtt, the consumer reads it, discovery reaches the core', async (t) => {
    const logsOf = async (app: string) => (await s.call('GET', `/addons/${app}/logs`)).text();
    await eventually('the mqtt discovery sent', async () => (await logsOf(MQTT)).includes('mqtt: discovery sent') || undefined, 60_000);
    t.match(await logsOf(MQTT), 'mqtt: service announced');
    t.equal((await s.json('POST', `/addons/${READER}/start`)).status, 200);
    const line = await eventually('the reader\'s mqtt line', async () => (await logsOf(READER)).split('\n').find((l) => l.includes('mqtt reader: ')), 60_000);
    const read = JSON.parse(line.slice(line.indexOf('mqtt reader: ') + 13));
    t.match(read, { result: 'ok', data: { addon: MQTT, port: 1883, ssl: false, protocol: '3.1.1', username: 'addons' } }, 'the consumer app read what the provider published');
    const posted = await eventually('the reader\'s core api line', async () => (await logsOf(READER)).split('\n').find((l) => l.includes('core api: ')), 60_000);
    t.match(JSON.parse(posted.slice(posted.indexOf('core api: ') + 10)), { entity_id: 'sensor.from_app', state: 'written by an app' }, 'the app wrote to the core through /core/api');
    const inCore = await fetch(`${core.base}/api/states/sensor.from_app`, { headers: { Authorization: `Bearer ${owner.access_token}` } });
    t.equal((await inCore.json()).state, 'written by an app', 'and the core holds it');

    const flow = await eventually('the discovery flow in the core', async () => {
      const progress = await ask({ type: 'config_entries/flow/progress' });
      return (progress.result as any[]).find((f) => f.handler === 'mqtt');
    }, 60_000);
    t.match(flow, { handler: 'mqtt', context: { source: 'hassio' } }, 'the core shows the discovered mqtt service');
    const messages = (await s.json('GET', '/discovery', { token: s.supervisor.tokens.ofKind('core')!.token })).body.data.discovery;
    t.match(messages, [{ addon: MQTT, service: 'mqtt', uuid: flow.context.unique_id }], 'the flow is the app\'s message');
  });

  await t.test('a browser opens the echo app through the core; its WebSocket echoes; a wrong or expired session is refused', { skip: noBrowser }, async (t) => {
    const info = (await s.json('GET', `/addons/${ECHO}/info`)).body.data;
    t.match(info, { state: 'started', ingress: true, ingress_url: `${info.ingress_entry}/` });
    const session = await ask({ type: 'supervisor/api', endpoint: '/ingress/session', method: 'post', data: { user_id: me.id } });
    t.ok(session.success, 'the core got a session for its user');
    // a started container is not yet a listening app: the proxy answers 502 until its port opens,
    // as the original's does, so wait for the app as a user would reload
    await eventually('the ingress page through the core', async () => {
      const probe = await fetch(`${core.base}${info.ingress_url}`, { headers: { Cookie: `ingress_session=${session.result.session}` } });
      await probe.arrayBuffer();
      return probe.status !== 502;
    }, 60_000);
    const page = await newPage(t);
    await page.context().addCookies([{ name: 'ingress_session', value: session.result.session, url: `${core.base}/api/hassio_ingress/` }]);
    const res = await page.goto(`${core.base}${info.ingress_url}`);
    t.equal(res?.status(), 200);
    t.equal(await page.locator('#user-id').textContent(), me.id, 'the app was told who is asking');
    t.equal(await page.locator('#user-name').textContent(), 'owner');
    t.equal(await page.locator('#display-name').textContent(), 'Owner');
    t.equal(await page.locator('#ingress-path').textContent(), info.ingress_entry, 'and under which path it is served');
    await page.locator('#m').fill('hello from the browser');
    await page.locator('button').click();
    await page.locator('#log', { hasText: 'echo: hello from the browser' }).waitFor({ timeout: 20_000 }).catch(async (err) => {
      // what the page and the app saw, for a failure that is otherwise only a timeout
      const logs = await (await s.call('GET', `/addons/${ECHO}/logs`)).text().catch(() => '');
      throw new Error(`${(err as Error).message}\npage log: ${JSON.stringify(await page.locator('#log').textContent())}\napp log: ${logs.slice(-1500)}`);
    });
    t.pass('the page\'s WebSocket echo came back through both hops');
    t.same(page.problems, []);

    const stranger = await newPage(t);
    await stranger.context().addCookies([{ name: 'ingress_session', value: 'e'.repeat(128), url: `${core.base}/api/hassio_ingress/` }]);
    t.equal((await stranger.goto(`${core.base}${info.ingress_url}`))?.status(), 401, 'a wrong session is refused');
    clock.advance(24 * 60 * 60_000);
    const expired = await page.goto(`${core.base}${info.ingress_url}`);
    t.equal(expired?.status(), 401, 'an expired session is refused');
  });

  for (const app of [ECHO, MQTT, READER]) t.equal((await s.json('POST', `/addons/${app}/uninstall`)).status, 200, `${app} uninstalled`);
});
