// Read replicas following a REAL nats-server's JetStream stream that a real primary exports to:
// what their clients see on REST, SSE and WebSocket; tokens and revocations; NATS going away;
// restarts; the snapshot a new replica starts from; writes refused.
import t, { type Test } from 'tap';
import { CLIENT_ID, api, exchangeCode, onboard, startTestHearth, type TestHearth } from '../../helpers/hearth.ts';
import { startTestReplica, type TestReplica } from '../../helpers/replica.ts';
import { natsFor, streamMessages } from '../../helpers/nats.ts';
import { authedClient } from '../../helpers/ws.ts';
import { sorting } from '../../helpers/ws-sorting.ts';
import { openStream } from '../../helpers/sse.ts';
import { recordsWhere } from '../../helpers/log-records.ts';
import { eventually } from '../../helpers/wait.ts';

const LAG = 'sensor.hearth_export_lag';
const exportConfig = (port: number, extra = '') => `recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:${port}]\n${extra}`;

/** The states of a server, by entity id, without the exporter's own lag entity (it moves as it exports). */
async function statesOf(base: string, token: string): Promise<Record<string, unknown>> {
  const res = await api(base, token)('GET', '/api/states');
  if (res.status !== 200) throw new Error(`GET /api/states: ${res.status} ${res.text}`);
  return Object.fromEntries((res.json as Array<{ entity_id: string }>).filter((s) => s.entity_id !== LAG).map((s) => [s.entity_id, s]));
}

/** Waits until the replica holds every record the primary has committed so far. */
async function caughtUp(primary: TestHearth, replica: TestReplica): Promise<void> {
  const last = primary.hearth.log.lastSeq();
  let exported = 0;
  for await (const r of primary.hearth.log.read({ gt: 0, reverse: true })) {
    if (!r.stream.startsWith('auth/')) {
      exported = r.seq;
      break;
    }
  }
  await eventually(`the replica to reach seq ${exported} (primary at ${last})`, () => replica.replica.follower.applied >= exported);
}

async function accepted(base: string, token: string): Promise<number> {
  return (await fetch(`${base}/api/`, { headers: { Authorization: `Bearer ${token}` } })).status;
}

async function setUp(t: Test, extra = '') {
  const nats = await natsFor(t);
  const primary = await startTestHearth(t, { config: exportConfig(nats.port, extra) });
  const tokens = await onboard(primary.base);
  // the exporter's worker takes a moment to start: the replicas below expect the stream (and
  // its first snapshot) to be there before the writes they follow, not a snapshot taken after them
  await eventually('the exporter to export the onboarding', () => primary.hearth.exporter!.acked >= primary.hearth.log.lastSeq());
  return { nats, primary, tokens, rest: api(primary.base, tokens.access_token) };
}

