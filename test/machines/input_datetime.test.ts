// Cross-checked against the original's tests/components/input_datetime/test_init.py (config
// validation, set_datetime with each kind of value, restore, the state formats and attributes).
import t from 'tap';
import { inputDatetimeDomain as domain } from '../../actors/entities/domains/input_datetime.ts';
import { TEST_ENV, givenHelper } from '../helpers/helper-domain.ts';
import type { HelperEnv } from '../../actors/entities/types.ts';

const NEW_YORK: HelperEnv = { now: Date.UTC(2026, 10, 28, 12), timeZone: 'America/New_York' };
const given = (section: unknown, restored?: string, env: HelperEnv = TEST_ENV) => givenHelper(domain, section, restored, undefined, env);
const service = domain.services.find((s) => s.service === 'set_datetime')!;
const set = (data: Record<string, unknown>, env: HelperEnv = TEST_ENV) => service.toEvent(data, env);

t.test('configuration: a date, a time or both, and an initial value they can read', async (t) => {
  const refused: Array<[unknown, string]> = [
    [{ a: {} }, "Invalid config for 'input_datetime' item 'a': Entity needs at least a date or a time"],
    [{ a: { has_date: true, has_time: true, initial: '2026-02-30 07:00' } }, "Invalid config for 'input_datetime' item 'a': Initial value '2026-02-30 07:00' can't be parsed as a datetime"],
    [{ a: { has_date: true, initial: '28.11.2026' } }, "Invalid config for 'input_datetime' item 'a': Initial value '28.11.2026' can't be parsed as a date"],
    [{ a: { has_time: true, initial: '25:00' } }, "Invalid config for 'input_datetime' item 'a': Initial value '25:00' can't be parsed as a time"],
    [{ a: { has_time: true, colour: 'red' } }, "Invalid config for 'input_datetime' item 'a', key 'colour': extra keys not allowed"],
  ];
  for (const [section, message] of refused) t.throws(() => domain.parseConfig(section), { message }, message);
});

t.test('the three state formats and their attributes, in the original order', async (t) => {
  const both = given({ alarm: { name: 'Alarm', icon: 'mdi:alarm', has_date: true, has_time: true, initial: '2026-11-28 07:30' } }, undefined, NEW_YORK).shown;
  t.same(both, {
    state: '2026-11-28 07:30:00',
    attributes: {
      has_date: true, has_time: true, editable: false, year: 2026, month: 11, day: 28, hour: 7, minute: 30, second: 0,
      timestamp: Date.UTC(2026, 10, 28, 12, 30) / 1000, icon: 'mdi:alarm', friendly_name: 'Alarm',
    },
  });
  t.same(Object.keys(both.attributes), ['has_date', 'has_time', 'editable', 'year', 'month', 'day', 'hour', 'minute', 'second', 'timestamp', 'icon', 'friendly_name']);
  const date = given({ d: { has_date: true, initial: '2026-11-28' } }, undefined, NEW_YORK).shown;
  t.same(date, { state: '2026-11-28', attributes: { has_date: true, has_time: false, editable: false, year: 2026, month: 11, day: 28, timestamp: Date.UTC(2026, 10, 28, 5) / 1000 } });
  const time = given({ d: { has_time: true, initial: '7:05' } }).shown;
  t.same(time, { state: '07:05:00', attributes: { has_date: false, has_time: true, editable: false, hour: 7, minute: 5, second: 0, timestamp: 7 * 3600 + 5 * 60 } });
  t.equal(given({ d: { has_date: true, has_time: true, initial: '2026-11-28T12:30:00+00:00' } }, undefined, NEW_YORK).shown.state, '2026-11-28 07:30:00', 'an initial with an offset is moved to the zone');
});

t.test('restore: initial first, then the last state read as the item reads it, then today at midnight', async (t) => {
  const both = { a: { has_date: true, has_time: true } };
  const table: Array<[unknown, string | undefined, string]> = [
    [both, '2025-01-02 03:04:05', '2025-01-02 03:04:05'],
    [both, 'unavailable', '2026-11-28 00:00:00'],
    [both, undefined, '2026-11-28 00:00:00'],
    [{ a: { has_date: true, has_time: true, initial: '2020-05-05 05:05:05' } }, '2025-01-02 03:04:05', '2020-05-05 05:05:05'],
    [{ a: { has_date: true } }, '2025-01-02', '2025-01-02'],
    [{ a: { has_date: true } }, '2025-01-02 03:04:05', '2026-11-28'],
    [{ a: { has_time: true } }, '03:04:05', '03:04:05'],
    [{ a: { has_time: true } }, 'not a time', '00:00:00'],
  ];
  for (const [section, restored, expected] of table) t.equal(given(section, restored).shown.state, expected, `${JSON.stringify(section)} restored ${restored}`);
});

t.test('set_datetime: date, time, datetime and timestamp, each kept as the item has them', async (t) => {
  const h = given({ a: { has_date: true, has_time: true, initial: '2026-11-28 07:30:00' } }, undefined, NEW_YORK);
  t.equal(h.when(set({ date: '2027-01-02' }, NEW_YORK)).shown.state, '2027-01-02 07:30:00');
  t.equal(h.when(set({ time: '06:15' }, NEW_YORK)).shown.state, '2027-01-02 06:15:00');
  t.equal(h.when(set({ date: '2027-03-04', time: '05:04:20' }, NEW_YORK)).shown.state, '2027-03-04 05:04:20');
  t.equal(h.when(set({ datetime: '2027-05-06 10:11:12+02:00' }, NEW_YORK)).shown.state, '2027-05-06 10:11:12', "a datetime's fields as written, offset or not");
  t.equal(h.when(set({ timestamp: 1598027400 }, NEW_YORK)).shown.state, '2020-08-21 12:30:00', 'a timestamp on the zone clock');
  t.equal(h.when(set({ timestamp: '1598027400' }, NEW_YORK)).shown.attributes.timestamp, 1598027400);

  const time = given({ b: { has_time: true, initial: '07:30' } });
  t.equal(time.when(set({ datetime: '2027-05-06 10:11:12' })).shown.state, '10:11:12', 'a time-only item takes the time');
  time.when(set({ date: '2027-05-06' }));
  t.same(time.rejected, [{ type: 'rejected', code: 'invalid_format', message: 'Nothing to set' }], 'a date is nothing to a time-only item');
  t.equal(time.shown.state, '10:11:12');
});

t.test("set_datetime's data is refused in the original's words", async (t) => {
  const table: Array<[Record<string, unknown>, string | undefined]> = [
    [{ date: '2026-11-28' }, undefined],
    [{}, 'must contain at least one of date, time, datetime, timestamp.'],
    [{ date: '2026-13-01' }, "Could not parse date for dictionary value @ data['date']"],
    [{ date: 20261128 }, "Not a date value for dictionary value @ data['date']"],
    [{ time: '7' }, "Invalid time specified: 7 for dictionary value @ data['time']"],
    [{ datetime: 'soon' }, "Invalid datetime specified: soon for dictionary value @ data['datetime']"],
    [{ timestamp: 'noon' }, "expected float for dictionary value @ data['timestamp']"],
    [{ date: '2026-11-28', datetime: '2026-11-28 07:00' }, 'Cannot use together: date, datetime'],
    [{ timestamp: 1, time: '07:00' }, 'Cannot use together: timestamp, time'],
  ];
  for (const [data, message] of table) t.equal(service.refine!(data), message, JSON.stringify(data));
});
