import t from 'tap';
import { openEventLog } from '../../store/log.ts';
import type { Snapshot } from '../../store/types.ts';
import { T0 } from './fixtures/events.ts';

t.test('snapshots round trip, the latest per name wins, and survive a reopen', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: dir });
  t.equal(await log.loadSnapshot('entities'), undefined, 'none saved yet');

  const first: Snapshot = { seq: 10, version: 1, time: T0, data: { 'light.kitchen': { state: 'on' } } };
  const second: Snapshot<{ states: Record<string, string> }> = {
    seq: 42,
    version: 2,
    time: T0 + 0.5,
    data: { states: { 'light.kitchen': 'off', 'sensor.ü': 'ünïcode' } },
  };
  await log.saveSnapshot('entities', first);
  await log.saveSnapshot('auth', { seq: 3, version: 1, time: T0, data: [1, 2, 3] });
  t.same(await log.loadSnapshot('entities'), first);
  await log.saveSnapshot('entities', second);
  t.same(await log.loadSnapshot('entities'), second, 'the latest one');
  await log.close();

  const again = await openEventLog({ path: dir });
  t.teardown(() => again.close());
  const loaded = await again.loadSnapshot<{ states: Record<string, string> }>('entities');
  t.same(loaded, second);
  t.equal(loaded?.data.states['sensor.ü'], 'ünïcode');
  t.same(await again.loadSnapshot('auth'), { seq: 3, version: 1, time: T0, data: [1, 2, 3] });
  t.equal(again.lastSeq(), 0, 'snapshots are not records');
  await t.rejects(again.saveSnapshot('', first), { code: 'HEARTH_INVALID_OPTIONS' });
});
