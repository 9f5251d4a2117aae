// A replica far behind its stream (more messages than it reads in one batch) catches up a batch at
// a time and then follows the live tail: its log ends up holding every record of the stream, once,
// in order, with the primary's seqs, and records published afterwards still reach it.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { connect, type PubAck } from 'nats';
import { subjectOf } from '../../../actors/export/subjects.ts';
import { startTestReplica } from '../../helpers/replica.ts';
import { natsFor } from '../../helpers/nats.ts';
import type { EventRecord } from '../../../store/types.ts';
import { recordAt } from '../../helpers/catch-up-records.ts';
import { eventually } from '../../helpers/wait.ts';

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
  await eventually('the replica to apply seq 5000', () => replica.follower.applied >= 5000, 60_000);

  await publish(nats.port, 5001, 5010);
  await eventually('the replica to apply the live records', () => replica.follower.applied >= 5010);

  // an old state that is not the stream's previous new state (the replica must not store it as a reference to it)
  const odd = { entity_id: 'sensor.catch_up_11', state: 'elsewhere', attributes: {}, last_changed: 1, last_reported: 1, last_updated: 1, context: { id: 'odd', parent_id: null, user_id: null } };
  await publish(nats.port, 5011, 5011, (seq) => recordAt(seq, odd));
  await eventually('the replica to apply the odd record', () => replica.follower.applied >= 5011);

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

t.test('a live replica that falls 20,000+ messages behind reads a batch at a time again, and misses nothing', async (t) => {
  const nats = await natsFor(t);
  await publish(nats.port, 1, 100);
  const { replica, lines } = await startTestReplica(t, nats.port);
  await eventually('the replica to follow the tail', () => replica.follower.applied >= 100);
  t.notOk(lines.some((l) => /reading them a batch at a time/.test(l)), 'a replica 100 behind follows the tail from the start');

  // published by another process while this one (and the replica in it) waits for it: when the
  // replica reads again, 60,000 messages are stored past its position, however fast it applies
  const TO = 60_100;
  execFileSync(process.execPath, ['--import=tsx', fileURLToPath(new URL('../../helpers/catch-up-publisher.ts', import.meta.url)), String(nats.port), '101', String(TO)], { stdio: ['ignore', 'inherit', 'inherit'], timeout: 100_000 });
  await eventually(`the replica to apply seq ${TO}`, () => replica.follower.applied >= TO, 120_000);
  t.ok(lines.some((l) => /replica: \d+ messages behind stream hearth; reading them a batch at a time/.test(l)), 'the switch to batch reads is logged');
  t.ok(lines.some((l) => /replica: caught up with stream hearth at message \d+; following it as it grows/.test(l)), 'and the way back to the tail');

  let count = 0;
  let expected = 1;
  let inOrder = true;
  for await (const r of replica.log.read()) {
    count++;
    if (r.seq !== expected++) inOrder = false;
  }
  t.equal(count, TO, 'every record once');
  t.ok(inOrder, 'with the primary\'s seqs, in order');
  const last: EventRecord[] = [];
  for await (const r of replica.log.read({ gt: TO - 1 })) last.push(r);
  t.same(last, [recordAt(TO)], 'the last record as it was published');

  // and the tail is followed live afterwards
  await publish(nats.port, TO + 1, TO + 5);
  await eventually('the live records after the catch-up', () => replica.follower.applied >= TO + 5);
});
