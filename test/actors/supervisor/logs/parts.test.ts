// The log endpoints' parts without an engine: the engine's stream framing, ranges, controls.
import t from 'tap';
import { LogLines, parseContainerCursor } from '../../../../actors/supervisor/logs/container.ts';
import { selectRange, type LogEntry } from '../../../../actors/supervisor/logs/types.ts';
import { linesOf, rangeOf } from '../../../../gateway/supervisor/routes/logs.ts';
import { stripColors, verboseLine } from '../../../../actors/supervisor/logs/format.ts';

const frame = (stream: number, text: string) => {
  const body = Buffer.from(text);
  const head = Buffer.alloc(8);
  head[0] = stream;
  head.writeUInt32BE(body.length, 4);
  return Buffer.concat([head, body]);
};

t.test('multiplexed frames split anywhere give the same lines; equal timestamps are numbered', async (t) => {
  const data = Buffer.concat([
    frame(1, '2026-01-02T03:04:05.5Z one\n'),
    frame(2, '2026-01-02T03:04:05.5Z two\n2026-01-02T03:04:05.500000001Z three\n'),
    frame(1, '2026-01-02T03:04:06Z four \u00e9\r\n'),
  ]);
  const expected = [
    ['s=1767323045500000000;i=0', 1767323045500000, 'one'],
    ['s=1767323045500000000;i=1', 1767323045500000, 'two'],
    ['s=1767323045500000001;i=0', 1767323045500000, 'three'],
    ['s=1767323046000000000;i=0', 1767323046000000, 'four \u00e9'],
  ];
  for (let cut = 1; cut < data.length; cut += 3) {
    const got: unknown[] = [];
    const lines = new LogLines(true, (p, realtime, message) => got.push([`s=${p.ns};i=${p.i}`, realtime, message]));
    lines.push(data.subarray(0, cut));
    lines.push(data.subarray(cut));
    lines.end();
    t.same(got, expected, `cut at ${cut}`);
  }
  const tty: unknown[] = [];
  const raw = new LogLines(false, (_p, _r, message) => tty.push(message));
  raw.push(Buffer.from('2026-01-02T03:04:05Z a\n2026-01-02T03:04:05Z b'));
  raw.end();
  t.same(tty, ['a', 'b'], 'a TTY container has no frames; a last line without newline still counts');
  t.same(parseContainerCursor('s=12;i=3'), { ns: 12n, i: 3 });
  t.equal(parseContainerCursor('s=12'), undefined);
});

t.test('ranges select as the journal does', async (t) => {
  const e = (n: number): LogEntry => ({ cursor: `c${n}`, realtime: n, hostname: 'h', identifier: 'x', message: `m${n}` });
  const all = [0, 1, 2, 3, 4].map(e);
  const pick = (cursor: string, skip: number, count: number, at = 0) => selectRange(all, { cursor, skip, count }, at).map((x) => x.message);
  t.same(pick('', -99, 100), ['m0', 'm1', 'm2', 'm3', 'm4']);
  t.same(pick('', -1, 2), ['m3', 'm4']);
  t.same(pick('', 0, 2), ['m0', 'm1']);
  t.same(pick('', 3, Infinity), ['m3', 'm4']);
  t.same(pick('c2', 0, 2, 2), ['m2', 'm3']);
  t.same(pick('c2', -2, 1, 2), ['m0']);
  t.same(pick('c2', 9, 1, 2), []);
  t.same(selectRange([], { cursor: '', skip: -99, count: 100 }), []);
});

t.test('lines and Range controls', async (t) => {
  t.equal(linesOf(null), 100);
  t.equal(linesOf('53'), 53);
  t.equal(linesOf('x'), 100);
  t.equal(linesOf('1.5'), 100);
  t.equal(linesOf('1'), 2);
  t.equal(linesOf('-4'), 2);
  t.same(rangeOf('entries=abc:-3:10'), { cursor: 'abc', skip: -3, count: 10 });
  t.same(rangeOf('entries=abc:-3:'), { cursor: 'abc', skip: -3, count: Infinity });
  t.same(rangeOf('entries=:0:18446744073709551615'), { cursor: '', skip: 0, count: Infinity });
  t.same(rangeOf('entries=abc:7'), { cursor: 'abc', skip: 0, count: 7 });
  t.same(rangeOf('entries=abc'), { cursor: 'abc', skip: 0, count: Infinity });
  for (const bad of ['bytes=1-2', 'entries=a:b:c', 'entries=a:1:2:3', 'entries=:1.5:2']) t.throws(() => rangeOf(bad), { status: 400, plain: true, message: `Invalid Range header: ${bad}` }, bad);
});

t.test('formatters', async (t) => {
  const entry: LogEntry = { cursor: 'c', realtime: Date.UTC(2026, 0, 2, 3, 4, 5, 678) * 1000 + 999, hostname: 'box', identifier: 'core', message: '\x1B[1;31mhi\x1B[0m' };
  t.equal(verboseLine(entry), '2026-01-02 03:04:05.678 box core: \x1B[1;31mhi\x1B[0m');
  t.equal(verboseLine({ ...entry, pid: 7, identifier: '' }), '2026-01-02 03:04:05.678 box _UNKNOWN_[7]: \x1B[1;31mhi\x1B[0m');
  t.equal(stripColors(entry.message), 'hi');
});
