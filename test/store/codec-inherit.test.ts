// The stored text of a record with an inherited member is what JSON.stringify writes for it,
// byte for byte (the log's format did not change when new_state became written once), and the
// state's text is kept for whoever writes it next.
import t from 'tap';
import { encodeRecord } from '../../store/codec.ts';
import { knownJson } from '../../store/frozen-json.ts';
import type { Context, NewEvent } from '../../store/types.ts';
import { withToken } from '../../store/context-token.ts';

const OLD_STATE = { field: 'old_state', from: 'new_state' };

/** What the stored array was written as before: one JSON.stringify of it. */
function reference(e: NewEvent, token?: string): string {
  const stored: unknown[] = [e.time, e.stream, e.type, { ...e.data, old_state: null }, e.context.id, e.context.parent_id ?? null, e.context.user_id ?? null, e.origin ?? null, [OLD_STATE.field, OLD_STATE.from]];
  if (token) stored.push(token);
  return JSON.stringify(stored);
}

t.test('an inherit record is stored exactly as JSON.stringify wrote it', async (t) => {
  const newState = { entity_id: 'sensor.a"b', state: 'é "quoted" \u2028', attributes: { nested: [1, 2.5, null, { deep: true }], skip: undefined, when: new Date(0), nan: NaN }, last_changed: 1 };
  const cases: Array<[string, NewEvent, string?]> = [
    ['an entity change', { time: 1700000000000, stream: 'entity/sensor.a', type: 'state_changed', data: { entity_id: 'sensor.a', old_state: { state: 'x' }, new_state: newState }, context: { id: 'c1', parent_id: 'p', user_id: 'u' }, origin: 'LOCAL', inherit: OLD_STATE }],
    ['members in another order, one undefined, one a function', { time: 5, stream: 'entity/s.b', type: 'state_changed', data: { new_state: { state: '1' }, extra: undefined, fn: () => 1, entity_id: 's.b', old_state: { state: '0' } }, context: { id: 'c2' } as Context, inherit: OLD_STATE } as unknown as NewEvent],
    ['an old_state key missing from data', { time: 6, stream: 'entity/s.c', type: 'state_changed', data: { entity_id: 's.c', new_state: { state: '2' } }, context: { id: 'c3' } as Context, origin: 'REMOTE', inherit: OLD_STATE }],
    ['a null new state (a removal)', { time: 7, stream: 'entity/s.d', type: 'state_changed', data: { entity_id: 's.d', old_state: { state: '2' }, new_state: null }, context: { id: 'c4' } as Context, inherit: OLD_STATE }],
  ];
  for (const [name, e] of cases) t.equal(encodeRecord(e), reference(e), name);

  const withTok: NewEvent = { ...cases[0][1], context: withToken({ id: 'c5', parent_id: null, user_id: 'u' }, 'token-id-1') };
  t.equal(encodeRecord(withTok), reference(withTok, 'token-id-1'), 'with the refresh token slot');

  t.equal(knownJson(newState), JSON.stringify(newState), 'the new state’s text is kept for the next writer');
  t.equal(knownJson(cases[0][1].data.old_state), undefined, 'the referenced old state is not written at all');
});

t.test('what JSON cannot hold is refused as before', async (t) => {
  const cyclic: Record<string, unknown> = { state: 'x' };
  cyclic.self = cyclic;
  const e: NewEvent = { time: 1, stream: 'entity/s.e', type: 'state_changed', data: { entity_id: 's.e', old_state: { state: 'w' }, new_state: cyclic }, context: { id: 'c' } as Context, inherit: OLD_STATE };
  t.throws(() => encodeRecord(e), { code: 'HEARTH_INVALID_EVENT' }, 'a cycle in the new state');
  const big: NewEvent = { ...e, data: { entity_id: 's.e', old_state: null, new_state: { n: 1n } } };
  t.throws(() => encodeRecord(big), { code: 'HEARTH_INVALID_EVENT' }, 'a BigInt');
});
