// GET /api/history/period[/{timestamp}] on a real Hearth: every parameter that changes the
// answer, the original's refusals, permissions, and the history surviving a restart.
import t from 'tap';
import { historyHearth, iso, H, T0 } from './fixture.ts';
import { startTestHearth } from '../../helpers/hearth.ts';

const full = (entity_id: string, state: string, attributes: Record<string, unknown>, changed: number, updated = changed) => ({
  entity_id,
  state,
  attributes,
  last_changed: iso(changed),
  last_updated: iso(updated),
});
const minimal = (state: string, at: number) => ({ state, last_changed: iso(at) });
const TEMP = { unit: '°C' };
const TEMP_FLAT = { unit: '°C', trend: 'flat' };
const TEMP_UP = { unit: '°C', trend: 'up' };
// the window of T0's day, so every row above is in it
const DAY = `/api/history/period/${encodeURIComponent(iso(0))}`;

t.test('history period', async (t) => {
  const h = await historyHearth(t);
  const get = async (path: string) => {
    const r = await h.owner('GET', path);
    return { status: r.status, json: r.json, text: r.text };
  };

  t.test('refusals, in the original\'s order and words', async (t) => {
    const cases: Array<[string, string]> = [
      ['/api/history/period', 'filter_entity_id is missing'],
      ['/api/history/period?filter_entity_id=', 'filter_entity_id is missing'],
      ['/api/history/period/not-a-time?filter_entity_id=sensor.temp', 'Invalid datetime'],
      ['/api/history/period/2026-02-30T00:00:00Z?filter_entity_id=sensor.temp', 'Invalid datetime'],
      ['/api/history/period/not-a-time', 'Invalid datetime'],
      ['/api/history/period?filter_entity_id=light.kit!chen', 'Invalid filter_entity_id'],
      ['/api/history/period?filter_entity_id=sensor.temp,li-ght.cow', 'Invalid filter_entity_id'],
      ['/api/history/period?filter_entity_id=sensor.temp,', 'Invalid filter_entity_id'],
      ['/api/history/period?filter_entity_id=light.kitchenlight.cow', 'Invalid filter_entity_id'],
      ['/api/history/period?filter_entity_id=sensor.temp&end_time=yesterday', 'Invalid end_time'],
      // an unencoded + in the query is a space: the original reads the same text and refuses it too
      [`/api/history/period?filter_entity_id=sensor.temp&end_time=2026-01-01T00:00:00+00:00`, 'Invalid end_time'],
    ];
    for (const [path, message] of cases) {
      const r = await get(path);
      t.same([r.status, r.json], [400, { message }], path);
    }
  });

  t.test('a start in the future is an empty list, whatever else is asked', async (t) => {
    const r = await get(`/api/history/period/${encodeURIComponent(iso(27))}?filter_entity_id=sensor.temp&end_time=nonsense`);
    t.same([r.status, r.json], [200, []]);
  });

  t.test('a day from its start: state changes only, full state dicts', async (t) => {
    const r = await get(`${DAY}?filter_entity_id=sensor.temp`);
    t.equal(r.status, 200);
    t.same(r.json, [[full('sensor.temp', '20', TEMP, 1), full('sensor.temp', '21', TEMP, 2), full('sensor.temp', '22', TEMP_UP, 4)]], 'the attribute-only change at 3h is not significant');
    t.same(Object.keys(r.json[0][0]), ['entity_id', 'state', 'attributes', 'last_changed', 'last_updated'], 'the original\'s keys, in its order: no context, no last_reported');
  });

  t.test('the default window: from a day ago, with the state at its start first', async (t) => {
    h.clock.set(T0 + 26.5 * H);
    const r = await get('/api/history/period?filter_entity_id=sensor.temp');
    t.same(r.json, [[full('sensor.temp', '21', TEMP, 2.5), full('sensor.temp', '22', TEMP_UP, 4)]], 'the state recorded last before 2.5h comes first, timed at the start');
    h.clock.set(T0 + 26 * H);
  });

  t.test('the state at the start is the last one recorded before it, whatever kind', async (t) => {
    const r = await get(`/api/history/period/${encodeURIComponent(iso(3.5))}?filter_entity_id=sensor.temp`);
    t.same(r.json, [[full('sensor.temp', '21', TEMP_FLAT, 3.5), full('sensor.temp', '22', TEMP_UP, 4)]], 'the attribute-only change at 3h sets the start state');
    const skipped = await get(`/api/history/period/${encodeURIComponent(iso(3.5))}?filter_entity_id=sensor.temp&skip_initial_state`);
    t.same(skipped.json, [[full('sensor.temp', '22', TEMP_UP, 4)]], 'skip_initial_state');
    const nothing = await get(`/api/history/period/${encodeURIComponent(iso(4.5))}?filter_entity_id=sensor.temp&skip_initial_state`);
    t.same(nothing.json, [], 'nothing after the start and no start state: an empty list');
  });

  t.test('end_time: exclusive, and an end before the start leaves the start state alone', async (t) => {
    const r = await get(`${DAY}?filter_entity_id=sensor.temp&end_time=${encodeURIComponent(iso(2))}`);
    t.same(r.json, [[full('sensor.temp', '20', TEMP, 1)]], 'the change exactly at the end is not in it');
    const back = await get(`/api/history/period/${encodeURIComponent(iso(3.5))}?filter_entity_id=sensor.temp&end_time=${encodeURIComponent(iso(1))}`);
    t.same(back.json, [[full('sensor.temp', '21', TEMP_FLAT, 3.5)]]);
    const noEnd = await get(`${DAY}?filter_entity_id=sensor.temp&end_time=`);
    t.equal(noEnd.json[0].length, 3, 'an empty end_time is the default end');
  });

  t.test('significant_changes_only=0 keeps attribute-only changes, with their own last_changed', async (t) => {
    const r = await get(`${DAY}?filter_entity_id=sensor.temp&significant_changes_only=0`);
    t.same(r.json, [[
      full('sensor.temp', '20', TEMP, 1),
      full('sensor.temp', '21', TEMP, 2),
      full('sensor.temp', '21', TEMP_FLAT, 2, 3),
      full('sensor.temp', '22', TEMP_UP, 4),
    ]]);
    const other = await get(`${DAY}?filter_entity_id=sensor.temp&significant_changes_only=1`);
    t.equal(other.json[0].length, 3, 'any other value than 0 keeps the default');
  });

  t.test('minimal_response: the first row whole, then state and time of each change of the state', async (t) => {
    const r = await get(`${DAY}?filter_entity_id=sensor.temp,light.kitchen&minimal_response`);
    t.same(r.json, [
      [full('sensor.temp', '20', TEMP, 1), minimal('21', 2), minimal('22', 4)],
      [full('light.kitchen', 'on', {}, 1.5), minimal('off', 2.5)],
    ]);
    const all = await get(`${DAY}?filter_entity_id=sensor.temp&minimal_response&significant_changes_only=0`);
    t.same(all.json, [[full('sensor.temp', '20', TEMP, 1), minimal('21', 2), minimal('22', 4)]], 'a row with the same state is dropped');
    const climate = await get(`${DAY}?filter_entity_id=climate.hall&minimal_response`);
    t.same(climate.json, [[full('climate.hall', 'heat', { t: 20 }, 1), full('climate.hall', 'heat', { t: 21 }, 2)]], 'climate needs its attributes: full rows, and its attribute changes are significant');
  });

  t.test('no_attributes: attributes are an empty object', async (t) => {
    const r = await get(`${DAY}?filter_entity_id=sensor.temp&no_attributes`);
    t.same(r.json, [[full('sensor.temp', '20', {}, 1), full('sensor.temp', '21', {}, 2), full('sensor.temp', '22', {}, 4)]]);
    const both = await get(`${DAY}?filter_entity_id=sensor.temp&no_attributes&minimal_response`);
    t.same(both.json, [[full('sensor.temp', '20', {}, 1), minimal('21', 2), minimal('22', 4)]]);
  });

  t.test('several entities: in the order asked, once each, those without rows left out', async (t) => {
    const r = await get(`${DAY}?filter_entity_id=LIGHT.Kitchen,sensor.nothing,climate.hall,sensor.temp,light.kitchen`);
    t.same(r.json.map((rows: any[]) => rows[0].entity_id), ['light.kitchen', 'climate.hall', 'sensor.temp'], 'ids are lower-cased; an id never recorded has no list');
    t.same(r.json[1].map((row: any) => [row.state, row.attributes.t]), [['heat', 20], ['heat', 21]]);
    const reversed = await get(`${DAY}?filter_entity_id=sensor.temp,light.kitchen`);
    t.same(reversed.json.map((rows: any[]) => rows[0].entity_id), ['sensor.temp', 'light.kitchen']);
  });

  t.test('a removed entity: its removal is a row with an empty state, and it can be a start state', async (t) => {
    const r = await get(`${DAY}?filter_entity_id=sensor.gone`);
    t.same(r.json, [[full('sensor.gone', '1', {}, 1), full('sensor.gone', '', {}, 5)]]);
    const after = await get(`/api/history/period/${encodeURIComponent(iso(6))}?filter_entity_id=sensor.gone`);
    t.same(after.json, [[full('sensor.gone', '', {}, 6)]]);
  });

  t.test('times: offsets, Z, a naive time in the configured zone, a date alone', async (t) => {
    const want = [[full('sensor.temp', '21', TEMP, 2.5), full('sensor.temp', '22', TEMP_UP, 4)]];
    for (const start of ['2026-01-01T02:30:00+00:00', '2026-01-01T03:30:00+01:00', '2026-01-01T02:30:00Z', '2026-01-01 02:30:00.000000Z', '20260101T023000Z', '2026-01-01T03:30:00', '2026-1-1T3:30']) {
      const r = await get(`/api/history/period/${encodeURIComponent(start)}?filter_entity_id=sensor.temp`);
      t.same(r.json, want, start);
    }
    const date = await get('/api/history/period/2026-01-01?filter_entity_id=sensor.temp');
    t.same(date.json, [[full('sensor.temp', '20', TEMP, 1), full('sensor.temp', '21', TEMP, 2), full('sensor.temp', '22', TEMP_UP, 4)]], 'midnight in Amsterdam is 23:00 UTC the day before');
    const end = await get(`${DAY}?filter_entity_id=sensor.temp&end_time=${encodeURIComponent('2026-01-01T03:00:00+01:00')}`);
    t.same(end.json, [[full('sensor.temp', '20', TEMP, 1)]], 'end_time with an offset');
  });

  t.test('a user sees the history of what it may read only; no admin needed', async (t) => {
    const r = await h.reader('GET', `${DAY}?filter_entity_id=light.kitchen,sensor.temp,climate.hall`);
    t.equal(r.status, 200);
    t.same(r.json.map((rows: any[]) => rows[0].entity_id), ['sensor.temp']);
    const none = await h.reader('GET', `${DAY}?filter_entity_id=light.kitchen`);
    t.same([none.status, none.json], [200, []], 'nothing readable: an empty list');
    const bad = await h.reader('GET', `${DAY}?filter_entity_id=light.kit!chen`);
    t.same([bad.status, bad.json], [400, { message: 'Invalid filter_entity_id' }]);
    const anonymous = await fetch(`${h.base}${DAY}?filter_entity_id=sensor.temp`);
    t.equal(anonymous.status, 401);
  });

  t.test('a restart keeps the history', async (t) => {
    const before = await get(`${DAY}?filter_entity_id=sensor.temp,light.kitchen,sensor.gone&significant_changes_only=0`);
    await h.hearth.stop();
    const again = await startTestHearth(t, { dataDir: h.dataDir, clock: h.clock });
    const r = await fetch(`${again.base}${DAY}?filter_entity_id=sensor.temp,light.kitchen,sensor.gone&significant_changes_only=0`, {
      headers: { Authorization: `Bearer ${h.ownerToken}` },
    });
    t.same(await r.json(), before.json);
    t.equal(before.json.length, 3);
  });
});
