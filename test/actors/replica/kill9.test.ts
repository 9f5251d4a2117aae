// kill -9 of a primary in the middle of a burst of writes: the stream ends up holding every
// acknowledged write exactly once, nothing the primary's log does not hold, in commit order; and
// a replica that follows through the crash and the restart serves every acknowledged write.
import t from 'tap';
import { spawnHearth } from '../../helpers/process.ts';
import { api, dataDirWith, onboard } from '../../helpers/hearth.ts';
import { startTestReplica } from '../../helpers/replica.ts';
import { natsFor, streamMessages } from '../../helpers/nats.ts';
import { openEventLog } from '../../../store/log.ts';
import { join } from 'node:path';
import { eventually } from '../../helpers/wait.ts';

t.test('kill -9 mid-burst: exactly the acknowledged records, once each', async (t) => {
  const nats = await natsFor(t);
  const dataDir = await dataDirWith(`recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:${nats.port}]\n`);
  const first = await spawnHearth(['--port', '0', '--host', '127.0.0.1', '--data', dataDir]);
  t.teardown(() => first.child.kill('SIGKILL'));
  const tokens = await onboard(first.base);
  const replica = await startTestReplica(t, nats.port);
  const rest = api(first.base, tokens.access_token);

  // eight writers, each counting up on its own sensor, until the primary dies under them
  const acked = new Map<string, number>();
  let total = 0;
  const writer = async (w: number) => {
    for (let i = 1; ; i++) {
      try {
        const res = await rest('POST', `/api/states/sensor.burst_${w}`, { state: String(i) });
        if (res.status !== 200 && res.status !== 201) return;
        acked.set(`sensor.burst_${w}`, i);
        total++;
      } catch {
        return; // the connection died with the process
      }
    }
  };
  const writers = Array.from({ length: 8 }, (_, w) => writer(w));
  await eventually('a few hundred acknowledged writes', () => total >= 300);
  first.child.kill('SIGKILL');
  await first.exited;
  await Promise.all(writers);
  t.ok(total >= 300, `${total} writes acknowledged before the kill`);

  // what the stream holds now is what the primary committed: never a record it does not have
  const log = await openEventLog({ path: join(dataDir, 'log') });
  const bySeq = new Map<number, { stream: string; type: string; data: unknown }>();
  for await (const r of log.read()) bySeq.set(r.seq, r);
  await log.close();
  const before = await streamMessages(nats.port);
  t.ok(before.every((m) => bySeq.has(m.payload.seq) && JSON.stringify(bySeq.get(m.payload.seq)!.data) === JSON.stringify(m.payload.data)), 'every message of the stream is a committed record, as committed');

  // restarted, the primary exports what was committed and not yet exported, once
  const second = await spawnHearth(['--port', '0', '--host', '127.0.0.1', '--data', dataDir]);
  t.teardown(() => second.child.kill('SIGKILL'));
  const committed = [...bySeq.entries()].filter(([, r]) => !r.stream.startsWith('auth/')).map(([seq]) => seq);
  const lastCommitted = committed[committed.length - 1];
  await eventually('the restarted primary to export the rest', async () => (await streamMessages(nats.port)).some((m) => m.payload.seq >= lastCommitted), 60_000);
  const after = (await streamMessages(nats.port)).filter((m) => m.payload.seq <= lastCommitted);
  t.same(after.map((m) => m.payload.seq), committed, 'the stream holds the committed records once each, in commit order');
  for (const [entity, value] of acked) {
    t.ok(after.some((m) => m.payload.data?.entity_id === entity && m.payload.data.new_state?.state === String(value)), `${entity}=${value} (acknowledged) is in the stream`);
  }

  await eventually('the replica to follow through the crash', () => replica.replica.follower.applied >= lastCommitted, 60_000);
  const states = (await api(replica.base, tokens.access_token)('GET', '/api/states')).json as Array<{ entity_id: string; state: string }>;
  for (const [entity, value] of acked) {
    const served = Number(states.find((s) => s.entity_id === entity)?.state);
    t.ok(served >= value, `the replica serves ${entity} at ${served}, at least the acknowledged ${value}`);
  }
  const seqs: number[] = [];
  for await (const r of replica.replica.log.read()) seqs.push(r.seq);
  t.same(seqs, [...new Set(seqs)].sort((a, b) => a - b), 'the replica applied no record twice');
});