t.test('writes on the primary reach two replicas on REST, SSE and WebSocket, in the primary\'s order', async (t) => {
  const { nats, primary, tokens, rest } = await setUp(t);
  const token = tokens.access_token;
  await rest('POST', '/api/states/sensor.before', { state: 'early', attributes: { unit_of_measurement: 'W' } });
  const replicas = [await startTestReplica(t, nats.port), await startTestReplica(t, nats.port)];
  for (const r of replicas) await eventually('the replica to accept the primary\'s token', async () => (await accepted(r.base, token)) === 200);
  // sensor.before applied before the subscriptions below: else it may come between subscribe_events and subscribe_entities
  for (const r of replicas) await caughtUp(primary, r);

  // what each replica's clients are told from now on
  const watchers = await Promise.all(
    replicas.map(async (r) => {
      const ws = sorting(await authedClient(r.base, token));
      const events = await ws.ask({ type: 'subscribe_events', event_type: 'state_changed' });
      t.equal(events.success, true);
      const entities = await ws.ask({ type: 'subscribe_entities', entity_ids: ['sensor.a', 'sensor.b', 'sensor.before'] });
      t.equal(entities.success, true);
      const first = await ws.next(entities.id);
      t.same(Object.keys(first.a), ['sensor.before'], 'subscribe_entities starts with the states the replica has');
      const sse = openStream(r.base, token, '?restrict=state_changed');
      await sse.ready;
      t.equal(sse.status, 200);
      return { ws, events: events.id, entities: entities.id, sse };
    }),
  );

  const writes: Array<[string, string]> = [];
  for (let i = 0; i < 30; i++) writes.push([i % 2 === 0 ? 'sensor.a' : 'sensor.b', `v${i}`]);
  for (const [id, state] of writes) t.equal((await rest('POST', `/api/states/${id}`, { state })).status < 300, true);
  const primaryStates = await statesOf(primary.base, token);
  for (const r of replicas) await caughtUp(primary, r);

  for (const [i, w] of watchers.entries()) {
    const seen: Array<[string, string]> = [];
    while (seen.length < writes.length) {
      const e = await w.ws.next(w.events);
      if (e.data.entity_id !== LAG) seen.push([e.data.entity_id, e.data.new_state.state]);
    }
    t.same(seen, writes, `replica ${i + 1}: subscribe_events in the primary's order`);
    const compressed: Array<[string, string]> = [];
    while (compressed.length < writes.length) {
      const e = await w.ws.next(w.entities);
      for (const [id, change] of Object.entries<any>(e.c ?? {})) compressed.push([id, change['+']?.s]);
      for (const [id, s] of Object.entries<any>(e.a ?? {})) compressed.push([id, s.s]);
    }
    t.same(compressed, writes, `replica ${i + 1}: subscribe_entities in the primary's order`);
    await eventually('the SSE stream to carry every write', () => w.sse.lines.filter((l) => l.includes('sensor.a') || l.includes('sensor.b')).length >= writes.length);
    const sse = w.sse.lines.filter((l) => l.startsWith('data: {')).map((l) => JSON.parse(l.slice(6))).filter((e) => e.data.entity_id !== LAG).map((e) => [e.data.entity_id, e.data.new_state.state]);
    t.same(sse, writes, `replica ${i + 1}: /api/stream in the primary's order`);
    w.sse.close();
    t.same(await statesOf(replicas[i].base, token), primaryStates, `replica ${i + 1}: GET /api/states as on the primary`);
    const one = await api(replicas[i].base, token)('GET', '/api/states/sensor.before');
    t.same(one.json, primaryStates['sensor.before'], 'GET /api/states/<id> as on the primary');
    const get = await w.ws.ask({ type: 'get_states' });
    t.same(Object.fromEntries(get.result.filter((s: any) => s.entity_id !== LAG).map((s: any) => [s.entity_id, s])), primaryStates, 'WebSocket get_states as on the primary');
  }

  const start = new Date(Date.now() - 3_600_000).toISOString();
  const path = `/api/history/period/${start}?filter_entity_id=sensor.a,sensor.b&minimal_response`;
  const onPrimary = await rest('GET', path);
  t.equal(onPrimary.status, 200);
  t.equal(onPrimary.json[0].length, 15);
  for (const r of replicas) t.same((await api(r.base, token)('GET', path)).json, onPrimary.json, 'history as on the primary');

  // the replica's log is the primary's, record for record, without auth/
  const mine = await recordsWhere(replicas[0].replica.log);
  // (from the snapshot it started from: the primary stores one as soon as it exports)
  const theirs = await recordsWhere(primary.hearth.log, (r) => !r.stream.startsWith('auth/') && r.seq >= mine[0].seq && r.seq <= mine[mine.length - 1].seq);
  t.same(mine.map((r) => [r.seq, r.stream, r.type]), theirs.map((r) => [r.seq, r.stream, r.type]), 'the same records with the same seqs');
  t.notOk(mine.some((r) => r.stream.startsWith('auth/')), 'no auth record reaches a replica');
});

