import t, { type Test } from 'tap';
import { openEventLog } from '../../store/log.ts';
import type { EventLog, EventRecord } from '../../store/types.ts';
import { interceptBatches } from './fixtures/batches.ts';
import { event, stateChanged, T0 } from './fixtures/events.ts';

async function open(t: Test, commit: 'durable' | 'fast' = 'durable'): Promise<EventLog> {
  const log = await openEventLog({ path: t.testdir(), commit });
  t.teardown(() => log.close());
  return log;
}

async function readAll(log: EventLog): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const record of log.read()) out.push(record);
  return out;
}

for (const commit of ['durable', 'fast'] as const) {
  t.test(`${commit}: seqs start at 1 and follow the order of append calls, even when concurrent`, async (t) => {
    const log = await open(t, commit);
    t.equal(log.lastSeq(), 0, 'an empty log has lastSeq 0');
    const calls = Array.from({ length: 50 }, (_, i) =>
      log.append(i % 5 === 0 ? [event(`s/${i}`), event(`s/${i}`), event(`s/${i}`)] : [event(`s/${i}`)]),
    );
    const results = await Promise.all(calls);
    const seqs = results.flat().map((r) => r.seq);
    t.same(seqs, Array.from({ length: seqs.length }, (_, i) => i + 1), 'consecutive in call order');
    t.equal(log.lastSeq(), seqs.length);
    t.same((await readAll(log)).map((r) => r.stream), results.flat().map((r) => r.stream), 'read order');
  });
}

t.test('appends of one tick share one batch: onCommit is called once with all of them', async (t) => {
  const log = await open(t);
  const batches: number[][] = [];
  log.onCommit((records) => batches.push(records.map((r) => r.seq)));
  await Promise.all([log.append([event('a')]), log.append([event('b'), event('b')]), log.append([event('c')])]);
  t.same(batches, [[1, 2, 3, 4]]);
});

t.test('appends from awaited code in the same turn still share the batch', async (t) => {
  const log = await open(t);
  const batches: number[][] = [];
  log.onCommit((records) => batches.push(records.map((r) => r.seq)));
  const later = async (stream: string) => {
    await Promise.resolve();
    await null;
    return log.append([event(stream)]);
  };
  await Promise.all([log.append([event('a')]), later('b'), later('c')]);
  t.same(batches, [[1, 2, 3]]);
});

t.test('appends arriving while a batch is written go together into the next one', async (t) => {
  const log = await open(t);
  const batches: number[][] = [];
  log.onCommit((records) => batches.push(records.map((r) => r.seq)));
  const first = log.append([event('a')]);
  // once the first batch is in flight, every writer of the next turn queues behind it
  await new Promise((resolve) => setImmediate(resolve));
  const rest = [log.append([event('b')]), log.append([event('c')]), log.append([event('d')])];
  await Promise.all([first, ...rest]);
  t.same(batches, [[1], [2, 3, 4]]);
});

