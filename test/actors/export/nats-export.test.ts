// The log mirrored to a REAL nats-server's JetStream: order, subjects, msg ids, no auth records,
// an outage of NATS, a restart of Hearth, the lag entity, `hearth export status`, bad config.
import t, { type Test } from 'tap';
import { connect, nanos } from 'nats';
import { startHearth } from '../../../bin/instance.ts';
import { exportMain } from '../../../bin/export-cli.ts';
import { subjectOf } from '../../../actors/export/subjects.ts';
import { natsFor, streamMessages } from '../../helpers/nats.ts';
import { api, dataDirWith, onboard, startTestHearth, type TestHearth } from '../../helpers/hearth.ts';
import { eventually } from '../../helpers/wait.ts';

const exportConfig = (port: number) => `recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:${port}]\n      stream: hearth\n      subject_prefix: hearth\n      lag_warning: 20\n`;

async function caughtUp(h: TestHearth): Promise<number> {
  await eventually('the exporter to catch up', () => h.hearth.exporter!.acked >= h.hearth.log.lastSeq());
  return h.hearth.exporter!.acked;
}

/** The stream holds exactly the non-auth records of the log up to `upTo`, in order, once each. */
async function assertMirror(t: Test, h: TestHearth, port: number, upTo: number) {
  const messages = (await streamMessages(port)).filter((m) => Number(m.msgId) <= upTo);
  const expected: Array<{ seq: number; stream: string; type: string }> = [];
  for await (const r of h.hearth.log.read({ lte: upTo })) if (!r.stream.startsWith('auth/')) expected.push(r);
  t.same(messages.map((m) => Number(m.msgId)), expected.map((r) => r.seq), 'every exported record once, in commit order');
  t.same(messages.map((m) => m.subject), expected.map((r) => subjectOf('hearth', r.stream, r.type)), 'subjects follow the mapping');
  t.ok(messages.every((m) => m.payload.seq === Number(m.msgId)), 'the msg id is the record seq');
  t.notOk(messages.some((m) => m.payload.stream.startsWith('auth/')), 'no auth record is exported');
  return messages;
}

async function status(dataDir: string) {
  let out = '';
  let err = '';
  const code = await exportMain(['status', '--data', dataDir, '--json'], (s) => (out += s), (s) => (err += s));
  return { code, err, json: code === 0 ? JSON.parse(out) : undefined };
}

t.test('the log is mirrored to JetStream through an outage of NATS and a restart of Hearth', async (t) => {
  const nats = await natsFor(t);
  const port = nats.port;
  // the stream made beforehand with a 100 ms duplicate window (the least JetStream takes): JetStream's msg-id dedupe cannot
  // hide a record the exporter sends twice, so "once each" below checks the exporter's position
  {
    const nc = await connect({ servers: `127.0.0.1:${port}` });
    await (await nc.jetstreamManager()).streams.add({ name: 'hearth', subjects: ['hearth.>'], duplicate_window: nanos(100) });
    await nc.close();
  }

  const dataDir = await dataDirWith(exportConfig(port));
  const h = await startTestHearth(t, { dataDir });
  const { access_token } = await onboard(h.base);
  const call = api(h.base, access_token);
  for (let i = 0; i < 20; i++) {
    const res = await call('POST', `/api/states/sensor.t_${i % 4}`, { state: String(i), attributes: { n: i } });
    t.ok(res.status === 200 || res.status === 201, `write ${i} answered`);
  }
  const fired = await call('POST', '/api/events/my event', { token: 'abcdefghijklmnopqrstuv', note: 'uses abcdefghijklmnopqrstuv' });
  t.equal(fired.status, 200);

  let upTo = await caughtUp(h);
  let messages = await assertMirror(t, h, port, upTo);
  t.ok(messages.some((m) => m.subject === 'hearth.entity.sensor.t_3' && m.payload.data.new_state.state === '19'), 'an entity write: hearth.entity.sensor.t_3');
  t.ok(messages.some((m) => m.subject === 'hearth.bus.core_started'), 'a bus event: hearth.bus.<type>');
  const mine = messages.find((m) => m.subject === 'hearth.bus.my~20event');
  t.ok(mine, 'a space in the event type is escaped as ~20');
  t.same(mine?.payload.data, { token: '***', note: 'uses ***' }, 'secret fields are redacted as hearth replay redacts them');

  // NATS goes away: writes go on, and answer
  await nats.kill();
  for (let i = 20; i < 50; i++) {
    const res = await call('POST', `/api/states/sensor.t_${i % 4}`, { state: String(i) });
    t.ok(res.status === 200 || res.status === 201, `write ${i} answered while NATS is down`);
  }
  await eventually('the unreachable warning', () => h.lines.some((l) => /NATS export: .* unreachable/.test(l)));
  await eventually('the lag entity to show the backlog', async () => Number((await call('GET', '/api/states/sensor.hearth_export_lag')).json?.state) >= 30);
  const during = await status(dataDir);
  t.equal(during.code, 0, during.err);
  t.equal(during.json.hearth, 'running');
  t.equal(during.json.lag, during.json.last_seq - during.json.position, 'status: lag = last seq - position');
  t.ok(during.json.lag >= 30, 'status shows the backlog');

  // the same server back on its store: nothing lost, nothing twice, order kept
  await nats.restart();
  upTo = await caughtUp(h);
  messages = await assertMirror(t, h, port, upTo);
  t.ok(messages.some((m) => m.subject === 'hearth.entity.sensor.t_1' && m.payload.data.new_state.state === '49'), 'the writes made during the outage are there');
  await eventually('the recovery line', () => h.lines.some((l) => /answers again/.test(l)));
  t.equal(h.lines.filter((l) => /records behind the log \(over lag_warning 20\)/.test(l)).length, 1, 'a lag over lag_warning is warned of once');
  await eventually('the caught-up line', () => h.lines.some((l) => /NATS export: caught up/.test(l)));
  const outage = h.lines.filter((l) => /unreachable/.test(l));
  t.equal(outage.length, 1, 'the outage is warned of once', { diagnostic: true, lines: outage });
  await eventually('the lag entity back to 0', async () => (await call('GET', '/api/states/sensor.hearth_export_lag')).json?.state === '0');

  // Hearth restarts: it resumes after the stream's last message
  await h.hearth.stop();
  const lastAtStop = h.hearth.log.lastSeq();
  const stopped = await status(dataDir);
  t.equal(stopped.code, 0);
  t.equal(stopped.json.hearth, 'stopped');
  t.equal(stopped.json.last_seq, lastAtStop, 'stopped: the last seq is read from the log');
  const lastMsg = Number((await streamMessages(port)).at(-1)!.msgId);
  t.ok(stopped.json.position >= lastMsg && stopped.json.position <= lastAtStop, 'stopped: the position is the last message exported (or a skipped auth record after it)');
  t.equal(stopped.json.lag, stopped.json.last_seq - stopped.json.position);
  let text = '';
  t.equal(await exportMain(['status', '--data', dataDir], (s) => (text += s), () => {}), 0);
  t.match(text, `hearth:    stopped`);
  t.match(text, `position:  ${stopped.json.position}\nlast seq:  ${lastAtStop}\nlag:       ${lastAtStop - stopped.json.position}\n`, 'the text form says the same');
  const again = await startTestHearth(t, { dataDir });
  const call2 = api(again.base, access_token);
  for (let i = 50; i < 60; i++) await call2('POST', `/api/states/sensor.t_${i % 4}`, { state: String(i) });
  upTo = await caughtUp(again);
  messages = await assertMirror(t, again, port, upTo);
  t.ok(messages.some((m) => m.subject === 'hearth.entity.sensor.t_1' && m.payload.data.new_state.state === '57'), 'writes after the restart are exported');
  const running = await status(dataDir);
  t.equal(running.json.hearth, 'running');
  t.ok(running.json.position <= running.json.last_seq);
});

