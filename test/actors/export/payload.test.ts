// Each exported message's text is the record as `hearth replay --format json` writes it, secrets
// hidden, whichever way ExportPayloads takes to it (states written once and reused, or the
// Redactor's walk when something may name a secret key).
import t from 'tap';
import { ExportPayloads } from '../../../actors/export/payload.ts';
import { Redactor } from '../../../store/redact.ts';
import { encodeRecord } from '../../../store/codec.ts';
import type { EventRecord } from '../../../store/types.ts';

const ctx = { id: '01JDABCDEFGHJKMNPQRSTVWXYZ', parent_id: null, user_id: 'abcdef0123456789abcdef0123456789' };
const TOKEN = 'Zq7vKp2mW9xL4nR8tY3bC6dF';
const OTHER = 'Hh4kR2nP8sV5wX7zA9cE3gJ6';

/** The reference: the Redactor as replay uses it, fed the same records in the same order. */
function replayText(r: Redactor, record: EventRecord): string {
  return r.scrub(r.json(record, r.learn(record)) ?? '');
}

function state(id: string, value: string, attributes: Record<string, unknown> = {}) {
  return { entity_id: id, state: value, attributes: { friendly_name: id, ...attributes }, last_changed: 1700000000000, last_reported: 1700000000001, last_updated: 1700000000001, context: ctx };
}

