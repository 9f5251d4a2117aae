import t from 'tap';
import { parseIsoTime } from '../../store/time.ts';
import { isoformat as isoTime } from '../../machines/python/isoformat.ts';

t.test('times are written as the original writes them', async (t) => {
  const base = Date.UTC(2025, 0, 2, 3, 4, 5);
  const cases: [number, string][] = [
    [base, '2025-01-02T03:04:05+00:00'],
    [base + 123, '2025-01-02T03:04:05.123000+00:00'],
    [base + 123.456, '2025-01-02T03:04:05.123456+00:00'],
    [base + 0.001, '2025-01-02T03:04:05.000001+00:00'],
    [base + 999.9996, '2025-01-02T03:04:06+00:00'], // rounds into the next second
    [base + 1000 + 0.5, '2025-01-02T03:04:06.000500+00:00'],
    [base + 59_999.999, '2025-01-02T03:05:04.999999+00:00'],
    [Date.UTC(2024, 1, 29, 23, 59, 59) + 999.999, '2024-02-29T23:59:59.999999+00:00'],
    [0, '1970-01-01T00:00:00+00:00'],
    [-1.5, '1969-12-31T23:59:59.998500+00:00'],
  ];
  // in this order and again reversed: the text kept for the current second must never leak into another
  for (const [ms, text] of [...cases, ...cases.slice().reverse()]) t.equal(isoTime(ms), text, String(ms));
  for (const ms of [base, base + 123, base + 123.456, base + 0.001, base + 59_999.999]) t.equal(parseIsoTime(isoTime(ms)), ms, `${ms} reads back`);
});
