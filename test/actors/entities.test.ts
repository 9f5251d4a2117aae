import t from 'tap';
import { buildCore, recordsAfter, expectFixture, fixtureRecords } from '../helpers/scenario.ts';
import { EntityActors } from '../../actors/entities/registry.ts';
import { openEventLog } from '../../store/log.ts';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { manualClock } from '../../actors/clock.ts';
import { replayArea } from '../../actors/restore.ts';
import { HelperActors } from '../../actors/entities/helpers.ts';
import { helperDomains } from '../../actors/entities/domains/index.ts';
import { refusingLog } from '../helpers/refusing-log.ts';
import { stateDict, stateJson } from '../../actors/entities/state.ts';

const entityRecords = (r: { stream: string }) => r.stream.startsWith('entity/');

t.test('the original state rules, as recorded events', async (t) => {
  const core = await buildCore([]);
  const start = core.log.lastSeq();
  const w = (state: string, attributes: Record<string, unknown> = {}, force_update = false) =>
    core.entities.write('sensor.temp', { state, attributes, force_update }, core.context('u1'));
  await w('20', { unit: 'C' }); // created: state_changed with old_state null
  await w('20', { unit: 'C' }); // identical: state_reported only
  await w('20', { unit: 'F' }); // attributes only: last_changed kept
  await w('21', { unit: 'F' }); // new state
  await w('21', { unit: 'F' }, true); // force_update: state_changed with the same state
  await core.entities.remove('sensor.temp', core.context('u1'));
  await expectFixture(t, 'entities/state-rules', await recordsAfter(core.log, start, entityRecords));
});

t.test('helper services through core.toggle, as recorded events', async (t) => {
  const core = await buildCore([], {
    input_boolean: { porch: { name: 'Porch', initial: false } },
    counter: { visitors: { initial: 3, step: 2 } },
  });
  const start = core.log.lastSeq();
  await core.services.call({ domain: 'core', service: 'toggle', data: { entity_id: ['input_boolean.porch'] }, context: core.context('u1'), returnResponse: false });
  await core.services.call({ domain: 'counter', service: 'increment', data: {}, target: { entity_id: ['counter.visitors'] }, context: core.context('u1'), returnResponse: false });
  const result = await core.services.call({ domain: 'input_boolean', service: 'turn_off', data: { entity_id: 'input_boolean.porch' }, context: core.context('u1'), returnResponse: false });
  t.same(result.changedStates.map((s) => [s.entity_id, s.state]), [['input_boolean.porch', 'off']], 'changed states are matched by context');
  await expectFixture(t, 'entities/helper-services', await recordsAfter(core.log, start));
});

t.test('a refused command writes no state', async (t) => {
  const core = await buildCore([], { input_number: { level: { min: 0, max: 10, initial: 5 } } });
  const start = core.log.lastSeq();
  await t.rejects(
    core.services.call({ domain: 'input_number', service: 'set_value', data: { entity_id: 'input_number.level', value: 99 }, context: core.context(), returnResponse: false }),
  );
  const after = await recordsAfter(core.log, start, entityRecords);
  t.same(after, [], 'nothing appended for the entity');
  t.equal(core.entities.get('input_number.level')!.state, '5.0');
});

t.test('restoring from the recorded log gives the same states', async (t) => {
  const given = await fixtureRecords('entities/helper-services');
  const dir = await mkdtemp(join(tmpdir(), 'hearth-restore-'));
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  await log.append(given.map(({ seq, ...rest }) => rest));
  const entities = new EntityActors({ log, clock: manualClock(0) });
  for await (const r of log.read()) if (entities.area.owns(r)) entities.area.evolve(r);
  const porch = entities.get('input_boolean.porch')!;
  t.equal(porch.state, 'off');
  t.equal(entities.get('counter.visitors')!.state, '5');
  const lastPorch = given.filter((r) => r.stream === 'entity/input_boolean.porch' && r.type === 'state_changed').pop()!;
  t.same(porch, lastPorch.data.new_state, 'the state equals the last recorded new_state');
  // a snapshot restores the same thing
  const again = new EntityActors({ log, clock: manualClock(0) });
  again.area.restore(JSON.parse(JSON.stringify(entities.area.snapshot())));
  t.same([...again.states()], [...entities.states()]);
  await log.close();
});

