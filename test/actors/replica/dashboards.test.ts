// A dashboard anywhere: the npm client home-assistant-js-websocket, unchanged, connected to a read
// replica sees the same entities and the same changes, in the same order, as one on the primary.
import t from 'tap';
import WebSocket from 'ws';
import { onboard, api, startTestHearth } from '../../helpers/hearth.ts';
import { startTestReplica } from '../../helpers/replica.ts';
import { natsFor } from '../../helpers/nats.ts';
import { eventually } from '../../helpers/wait.ts';

(globalThis as any).WebSocket ??= WebSocket;
const haws = await import('home-assistant-js-websocket');
type HassEntities = import('home-assistant-js-websocket').HassEntities;

const LAG = 'sensor.hearth_export_lag';

t.test('home-assistant-js-websocket on a replica sees what it sees on the primary', async (t) => {
  const nats = await natsFor(t);
  const primary = await startTestHearth(t, {
    config: `recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:${nats.port}]\ninput_boolean:\n  porch:\n    name: Porch light\n    initial: false\n`,
  });
  const tokens = await onboard(primary.base);
  const replica = await startTestReplica(t, nats.port);
  await eventually('the replica to accept the token', async () => (await fetch(`${replica.base}/api/`, { headers: { Authorization: `Bearer ${tokens.access_token}` } })).status === 200);

  const watch = async (base: string) => {
    const conn = await haws.createConnection({ auth: haws.createLongLivedTokenAuth(base, tokens.access_token) });
    t.teardown(() => conn.close());
    const latest: { entities?: HassEntities } = {};
    const unsubscribe = haws.subscribeEntities(conn, (entities) => (latest.entities = entities));
    const changes: Array<[string, string]> = [];
    const unsubEvents = await conn.subscribeEvents((e: any) => {
      if (e.data.entity_id !== LAG) changes.push([e.data.entity_id, e.data.new_state?.state]);
    }, 'state_changed');
    return { conn, latest, changes, stop: async () => (unsubscribe(), await unsubEvents()) };
  };
  const onPrimary = await watch(primary.base);
  const onReplica = await watch(replica.base);
  t.match(onReplica.conn.haVersion, /^\d{4}\.\d+\.\d+$/);
  await eventually('the replica\'s dashboard to see the porch light', () => onReplica.latest.entities?.['input_boolean.porch']?.state === 'off');

  const rest = api(primary.base, tokens.access_token);
  for (let i = 0; i < 5; i++) {
    await haws.callService(onPrimary.conn, 'input_boolean', 'toggle', undefined, { entity_id: 'input_boolean.porch' });
    await rest('POST', '/api/states/sensor.outside', { state: String(i), attributes: { unit_of_measurement: '°C' } });
  }
  await eventually('both dashboards to see the ten changes', () => onPrimary.changes.length >= 10 && onReplica.changes.length >= 10);
  t.same(onReplica.changes, onPrimary.changes, 'the same changes in the same order');
  t.equal(onReplica.changes.length, 10);
  const strip = (e: HassEntities) => Object.fromEntries(Object.entries(e).filter(([id]) => id !== LAG));
  await eventually('both entity maps to settle', () => onReplica.latest.entities?.['sensor.outside']?.state === '4' && onPrimary.latest.entities?.['sensor.outside']?.state === '4');
  t.same(strip(onReplica.latest.entities!), strip(onPrimary.latest.entities!), 'the same entities, states, attributes and times');

  const states = await haws.getStates(onReplica.conn);
  t.equal(states.find((s) => s.entity_id === 'input_boolean.porch')?.state, 'on');
  await t.rejects(haws.callService(onReplica.conn, 'input_boolean', 'toggle', undefined, { entity_id: 'input_boolean.porch' }), { code: 'not_supported' }, 'a write on the replica is refused with a reason');
  await onPrimary.stop();
  await onReplica.stop();
});
