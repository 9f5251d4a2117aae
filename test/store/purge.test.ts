import t from 'tap';
import { openEventLog } from '../../store/log.ts';
import type { EventLog, EventRecord } from '../../store/types.ts';
import { interceptBatches } from './fixtures/batches.ts';
import { event, stateChanged, T0 } from './fixtures/events.ts';
import { collect as collectAll } from '../helpers/log-records.ts';

const collect = async (iterable: AsyncIterable<EventRecord>) => (await collectAll(iterable)).map((r) => r.seq);

const HOUR = 3600_000;

/** seq n: time T0 + n hours; odd seqs are state changes of light.a, even ones service calls. */
async function fill(log: EventLog, count: number): Promise<void> {
  const events = Array.from({ length: count }, (_, i) => {
    const seq = log.lastSeq() + i + 1;
    return seq % 2 === 1 ? stateChanged('light.a', T0 + seq * HOUR, 'on') : event('service/light', { time: T0 + seq * HOUR });
  });
  await log.append(events);
}

t.test('purge deletes old records up to maxSeq with their index entries', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  await fill(log, 20);
  await log.saveSnapshot('entities', { seq: 8, version: 1, time: T0, data: {} });

  // older than seq 15's time, but only up to seq 8
  t.equal(await log.purge(T0 + 15 * HOUR, 8), 8);
  t.same(await collect(log.read()), Array.from({ length: 12 }, (_, i) => i + 9), 'nothing above maxSeq deleted');
  t.same(await collect(log.read({ stream: 'entity/light.a' })), [9, 11, 13, 15, 17, 19], 'stream index purged too');
  t.same(await collect(log.read({ stream: 'service/light' })), [10, 12, 14, 16, 18, 20]);
  t.same(await collect(log.history({ entityId: 'light.a' })), [9, 11, 13, 15, 17, 19], 'history index purged too');
  t.same(await collect(log.history({ entityId: 'light.a', to: T0 + 8 * HOUR })), []);
  t.ok(await log.loadSnapshot('entities'), 'snapshots untouched');

  // now the time bound is the one that binds: seq 12's time is not older than itself
  t.equal(await log.purge(T0 + 12 * HOUR, 20), 3);
  t.same(await collect(log.read()), [12, 13, 14, 15, 16, 17, 18, 19, 20]);
  t.equal(await log.purge(T0 + 12 * HOUR, 20), 0, 'a second run finds nothing');
  t.equal(log.lastSeq(), 20, 'purging never moves lastSeq');
});

t.test('purge leaves records above maxSeq even when they are older than `before`', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  // times out of seq order: the newest seqs carry the oldest times
  await log.append([
    event('a', { time: T0 + 5 * HOUR }),
    event('a', { time: T0 + 4 * HOUR }),
    stateChanged('light.a', T0 + 1 * HOUR, 'on'),
    stateChanged('light.a', T0, 'off'),
  ]);
  t.equal(await log.purge(T0 + 10 * HOUR, 2), 2);
  t.same(await collect(log.read()), [3, 4]);
  t.same(await collect(log.history({ entityId: 'light.a' })), [4, 3]);
  t.equal(await log.purge(T0 + 4.5 * HOUR, 100), 2, 'maxSeq above lastSeq is clamped, time still applies');
  t.same(await collect(log.read()), []);
});

t.test('purge works in bounded batches over many records', async (t) => {
  const log = await openEventLog({ path: t.testdir(), commit: 'fast' });
  t.teardown(() => log.close());
  for (let i = 0; i < 5; i++) await fill(log, 1000);
  const batches: number[] = [];
  const restore = interceptBatches(t, (operations) => void batches.push(operations));
  t.equal(await log.purge(T0 + 4000.5 * HOUR, 4500), 4000);
  restore();
  t.ok(batches.length >= 4, `deleted in ${batches.length} batches`);
  t.ok(Math.max(...batches) <= 3000, `at most 3000 deletes per batch (${Math.max(...batches)})`);
  t.same(await collect(log.read({ limit: 1 })), [4001]);
  t.equal((await collect(log.read({ stream: 'entity/light.a' }))).length, 500);
  t.equal((await collect(log.history({ entityId: 'light.a' }))).length, 500);
});

t.test('overlapping purges do not double count', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  await fill(log, 50);
  const counts = await Promise.all([log.purge(T0 + 100 * HOUR, 30), log.purge(T0 + 100 * HOUR, 30)]);
  t.same(counts, [30, 0]);
});

t.test('an event object changed after append() cannot leave an index entry behind', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  const change = stateChanged('light.a', T0, 'on');
  const appended = log.append([change]);
  change.data.entity_id = 'light.b';
  change.stream = 'entity/light.b';
  await appended;
  t.same(await collect(log.history({ entityId: 'light.a' })), [1], 'indexed as it was when appended');
  t.equal(await log.purge(T0 + 1, 1), 1);
  t.same(await collect(log.history({ entityId: 'light.a' })), []);
  t.same(await collect(log.read({ stream: 'entity/light.a' })), []);
});
