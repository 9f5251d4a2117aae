// Services apps publish for each other (supervisor-wire §4.11), over real sockets with app tokens:
// a provider publishes mqtt, a consumer reads it on v1 (`addon`) and v2 (`app`), the conflicts and
// refusals the original gives, and the publication kept across a restart.
import t from 'tap';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { withFixtureApps, enableV2, type FixtureApp } from '../../../helpers/fixture-apps.ts';

const APPS: FixtureApp[] = [
  { slug: 'core_mosquitto', services: ['mqtt:provide'], discovery: ['mqtt'] },
  { slug: 'local_other_broker', services: ['mqtt:provide', 'mysql:provide'] },
  { slug: 'local_consumer', services: ['mqtt:want'] },
  { slug: 'local_nothing' },
];

const MQTT = { host: 'core-mosquitto', port: 1883, username: 'homeassistant', password: 'secret' };

t.test('publish, read, conflict, withdraw, restart', async (t) => {
  const dataDir = await supervisorDataDir();
  const first = await startTestSupervisor(t, { dataDir });
  await enableV2(first.supervisor);
  const { tokens } = await withFixtureApps(first.supervisor, APPS);
  const as = (slug: string) => ({ token: tokens[slug] });

  t.same((await first.json('GET', '/services', as('local_nothing'))).body, {
    result: 'ok',
    data: {
      services: [
        { slug: 'mqtt', available: false, providers: ['core_mosquitto', 'local_other_broker'] },
        { slug: 'mysql', available: false, providers: ['local_other_broker'] },
      ],
    },
  }, 'the list: nothing published, providers from the installed apps\' configs');

  t.same((await first.json('GET', '/services/mqtt', as('local_consumer'))).body, { result: 'error', message: 'Service not enabled' });
  t.same((await first.json('GET', '/services/xmpp', as('local_consumer'))), { status: 404, body: { result: 'error', message: 'Service does not exist' } });

  const refused = await first.json('POST', '/services/mqtt', { ...as('core_mosquitto'), body: { host: 'x' } });
  t.same(refused, { status: 400, body: { result: 'error', message: "required key not provided @ data['port']. Got None" } }, 'the schema checks the body');
  t.equal((await first.json('POST', '/services/mqtt', { ...as('core_mosquitto'), body: { ...MQTT, port: 70000 } })).status, 400, 'a port out of range');
  t.equal((await first.json('POST', '/services/mqtt', { ...as('core_mosquitto'), body: { ...MQTT, protocol: '5' } })).status, 400, 'an unknown protocol');

  t.same((await first.json('POST', '/services/mqtt', { ...as('core_mosquitto'), body: MQTT })), { status: 200, body: { result: 'ok', data: {} } }, 'the provider publishes');
  t.same((await first.json('POST', '/services/mqtt', { ...as('local_other_broker'), body: MQTT })), {
    status: 409,
    body: { result: 'error', message: 'The mqtt service is already provided by core_mosquitto', error_key: 'service_already_provided_error', extra_fields: { service: 'mqtt', app: 'core_mosquitto' } },
  }, 'a second provider: 409');

  t.same((await first.json('GET', '/services/mqtt', as('local_consumer'))).body, {
    result: 'ok',
    data: { ssl: false, protocol: '3.1.1', ...MQTT, addon: 'core_mosquitto' },
  }, 'the consumer reads it with the defaults filled in, v1 key `addon`');
  t.same((await first.json('GET', '/services/mqtt', as('local_nothing'))), { status: 403, body: { result: 'error', message: 'No access to mqtt service!' } });
  t.same((await first.json('GET', '/services/mqtt', {})), { status: 403, body: { result: 'error', message: 'No access to mqtt service!' } }, 'the operator is no app');
  t.same((await first.json('DELETE', '/services/mqtt', as('local_consumer'))), { status: 403, body: { result: 'error', message: 'No access to write mqtt service!' } });
  t.same((await first.json('DELETE', '/services/mysql', as('local_other_broker'))), {
    status: 404,
    body: { result: 'error', message: 'The mysql service is not currently provided by any app', error_key: 'service_not_provided_error', extra_fields: { service: 'mysql' } },
  });
  t.same((await first.json('GET', '/services', as('local_nothing'))).body.data.services[0], { slug: 'mqtt', available: true, providers: ['core_mosquitto', 'local_other_broker'] });

  const records = [];
  for await (const r of first.supervisor.log.readStreams('supervisor/service/')) records.push({ stream: r.stream, type: r.type, app: (r.data as any).app });
  t.same(records, [{ stream: 'supervisor/service/mqtt', type: 'service_provided', app: 'core_mosquitto' }], 'the publication is a record in the supervisor log');
  await first.supervisor.stop();

  const second = await startTestSupervisor(t, { dataDir });
  await withFixtureApps(second.supervisor, APPS).then(({ tokens: fresh }) => Object.assign(tokens, fresh));
  t.same((await second.json('GET', '/v2/services/mqtt', as('local_consumer'))).body, {
    result: 'ok',
    data: { ssl: false, protocol: '3.1.1', ...MQTT, app: 'core_mosquitto' },
  }, 'after a restart, on v2 with key `app`');
  t.same((await second.json('DELETE', '/v2/services/mqtt', as('core_mosquitto'))).body, { result: 'ok', data: {} }, 'the provider withdraws it');
  t.same((await second.json('GET', '/services/mqtt', as('local_consumer'))).body, { result: 'error', message: 'Service not enabled' });
  t.same((await second.json('POST', '/v2/services/mysql', { ...as('local_other_broker'), body: { host: 'db', port: 3306, extra: 1 } })).body, { result: 'error', message: "extra keys not allowed @ data['extra']. Got 1" });
  t.same((await second.json('POST', '/v2/services/mysql', { ...as('local_other_broker'), body: { host: 'db', port: 3306 } })).body, { result: 'ok', data: {} });
  t.same((await second.json('GET', '/v2/services/mysql', as('local_other_broker'))).body.data, { host: 'db', port: 3306, app: 'local_other_broker' });
});

t.test('an uninstalled provider\'s publication goes with it', async (t) => {
  const sup = await startTestSupervisor(t);
  const { tokens } = await withFixtureApps(sup.supervisor, APPS);
  await sup.json('POST', '/services/mqtt', { token: tokens.core_mosquitto, body: MQTT });
  await sup.supervisor.deps.services!.removeApp('local_consumer', { id: 'x', parent_id: null, user_id: null });
  t.equal((await sup.json('GET', '/services/mqtt', { token: tokens.local_consumer })).status, 200, 'another app\'s removal changes nothing');
  await sup.supervisor.deps.services!.removeApp('core_mosquitto', { id: 'x', parent_id: null, user_id: null });
  t.same((await sup.json('GET', '/services/mqtt', { token: tokens.local_consumer })).body, { result: 'error', message: 'Service not enabled' });
});

t.test('two providers publishing at once: one wins, the other gets the 409', async (t) => {
  const sup = await startTestSupervisor(t);
  const { tokens } = await withFixtureApps(sup.supervisor, APPS);
  const [a, b] = await Promise.all([
    sup.json('POST', '/services/mqtt', { token: tokens.core_mosquitto, body: MQTT }),
    sup.json('POST', '/services/mqtt', { token: tokens.local_other_broker, body: MQTT }),
  ]);
  t.same([a.status, b.status].sort(), [200, 409]);
  const winner = a.status === 200 ? 'core_mosquitto' : 'local_other_broker';
  t.equal((await sup.json('GET', '/services/mqtt', { token: tokens.local_consumer })).body.data.addon, winner);
});
