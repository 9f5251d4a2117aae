// The times a history request may name, read as the original's dt_util.parse_datetime reads them.
import t from 'tap';
import { parseTime } from '../../../actors/history/time.ts';

const utc = (...a: [number, number, number, number?, number?, number?]) => Date.UTC(a[0], a[1] - 1, a[2], a[3] ?? 0, a[4] ?? 0, a[5] ?? 0);

t.test('what the original reads, and as which instant', async (t) => {
  const cases: Array<[string, number]> = [
    ['2026-01-01T12:30:00+00:00', utc(2026, 1, 1, 12, 30)],
    ['2026-01-01T12:30:00Z', utc(2026, 1, 1, 12, 30)],
    ['2026-01-01t12:30:00z', utc(2026, 1, 1, 12, 30)],
    ['2026-01-01 12:30:00+02:00', utc(2026, 1, 1, 10, 30)],
    ['2026-01-01T12:30:00-0530', utc(2026, 1, 1, 18, 0)],
    ['2026-01-01T12:30:00+05', utc(2026, 1, 1, 7, 30)],
    ['2026-01-01T12:30:00.5Z', utc(2026, 1, 1, 12, 30) + 500],
    ['2026-01-01T12:30:00.123456Z', utc(2026, 1, 1, 12, 30) + 123.456],
    ['2026-01-01T12:30:00.1234567891Z', utc(2026, 1, 1, 12, 30) + 123.456],
    ['2026-01-01T12:30:00,25Z', utc(2026, 1, 1, 12, 30) + 250],
    ['2026-01-01T12Z', utc(2026, 1, 1, 12)],
    ['2026-01-01T12:30Z', utc(2026, 1, 1, 12, 30)],
    ['20260101T123000Z', utc(2026, 1, 1, 12, 30)],
    ['2026-01-01', utc(2026, 1, 1)],
    ['2026-03', utc(2026, 3, 1)],
    ['2026', utc(2026, 1, 1)],
    ['2026-1-5T3:04Z', utc(2026, 1, 5, 3, 4)],
    ['2026-1-5 3:04:05.12Z', utc(2026, 1, 5, 3, 4, 5) + 120],
    ['2024-02-29T00:00:00Z', utc(2024, 2, 29)],
  ];
  for (const [text, want] of cases) t.equal(parseTime(text, 'UTC'), want, text);
});

t.test('what it refuses', async (t) => {
  for (const text of ['', 'x', 'yesterday', '2026-13-01', '2026-02-29T00:00:00Z', '2026-01-01T24:00:00Z', '2026-01-01T12:60Z', '2026-01-01T12:30:61Z',
    '0000-01-01', '2026-01-01T12:30:00+24:00', '2026-01-01T12:30:00 00:00', '202601', '2026-01-01T', ' 2026-01-01', '2026-01-01T12:30:00.Z']) {
    t.equal(parseTime(text, 'UTC'), undefined, JSON.stringify(text));
  }
});

t.test('a time without an offset is a wall-clock time of the configured zone', async (t) => {
  t.equal(parseTime('2026-01-01T12:00:00', 'Europe/Amsterdam'), utc(2026, 1, 1, 11), 'winter: UTC+1');
  t.equal(parseTime('2026-07-01T12:00:00', 'Europe/Amsterdam'), utc(2026, 7, 1, 10), 'summer: UTC+2');
  t.equal(parseTime('2026-07-01', 'America/New_York'), utc(2026, 7, 1, 4));
  t.equal(parseTime('2026-03-29T03:30:00', 'Europe/Amsterdam'), utc(2026, 3, 29, 1, 30), 'just after the clocks went forward');
  t.equal(parseTime('2026-01-01T12:00:00Z', 'Europe/Amsterdam'), utc(2026, 1, 1, 12), 'an offset wins over the zone');
  t.equal(parseTime('2026-01-01T12:00:00', 'UTC'), utc(2026, 1, 1, 12));
});