t.test('writes on a replica are refused, saying where they go; reads need a token', async (t) => {
  const { nats, tokens } = await setUp(t);
  const r = await startTestReplica(t, nats.port);
  const token = tokens.access_token;
  await eventually('the replica to accept the token', async () => (await accepted(r.base, token)) === 200);
  t.equal((await fetch(`${r.base}/api/states`)).status, 401, 'no token, no states');
  t.equal((await accepted(r.base, 'not.a.token')), 401);
  const post = await api(r.base, token)('POST', '/api/states/sensor.x', { state: '1' });
  t.equal(post.status, 405, 'POST on a path the replica reads is the original\'s 405');
  t.equal(post.headers.get('allow'), 'GET');
  t.equal((await api(r.base, token)('POST', '/api/services/light/turn_on', {})).status, 404, 'a path only the primary serves is unknown here');
  const ws = sorting(await authedClient(r.base, token));
  const call = await ws.ask({ type: 'call_service', domain: 'light', service: 'turn_on' });
  t.same(call.error, { code: 'not_supported', message: 'call_service is not served by a read replica (it follows stream hearth): send it to the primary' });
  t.same((await ws.ask({ type: 'fire_event', event_type: 'x' })).error.code, 'not_supported');
  t.same((await ws.ask({ type: 'no_such_command' })).error, { code: 'unknown_command', message: 'Unknown command.' });
  const config = await ws.ask({ type: 'get_config' });
  t.equal(config.success, true);
});

t.test('a revoked token, a deactivated user and a forged token are refused on every replica', async (t) => {
  const { nats, primary, tokens } = await setUp(t);
  const replicas = [await startTestReplica(t, nats.port), await startTestReplica(t, nats.port)];
  // a second login of the owner: its own refresh token
  const flow = await (await fetch(`${primary.base}/auth/login_flow`, { method: 'POST', body: JSON.stringify({ client_id: CLIENT_ID, handler: ['core', null], redirect_uri: CLIENT_ID }) })).json();
  const step = await (await fetch(`${primary.base}/auth/login_flow/${flow.flow_id}`, { method: 'POST', body: JSON.stringify({ client_id: CLIENT_ID, username: 'owner', password: 'correct horse battery' }) })).json();
  const second = await exchangeCode(primary.base, step.result);
  for (const r of replicas) {
    await eventually('the replica to accept both tokens', async () => (await accepted(r.base, tokens.access_token)) === 200 && (await accepted(r.base, second.access_token)) === 200);
  }
  const sockets = await Promise.all(replicas.map((r) => authedClient(r.base, second.access_token)));
  const revoked = await fetch(`${primary.base}/auth/revoke`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: second.refresh_token }).toString() });
  t.equal(revoked.status, 200);
  t.equal(await accepted(primary.base, second.access_token), 401, 'refused on the primary');
  for (const [i, r] of replicas.entries()) {
    await eventually(`replica ${i + 1} to refuse the revoked token`, async () => (await accepted(r.base, second.access_token)) === 401);
    await sockets[i].closed;
    t.pass(`replica ${i + 1}: the revoked token's WebSocket was closed`);
    t.equal(await accepted(r.base, tokens.access_token), 200, 'the other token still works');
  }
  // a token for the refresh token's id, signed by someone else
  const [head, body] = tokens.access_token.split('.');
  const forged = `${head}.${body}.${Buffer.from('x'.repeat(64)).toString('base64url')}`;
  for (const r of replicas) t.equal(await accepted(r.base, forged), 401, 'a forged signature is refused');
});

