// mirror(): a replica's copy of another log keeps that log's seqs, gaps and all.
import t from 'tap';
import { openEventLog } from '../../store/log.ts';
import type { EventRecord, NewEvent } from '../../store/types.ts';
import { event, stateChanged, T0 } from './fixtures/events.ts';

const withSeqOf = (seq: number, e: NewEvent): EventRecord => ({ ...e, seq, context: { id: e.context.id, parent_id: e.context.parent_id ?? null, user_id: e.context.user_id ?? null } });

t.test('records keep their seqs (gaps allowed), are read back, indexed and told to onCommit; a reopen continues after them', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: dir });
  const told: number[] = [];
  log.onCommit((rs) => told.push(...rs.map((r) => r.seq)));
  const records = [withSeqOf(3, event('bus')), withSeqOf(7, stateChanged('light.a', T0 + 1, 'on')), withSeqOf(8, stateChanged('light.a', T0 + 2, 'off'))];
  const done = await log.mirror(records);
  t.same(done.map((r) => r.seq), [3, 7, 8]);
  t.same(told, [3, 7, 8]);
  t.equal(log.lastSeq(), 8);
  const read: EventRecord[] = [];
  for await (const r of log.read()) read.push(r);
  t.same(read, records, 'the same records, in the same order, with the same seqs');
  const hist: string[] = [];
  for await (const r of log.history({ entityId: 'light.a' })) hist.push(r.data.new_state.state);
  t.same(hist, ['on', 'off'], 'the history index covers mirrored records');
  await log.close();
  const again = await openEventLog({ path: dir });
  t.teardown(() => again.close());
  t.equal(again.lastSeq(), 8, 'the position survives a reopen');
  const [next] = await again.append([event('s')]);
  t.equal(next.seq, 9, 'a later append continues after the mirrored seqs');
});

t.test('seqs that do not increase, or are not above the last, are refused and nothing is written', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  await log.mirror([withSeqOf(5, event('a'))]);
  await t.rejects(log.mirror([withSeqOf(5, event('b'))]), { code: 'HEARTH_INVALID_EVENT', message: /increasing seqs above 5, got 5/ });
  await t.rejects(log.mirror([withSeqOf(9, event('b')), withSeqOf(9, event('c'))]), { message: /above 9, got 9/ });
  await t.rejects(log.mirror([{ ...withSeqOf(10, event('b')), seq: 1.5 }]), { message: /got 1.5/ });
  await t.rejects(log.mirror([{ ...withSeqOf(10, event('b')), stream: '' }]), { code: 'HEARTH_INVALID_EVENT' });
  t.equal(log.lastSeq(), 5);
  const [ok] = await log.mirror([withSeqOf(6, event('b'))]);
  t.equal(ok.seq, 6, 'a refused copy spends no seq');
});
