// The npm client home-assistant-js-websocket 9.x, unchanged, against Hearth.
import t from 'tap';
import WebSocket from 'ws';
import { startTestHearth, onboard, api } from '../helpers/hearth.ts';

// the client opens sockets with the global WebSocket, which Node 20 lacks
(globalThis as any).WebSocket ??= WebSocket;
const haws = await import('home-assistant-js-websocket');
type HassEntities = import('home-assistant-js-websocket').HassEntities;

t.test('home-assistant-js-websocket works unchanged', async (t) => {
  const { base } = await startTestHearth(t, {
    config: 'input_boolean:\n  porch:\n    name: Porch light\n    initial: false\n',
  });
  const tokens = await onboard(base);
  const auth = haws.createLongLivedTokenAuth(base, tokens.access_token);
  const conn = await haws.createConnection({ auth });
  t.teardown(() => conn.close());
  t.match(conn.haVersion, /^\d{4}\.\d+\.\d+$/);

  const user = await haws.getUser(conn);
  t.equal(user.name, 'Owner');
  t.equal(user.is_admin, true);

  const snapshots: HassEntities[] = [];
  const unsubscribe = haws.subscribeEntities(conn, (entities) => snapshots.push(entities));
  const waitFor = async (pred: (e: HassEntities) => boolean) => {
    for (let i = 0; i < 100; i++) {
      const last = snapshots[snapshots.length - 1];
      if (last && pred(last)) return last;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`condition not reached; last: ${JSON.stringify(snapshots[snapshots.length - 1])}`);
  };
  const first = await waitFor((e) => !!e['input_boolean.porch']);
  t.equal(first['input_boolean.porch'].state, 'off');
  t.equal(first['input_boolean.porch'].attributes.friendly_name, 'Porch light');

  const events: any[] = [];
  const unsubEvents = await conn.subscribeEvents((e: any) => events.push(e), 'state_changed');

  await haws.callService(conn, 'input_boolean', 'turn_on', undefined, { entity_id: 'input_boolean.porch' });
  const on = await waitFor((e) => e['input_boolean.porch']?.state === 'on');
  t.equal(on['input_boolean.porch'].state, 'on');
  t.ok(on['input_boolean.porch'].last_changed, 'the client rebuilt last_changed from the diff');

  await haws.callService(conn, 'core', 'toggle', { entity_id: 'input_boolean.porch' });
  await waitFor((e) => e['input_boolean.porch']?.state === 'off');

  const rest = api(base, tokens.access_token);
  await rest('POST', '/api/states/sensor.outside', { state: '7', attributes: { unit_of_measurement: '°C' } });
  const withSensor = await waitFor((e) => e['sensor.outside']?.state === '7');
  t.same(withSensor['sensor.outside'].attributes, { unit_of_measurement: '°C' });

  t.ok(events.some((e) => e.data.entity_id === 'input_boolean.porch' && e.data.new_state.state === 'on'));
  await unsubEvents();
  unsubscribe();

  const states = await haws.getStates(conn);
  t.ok(states.find((s) => s.entity_id === 'sensor.outside'));
  const services = await haws.getServices(conn);
  t.ok(services.input_boolean.toggle);
  const config = await haws.getConfig(conn);
  t.equal(config.state, 'RUNNING');
});
