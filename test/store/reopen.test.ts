import t from 'tap';
import { openEventLog } from '../../store/log.ts';
import { event, stateChanged, T0 } from './fixtures/events.ts';
import { collect } from '../helpers/log-records.ts';

t.test('reopening restores lastSeq and continues the sequence', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: dir });
  const written = (await Promise.all([log.append([event('a'), event('b')]), log.append([stateChanged('light.a', T0, 'on')])])).flat();
  await log.close();

  const again = await openEventLog({ path: dir });
  t.equal(again.lastSeq(), 3);
  t.same(await collect(again.read()), written, 'records read back as written');
  const [next] = await again.append([event('a')]);
  t.equal(next.seq, 4);
  t.same((await collect(again.read({ stream: 'a' }))).map((r) => r.seq), [1, 4]);
  t.same((await collect(again.history({ entityId: 'light.a' }))).map((r) => r.seq), [3]);
  await again.close();
});

t.test('seqs are never reused, even after a purge emptied the log', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: dir });
  await log.append([event('a'), event('a'), event('a')]);
  t.equal(await log.purge(T0 + 1, 3), 3);
  await log.close();

  const again = await openEventLog({ path: dir, commit: 'fast' });
  t.teardown(() => again.close());
  t.equal(again.lastSeq(), 3);
  const [next] = await again.append([event('a')]);
  t.equal(next.seq, 4);
});

t.test('a log open in one place cannot be opened again', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: dir });
  t.teardown(() => log.close());
  await t.rejects(openEventLog({ path: dir }), { code: 'HEARTH_LOG_OPEN_FAILED', message: /lock/i });
});

t.test('an unknown commit mode is refused', async (t) => {
  await t.rejects(openEventLog({ path: t.testdir(), commit: 'eventually' as never }), {
    code: 'HEARTH_INVALID_OPTIONS',
  });
});
