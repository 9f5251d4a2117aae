// The outside of bench/mqtt-ingest.ts, each in a process of its own so none shares an event loop
// with Hearth or with the others: the devices (an MQTT.js publisher: discovery, then state messages
// at a rate), the raw baseline (an MQTT.js subscriber that only counts and times what it gets), and
// a dashboard (a `ws` client with subscribe_entities, authenticated with a long-lived token). The
// parent drives each with commands over IPC; times are performance.timeOrigin + performance.now().
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import mqtt, { type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import { isMain, now, sleep } from './common.ts';

export const DEVICES = Number(process.env.HEARTH_MQTT_DEVICES ?? 1000);
/** the sensors of a device, as zigbee2mqtt discovers a weather sensor (last_seen as epoch ms) */
export const FIELDS = ['temperature', 'humidity', 'pressure', 'linkquality', 'last_seen'] as const;
const Z2M_ORIGIN = { name: 'Zigbee2MQTT', sw: '2.1.0', url: 'https://www.zigbee2mqtt.io' };
const SENSOR_OPTIONS: Record<(typeof FIELDS)[number], Record<string, unknown>> = {
  temperature: { device_class: 'temperature', state_class: 'measurement', unit_of_measurement: '°C' },
  humidity: { device_class: 'humidity', state_class: 'measurement', unit_of_measurement: '%' },
  pressure: { device_class: 'pressure', state_class: 'measurement', unit_of_measurement: 'hPa' },
  linkquality: { icon: 'mdi:signal', entity_category: 'diagnostic', state_class: 'measurement', unit_of_measurement: 'lqi', name: 'Linkquality' },
  // zigbee2mqtt's last_seen (with `last_seen: epoch`): the bench reads the send time back from it
  last_seen: { icon: 'mdi:clock', entity_category: 'diagnostic', name: 'Last seen' },
};

export const deviceName = (d: number) => `dev_${String(d).padStart(4, '0')}`;
const ieee = (d: number) => `0x00158d0001${d.toString(16).padStart(6, '0')}`;

/** The retained discovery messages of one device: topic and payload of each of its sensors. */
export function discoveryOf(d: number): Array<[string, string]> {
  const name = deviceName(d);
  const device = { identifiers: [`zigbee2mqtt_${ieee(d)}`], name, model: 'Temperature, humidity and pressure sensor', model_id: 'WSDCGQ11LM', manufacturer: 'Aqara', via_device: 'zigbee2mqtt_bridge_0x00124b00120144ae' };
  return FIELDS.map((f) => [
    `homeassistant/sensor/${ieee(d)}/${f}/config`,
    JSON.stringify({
      ...SENSOR_OPTIONS[f],
      value_template: `{{ value_json.${f} }}`,
      state_topic: `zigbee2mqtt/${name}`,
      object_id: `${name}_${f}`,
      default_entity_id: `sensor.${name}_${f}`,
      unique_id: `${ieee(d)}_${f}_zigbee2mqtt`,
      origin: Z2M_ORIGIN,
      device,
      availability: [{ topic: 'zigbee2mqtt/bridge/state', value_template: '{{ value_json.state }}' }],
      enabled_by_default: true,
    }),
  ]);
}

/** A device's state payload for its k-th distinct reading, stamped with the send time. */
function statePayload(k: number, sent: number): string {
  const t = (15 + (k % 1500) / 100).toFixed(2);
  const h = (30 + (k % 500) / 10).toFixed(1);
  const p = (980 + (k % 700) / 10).toFixed(1);
  return `{"temperature":${t},"humidity":${h},"pressure":${p},"linkquality":${k % 256},"last_seen":${sent.toFixed(3)}}`;
}

/** What the parent asks of the publisher for one step. */
export interface PublishStep {
  /** `zigbee2mqtt` for Hearth, `raw` for the raw subscriber (Hearth does not listen there) */
  prefix: string;
  /** messages per second, 0 for as fast as the publisher goes */
  rate: number;
  /** messages in the step */
  messages: number;
  /** the share of messages that repeat their device's previous payload byte for byte */
  unchanged: number;
}

export interface PublishResult {
  first: number;
  last: number;
  messages: number;
  /** messages with new values (the rest repeated the previous one) */
  changed: number;
}

// ---- the child's side ------------------------------------------------------------------------

type Role = 'publisher' | 'raw' | 'ws';

async function publisher(url: string) {
  const c = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  const last = new Map<string, string>();
  const k = new Int32Array(DEVICES);
  let seed = 12345;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  let device = 0;
  const next = (prefix: string, unchanged: number, force: boolean): boolean => {
    const d = device;
    device = (device + 1) % DEVICES;
    const topic = `${prefix}/${deviceName(d)}`;
    const old = last.get(topic);
    if (old !== undefined && !force && random() < unchanged) {
      c.publish(topic, old, { qos: 0, retain: false });
      return false;
    }
    const payload = statePayload(++k[d], now());
    last.set(topic, payload);
    c.publish(topic, payload, { qos: 0, retain: false });
    return true;
  };
  return {
    async discovery(): Promise<number> {
      await c.publishAsync('zigbee2mqtt/bridge/state', '{"state":"online"}', { qos: 1, retain: true });
      let n = 0;
      // 100 devices' configs in flight at a time
      for (let d = 0; d < DEVICES; d += 100) {
        const configs = Array.from({ length: Math.min(100, DEVICES - d) }, (_, i) => discoveryOf(d + i)).flat();
        await Promise.all(configs.map(([topic, payload]) => c.publishAsync(topic, payload, { qos: 1, retain: true })));
        n += configs.length;
      }
      return n;
    },
    /** One changed message per device (the warm-up). */
    async each(prefix: string): Promise<PublishResult> {
      return this.step({ prefix, rate: 0, messages: DEVICES, unchanged: 0 });
    },
    async step(s: PublishStep): Promise<PublishResult> {
      device = 0;
      let changed = 0;
      const first = now();
      let sent = 0;
      // the last message is always a change: once it is handled, every one before it is
      const one = () => {
        if (next(s.prefix, s.unchanged, sent === s.messages - 1)) changed++;
        sent++;
      };
      if (s.rate === 0) {
        // as fast as the socket takes them: a slice per turn, waiting for the stream to drain
        while (sent < s.messages) {
          const end = Math.min(s.messages, sent + 200);
          while (sent < end) one();
          const stream = (c as any).stream as NodeJS.WritableStream & { writableNeedDrain?: boolean };
          if (stream.writableNeedDrain) await new Promise((r) => stream.once('drain', r));
          else await new Promise((r) => setImmediate(r));
        }
      } else {
        while (sent < s.messages) {
          const due = Math.min(s.messages, Math.floor(((now() - first) / 1000) * s.rate) + 1);
          while (sent < due) one();
          if (sent < s.messages) await sleep(1);
        }
      }
      const last = now();
      // everything handed to the socket before answering
      while ((c as any).stream.writableLength > 0) await sleep(1);
      return { first, last, messages: sent, changed };
    },
    async close() {
      await c.endAsync(true);
    },
  };
}

/** Where a payload's last_seen stamp starts. */
const STAMP = '"last_seen":';

async function rawSubscriber(url: string) {
  const c = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  let count = 0;
  let lastAt = 0;
  const lastPayload = new Map<string, string>();
  const sentAt: number[] = [];
  const recvAt: number[] = [];
  c.on('message', (topic, payload) => {
    const at = now();
    count++;
    lastAt = at;
    // the latency of messages with new values (a repeated payload carries an old stamp)
    const text = payload.toString('latin1');
    if (lastPayload.get(topic) === text) return;
    lastPayload.set(topic, text);
    const i = text.indexOf(STAMP);
    if (i >= 0) {
      sentAt.push(parseFloat(text.slice(i + STAMP.length)));
      recvAt.push(at);
    }
  });
  await c.subscribeAsync('raw/#', { qos: 0 });
  return {
    reset() {
      count = 0;
      lastAt = 0;
      sentAt.length = 0;
      recvAt.length = 0;
    },
    /** waits until `expected` messages arrived (or `ms` passed without one) */
    async collect(expected: number, ms = 3000) {
      let seen = -1;
      let since = now();
      while (count < expected) {
        if (count !== seen) {
          seen = count;
          since = now();
        } else if (now() - since > ms) break;
        await sleep(5);
      }
      return { count, lastAt, latencies: recvAt.map((r, i) => r - sentAt[i]) };
    },
    async close() {
      await c.endAsync(true);
    },
  };
}

async function dashboard(port: number, token: string) {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket`, { perMessageDeflate: false });
  const sentAt: number[] = [];
  const recvAt: number[] = [];
  let changes = 0;
  let frames = 0;
  let closed = false;
  let subscribed!: () => void;
  const ready = new Promise<void>((r) => (subscribed = r));
  const event = (m: any) => {
    if (m.id !== 2 || m.type !== 'event') return;
    if (m.event.a) return subscribed();
    const at = now();
    for (const [id, diff] of Object.entries<any>(m.event.c ?? {})) {
      changes++;
      if (!id.endsWith('_last_seen') || !diff['+'] || diff['+'].s === undefined) continue;
      sentAt.push(parseFloat(diff['+'].s));
      recvAt.push(at);
    }
  };
  await new Promise<void>((resolve, reject) => {
    ws.on('error', reject);
    ws.on('close', () => (closed = true));
    ws.on('message', (data: Buffer) => {
      const msg = JSON.parse(data.toString('utf8'));
      if (!Array.isArray(msg) && msg.type === 'auth_required') return ws.send(JSON.stringify({ type: 'auth', access_token: token }));
      if (!Array.isArray(msg) && msg.type === 'auth_ok') return resolve();
      if (!Array.isArray(msg) && msg.type === 'auth_invalid') return reject(new Error(msg.message));
      frames++;
      for (const m of Array.isArray(msg) ? msg : [msg]) {
        if (m.type === 'result' && !m.success) process.stderr.write(`dashboard: ${JSON.stringify(m)}\n`);
        event(m);
      }
    });
  });
  // a dashboard: every entity, coalesced frames as the frontend asks for them
  ws.send(JSON.stringify({ id: 1, type: 'supported_features', features: { coalesce_messages: 1 } }));
  ws.send(JSON.stringify({ id: 2, type: 'subscribe_entities' }));
  await Promise.race([ready, sleep(30_000).then(() => Promise.reject(new Error(`no subscribe_entities snapshot within 30 s (${frames} frames)`)))]);
  return {
    reset() {
      sentAt.length = 0;
      recvAt.length = 0;
      changes = 0;
      frames = 0;
    },
    /** waits until `expected` last_seen changes arrived (or `ms` passed without one) */
    async collect(expected: number, ms = 3000) {
      let seen = -1;
      let since = now();
      while (sentAt.length < expected && !closed) {
        if (sentAt.length !== seen) {
          seen = sentAt.length;
          since = now();
        } else if (now() - since > ms) break;
        await sleep(5);
      }
      return { stamped: sentAt.length, changes, frames, closed, latencies: recvAt.map((r, i) => r - sentAt[i]) };
    },
    async close() {
      ws.terminate();
    },
  };
}

if (isMain(import.meta.url) && process.argv.includes('--mqtt-load')) {
  let api: Record<string, (...args: any[]) => Promise<unknown> | unknown> | undefined;
  process.on('message', async (m: any) => {
    try {
      let result: unknown;
      if (m.call === 'start') {
        const role = m.args[0] as Role;
        api = role === 'publisher' ? await publisher(m.args[1]) : role === 'raw' ? await rawSubscriber(m.args[1]) : await dashboard(m.args[1], m.args[2]);
        result = true;
      } else result = await api![m.call](...m.args);
      process.send!({ id: m.id, result });
      if (m.call === 'close') process.disconnect();
    } catch (err) {
      process.send!({ id: m.id, error: (err as Error)?.stack ?? String(err) });
    }
  });
}

// ---- the parent's side -----------------------------------------------------------------------

/** A process of this module, driven by calls. */
export class LoadProcess {
  private readonly child: ChildProcess;
  private seq = 0;
  private readonly waiting = new Map<number, { resolve: (v: any) => void; reject: (e: Error) => void }>();

  constructor(readonly role: Role) {
    this.child = fork(fileURLToPath(import.meta.url), ['--mqtt-load'], { execArgv: ['--import=tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    this.child.on('message', (m: any) => {
      const w = this.waiting.get(m.id);
      if (!w) return;
      this.waiting.delete(m.id);
      if (m.error) w.reject(new Error(`${role}: ${m.error}`));
      else w.resolve(m.result);
    });
    this.child.on('exit', (code) => {
      for (const w of this.waiting.values()) w.reject(new Error(`${role} exited with ${code}`));
      this.waiting.clear();
    });
  }

  call<T = any>(name: string, ...args: unknown[]): Promise<T> {
    const id = ++this.seq;
    return new Promise<T>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.child.send({ id, call: name, args });
    });
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    await Promise.race([this.call('close').catch(() => undefined), sleep(2000)]);
    if (this.child.exitCode === null) this.child.kill('SIGKILL');
    await exited;
  }
}
