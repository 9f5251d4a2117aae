// The refresh token a context was made with: stored in the record's own slot, read back beside
// the context, and never part of the context's own shape (JSON, keys, spreads).
import t from 'tap';
import { openEventLog } from '../../store/log.ts';
import { decodeRecord, encodeRecord } from '../../store/codec.ts';
import { tokenOf, withToken } from '../../store/context-token.ts';
import type { EventRecord, NewEvent } from '../../store/types.ts';

const T0 = Date.UTC(2026, 0, 1);
const TOKEN = 'a'.repeat(32);

t.test('the codec keeps the token in its own slot, with or without origin and inherit', async (t) => {
  const cases: Array<[string, Partial<NewEvent>]> = [
    ['bare', {}],
    ['with origin', { origin: 'REMOTE' }],
    ['with inherit', { inherit: { field: 'old', from: 'new' }, origin: 'LOCAL' }],
  ];
  for (const [name, extra] of cases) {
    const context = withToken({ id: 'ctx', parent_id: null, user_id: 'u' }, TOKEN);
    const event: NewEvent = { time: T0, stream: 's', type: 'x', data: { old: 1, new: 2 }, context, ...extra };
    const stored = encodeRecord(event);
    t.equal(JSON.parse(stored).at(-1), TOKEN, `${name}: the last slot`);
    const unresolved: any[] = [];
    const read = decodeRecord(7, stored, unresolved);
    t.equal(tokenOf(read.context), TOKEN, `${name}: read back`);
    t.same(read.context, { id: 'ctx', parent_id: null, user_id: 'u' }, `${name}: the context as it was`);
    t.equal(JSON.stringify(read.context), '{"id":"ctx","parent_id":null,"user_id":"u"}', `${name}: not in its JSON`);
    t.equal(read.origin, extra.origin, `${name}: origin kept`);
    t.equal(unresolved.length, extra.inherit ? 1 : 0, `${name}: inherit kept`);
  }
  const plain = encodeRecord({ time: T0, stream: 's', type: 'x', data: {}, context: { id: 'c', parent_id: null, user_id: null } });
  t.equal(JSON.parse(plain).length, 7, 'a record without a token is stored as before');
  t.equal(tokenOf(decodeRecord(1, plain).context), undefined);
  t.equal(tokenOf(withToken({ id: 'c', parent_id: null, user_id: null }, undefined)), undefined, 'no token given: none noted');
});

t.test('through the log: read back by every reader, never on the live record', async (t) => {
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  const live: EventRecord[] = [];
  log.onCommit((records) => live.push(...records));
  const context = withToken({ id: 'ctx', parent_id: null, user_id: 'u' }, TOKEN);
  const [appended] = await log.append([{ time: T0, stream: 'entity/light.a', type: 'state_changed', data: { entity_id: 'light.a', new_state: null }, context }]);
  t.equal(tokenOf(appended.context), undefined, 'the live record is what clients see: no token');
  t.equal(tokenOf(live[0].context), undefined);
  for await (const r of log.read()) t.equal(tokenOf(r.context), TOKEN, 'read()');
  for await (const r of log.history({ entityId: 'light.a' })) t.equal(tokenOf(r.context), TOKEN, 'history()');
  const [got] = await log.get([1, 2]);
  t.equal(tokenOf(got!.context), TOKEN, 'get()');
  t.same(await log.get([2, 0, -1]), [undefined, undefined, undefined], 'no record: undefined');
  const seqs: Array<{ stream: string; seq: number }> = [];
  for await (const k of log.streamSeqs('entity/')) seqs.push(k);
  t.same(seqs, [{ stream: 'entity/light.a', seq: 1 }], 'streamSeqs()');
});
