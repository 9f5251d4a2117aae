// history/history_during_period and history/stream on a real Hearth: compressed rows, the
// original's refusals, permissions, and a stream's history part followed by live changes.
import t from 'tap';
import { historyHearth, ask, freshId, iso, secs, H, T0 } from './fixture.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';

const TEMP = { unit: '°C' };
const TEMP_FLAT = { unit: '°C', trend: 'flat' };
const TEMP_UP = { unit: '°C', trend: 'up' };
const DAY = { start_time: iso(0) };

/** Every message of subscription `id` that arrives within `ms`. */
async function eventsWithin(c: RawClient, id: number, ms: number): Promise<any[]> {
  const out: any[] = [];
  const until = Date.now() + ms;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) return out;
    try {
      const m = await c.next(left);
      if (m.id === id) out.push(m);
    } catch {
      return out;
    }
  }
}

t.test('history over the WebSocket', async (t) => {
  const h = await historyHearth(t);
  const owner = await authedClient(h.base, h.ownerToken);
  t.teardown(() => owner.ws.close());
  const during = async (msg: Record<string, unknown>, c = owner) => ask(c, { type: 'history/history_during_period', ...msg });

  t.test('history_during_period: compressed rows by entity id', async (t) => {
    const r = await during({ ...DAY, entity_ids: ['sensor.temp', 'light.kitchen', 'sensor.nothing'] });
    t.equal(r.success, true);
    t.same(r.result, {
      'sensor.temp': [
        { s: '20', a: TEMP, lu: secs(1) },
        { s: '21', a: TEMP, lu: secs(2) },
        { s: '22', a: TEMP_UP, lu: secs(4) },
      ],
      'light.kitchen': [
        { s: 'on', a: {}, lu: secs(1.5) },
        { s: 'off', a: {}, lu: secs(2.5) },
      ],
    });
    t.same(Object.keys(r.result), ['sensor.temp', 'light.kitchen'], 'in the order asked');
  });

  t.test('significant_changes_only false: attribute changes, with lc where it differs', async (t) => {
    const r = await during({ ...DAY, entity_ids: ['sensor.temp'], significant_changes_only: false });
    t.same(r.result['sensor.temp'], [
      { s: '20', a: TEMP, lu: secs(1) },
      { s: '21', a: TEMP, lu: secs(2) },
      { s: '21', a: TEMP_FLAT, lu: secs(3), lc: secs(2) },
      { s: '22', a: TEMP_UP, lu: secs(4) },
    ]);
  });

  t.test('minimal_response and no_attributes', async (t) => {
    const minimal = await during({ ...DAY, entity_ids: ['sensor.temp'], minimal_response: true });
    t.same(minimal.result['sensor.temp'], [{ s: '20', a: TEMP, lu: secs(1) }, { s: '21', lu: secs(2) }, { s: '22', lu: secs(4) }]);
    const bare = await during({ ...DAY, entity_ids: ['sensor.temp'], no_attributes: true });
    t.same(bare.result['sensor.temp'], [{ s: '20', a: {}, lu: secs(1) }, { s: '21', a: {}, lu: secs(2) }, { s: '22', a: {}, lu: secs(4) }], 'full rows keep an empty a');
    const both = await during({ ...DAY, entity_ids: ['sensor.temp'], no_attributes: true, minimal_response: true });
    t.same(both.result['sensor.temp'], [{ s: '20', lu: secs(1) }, { s: '21', lu: secs(2) }, { s: '22', lu: secs(4) }], 'a minimal first row has no a at all');
    const climate = await during({ ...DAY, entity_ids: ['climate.hall'], minimal_response: true });
    t.same(climate.result['climate.hall'], [{ s: 'heat', a: { t: 20 }, lu: secs(1) }, { s: 'heat', a: { t: 21 }, lu: secs(2) }]);
  });

  t.test('the start state and its absence', async (t) => {
    const r = await during({ start_time: iso(2.5), end_time: iso(3.5), entity_ids: ['sensor.temp'] });
    t.same(r.result, { 'sensor.temp': [{ s: '21', a: TEMP, lu: secs(2.5) }] }, 'the state at the start, timed at it, without lc');
    const skipped = await during({ start_time: iso(2.5), end_time: iso(3.5), entity_ids: ['sensor.temp'], include_start_time_state: false });
    t.same(skipped.result, {});
    const open = await during({ start_time: iso(3.5), entity_ids: ['sensor.temp'] });
    t.same(open.result['sensor.temp'].map((r: any) => r.s), ['21', '22'], 'no end_time: everything after the start');
  });

  t.test('refusals', async (t) => {
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ start_time: 'x', entity_ids: ['sensor.temp'] }, 'invalid_start_time', 'Invalid start_time'],
      [{ ...DAY, end_time: 'x', entity_ids: ['sensor.temp'] }, 'invalid_end_time', 'Invalid end_time'],
      [{ ...DAY, entity_ids: ['sensor.temp', 'li-ght.cow'] }, 'invalid_entity_ids', 'Invalid entity_ids'],
      [{ ...DAY, entity_ids: [] }, 'invalid_format', 'entity_ids must be provided'],
    ];
    for (const [msg, code, message] of cases) {
      const r = await during(msg);
      t.same([r.success, r.error], [false, { code, message }], JSON.stringify(msg));
    }
    const missing = await during({ ...DAY });
    t.same([missing.success, missing.error.code], [false, 'invalid_format'], 'entity_ids is required');
    const extra = await during({ ...DAY, entity_ids: ['sensor.temp'], filter: 1 });
    t.equal(extra.error.code, 'invalid_format', 'no extra keys');
    const future = await during({ start_time: iso(30), entity_ids: ['li-ght.cow'] });
    t.same([future.success, future.result], [true, {}], 'a start in the future: an empty answer, before the ids are looked at');
  });

  t.test('a user gets only what it may read', async (t) => {
    const reader = await authedClient(h.base, h.readerToken);
    const r = await during({ ...DAY, entity_ids: ['light.kitchen', 'sensor.temp'] }, reader);
    t.same(Object.keys(r.result), ['sensor.temp']);
    const none = await during({ ...DAY, entity_ids: ['light.kitchen'] }, reader);
    t.same(none.result, {});
    reader.ws.close();
  });

  t.test('history/stream of the past: the result, then one event with the rows and their span', async (t) => {
    const id = freshId();
    owner.send({ id, type: 'history/stream', start_time: iso(0), end_time: iso(3), entity_ids: ['sensor.temp', 'light.kitchen'] });
    const [result, event] = [await owner.next(), await owner.next()];
    t.same(result, { id, type: 'result', success: true, result: null });
    t.same(event, {
      id,
      type: 'event',
      event: {
        states: { 'sensor.temp': [{ s: '20', a: TEMP, lu: secs(1) }, { s: '21', a: TEMP, lu: secs(2) }], 'light.kitchen': [{ s: 'on', a: {}, lu: secs(1.5) }, { s: 'off', a: {}, lu: secs(2.5) }] },
        start_time: secs(0),
        end_time: secs(2.5),
      },
    }, 'the span ends at the last row');
    const emptyId = freshId();
    owner.send({ id: emptyId, type: 'history/stream', start_time: iso(10), end_time: iso(11), entity_ids: ['sensor.temp'], include_start_time_state: false });
    await owner.until((m) => m.id === emptyId && m.type === 'result');
    const empty = await owner.until((m) => m.id === emptyId);
    t.same(empty.event, { states: {}, start_time: secs(10), end_time: secs(11) }, 'nothing in the window: the span asked');
    t.same((await ask(owner, { type: 'unsubscribe_events', subscription: id })).success, true, 'a finished stream is still a subscription until unsubscribed');
  });

  t.test('history/stream refusals', async (t) => {
    const stream = (msg: Record<string, unknown>) => ask(owner, { type: 'history/stream', ...msg });
    t.same((await stream({ start_time: iso(27), entity_ids: ['sensor.temp'] })).error, { code: 'invalid_start_time', message: 'Invalid start_time' }, 'a start in the future');
    t.same((await stream({ start_time: 'x', entity_ids: ['sensor.temp'] })).error.code, 'invalid_start_time');
    t.same((await stream({ start_time: iso(2), end_time: iso(1), entity_ids: ['sensor.temp'] })).error, { code: 'invalid_end_time', message: 'Invalid end_time' }, 'an end before the start');
    t.same((await stream({ start_time: iso(2), end_time: 'x', entity_ids: ['sensor.temp'] })).error.code, 'invalid_end_time');
    t.same((await stream({ start_time: iso(2), entity_ids: ['sensor.t!'] })).error, { code: 'invalid_entity_ids', message: 'Invalid entity_ids' });
  });

  t.test('history/stream live: the history, then each change as it is committed, until unsubscribed', async (t) => {
    const id = freshId();
    owner.send({ id, type: 'history/stream', start_time: iso(3.5), entity_ids: ['sensor.temp', 'climate.hall'] });
    t.same(await owner.next(), { id, type: 'result', success: true, result: null });
    const first = await owner.next();
    t.same(first.event, {
      states: { 'sensor.temp': [{ s: '21', a: TEMP_FLAT, lu: secs(3.5) }, { s: '22', a: TEMP_UP, lu: secs(4) }], 'climate.hall': [{ s: 'heat', a: { t: 21 }, lu: secs(3.5) }] },
      start_time: secs(3.5),
      end_time: secs(4),
    });

    // a burst: two changes, an attribute-only change (not significant), a significant domain's attribute change, another entity
    await h.post(27, 'sensor.temp', '23', TEMP_UP);
    await h.post(27.1, 'sensor.temp', '23', { ...TEMP_UP, extra: 1 });
    await h.post(27.2, 'climate.hall', 'heat', { t: 22 });
    await h.post(27.3, 'light.kitchen', 'on');
    await h.post(27.4, 'sensor.temp', '24', TEMP_UP);
    const live = await owner.until((m) => m.id === id);
    t.same(live, {
      id,
      type: 'event',
      event: {
        states: {
          'sensor.temp': [{ s: '23', a: TEMP_UP, lu: secs(27) }, { s: '24', a: TEMP_UP, lu: secs(27.4) }],
          'climate.hall': [{ s: 'heat', a: { t: 22 }, lu: secs(27.2), lc: secs(1) }],
        },
      },
    }, 'one message for the burst; the attribute-only change and other entities are not in it');

    t.same((await ask(owner, { type: 'unsubscribe_events', subscription: id })).success, true);
    await h.post(28, 'sensor.temp', '25');
    t.same(await eventsWithin(owner, id, 600), [], 'nothing after unsubscribing');
  });

  t.test('history/stream live with every change, and without attributes', async (t) => {
    const id = freshId();
    h.clock.set(T0 + 28.6 * H);
    owner.send({ id, type: 'history/stream', start_time: iso(28.5), entity_ids: ['sensor.temp'], significant_changes_only: false, no_attributes: true, include_start_time_state: false });
    await owner.until((m) => m.id === id && m.type === 'result');
    const first = await owner.until((m) => m.id === id);
    t.same(first.event.states, {}, 'nothing recorded since the start');
    await h.post(29, 'sensor.temp', '25', { unit: '°C', more: true });
    const live = await owner.until((m) => m.id === id);
    t.same(live.event.states, { 'sensor.temp': [{ s: '25', lu: secs(29), lc: secs(28) }] }, 'an attribute-only change, no a');
    await ask(owner, { type: 'unsubscribe_events', subscription: id });
  });

  t.test('history/stream ends at its end_time', async (t) => {
    const id = freshId();
    h.clock.set(T0 + 30 * H);
    // the clock stands still in this test: the end is 300 ms of real time ahead
    owner.send({ id, type: 'history/stream', start_time: iso(29.5), end_time: new Date(T0 + 30 * H + 300).toISOString(), entity_ids: ['sensor.temp'] });
    await owner.until((m) => m.id === id && m.type === 'result');
    await owner.until((m) => m.id === id);
    await new Promise((r) => setTimeout(r, 500));
    await h.post(30, 'sensor.temp', '26');
    t.same(await eventsWithin(owner, id, 600), [], 'no change after the end');
  });

  t.test('history/stream follows the user\'s permissions', async (t) => {
    const reader = await authedClient(h.base, h.readerToken);
    const id = freshId();
    reader.send({ id, type: 'history/stream', start_time: iso(29.5), entity_ids: ['light.kitchen', 'sensor.temp'] });
    await reader.until((m) => m.id === id && m.type === 'result');
    const first = await reader.until((m) => m.id === id);
    t.same(Object.keys(first.event.states), ['sensor.temp']);
    await h.post(31, 'light.kitchen', 'off');
    await h.post(31.1, 'sensor.temp', '27');
    const live = await reader.until((m) => m.id === id);
    t.same(Object.keys(live.event.states), ['sensor.temp'], 'the light it may not read is never sent');
    reader.ws.close();
  });
});