t.test('onCommit runs before append resolves, in seq order, and can be removed', async (t) => {
  const log = await open(t);
  const seen: number[] = [];
  const off = log.onCommit((records) => {
    t.equal(log.lastSeq(), records[records.length - 1].seq, 'lastSeq already counts the batch');
    seen.push(...records.map((r) => r.seq));
  });
  const [record] = await log.append([event('a')]);
  t.same(seen, [record.seq], 'the listener saw the record before the append resolved');
  for (let i = 0; i < 5; i++) await Promise.all([log.append([event('a')]), log.append([event('b')])]);
  t.same(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
  off();
  await log.append([event('a')]);
  t.equal(seen.length, 11, 'no calls after unsubscribing');
});

t.test('a throwing listener does not fail the appends or starve other listeners', async (t) => {
  const log = await open(t);
  const errors: unknown[] = [];
  // tap fails the test on any uncaught exception, so its handlers step aside for this one
  const handlers = process.listeners('uncaughtException');
  process.removeAllListeners('uncaughtException');
  process.on('uncaughtException', (err) => errors.push(err));
  const restore = () => {
    process.removeAllListeners('uncaughtException');
    for (const handler of handlers) process.on('uncaughtException', handler);
  };
  t.teardown(restore);
  let calls = 0;
  log.onCommit(() => {
    throw new Error('projection bug');
  });
  log.onCommit(() => calls++);
  const [record] = await log.append([event('a')]);
  t.equal(record.seq, 1);
  t.equal(calls, 1);
  await new Promise((resolve) => setImmediate(resolve));
  restore();
  t.match(errors, [{ message: 'projection bug' }], 'the error is rethrown, not swallowed');
});

t.test('records come back in the shape they are read in', async (t) => {
  const log = await open(t);
  const [withOrigin, internal, state] = await log.append([
    event('auth/flow/1', { time: T0 + 0.123, context: { id: 'c1', parent_id: 'p1', user_id: 'u1' } }),
    event('auth/flow/1', { type: 'login_flow_step', origin: undefined }),
    stateChanged('light.kitchen', T0 + 1, 'on'),
  ]);
  t.equal(withOrigin.origin, 'LOCAL');
  t.notOk('origin' in internal, 'origin omitted when undefined');
  const read = await readAll(log);
  t.same(read, [withOrigin, internal, state], 'read() gives back what append() returned');
  t.notOk('origin' in read[1]);
  t.equal(read[0].time, T0 + 0.123, 'µs fraction of the time survives');
});

t.test('an invalid event is rejected without using up a seq', async (t) => {
  const log = await open(t);
  const cyclic: Record<string, unknown> = {};
  cyclic.self = cyclic;
  const bad = [
    [event('a'), event('', {})],
    [event('a', { time: Number.NaN })],
    [event('a', { time: -1 })],
    [event('a', { type: '' })],
    [event('a', { data: cyclic })],
    [event('a\x00b')],
  ];
  for (const events of bad) {
    await t.rejects(log.append(events), { code: 'HEARTH_INVALID_EVENT' });
  }
  await t.rejects(log.append('nope' as never), { code: 'HEARTH_INVALID_EVENT' });
  t.same(await log.append([]), [], 'an empty append is a no-op');
  const [record] = await log.append([event('a')]);
  t.equal(record.seq, 1);
});

t.test('append after close rejects with a clear error; close waits for accepted appends', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: dir });
  const pending = [log.append([event('a')]), log.append([event('b')])];
  const closed = log.close();
  await t.rejects(log.append([event('c')]), { code: 'HEARTH_LOG_CLOSED', message: /closed/ });
  t.same((await Promise.all(pending)).flat().map((r) => r.seq), [1, 2], 'accepted appends were written');
  await closed;
  await t.rejects(log.append([event('d')]), { code: 'HEARTH_LOG_CLOSED' });
  await t.rejects(log.purge(T0, 10), { code: 'HEARTH_LOG_CLOSED' });
  await t.rejects(log.saveSnapshot('x', { seq: 0, version: 1, time: T0, data: {} }), { code: 'HEARTH_LOG_CLOSED' });
  await t.rejects(readAll(log), { code: 'HEARTH_LOG_CLOSED' });
  await log.close(); // closing twice is harmless

  const again = await openEventLog({ path: dir });
  t.teardown(() => again.close());
  t.equal(again.lastSeq(), 2);
});

async function openAt(t: Test, path: string, said: string[] = []): Promise<EventLog> {
  const log = await openEventLog({ path, log: (line) => said.push(line) });
  t.teardown(() => log.close());
  return log;
}

