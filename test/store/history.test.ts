import t from 'tap';
import { openEventLog } from '../../store/log.ts';
import type { HistoryOptions } from '../../store/types.ts';
import { event, stateChanged, T0 } from './fixtures/events.ts';
import { collect } from '../helpers/log-records.ts';

t.test('history yields one entity’s state changes in time order', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  // appended out of time order (a late-reported change), with a neighbour whose id shares a
  // prefix, other event types on the same stream, and two changes in the same µs
  await log.append([
    stateChanged('light.kitchen', T0 + 3000, 'on'), // seq 1
    stateChanged('light.kitchen_2', T0 + 1500, 'on'), // seq 2
    stateChanged('light.kitchen', T0 + 1000.25, 'off'), // seq 3
    event('entity/light.kitchen', { type: 'call_service', time: T0 + 1200, data: { entity_id: 'light.kitchen' } }), // 4
  ]);
  await log.append([
    stateChanged('light.kitchen', T0 + 2000, 'on'), // seq 5
    stateChanged('light.kitchen', T0 + 2000, 'off'), // seq 6
    stateChanged('light.kitchen', T0 + 1000.5, 'on'), // seq 7
  ]);

  const cases: { name: string; options: HistoryOptions; expect: number[] }[] = [
    { name: 'all of it, by time then seq', options: { entityId: 'light.kitchen' }, expect: [3, 7, 5, 6, 1] },
    { name: 'reverse', options: { entityId: 'light.kitchen', reverse: true }, expect: [1, 6, 5, 7, 3] },
    { name: 'from (inclusive)', options: { entityId: 'light.kitchen', from: T0 + 2000 }, expect: [5, 6, 1] },
    { name: 'to (inclusive)', options: { entityId: 'light.kitchen', to: T0 + 2000 }, expect: [3, 7, 5, 6] },
    { name: 'µs precision', options: { entityId: 'light.kitchen', from: T0 + 1000.3, to: T0 + 1000.5 }, expect: [7] },
    { name: 'from and to', options: { entityId: 'light.kitchen', from: T0 + 1001, to: T0 + 2999 }, expect: [5, 6] },
    { name: 'limit', options: { entityId: 'light.kitchen', limit: 2 }, expect: [3, 7] },
    { name: 'latest one', options: { entityId: 'light.kitchen', reverse: true, limit: 1 }, expect: [1] },
    { name: 'to before from', options: { entityId: 'light.kitchen', from: T0 + 2000, to: T0 }, expect: [] },
    { name: 'the neighbour', options: { entityId: 'light.kitchen_2' }, expect: [2] },
    { name: 'unknown entity', options: { entityId: 'light.kitch' }, expect: [] },
  ];
  for (const { name, options, expect } of cases) {
    const records = await collect(log.history(options));
    t.same(records.map((r) => r.seq), expect, name);
  }
  const [first] = await collect(log.history({ entityId: 'light.kitchen', limit: 1 }));
  t.match(first, { type: 'state_changed', time: T0 + 1000.25, data: { new_state: { state: 'off' } } });
});

t.test('history needs an entity id', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  await t.rejects(collect(log.history({ entityId: '' })), { code: 'HEARTH_INVALID_OPTIONS' });
  await t.rejects(collect(log.history({ entityId: 'light.a', from: Number.NaN })), { code: 'HEARTH_INVALID_OPTIONS' });
});

t.test('history with rebuild: false leaves what a record inherits null', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  const inheriting = (time: number, state: string, old: string) => ({
    ...stateChanged('light.hall', time, state),
    data: { entity_id: 'light.hall', old_state: { entity_id: 'light.hall', state: old }, new_state: { entity_id: 'light.hall', state } },
    inherit: { field: 'old_state', from: 'new_state' },
  });
  await log.append([stateChanged('light.hall', T0, 'on')]);
  await log.append([inheriting(T0 + 1, 'off', 'on'), inheriting(T0 + 2, 'on', 'off')]);
  const rebuilt = await collect(log.history({ entityId: 'light.hall', from: T0 + 1 }));
  t.same(rebuilt.map((r) => r.data.old_state?.state), ['on', 'off'], 'by default the old state is rebuilt');
  const bare = await collect(log.history({ entityId: 'light.hall', from: T0 + 1, rebuild: false }));
  t.same(bare.map((r) => [r.data.new_state.state, r.data.old_state]), [['off', null], ['on', null]]);
});
