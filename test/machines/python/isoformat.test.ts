// Python's datetime.isoformat() of UTC times, against what python3 prints for the same datetimes.
import t from 'tap';
import { isoformat, isoformatMicros } from '../../../machines/python/isoformat.ts';

const base = Date.UTC(2025, 0, 2, 3, 4, 5);

// epoch µs, then isoformat() with timespec auto, milliseconds, microseconds
const cases: [bigint, string, string, string][] = [
  [BigInt(base) * 1000n, '2025-01-02T03:04:05+00:00', '2025-01-02T03:04:05.000+00:00', '2025-01-02T03:04:05.000000+00:00'],
  [BigInt(base) * 1000n + 123000n, '2025-01-02T03:04:05.123000+00:00', '2025-01-02T03:04:05.123+00:00', '2025-01-02T03:04:05.123000+00:00'],
  [BigInt(base) * 1000n + 123456n, '2025-01-02T03:04:05.123456+00:00', '2025-01-02T03:04:05.123+00:00', '2025-01-02T03:04:05.123456+00:00'],
  [BigInt(base) * 1000n + 1n, '2025-01-02T03:04:05.000001+00:00', '2025-01-02T03:04:05.000+00:00', '2025-01-02T03:04:05.000001+00:00'],
  [BigInt(base) * 1000n + 999999n, '2025-01-02T03:04:05.999999+00:00', '2025-01-02T03:04:05.999+00:00', '2025-01-02T03:04:05.999999+00:00'],
  [0n, '1970-01-01T00:00:00+00:00', '1970-01-01T00:00:00.000+00:00', '1970-01-01T00:00:00.000000+00:00'],
  [-1500n, '1969-12-31T23:59:59.998500+00:00', '1969-12-31T23:59:59.998+00:00', '1969-12-31T23:59:59.998500+00:00'],
  [BigInt(Date.UTC(2024, 1, 29, 23, 59, 59)) * 1000n + 999999n, '2024-02-29T23:59:59.999999+00:00', '2024-02-29T23:59:59.999+00:00', '2024-02-29T23:59:59.999999+00:00'],
];

t.test('isoformatMicros prints as Python, for each timespec', async (t) => {
  for (const [micros, auto, millis, full] of cases) {
    t.equal(isoformatMicros(micros), auto, `${micros}`);
    t.equal(isoformatMicros(micros, 'milliseconds'), millis, `${micros} milliseconds`);
    t.equal(isoformatMicros(micros, 'microseconds'), full, `${micros} microseconds`);
  }
});

t.test('isoformat of epoch ms prints the same, the fraction rounded to the microsecond', async (t) => {
  // in this order and again reversed: the text kept for the last second must never leak into another
  for (const [micros, auto, millis, full] of [...cases, ...cases.slice().reverse()]) {
    const ms = Number(micros) / 1000;
    t.equal(isoformat(ms), auto, `${ms}`);
    t.equal(isoformat(ms, 'milliseconds'), millis, `${ms} milliseconds`);
    t.equal(isoformat(ms, 'microseconds'), full, `${ms} microseconds`);
  }
  t.equal(isoformat(base + 999.9996), '2025-01-02T03:04:06+00:00', 'rounds into the next second');
  t.equal(isoformat(base + 123.4564), '2025-01-02T03:04:05.123456+00:00');
});