t.test('a bad recorder: export: is refused with a message naming the key', async (t) => {
  const cases: Array<[string, RegExp]> = [
    ['recorder:\n  export:\n    nats:\n      servers: []\n', /recorder: export: nats: servers must be a non-empty list/],
    ['recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:4222]\n      stream: "a b"\n', /recorder: export: nats: stream must be a name/],
    ['recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:4222]\n      subject_prefix: "x.>"\n', /recorder: export: nats: subject_prefix/],
    ['recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:4222]\n      stram: hearth\n', /recorder: export: nats: unknown key "stram"/],
    ['recorder:\n  export:\n    kafka: {}\n', /recorder: export: unknown exporter "kafka"/],
    ['recorder:\n  export:\n    nats:\n      servers: ["not a url"]\n', /recorder: export: nats: servers: "not a url" is not a nats:\/\/host:port URL/],
  ];
  for (const [yaml, message] of cases) {
    const dataDir = await dataDirWith(yaml);
    await t.rejects(startHearth({ port: 0, host: '127.0.0.1', dataDir, log: () => {} }), message, message.source);
  }
  const none = await status(await dataDirWith());
  t.equal(none.code, 1);
  t.match(none.err, /no NATS export in .*recorder: export: nats: is not configured/);
});

t.test('a stream of that name taking other subjects is named in the warning, and nothing is published', async (t) => {
  const { port } = await natsFor(t);
  const nc = await connect({ servers: `127.0.0.1:${port}` });
  await (await nc.jetstreamManager()).streams.add({ name: 'hearth', subjects: ['other.>'] });
  await nc.close();
  const h = await startTestHearth(t, { config: exportConfig(port) });
  await eventually('the warning', () => h.lines.some((l) => l.includes('stream hearth exists without the subjects hearth.> (it takes ["other.>"])')));
  t.equal((await streamMessages(port)).length, 0, 'nothing published');
  t.equal(h.hearth.exporter!.connected, false);
});

t.test('a stream holding seqs past this log (another data directory) is refused by name', async (t) => {
  const { port } = await natsFor(t);
  const nc = await connect({ servers: `127.0.0.1:${port}` });
  await (await nc.jetstreamManager()).streams.add({ name: 'hearth', subjects: ['hearth.>'] });
  await nc.jetstream().publish('hearth.bus.x', '{}', { msgID: '999999' });
  await nc.close();
  const h = await startTestHearth(t, { config: exportConfig(port) });
  await eventually('the warning', () => h.lines.some((l) => l.includes('stream hearth already holds seq 999999, past this log')));
  t.equal((await streamMessages(port)).length, 1, 'nothing published');
});
