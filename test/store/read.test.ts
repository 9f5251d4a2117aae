import t from 'tap';
import { openEventLog } from '../../store/log.ts';
import type { ReadOptions } from '../../store/types.ts';
import { event, T0 } from './fixtures/events.ts';
import { collect } from '../helpers/log-records.ts';

// Streams share prefixes on purpose: reading one must never pick up records of another.
const STREAMS = ['entity/light.a', 'entity/light.ab', 'entity/light.a.b'];
const streamOf = (seq: number) => STREAMS[seq % 3];
const seqs = (from: number, to: number, step = 1) => {
  const out: number[] = [];
  for (let s = from; step > 0 ? s <= to : s >= to; s += step) out.push(s);
  return out;
};
const ofStream = (stream: string, list: number[]) => list.filter((s) => streamOf(s) === stream);

const cases: { name: string; options?: ReadOptions; expect: number[] }[] = [
  { name: 'everything', expect: seqs(1, 30) },
  { name: 'empty options', options: {}, expect: seqs(1, 30) },
  { name: 'gt', options: { gt: 25 }, expect: seqs(26, 30) },
  { name: 'gte', options: { gte: 25 }, expect: seqs(25, 30) },
  { name: 'lt', options: { lt: 4 }, expect: [1, 2, 3] },
  { name: 'lte', options: { lte: 4 }, expect: [1, 2, 3, 4] },
  { name: 'gt and lt', options: { gt: 10, lt: 14 }, expect: [11, 12, 13] },
  { name: 'gte and lte', options: { gte: 10, lte: 14 }, expect: [10, 11, 12, 13, 14] },
  { name: 'gt and gte: the stricter wins', options: { gt: 12, gte: 10, lte: 14 }, expect: [13, 14] },
  { name: 'lt and lte: the stricter wins', options: { gte: 10, lt: 12, lte: 14 }, expect: [10, 11] },
  { name: 'fractional bounds', options: { gt: 9.5, lte: 12.5 }, expect: [10, 11, 12] },
  { name: 'replay after the last seq', options: { gt: 30 }, expect: [] },
  { name: 'gt 0 is everything', options: { gt: 0 }, expect: seqs(1, 30) },
  { name: 'empty range', options: { gt: 14, lt: 15 }, expect: [] },
  { name: 'inverted range', options: { gte: 20, lte: 10 }, expect: [] },
  { name: 'infinite bounds', options: { gte: -Infinity, lte: Infinity }, expect: seqs(1, 30) },
  { name: 'reverse', options: { reverse: true }, expect: seqs(30, 1, -1) },
  { name: 'reverse with bounds', options: { gt: 5, lte: 9, reverse: true }, expect: [9, 8, 7, 6] },
  { name: 'limit', options: { limit: 3 }, expect: [1, 2, 3] },
  { name: 'limit 0', options: { limit: 0 }, expect: [] },
  { name: 'negative limit means none', options: { limit: -1 }, expect: seqs(1, 30) },
  { name: 'limit larger than the range', options: { gt: 27, limit: 10 }, expect: [28, 29, 30] },
  { name: 'reverse with limit: the tail', options: { reverse: true, limit: 2 }, expect: [30, 29] },
  { name: 'stream', options: { stream: STREAMS[1] }, expect: ofStream(STREAMS[1], seqs(1, 30)) },
  { name: 'stream sharing a prefix', options: { stream: STREAMS[0] }, expect: ofStream(STREAMS[0], seqs(1, 30)) },
  { name: 'stream with gt', options: { stream: STREAMS[2], gt: 20 }, expect: ofStream(STREAMS[2], seqs(21, 30)) },
  {
    name: 'stream with gte/lt, reversed, limited',
    options: { stream: STREAMS[1], gte: 4, lt: 20, reverse: true, limit: 3 },
    expect: ofStream(STREAMS[1], seqs(19, 4, -1)).slice(0, 3),
  },
  { name: 'stream with limit 0', options: { stream: STREAMS[1], limit: 0 }, expect: [] },
  { name: 'unknown stream', options: { stream: 'entity/light' }, expect: [] },
  { name: 'stream that cannot exist', options: { stream: '' }, expect: [] },
];

t.test('read ranges', async (t) => {
  const log = await openEventLog({ path: t.testdir(), commit: 'fast' });
  t.teardown(() => log.close());
  // several batches, several records per call, so ranges cross batch boundaries
  for (let seq = 1; seq <= 30; seq += 5) {
    await Promise.all([
      log.append([event(streamOf(seq), { time: T0 + seq }), event(streamOf(seq + 1), { time: T0 + seq + 1 })]),
      log.append([0, 1, 2].map((i) => event(streamOf(seq + 2 + i), { time: T0 + seq + 2 + i }))),
    ]);
  }
  t.equal(log.lastSeq(), 30);

  for (const { name, options, expect } of cases) {
    const records = await collect(log.read(options));
    t.same(records.map((r) => r.seq), expect, name);
    for (const r of records) {
      if (r.stream !== streamOf(r.seq) || r.time !== T0 + r.seq) t.fail(`${name}: record ${r.seq} read back wrong`);
    }
  }
});

t.test('a reader may stop early and the log stays usable', async (t) => {
  const log = await openEventLog({ path: t.testdir(), commit: 'fast' });
  t.teardown(() => log.close());
  await log.append(Array.from({ length: 2500 }, (_, i) => event(STREAMS[i % 3])));
  let n = 0;
  for await (const record of log.read({ gt: 10 })) {
    if (++n === 1) t.equal(record.seq, 11);
    if (n === 1500) break;
  }
  t.equal(n, 1500);
  for await (const record of log.read({ stream: STREAMS[0] })) {
    t.equal(record.stream, STREAMS[0]);
    break;
  }
  t.equal((await collect(log.read({ stream: STREAMS[0] }))).length, Math.ceil(2500 / 3), 'crosses read chunks');
  t.equal((await collect(log.read())).length, 2500);
});

t.test('reading sees records committed before it starts, not those still in flight', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  await log.append([event('a'), event('a')]);
  const inFlight = log.append([event('a')]);
  t.same((await collect(log.read())).map((r) => r.seq), [1, 2]);
  await inFlight;
  t.same((await collect(log.read())).map((r) => r.seq), [1, 2, 3]);
});

t.test('a bound that is not a number is an error, not an empty read', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  await t.rejects(collect(log.read({ gt: Number.NaN })), { code: 'HEARTH_INVALID_OPTIONS', message: /gt/ });
  await t.rejects(collect(log.read({ lte: '5' as never })), { code: 'HEARTH_INVALID_OPTIONS', message: /lte/ });
});
