// The datetime and number helpers of templates, and the parse of a render result, on their own.
import t from 'tap';
import { DateTime, PyDate } from '../../actors/templates/datetime.ts';
import { parseDatetime, parseDuration, timeString } from '../../actors/templates/time-text.ts';
import { TimeDelta } from '../../actors/templates/timedelta.ts';
import { UTC, zoneNamed } from '../../actors/templates/zones.ts';
import { float, floatRepr, pyCompare, pyEq, pyRound, repr, str, toFloat } from '../../actors/templates/values.ts';
import { jinjaInt, toBoolean } from '../../actors/templates/numbers.ts';
import { resultJson } from '../../actors/templates/json.ts';
import { strptime, utcFromTimestamp } from '../../actors/templates/time.ts';
import { TemplateError } from '../../actors/templates/errors.ts';

const ctx = { localZone: UTC } as any;
const amsterdam = zoneNamed('Europe/Amsterdam');
const at = (iso: string) => parseDatetime(iso)!;

t.test('datetimes print as Python prints them', async (t) => {
  const dt = DateTime.fromEpochMs(1735689600000.123, UTC);
  t.equal(dt.str(), '2025-01-01 00:00:00.000123+00:00', 'str() has a space and microseconds');
  t.equal(dt.isoformat(), '2025-01-01T00:00:00.000123+00:00');
  t.equal(DateTime.fromEpochMs(1735689600000, UTC).isoformat(), '2025-01-01T00:00:00+00:00', 'no fraction when it is zero');
  t.equal(at('2025-01-01 10:00').str(), '2025-01-01 10:00:00', 'naive: no offset');
  t.equal(DateTime.fromEpochMs(1735689600000, amsterdam).str(), '2025-01-01 01:00:00+01:00', 'winter in Amsterdam');
  t.equal(DateTime.fromEpochMs(1751328000000, amsterdam).str(), '2025-07-01 02:00:00+02:00', 'summer in Amsterdam');
  t.equal(dt.repr(), 'datetime.datetime(2025, 1, 1, 0, 0, 0, 123, tzinfo=datetime.timezone.utc)');
  t.equal(dt.strftime('%Y-%m-%d %H:%M:%S %f %a %A %b %B %p %I %j %-d %-m %z %Z %%'), '2025-01-01 00:00:00 000123 Wed Wednesday Jan January AM 12 001 1 1 +0000 UTC %');
  t.equal(at('2025-03-05T14:07:09+05:30').strftime('%z %H %-H'), '+0530 14 14');
});

