// The exporter's bursts against a REAL nats-server: only the last message of a burst asks for an
// ack, and every message names the stream seq it must follow, so a record JetStream refuses
// stops the export there with nothing after it stored; the refusal is logged with its record.
import t, { type Test } from 'tap';
import { connect } from 'nats';
import { openEventLog } from '../../../store/log.ts';
import { NatsExporter } from '../../../actors/export/nats-exporter.ts';
import type { EventLog, NewEvent } from '../../../store/types.ts';
import { natsFor } from '../../helpers/nats.ts';
import { eventually } from '../../helpers/wait.ts';

const ctx = { id: 'ctx', parent_id: null, user_id: null };
const write = (i: number, size = 10): NewEvent => ({ time: 1700000000000 + i, stream: `entity/sensor.b_${i % 3}`, type: 'state_changed', data: { entity_id: `sensor.b_${i % 3}`, old_state: null, new_state: { state: String(i), attributes: { pad: 'x'.repeat(size) } } }, context: ctx, origin: 'LOCAL' });

interface Raw {
  seq: number;
  subject: string;
  headers: string[];
  data: string;
}

/** Every message of `stream`, raw, in stream order. */
async function rawMessages(port: number, stream: string): Promise<Raw[]> {
  const nc = await connect({ servers: `127.0.0.1:${port}`, reconnect: false });
  try {
    const jsm = await nc.jetstreamManager();
    const { state } = await jsm.streams.info(stream);
    const out: Raw[] = [];
    for (let seq = state.first_seq; state.messages > 0 && seq <= state.last_seq; seq++) {
      const m = await jsm.streams.getMessage(stream, { seq });
      const headers = [...(m.header?.keys() ?? [])].sort().map((k) => `${k}: ${m.header.get(k)}`);
      out.push({ seq: m.seq, subject: m.subject, headers, data: new TextDecoder().decode(m.data) });
    }
    return out;
  } finally {
    await nc.close();
  }
}

function exporter(t: Test, log: EventLog, port: number, stream: string, options: { rawPublish?: boolean } = {}) {
  const lines: string[] = [];
  const ex = new NatsExporter({
    log,
    config: { servers: [`nats://127.0.0.1:${port}`], stream, subject_prefix: stream, lag_warning: 1_000_000, snapshot_every: 1_000_000 },
    writeLag: async () => {},
    statusPath: `${t.testdir()}/export-nats.json`,
    warn: (line) => lines.push(line),
    info: (line) => lines.push(line),
    ...options,
  });
  ex.start();
  t.teardown(() => ex.stop());
  return { ex, lines };
}


t.test('a record JetStream refuses stops the export at it, and the export goes on once it is taken', async (t) => {
  const nats = await natsFor(t);
  const nc = await connect({ servers: `127.0.0.1:${nats.port}` });
  t.teardown(() => nc.close());
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'b1', subjects: ['b1.>'], max_msg_size: 2000 });

  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  const { ex, lines } = exporter(t, log, nats.port, 'b1');
  await log.append([write(1), write(2)]);
  await eventually('the first records out', () => ex.acked === 2);
  // one commit, one burst: the big record in the middle of it
  await log.append([write(3), write(4), write(5, 5000), write(6), write(7), write(8)]);
  await eventually('the refusal to be told with its record', () => lines.some((l) => /refused record 5 \(b1\.entity\.sensor\.b_2\)/.test(l)), 20_000);
  t.match(lines.find((l) => /refused record 5/.test(l)), /maximum|size/i, 'with JetStream’s reason');
  t.equal(ex.acked, 4, 'the position stops before the refused record');
  let messages = await rawMessages(nats.port, 'b1');
  t.same(messages.map((m) => m.headers.find((h) => h.startsWith('Nats-Msg-Id'))), ['Nats-Msg-Id: 1', 'Nats-Msg-Id: 2', 'Nats-Msg-Id: 3', 'Nats-Msg-Id: 4'], 'nothing after the refused record is stored, although it was sent in the same burst');
  t.equal(lines.filter((l) => /refused record 5/.test(l)).length, 1, 'the same refusal is logged once, not at every retry');

  // the stream takes bigger messages now: the export goes on from the refused record, in order, once each
  await jsm.streams.update('b1', { subjects: ['b1.>'], max_msg_size: 1_000_000 });
  await log.append([write(9)]);
  await eventually('the export to go on', () => ex.acked === 9, 20_000);
  messages = await rawMessages(nats.port, 'b1');
  t.same(messages.map((m) => Number(JSON.parse(m.data).seq)), [1, 2, 3, 4, 5, 6, 7, 8, 9], 'every record once, in commit order');
  t.same(messages.map((m) => m.seq), [1, 2, 3, 4, 5, 6, 7, 8, 9], 'with no gap in the stream');
  t.ok(lines.some((l) => /JetStream takes records again; exported up to seq [5-9]/.test(l)), 'the recovery is logged');
  t.notOk(lines.some((l) => /answers again/.test(l)), 'a reconnect after a refusal is not taken for a recovery');
});

t.test('a burst as protocol text and nats.js’s publish() store the same messages', async (t) => {
  const nats = await natsFor(t);
  const log = await openEventLog({ path: t.testdir() });
  t.teardown(() => log.close());
  const events: NewEvent[] = [];
  for (let i = 1; i <= 300; i++) events.push(i % 50 === 0 ? { time: i, stream: 'auth/user/u', type: 'created', data: { password_hash: 'h' }, context: ctx } : write(i, i % 7 === 0 ? 300 : 10));
  events.push({ time: 400, stream: 'bus', type: 'a b', data: { text: 'é ✓ \u0000 "q"' }, context: ctx });
  await log.append(events);
  const raw = exporter(t, log, nats.port, 'raw');
  const plain = exporter(t, log, nats.port, 'plain', { rawPublish: false });
  await eventually('both exporters to catch up', () => raw.ex.acked === log.lastSeq() && plain.ex.acked === log.lastSeq());
  const a = await rawMessages(nats.port, 'raw');
  const b = await rawMessages(nats.port, 'plain');
  t.equal(a.length, 301 - 6, 'every record but the auth ones');
  t.same(a.map((m) => ({ ...m, subject: m.subject.slice('raw'.length) })), b.map((m) => ({ ...m, subject: m.subject.slice('plain'.length) })), 'subjects, headers and payloads alike');
  t.same(a.slice(0, 3).map((m) => m.headers), [['Nats-Msg-Id: 1'], ['Nats-Expected-Last-Sequence: 1', 'Nats-Msg-Id: 2'], ['Nats-Expected-Last-Sequence: 2', 'Nats-Msg-Id: 3']], 'each message names the stream seq it follows (none for the first of an empty stream)');
  t.equal(JSON.parse(a[a.length - 1].data).data.text, 'é ✓ \u0000 "q"', 'UTF-8 payloads counted in bytes');
});