t.test('a failed batch rejects only its appends; the next batch is written, after a gap in seqs', async (t) => {
  const dir = t.testdir();
  const said: string[] = [];
  const log = await openAt(t, dir, said);
  await log.append([event('a')]);
  const committed: number[] = [];
  log.onCommit((records) => committed.push(...records.map((r) => r.seq)));

  let failures = 1;
  interceptBatches(t, () => (failures-- > 0 ? new Error('EIO: i/o error, write') : undefined));
  const failing = [log.append([event('b')]), log.append([event('c'), event('c')])].map((append) =>
    t.rejects(append, { code: 'HEARTH_LOG_WRITE_FAILED', message: /EIO: i\/o error/ }),
  );
  // queued while the failing batch is in flight: it goes into the next batch
  await new Promise((resolve) => setImmediate(resolve));
  const queued = log.append([event('d')]);
  await Promise.all(failing);
  const [d] = await queued;
  t.equal(d.seq, 5, 'the seqs of the failed batch (2-4) are not reused');
  const [e] = await log.append([event('e')]);
  t.equal(e.seq, 6);
  t.same(committed, [5, 6], 'listeners never saw the failed records');
  t.equal(log.lastSeq(), 6);
  t.same((await readAll(log)).map((r) => r.stream), ['a', 'd', 'e']);
  const viaIndex: string[] = [];
  for await (const r of log.readStreams('')) viaIndex.push(r.stream);
  t.same(viaIndex, ['a', 'd', 'e'], 'the per-stream index holds nothing of the failed batch');
  t.equal(said.length, 2);
  t.match(said[0], /writing to .* failed \(EIO: i\/o error, write\); appends are refused/);
  t.match(said[1], /writing works again after \d+ s; 3 records were refused meanwhile/);

  await log.close();
  const again = await openAt(t, dir);
  t.same((await readAll(again)).map((r) => [r.seq, r.stream]), [[1, 'a'], [5, 'd'], [6, 'e']], 'the same after a reopen');
  t.equal(again.lastSeq(), 6);
  t.equal((await again.append([event('f')]))[0].seq, 7);
});

t.test('a failed write that reached the disk anyway (a failed fsync) is erased before the next one', async (t) => {
  const dir = t.testdir();
  const log = await openAt(t, dir);
  await log.append([event('a')]);
  let failures = 1;
  interceptBatches(t, () => (failures-- > 0 ? new Error('EIO: fsync failed') : undefined), { landed: true });
  await t.rejects(log.append([event('b'), stateChanged('light.kitchen', T0 + 1, 'on')]), { code: 'HEARTH_LOG_WRITE_FAILED' });
  const [c] = await log.append([event('c')]);
  t.equal(c.seq, 4);
  t.same((await readAll(log)).map((r) => r.seq), [1, 4], 'the refused records are gone');
  const history: EventRecord[] = [];
  for await (const r of log.history({ entityId: 'light.kitchen' })) history.push(r);
  t.same(history, [], 'and so are their index entries');
  await log.close();
  const again = await openAt(t, dir);
  t.same((await readAll(again)).map((r) => r.seq), [1, 4]);
});

t.test('while writes keep failing, each append is refused; reads keep working', async (t) => {
  const log = await openAt(t, t.testdir());
  await log.append([event('a')]);
  const restore = interceptBatches(t, () => new Error('EIO: i/o error, write'));
  await t.rejects(log.append([event('b')]), { code: 'HEARTH_LOG_WRITE_FAILED' });
  // the next write reopens the log first and fails again; later ones wait for the retry delay
  await t.rejects(log.append([event('c')]), { code: 'HEARTH_LOG_WRITE_FAILED', message: /EIO/ });
  await t.rejects(log.append([event('d')]), { code: 'HEARTH_LOG_WRITE_FAILED', message: /not writable yet/ });
  await t.rejects(log.saveSnapshot('x', { seq: 1, version: 1, time: T0, data: {} }), { code: 'HEARTH_LOG_WRITE_FAILED' });
  t.same((await readAll(log)).map((r) => r.seq), [1]);
  restore();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const [e] = await log.append([event('e')]);
  t.equal(e.seq, 5);
  t.same((await readAll(log)).map((r) => r.seq), [1, 5]);
});