t.test('datetime arithmetic, comparisons and timestamps', async (t) => {
  const a = at('2025-01-01T12:00:00+00:00');
  const b = at('2025-01-01T13:30:00+01:00');
  t.ok(a.equals(at('2025-01-01T13:00:00+01:00')), 'the same instant in two offsets is equal');
  t.equal(pyCompare(b, a, '<'), 1, 'later compares greater');
  t.equal((a.binary('-', b, false) as TimeDelta).str(), '-1 day, 23:30:00', 'negative timedeltas print as Python does');
  t.equal((b.binary('-', a, false) as TimeDelta).str(), '0:30:00');
  t.equal((a.binary('+', TimeDelta.fromArgs([], new Map([['hours', 36]])), false) as DateTime).isoformat(), '2025-01-03T00:00:00+00:00');
  t.equal(a.timestamp(UTC), 1735732800);
  t.equal(at('2025-01-01T00:00:00').timestamp(amsterdam), 1735686000, 'a naive time is read in the local zone');
  const naive = at('2025-01-01T00:00:00');
  t.notOk(naive.equals(a), 'naive never equals aware');
  t.throws(() => pyCompare(naive, a, '<'), /can't compare offset-naive and offset-aware datetimes/);
  t.throws(() => naive.binary('-', a, false), /can't subtract offset-naive and offset-aware datetimes/);
  // wall-clock arithmetic keeps the zone, its offset follows the new wall time (zoneinfo)
  const beforeDst = DateTime.fromEpochMs(Date.UTC(2025, 2, 29, 12), amsterdam);
  t.equal((beforeDst.binary('+', TimeDelta.fromArgs([1], new Map()), false) as DateTime).str(), '2025-03-30 13:00:00+02:00');
  t.equal((a.attr('date', ctx) as any).call(ctx, [], new Map()).str(), '2025-01-01');
  t.ok((a.attr('date', ctx) as any).call(ctx, [], new Map()) instanceof PyDate);
  t.equal((a.attr('replace', ctx) as any).call(ctx, [], new Map([['hour', 5], ['minute', 0]])).isoformat(), '2025-01-01T05:00:00+00:00');
  t.throws(() => (a.attr('replace', ctx) as any).call(ctx, [], new Map([['month', 13]])), /month must be in 1\.\.12/);
});

t.test('timedeltas', async (t) => {
  const td = (args: unknown[], kw: Record<string, unknown> = {}) => TimeDelta.fromArgs(args, new Map(Object.entries(kw)));
  t.equal(td([], { days: 1, hours: 2 }).str(), '1 day, 2:00:00');
  t.equal(td([2], { seconds: 5, microseconds: 7 }).str(), '2 days, 0:00:05.000007');
  t.equal(td([], { minutes: -1 }).str(), '-1 day, 23:59:00');
  t.equal(td([], { hours: 1.5 }).totalSeconds(), 5400);
  t.equal(td([], { weeks: 1 }).repr(), 'datetime.timedelta(days=7)');
  t.equal((td([], { hours: 1 }).attr('total_seconds') as any).call(ctx, [], new Map()).value, 3600);
  t.equal((td([], { hours: 3 }).binary('/', td([], { hours: 1 }), false) as any).value, 3);
  t.equal((td([], { hours: 3 }).binary('*', 2, false) as TimeDelta).str(), '6:00:00');
  t.notOk(td([]).truthy(), 'a zero timedelta is false');
  t.throws(() => td([], { fortnights: 1 }), /'fortnights' is an invalid keyword argument/);
});

t.test('parsing dates, times and durations', async (t) => {
  t.equal(parseDatetime('2025-01-02')!.str(), '2025-01-02 00:00:00');
  t.equal(parseDatetime('2025-01-02T03:04:05.5Z')!.isoformat(), '2025-01-02T03:04:05.500000+00:00');
  t.equal(parseDatetime('20250102T030405+0100')!.isoformat(), '2025-01-02T03:04:05+01:00');
  t.equal(parseDatetime('2025-1-2 3:04')!.isoformat(), '2025-01-02T03:04:00');
  t.equal(parseDatetime('yesterday'), undefined);
  t.throws(() => parseDatetime('2025-02-30'), /day is out of range for month/);
  t.equal(parseDuration('01:02:03')!.str(), '1:02:03');
  t.equal(parseDuration('2 days, 01:00:00')!.str(), '2 days, 1:00:00');
  t.equal(parseDuration('PT1H30M')!.str(), '1:30:00');
  t.equal(parseDuration('-PT1H')!.str(), '-1 day, 23:00:00');
  t.equal(parseDuration('an hour'), undefined);
  t.equal(strptime('2025-01-02 10:20', '%Y-%m-%d %H:%M').str(), '2025-01-02 10:20:00');
  t.equal(strptime('02 Jan 2025 +0100', '%d %b %Y %z').isoformat(), '2025-01-02T00:00:00+01:00');
  t.throws(() => strptime('2025', '%d'), /does not match format/);
  t.equal(utcFromTimestamp(0.5).isoformat(), '1970-01-01T00:00:00.500000+00:00');
});

t.test('ages in words', async (t) => {
  t.equal(timeString(0), '0 seconds');
  t.equal(timeString(1), '1 second');
  t.equal(timeString(7200), '2 hours');
  t.equal(timeString(5400), '2 hours', 'the last unit is rounded (half to even)');
  t.equal(timeString(90061, 2), '1 day 1 hour');
  t.equal(timeString(90061, 4), '1 day 1 hour 1 minute 1 second');
  t.equal(timeString(40 * 86400), '1 month');
});

t.test('floats print and round as Python does', async (t) => {
  const cases: Array<[number, string]> = [
    [1, '1.0'], [1.5, '1.5'], [0.1 + 0.2, '0.30000000000000004'], [1e16, '1e+16'], [1.5e-5, '1.5e-05'],
    [0.0001, '0.0001'], [123456789012345.6, '123456789012345.6'], [-0, '-0.0'], [Infinity, 'inf'], [NaN, 'nan'],
  ];
  for (const [x, text] of cases) t.equal(floatRepr(x), text, `repr(${x})`);
  t.equal(pyRound(2.5), 2, 'half to even');
  t.equal(pyRound(3.5), 4);
  t.equal(pyRound(-2.5), -2);
  t.equal(pyRound(2.675, 2), 2.67, 'the exact binary value is below the half');
  t.equal(pyRound(0.125, 2), 0.12);
  t.equal(pyRound(1234.5, -2), 1200);
  t.equal(repr([1, float(2), 'a', null, true, new Map([['k', 'v']])]), "[1, 2.0, 'a', None, True, {'k': 'v'}]");
  t.equal(str("it's"), "it's");
  t.equal(repr("it's"), '"it\'s"');
  t.ok(pyEq(1, float(1)), '1 == 1.0');
  t.ok(pyEq(true, 1), 'True == 1');
  t.notOk(pyEq('1', 1), "'1' != 1");
});

t.test('number conversions', async (t) => {
  t.equal(toFloat(' 1.5 '), 1.5);
  t.equal(toFloat('1_000'), 1000);
  t.equal(toFloat('-inf'), -Infinity);
  t.equal(toFloat(true), 1);
  try {
    toFloat('abc');
    t.fail('abc is no float');
  } catch (err) {
    t.equal((err as TemplateError).toString(), "ValueError: could not convert string to float: 'abc'");
  }
  t.throws(() => toFloat(null), /float\(\) argument must be a string or a real number, not 'NoneType'/);
  t.equal(jinjaInt('42', 10), 42);
  t.equal(jinjaInt('42.9', 10), 42, '"42.9"|int is 42');
  t.equal(jinjaInt('0x1f', 16), 31);
  t.equal(jinjaInt('ff', 16), 255);
  t.equal(jinjaInt(float(-3.7), 10), -3);
  t.equal(jinjaInt('abc', 10), undefined);
  t.equal(jinjaInt(null, 10), undefined);
  t.equal(toBoolean('On'), true);
  t.equal(toBoolean('disable'), false);
  t.equal(toBoolean(0), false);
  t.throws(() => toBoolean('maybe'), /invalid boolean value maybe/);
});

t.test('a render result is parsed as the original parses it', async (t) => {
  const cases: Array<[string, string]> = [
    ['5', '5'], ['5.0', '5.0'], ['-1.5', '-1.5'], ['+5', '5'], ['.5', '0.5'], ['1.', '1.0'],
    ['on', '"on"'], ['', '""'], ['007', '"007"'], ['1e3', '"1e3"'], ['0x10', '"0x10"'], ['1_000', '"1_000"'],
    ['True', 'true'], ['None', 'null'], ["'quoted'", '"\'quoted\'"'],
    ['[1, 2.5, "a"]', '[1,2.5,"a"]'], ['(1, 2)', '[1,2]'], ['1, 2', '[1,2]'], ["{'a': 1, 2: None}", '{"a":1,"2":null}'],
    ['{1, 2}', '[1,2]'], ['[007]', '"[007]"'], ['[1e3]', '[1000.0]'], ['State is: on', '"State is: on"'],
    ['123456789012345678901234567890', '123456789012345678901234567890'],
  ];
  for (const [text, json] of cases) t.equal(resultJson(text), json, JSON.stringify(text));
});