t.test('a restore from each stream\'s last record equals a full replay', async (t) => {
  const core = await buildCore([]);
  const ctx = () => core.context('u1');
  for (let i = 0; i < 5; i++) await core.entities.write('sensor.a', { state: String(i), attributes: {}, force_update: false }, ctx());
  await core.entities.write('sensor.b', { state: 'x', attributes: { k: 1 }, force_update: false }, ctx());
  await core.entities.write('sensor.b', { state: 'x', attributes: { k: 1 }, force_update: false }, ctx()); // ends with a report
  await core.entities.write('sensor.gone', { state: 'on', attributes: {}, force_update: false }, ctx());
  await core.entities.remove('sensor.gone', ctx());
  const full = new EntityActors({ log: core.log, clock: manualClock(0) });
  for await (const r of core.log.read()) if (full.area.owns(r)) full.area.evolve(r);
  const latest = new EntityActors({ log: core.log, clock: manualClock(0) });
  const read = await replayArea(core.log, latest.area);
  t.equal(read, 3, 'one record per entity stream');
  t.same(new Map([...latest.states()].map((s) => [s.entity_id, s])), new Map([...full.states()].map((s) => [s.entity_id, s])));
  t.notOk(latest.has('sensor.gone'));
  t.equal(latest.get('sensor.b')!.last_reported > latest.get('sensor.b')!.last_updated, true, 'the report is kept');
});

t.test('a write the log refuses leaves the entity as it was committed', async (t) => {
  const { log, refuse } = await refusingLog(t);
  const entities = new EntityActors({ log, clock: manualClock(1_000) });
  const ctx = { id: '01J00000000000000000000000', parent_id: null, user_id: null };
  await entities.write('sensor.a', { state: '1', attributes: {}, force_update: false }, ctx);
  refuse(true);
  await t.rejects(entities.write('sensor.a', { state: '2', attributes: {}, force_update: false }, ctx), /disk full/);
  await t.rejects(entities.write('sensor.new', { state: '1', attributes: {}, force_update: false }, ctx), /disk full/);
  t.equal(entities.get('sensor.a')!.state, '1', 'readers still see the committed state');
  t.notOk(entities.has('sensor.new'), 'an entity whose creation failed does not exist');
  refuse(false);
  const again = await entities.write('sensor.a', { state: '1', attributes: {}, force_update: false }, ctx);
  t.equal(again.changed, false, 'the same state as committed is a report, not a change: the refused write left no trace');
  const created = await entities.write('sensor.new', { state: '1', attributes: {}, force_update: false }, ctx);
  t.equal(created.created, true, 'creating it again creates it');
});

t.test("a helper whose state the log refuses goes back to what was committed", async (t) => {
  const { log, refuse } = await refusingLog(t);
  const entities = new EntityActors({ log, clock: manualClock(1_000) });
  const counter = new HelperActors(helperDomains.find((d) => d.domain === 'counter')!, entities, manualClock(1_000), () => {});
  const ctx = { id: '01J00000000000000000000000', parent_id: null, user_id: null };
  await counter.configure({ visitors: { initial: 3, step: 2 } }, ctx);
  refuse(true);
  await t.rejects(counter.command(['counter.visitors'], { type: 'increment' }, ctx), /disk full/);
  t.equal(entities.get('counter.visitors')!.state, '3');
  refuse(false);
  await counter.command(['counter.visitors'], { type: 'increment' }, ctx);
  t.equal(entities.get('counter.visitors')!.state, '5', 'one step from the committed value, not two');
});

