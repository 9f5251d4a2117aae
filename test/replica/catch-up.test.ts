// A replica far behind its stream (more messages than it reads in one batch) catches up a batch at
// a time and then follows the live tail: its log ends up holding every record of the stream, once,
// in order, with the primary's seqs, and records published afterwards still reach it.
import t from 'tap';
import { connect, type PubAck } from 'nats';
import { subjectOf } from '../../actors/export/subjects.ts';
import { startTestReplica } from '../helpers/replica.ts';
import { natsFor, until } from '../helpers/nats.ts';
import type { EventRecord } from '../../store/types.ts';

const ENTITIES = 40;

/** Record `seq` as the primary's exporter publishes it (a state_changed with its old and new state). */
function recordAt(seq: number, oldState?: unknown): EventRecord {
  const entityId = `sensor.catch_up_${seq % ENTITIES}`;
  const context = { id: `ctx-${seq}`, parent_id: null, user_id: null };
  const state = (n: number) => ({ entity_id: entityId, state: String(n), attributes: { unit_of_measurement: 'W' }, last_changed: 1_700_000_000_000 + n, last_reported: 1_700_000_000_000 + n, last_updated: 1_700_000_000_000 + n, context });
  return { seq, time: 1_700_000_000_000 + seq, stream: `entity/${entityId}`, type: 'state_changed', data: { entity_id: entityId, old_state: oldState !== undefined ? oldState : seq > ENTITIES ? state(seq - ENTITIES) : null, new_state: state(seq) }, context, origin: 'LOCAL' };
}

async function publish(port: number, from: number, to: number, make: (seq: number) => EventRecord = recordAt): Promise<void> {
  const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.info('hearth').catch(() => jsm.streams.add({ name: 'hearth', subjects: ['hearth.>'] }));
    const js = nc.jetstream();
    const acks: Promise<PubAck>[] = [];
    for (let seq = from; seq <= to; seq++) {
      const r = make(seq);
      acks.push(js.publish(subjectOf('hearth', r.stream, r.type), JSON.stringify(r), { msgID: String(seq) }));
      if (acks.length >= 500) await Promise.all(acks.splice(0));
    }
    await Promise.all(acks);
  } finally {
    await nc.close();
  }
}

t.test('a replica 5,000 messages behind catches up a batch at a time, then follows the tail', async (t) => {
  const nats = await natsFor(t);
  await publish(nats.port, 1, 5000);
  const { replica } = await startTestReplica(t, nats.port);
  await until('the replica to apply seq 5000', () => replica.follower.applied >= 5000, 60_000);

  await publish(nats.port, 5001, 5010);
  await until('the replica to apply the live records', () => replica.follower.applied >= 5010);

  // an old state that is not the stream's previous new state (the replica must not store it as a reference to it)
  const odd = { entity_id: 'sensor.catch_up_11', state: 'elsewhere', attributes: {}, last_changed: 1, last_reported: 1, last_updated: 1, context: { id: 'odd', parent_id: null, user_id: null } };
  await publish(nats.port, 5011, 5011, (seq) => recordAt(seq, odd));
  await until('the replica to apply the odd record', () => replica.follower.applied >= 5011);

  const records: EventRecord[] = [];
  for await (const r of replica.log.read({ lte: 5010 })) records.push(r);
  t.equal(records.length, 5010, 'every record once');
  t.same(records.map((r) => r.seq), Array.from({ length: 5010 }, (_, i) => i + 1), 'the primary\'s seqs, in order');
  t.same(records[4999], recordAt(5000), 'a record as the primary published it');
  t.same(records[5009], recordAt(5010), 'a live record after the catch-up');
  const fromMiddle: EventRecord[] = [];
  for await (const r of replica.log.read({ gt: 4990, lte: 4991 })) fromMiddle.push(r);
  t.same(fromMiddle, [recordAt(4991)], 'a record read alone has its whole old state');
  const odd5011: EventRecord[] = [];
  for await (const r of replica.log.read({ gt: 5010 })) odd5011.push(r);
  t.same(odd5011, [recordAt(5011, odd)], 'an old state that is not the previous new state is kept as published');
  const status = replica.status();
  t.equal(status.seq, 5011);
  t.equal(status.stream_seq, 5011);
  t.equal(status.pending, 0);
});