t.test('NATS killed for a while and restarted: nothing is lost, nothing doubled, on the replica', async (t) => {
  const { nats, primary, tokens, rest } = await setUp(t);
  const r = await startTestReplica(t, nats.port);
  for (let i = 0; i < 10; i++) await rest('POST', '/api/states/sensor.n', { state: `a${i}` });
  await caughtUp(primary, r);
  await nats.kill();
  for (let i = 0; i < 10; i++) await rest('POST', '/api/states/sensor.n', { state: `b${i}` });
  await eventually('the replica to see NATS gone', () => !r.replica.status().connected);
  t.equal((await statesOf(r.base, tokens.access_token))['sensor.n'] && ((await statesOf(r.base, tokens.access_token))['sensor.n'] as any).state, 'a9', 'the replica serves what it has meanwhile');
  await nats.restart();
  await caughtUp(primary, r);
  t.same(await statesOf(r.base, tokens.access_token), await statesOf(primary.base, tokens.access_token));
  const mine = await recordsWhere(r.replica.log);
  const seqs = mine.map((x) => x.seq);
  t.same(seqs, [...new Set(seqs)].sort((a, b) => a - b), 'each record once, in order');
  const theirs = await recordsWhere(primary.hearth.log, (x) => !x.stream.startsWith('auth/') && x.seq >= seqs[0] && x.seq <= seqs[seqs.length - 1]);
  t.same(seqs, theirs.map((x) => x.seq), 'every exported record of the primary, through the outage');
  t.ok(r.lines.some((l) => /unreachable or refusing/.test(l)), 'the outage is logged');
  t.ok(r.lines.some((l) => /answers again/.test(l)), 'and the recovery');
});

t.test('a replica restarted on its data directory goes on from where it stopped', async (t) => {
  const { nats, primary, tokens, rest } = await setUp(t);
  const first = await startTestReplica(t, nats.port);
  for (let i = 0; i < 10; i++) await rest('POST', '/api/states/sensor.r', { state: `a${i}` });
  await caughtUp(primary, first);
  const at = first.replica.follower.applied;
  await first.replica.stop();
  for (let i = 0; i < 10; i++) await rest('POST', '/api/states/sensor.r', { state: `b${i}` });
  const again = await startTestReplica(t, nats.port, { dataDir: first.dataDir });
  t.ok(again.replica.follower.applied >= at, 'it starts where it was');
  await caughtUp(primary, again);
  t.same(await statesOf(again.base, tokens.access_token), await statesOf(primary.base, tokens.access_token));
  const seqs = (await recordsWhere(again.replica.log)).map((x) => x.seq);
  t.same(seqs, [...new Set(seqs)].sort((a, b) => a - b), 'no record twice');
  const history = await api(again.base, tokens.access_token)('GET', `/api/history/period/${new Date(Date.now() - 3_600_000).toISOString()}?filter_entity_id=sensor.r&minimal_response`);
  t.equal(history.json[0].length, 20, 'history from before and after the restart');
});

t.test('a new replica starts from the snapshot in the object store, not from the whole stream', async (t) => {
  const { nats, primary, tokens, rest } = await setUp(t, '      snapshot_every: 40\n');
  for (let i = 0; i < 120; i++) await rest('POST', `/api/states/sensor.s${i % 12}`, { state: `v${i}` });
  const exporter = primary.hearth.exporter!;
  await eventually('the exporter to catch up', () => exporter.acked >= primary.hearth.log.lastSeq());
  const r = await startTestReplica(t, nats.port);
  const seeded = r.replica.status().seeded_from;
  t.ok(seeded !== null && seeded > 40, `started from a snapshot (at seq ${seeded})`);
  t.ok(r.lines.some((l) => /started from the snapshot at seq \d+/.test(l)));
  await caughtUp(primary, r);
  t.same(await statesOf(r.base, tokens.access_token), await statesOf(primary.base, tokens.access_token), 'the same states as the primary');
  const stored = (await streamMessages(nats.port)).length;
  const copied = (await recordsWhere(r.replica.log)).length;
  t.ok(copied < stored, `the replica copied ${copied} records, not the stream's ${stored}`);
  await eventually('the replica to accept the token', async () => (await accepted(r.base, tokens.access_token)) === 200);
});
