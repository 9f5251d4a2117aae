import t from 'tap';
import { Level } from 'level';
import { openEventLog } from '../../store/log.ts';
import type { EventLog, EventRecord, NewEvent } from '../../store/types.ts';
import { T0 } from './fixtures/events.ts';
import { collect } from '../helpers/log-records.ts';

const OLD_STATE = { field: 'old_state', from: 'new_state' };
const context = { id: 'ctx', parent_id: null, user_id: null };

/** A change of `entityId` as the entities write it: the old state only referenced. */
function change(entityId: string, time: number, old: string | null, next: string | null, type = 'state_changed'): NewEvent {
  const state = (s: string | null) => (s === null ? null : { entity_id: entityId, state: s, attributes: { unit: '°C' } });
  const e: NewEvent = { time, stream: `entity/${entityId}`, type, data: { entity_id: entityId, old_state: state(old), new_state: state(next) }, context, origin: 'LOCAL' };
  if (old !== null) e.inherit = OLD_STATE;
  return e;
}

/** seq, old state, new state of each record, as a reader gets them. */
const states = (records: EventRecord[]) => records.map((r) => [r.seq, r.data.old_state?.state ?? null, r.data.new_state?.state ?? null]);

async function filled(t: { testdir(): string }): Promise<{ log: EventLog; path: string }> {
  const path = t.testdir();
  const log = await openEventLog({ path });
  await log.append([change('sensor.a', T0, null, '1'), change('sensor.b', T0, null, 'x')]); // 1, 2
  await log.append([change('sensor.a', T0 + 1, '1', '2')]); // 3
  await log.append([change('sensor.b', T0 + 2, 'x', 'y'), change('sensor.a', T0 + 3, '2', '3')]); // 4, 5
  await log.append([change('sensor.a', T0 + 4, '3', '3', 'state_reported')]); // 6: a report is a record of the stream too
  await log.append([change('sensor.a', T0 + 5, '3', '4')]); // 7
  return { log, path };
}

t.test('an inherited old state is stored as a reference and rebuilt by every reader', async (t) => {
  const { log, path } = await filled(t);
  const live: EventRecord[] = [];
  log.onCommit((records) => live.push(...records));
  await log.append([change('sensor.a', T0 + 6, '4', '5')]); // 8
  t.same(states(live), [[8, '4', '5']], 'the committed record carries the old state as appended');
  t.notOk('inherit' in live[0], 'the reference is the log’s business, not the readers’');

  const all = [[1, null, '1'], [2, null, 'x'], [3, '1', '2'], [4, 'x', 'y'], [5, '2', '3'], [6, '3', '3'], [7, '3', '4'], [8, '4', '5']];
  t.same(states(await collect(log.read())), all, 'a read of the whole log');
  t.same(states(await collect(log.read({ gt: 4 }))), all.slice(4), 'a read starting after a stream’s first records looks the earlier ones up');
  t.same(states(await collect(log.read({ reverse: true }))), all.slice().reverse(), 'a reverse read');
  t.same(states(await collect(log.read({ stream: 'entity/sensor.a', gte: 5 }))), [[5, '2', '3'], [6, '3', '3'], [7, '3', '4'], [8, '4', '5']], 'one stream');
  t.same(states(await collect(log.history({ entityId: 'sensor.a' }))), [[1, null, '1'], [3, '1', '2'], [5, '2', '3'], [7, '3', '4'], [8, '4', '5']], 'history (the report between 5 and 7 is the state 7 replaced)');
  t.same(states(await collect(log.history({ entityId: 'sensor.a', reverse: true, limit: 2 }))), [[8, '4', '5'], [7, '3', '4']], 'history backwards');
  t.same(states(await collect(log.readStreams('entity/', { after: 4 }))), all.slice(4), 'every record of the streams after a seq');
  t.same(
    states(await collect(log.read({ gt: 4, rebuild: false }))),
    [[5, null, '3'], [6, null, '3'], [7, null, '4'], [8, null, '5']],
    'a read for the states records set (a restore) leaves the references null',
  );
  t.same(
    states(await collect(log.readStreams('entity/', { latest: true }))),
    [[4, null, 'y'], [8, null, '5']],
    'the latest record of each stream, read for its whole state, leaves the reference unresolved',
  );
  await log.close();

  // what is on the disk: the new state whole, the old one a reference
  const db = new Level<string, string>(`${path}`, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  const raw = await db.sublevel<string, string>('rec', {}).get('0000000000000008');
  await db.close();
  const stored = JSON.parse(raw!);
  t.same(stored[3], { entity_id: 'sensor.a', old_state: null, new_state: { entity_id: 'sensor.a', state: '5', attributes: { unit: '°C' } } });
  t.same(stored.slice(7), ['LOCAL', ['old_state', 'new_state']]);
});

t.test('an old state whose record was purged reads as null', async (t) => {
  const { log } = await filled(t);
  t.teardown(() => log.close());
  // records 1..5 are older than T0 + 3.5; the entities' snapshot covers them
  t.equal(await log.purge(T0 + 3.5, 5), 5);
  t.same(states(await collect(log.read())), [[6, null, '3'], [7, '3', '4']]);
  t.same(states(await collect(log.history({ entityId: 'sensor.a' }))), [[7, '3', '4']]);
});

t.test('a record that references without data to hold it is refused whole', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  const bad: NewEvent = { time: T0, stream: 'entity/x.y', type: 'state_changed', data: 'text', context, inherit: OLD_STATE };
  await t.rejects(log.append([change('x.y', T0, null, '1'), bad]), { code: 'HEARTH_INVALID_EVENT', message: /inherit needs data to be an object/ });
  t.same(await collect(log.read()), [], 'nothing of the call was written');
});

t.test('a read over more streams than it remembers still rebuilds every old state', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  // two passes over many streams: the second pass's references point back past what the first remembered
  const n = 50_010;
  const first: NewEvent[] = [];
  for (let i = 0; i < n; i++) first.push(change(`sensor.s${i}`, T0, null, 'a'));
  await log.append(first);
  await log.append([change('sensor.s0', T0 + 1, 'a', 'b'), change(`sensor.s${n - 1}`, T0 + 1, 'a', 'b')]);
  const tail = (await collect(log.read({ gt: n - 2 }))).map((r) => [r.seq, r.data.old_state?.state ?? null]);
  t.same(tail, [[n - 1, null], [n, null], [n + 1, 'a'], [n + 2, 'a']]);
  let wrong = 0;
  for await (const r of log.read()) if (r.seq > n && r.data.old_state?.state !== 'a') wrong++;
  t.equal(wrong, 0, 'a read of the whole log');
});
