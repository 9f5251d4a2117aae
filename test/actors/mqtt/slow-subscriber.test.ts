// One WebSocket subscriber that stops reading never slows MQTT ingest: while 5,000 state messages
// arrive, Hearth commits every one, a subscriber that reads gets every change, and the one that
// does not is held within the connection's bound (gateway/ws/connection.ts: maxBufferedBytes, what
// uWS may hold for it) — past it, dropped with a log line; under it, everything waits for it and
// arrives once it reads again.
import t, { type Test } from 'tap';
import { connectAsync } from 'mqtt';
import { startMosquitto } from '../../helpers/mosquitto.ts';
import { startTestHearth, onboard } from '../../helpers/hearth.ts';
import { authedClient, type RawClient } from '../../helpers/ws.ts';
import { eventually } from '../../helpers/mqtt.ts';

const SENSORS = 50;
const MESSAGES = 5000;
/** each change carries about 2 KiB of attributes: 5,000 of them (10 MB) are more than the kernel's socket buffers hold */
const PAD = 'x'.repeat(2048);

const entityId = (i: number) => `sensor.flow_${i}`;

async function scene(t: Test, wsLimits?: { maxBufferedBytes: number }, pad = PAD) {
  const broker = await startMosquitto(t);
  const h = await startTestHearth(t, { config: `mqtt:\n  broker: 127.0.0.1\n  port: ${broker.port}\n`, ...(wsLimits ? { wsLimits } : {}) });
  let committed = 0;
  h.hearth.log.onCommit((records) => {
    for (const r of records) if (r.type === 'state_changed' && r.stream.startsWith('entity/sensor.flow_') && r.data.old_state !== null) committed++;
  });
  const device = await connectAsync(broker.url);
  t.teardown(() => device.endAsync(true));
  const { access_token } = await onboard(h.base);
  await eventually(() => h.lines.some((l) => l.startsWith('Connected to MQTT server')), 'Hearth connected');
  for (let i = 0; i < SENSORS; i++) {
    await device.publishAsync(
      `homeassistant/sensor/flow_${i}/config`,
      JSON.stringify({ name: `Flow ${i}`, unique_id: `flow_${i}`, default_entity_id: entityId(i), state_topic: `flow/${i}`, value_template: '{{ value_json.v }}', json_attributes_topic: `flow/${i}` }),
      { qos: 1, retain: true },
    );
  }
  await eventually(async () => {
    const r = await fetch(`${h.base}/api/states`, { headers: { Authorization: `Bearer ${access_token}` } });
    const states = (await r.json()) as Array<{ entity_id: string }>;
    return states.filter((s) => s.entity_id.startsWith('sensor.flow_')).length === SENSORS;
  }, 'the sensors discovered');
  // the broker has their subscriptions once a message through each comes back as a state
  await eventually(async () => {
    await device.publishAsync(`flow/${SENSORS - 1}`, JSON.stringify({ v: 'ready' }));
    const r = await fetch(`${h.base}/api/states/${entityId(SENSORS - 1)}`, { headers: { Authorization: `Bearer ${access_token}` } });
    return ((await r.json()) as { state: string }).state === 'ready';
  }, 'the sensors subscribed');
  const subscriber = async () => {
    const c = await authedClient(h.base, access_token);
    c.send({ id: 1, type: 'subscribe_entities', entity_ids: Array.from({ length: SENSORS }, (_, i) => entityId(i)) });
    t.equal((await c.next()).success, true);
    t.equal(Object.keys((await c.next()).event.a).length, SENSORS, 'the current states first');
    return c;
  };
  const slow = await subscriber();
  const fast = await subscriber();
  const before = committed;
  // the slow client's socket stops reading: what Hearth sends it can only pile up
  (slow.ws as any)._socket.pause();
  const published = (async () => {
    for (let n = 0; n < MESSAGES; n++) {
      const i = n % SENSORS;
      // the pad differs each time: subscribe_entities sends only what changed
      device.publish(`flow/${i}`, JSON.stringify({ v: n, pad: `${n}${pad}` }));
      // Mosquitto drops QoS 0 messages past 1,000 queued for a subscriber (max_queued_messages):
      // Hearth is kept within that, so every message reaches it and the count says what it did
      if (n % 200 === 199) await eventually(() => committed - before >= n - 600, `message ${n - 600} committed`, 30_000);
    }
  })();
  /** the changes a client got, counted until it has them all or nothing more comes */
  const changesOf = async (c: RawClient) => {
    let got = 0;
    for (;;) {
      let m;
      try {
        m = await c.next(5000);
      } catch {
        return got;
      }
      if (m.type === 'event' && m.event.c) got += Object.keys(m.event.c).length;
      if (got >= MESSAGES) return got;
    }
  };
  const fastGot = await changesOf(fast);
  await published;
  await eventually(() => committed - before >= MESSAGES, 'every message committed', 30_000);
  return { h, slow, fast, fastGot, committed: () => committed - before, access_token };
}

t.test('a subscriber past its bound is dropped; ingest and the other subscriber never wait for it', async (t) => {
  const { h, slow, fast, fastGot, committed, access_token } = await scene(t, { maxBufferedBytes: 256 * 1024 });
  t.equal(committed(), MESSAGES, 'Hearth committed every message');
  t.equal(fastGot, MESSAGES, 'the subscriber that reads got every change');
  const last = await (await fetch(`${h.base}/api/states/${entityId((MESSAGES - 1) % SENSORS)}`, { headers: { Authorization: `Bearer ${access_token}` } })).json();
  t.equal((last as { state: string }).state, String(MESSAGES - 1), 'REST has the last value');
  t.ok(h.lines.some((l) => /unable to keep up with pending messages/.test(l)), 'a log line says the slow subscriber was dropped');
  (slow.ws as any)._socket.resume();
  const closed = await Promise.race([slow.closed, new Promise((r) => setTimeout(() => r('still open'), 10_000))]);
  t.not(closed, 'still open', 'the slow subscriber was disconnected');
  slow.ws.terminate();
  fast.ws.close();
});

t.test('under the default bound the slow subscriber is held for, and gets everything once it reads', async (t) => {
  const { h, slow, fast, fastGot, committed } = await scene(t);
  t.equal(committed(), MESSAGES, 'Hearth committed every message');
  t.equal(fastGot, MESSAGES, 'the subscriber that reads got every change');
  t.notOk(h.lines.some((l) => /unable to keep up/.test(l)), 'nobody was dropped: about 10 MB is within the 16 MiB a connection may hold');
  (slow.ws as any)._socket.resume();
  let got = 0;
  while (got < MESSAGES) {
    const m = await slow.next(10_000);
    if (m.type === 'event' && m.event.c) got += Object.keys(m.event.c).length;
  }
  t.equal(got, MESSAGES, 'the slow subscriber, reading again, got every change in order');
  slow.ws.close();
  fast.ws.close();
});