t.test('a reader of the log gets each entity record as it was committed', async (t) => {
  const core = await buildCore([]);
  const start = core.log.lastSeq();
  const live: unknown[] = [];
  core.log.onCommit((records) => live.push(...records.filter(entityRecords)));
  const attributes = { friendly_name: 'Salle de bain « 2 »', unit: '°C', nested: { list: [1, 2.5, null, 'x"y'] }, emoji: '🌡' };
  const w = (state: string, attrs = attributes) => core.entities.write('sensor.bath', { state, attributes: attrs, force_update: false }, core.context('u1'));
  const created = await w('20.5'); // created
  await w('20.5'); // reported
  await w('21'); // changed
  await core.entities.remove('sensor.bath', core.context('u1'));
  t.same(await recordsAfter(core.log, start, entityRecords), live, 'what a reader of the log gets is what subscribers got');
  t.same(JSON.parse(stateJson(created.state)), stateDict(created.state), 'the wire JSON is the state’s dict');
});

t.test('past the live limit with every live entity busy, the one woken still decides its write', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-live-'));
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  const clock = manualClock(Date.UTC(2026, 0, 1), 1000);
  const entities = new EntityActors({ log, clock, liveActors: 4 });
  const ctx = { id: 'c', parent_id: null, user_id: null };
  const ids = Array.from({ length: 10 }, (_, i) => `sensor.busy_${i}`);
  // ten writes in one turn: none committed yet when the fifth wakes an entity past the limit
  await Promise.all(ids.map((id) => entities.write(id, { state: '0', attributes: {}, force_update: false }, ctx)));
  await Promise.all(ids.map((id) => entities.write(id, { state: '1', attributes: { unit: 'W' }, force_update: false }, ctx)));
  t.same(ids.map((id) => entities.get(id)?.state), ids.map(() => '1'), 'every entity has its last state');
  t.ok(ids.every((id) => entities.get(id)?.context?.id === 'c' && entities.get(id)?.attributes.unit === 'W'), 'whole states, with their context');
});

t.test('entities put to sleep past the live limit wake from their committed state', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-live-'));
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  const clock = manualClock(Date.UTC(2026, 0, 1), 1000);
  const entities = new EntityActors({ log, clock, liveActors: 2 });
  const ctx = { id: 'c', parent_id: null, user_id: null };
  const w = (id: string, state: string, attributes: Record<string, unknown> = {}) => entities.write(id, { state, attributes, force_update: false }, ctx);
  const first = await w('sensor.a', '1', { unit: 'W' });
  for (const id of ['sensor.b', 'sensor.c', 'sensor.d']) await w(id, 'x'); // sensor.a's actor is put to sleep
  const again = await w('sensor.a', '1', { unit: 'W' });
  t.same([again.changed, again.state.last_changed, again.state.last_updated], [false, first.state.last_changed, first.state.last_updated], 'the same state after waking is a report');
  const moved = await w('sensor.a', '1', { unit: 'kW' });
  t.same([moved.changed, moved.state.last_changed], [true, first.state.last_changed], 'attributes alone keep last_changed after waking');
  await w('sensor.e', 'y'); // and sensor.b sleeps again
  t.ok(await entities.remove('sensor.b', ctx), 'a sleeping entity can be removed');
  t.notOk(entities.has('sensor.b'));
  const created = await w('sensor.b', 'back');
  t.ok(created.created, 'and created anew');
  const records: unknown[] = [];
  for await (const r of log.read()) if (r.data.entity_id === 'sensor.a') records.push([r.type, r.data.old_state?.attributes ?? null, r.data.new_state.attributes]);
  t.same(records, [
    ['state_changed', null, { unit: 'W' }],
    ['state_reported', null, { unit: 'W' }],
    ['state_changed', { unit: 'W' }, { unit: 'kW' }],
  ], 'the log has each fact once, the old state rebuilt across the report');
});
