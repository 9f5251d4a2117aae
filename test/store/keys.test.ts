import t from 'tap';
import { historyKey, MAX_SEQ, seqBounds, seqKey, seqOfKey, streamKey } from '../../store/keys.ts';

t.test('seq keys sort as the numbers they hold', async (t) => {
  const seqs = [0, 1, 2, 9, 10, 15, 16, 255, 256, 4095, 65536, 1e6, 2 ** 32, 2 ** 40 + 1, MAX_SEQ];
  const keys = seqs.map(seqKey);
  t.same([...keys].sort(), keys, 'byte order is numeric order');
  t.ok(keys.every((k) => k.length === 16), 'fixed width');
  t.same(keys.map(seqOfKey), seqs, 'round trip');
  t.equal(seqOfKey(streamKey('entity/light.a', 77)), 77, 'seq of an index key');
  t.equal(seqOfKey(historyKey('light.a', 1735787045000.5, 78)), 78);
});

t.test('history keys sort by entity, then time, then seq', async (t) => {
  const keys = [
    historyKey('light.a', 1000, 9),
    historyKey('light.a', 1000.001, 1),
    historyKey('light.a', 1000.001, 2),
    historyKey('light.a', 99999, 0),
    historyKey('light.a.b', 0, 0),
    historyKey('light.ab', 0, 0),
  ];
  t.same([...keys].sort(), keys);
});

t.test('read bounds become inclusive whole numbers', async (t) => {
  const cases = [
    { options: {}, expect: { first: 0, last: MAX_SEQ } },
    { options: { gt: 3 }, expect: { first: 4, last: MAX_SEQ } },
    { options: { gte: 3.2 }, expect: { first: 4, last: MAX_SEQ } },
    { options: { lt: 3 }, expect: { first: 0, last: 2 } },
    { options: { lte: 3.7 }, expect: { first: 0, last: 3 } },
    { options: { gt: 1, gte: 5, lt: 9, lte: 7 }, expect: { first: 5, last: 7 } },
    { options: { gt: 3, lt: 4 }, expect: undefined },
    { options: { gt: Infinity }, expect: undefined },
  ];
  for (const { options, expect } of cases) t.same(seqBounds(options), expect, JSON.stringify(options));
});