t.test('every kind of record is written as replay writes it', async (t) => {
  const a1 = state('sensor.a', '1');
  const a2 = state('sensor.a', '2', { note: `quoted ${TOKEN}` });
  const a3 = state('sensor.a', '3', { note: `quoted ${TOKEN} and ${OTHER}` });
  const cam = state('camera.door', 'idle', { access_token: 'c4m3r4t0k3nXXXXXXXXXXXX', entity_picture: '/api/camera_proxy/camera.door?token=c4m3r4t0k3nXXXXXXXXXXXX' });
  const cam2 = state('camera.door', 'recording', { entity_picture: '/api/camera_proxy/camera.door?token=c4m3r4t0k3nXXXXXXXXXXXX' });
  let deep: unknown = 'bottom';
  for (let i = 0; i < 20_000; i++) deep = [deep];
  const records: EventRecord[] = [
    { seq: 1, time: 1, stream: 'entity/sensor.a', type: 'state_changed', data: { entity_id: 'sensor.a', old_state: null, new_state: a1 }, context: ctx, origin: 'LOCAL' },
    { seq: 2, time: 2, stream: 'entity/sensor.a', type: 'state_changed', data: { entity_id: 'sensor.a', old_state: a1, new_state: a2 }, context: ctx, origin: 'LOCAL' },
    // a token learnt from a record that is never exported: hidden where it is quoted afterwards,
    // also in a state written (and kept) before it was learnt
    { seq: 3, time: 3, stream: 'auth/refresh_token/x', type: 'created', data: { token: TOKEN }, context: ctx },
    { seq: 4, time: 4, stream: 'entity/sensor.a', type: 'state_changed', data: { entity_id: 'sensor.a', old_state: a2, new_state: a3 }, context: ctx, origin: 'LOCAL' },
    // a secret key in an attribute: the walk, and the value is learnt for later records
    { seq: 5, time: 5, stream: 'entity/camera.door', type: 'state_changed', data: { entity_id: 'camera.door', old_state: null, new_state: cam }, context: ctx, origin: 'LOCAL' },
    { seq: 6, time: 6, stream: 'entity/camera.door', type: 'state_changed', data: { entity_id: 'camera.door', old_state: cam, new_state: cam2 }, context: ctx, origin: 'LOCAL' },
    { seq: 7, time: 7, stream: 'auth/refresh_token/y', type: 'created', data: { token: OTHER }, context: ctx },
    { seq: 8, time: 8, stream: 'entity/sensor.a', type: 'state_changed', data: { entity_id: 'sensor.a', old_state: a2, new_state: a3 }, context: ctx, origin: 'LOCAL' },
    // a secret key at the top of data, and one nested in a list
    { seq: 9, time: 9, stream: 'bus', type: 'my_event', data: { webhook_id: 'w3bh00kXXXXXXXXXXXX', list: [{ password: 'hunter2hunter2' }] }, context: ctx },
    // a key that is itself a learnt secret
    { seq: 10, time: 10, stream: 'registry/x', type: 'set', data: { [TOKEN]: 'value', other: 1 }, context: ctx },
    // data that is not a plain object, members JSON leaves out, a toJSON
    { seq: 11, time: 11, stream: 'bus', type: 'list', data: [1, 'two', { three: 3 }] as unknown as Record<string, unknown>, context: ctx },
    { seq: 12, time: 12, stream: 'bus', type: 'odd', data: { skip: undefined, fn: () => 1, when: new Date(0), nan: NaN }, context: ctx },
    { seq: 13, time: 13, stream: 'bus', type: 'scalar', data: 'just text' as unknown as Record<string, unknown>, context: ctx },
    // nested deeper than JSON.stringify goes
    { seq: 14, time: 14, stream: 'bus', type: 'deep', data: { deep }, context: ctx },
    // a change without an origin, one with more in its data, one with its fields in another order
    { seq: 17, time: 17, stream: 'entity/sensor.c', type: 'state_changed', data: { entity_id: 'sensor.c', old_state: null, new_state: state('sensor.c', 'x') }, context: { id: 'c', parent_id: 'p', user_id: null } },
    { seq: 18, time: 18, stream: 'entity/sensor.c', type: 'state_changed', data: { entity_id: 'sensor.c', old_state: null, new_state: state('sensor.c', 'y'), more: 1 }, context: ctx },
    { time: 19, seq: 19, stream: 'entity/sensor.c', type: 'state_changed', data: { entity_id: 'sensor.c', new_state: state('sensor.c', 'z'), old_state: null }, context: ctx } as EventRecord,
    // a state_reported record and a removal
    { seq: 15, time: 15, stream: 'entity/sensor.a', type: 'state_reported', data: { entity_id: 'sensor.a', old_last_reported: 1, new_state: a3 }, context: ctx, origin: 'LOCAL' },
    { seq: 16, time: 16, stream: 'entity/sensor.a', type: 'state_changed', data: { entity_id: 'sensor.a', old_state: a3, new_state: null }, context: ctx, origin: 'LOCAL' },
  ];
  const payloads = new ExportPayloads();
  const reference = new Redactor();
  for (const record of records) {
    if (record.stream.startsWith('auth/')) {
      payloads.learn(record);
      reference.learn(record);
      continue;
    }
    const want = replayText(reference, record);
    t.equal(payloads.text(record), want, `record ${record.seq} (${record.type})`);
  }
  // what the hiding looks like, so the reference itself is not wrong the same way
  const text = (seq: number) => JSON.parse(payloads.text(records.find((r) => r.seq === seq)!));
  t.equal(text(8).data.new_state.attributes.note, 'quoted *** and ***', 'both learnt tokens hidden in a state kept from before');
  t.equal(text(6).data.old_state.attributes.access_token, '***', 'a secret attribute hidden');
  t.equal(text(6).data.new_state.attributes.entity_picture, '/api/camera_proxy/camera.door?token=***', 'and its value wherever it is quoted');
  t.same(text(9).data, { webhook_id: '***', list: [{ password: '***' }] });
});

t.test('a state the log wrote is reused, not written again', async (t) => {
  const s1 = state('sensor.b', '1');
  const s2 = state('sensor.b', '2');
  // the log's encoding of the record that makes s2 keeps s2's text
  encodeRecord({ time: 1, stream: 'entity/sensor.b', type: 'state_changed', data: { entity_id: 'sensor.b', old_state: s1, new_state: s2 }, context: ctx, inherit: { field: 'old_state', from: 'new_state' } });
  const payloads = new ExportPayloads();
  const record: EventRecord = { seq: 2, time: 1, stream: 'entity/sensor.b', type: 'state_changed', data: { entity_id: 'sensor.b', old_state: s1, new_state: s2 }, context: ctx };
  const first = payloads.text(record);
  t.equal(first, JSON.stringify(record));
  // states are never changed once made: a changed one would show its old text, which proves reuse
  (s2 as { state: string }).state = 'changed behind the exporter’s back';
  t.equal(JSON.parse(payloads.text({ ...record, seq: 3 })).data.new_state.state, '2', 'the kept text is what is sent');
});
