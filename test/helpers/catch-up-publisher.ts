// Publishes records <from>..<to> to stream `hearth` as protocol text without waiting for acks (as
// the exporter's bursts go out), in a process of its own: the test that runs it waits for it
// synchronously, so a replica in the test's process reads nothing until all of them are stored.
// argv: <nats port> <from> <to>.
import { connect } from 'nats';
import { BurstWriter } from '../../actors/export/burst-writer.ts';
import { subjectOf } from '../../actors/export/subjects.ts';
import { recordAt } from './catch-up-records.ts';

const [port, from, to] = process.argv.slice(2).map(Number);
const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false });
const writer = new BurstWriter(nc);
for (let seq = from; seq <= to; seq++) {
  const r = recordAt(seq);
  writer.add({ subject: subjectOf('hearth', r.stream, r.type), headers: [['Nats-Msg-Id', String(seq)]], payload: JSON.stringify(r) });
  if (seq % 5000 === 0) writer.flush();
}
writer.flush();
await nc.flush();
// the stream has stored them all once its last seq is `to`
const jsm = await nc.jetstreamManager();
for (let tries = 0; (await jsm.streams.info('hearth')).state.last_seq < to; tries++) {
  if (tries > 600) throw new Error(`stream hearth did not reach seq ${to}`);
  await new Promise((r) => setTimeout(r, 50));
}
await nc.close();
