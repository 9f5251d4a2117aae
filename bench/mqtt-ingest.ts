// MQTT ingest: 1,000 zigbee2mqtt-like devices of 5 sensors each (5,000 entities discovered over a
// real Mosquitto), then state messages at increasing rates from a publisher process. Hearth (this
// process, durable commit) is measured by its committed records: messages handled per second, and
// message → subscribe_entities delivery over a real WebSocket (a dashboard in its own process).
// Beside it, in the same run: a raw MQTT.js subscriber (its own process) getting the same messages
// from the same publisher and broker, on topics Hearth does not listen to.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { connect as netConnect } from 'node:net';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import { freePort } from '../test/helpers/ports.ts';
import { isMain, ms, now, num, percentile, rateRow, removeDir, runAlone, sleep, tempDir, timeRow, type BenchOptions, type BenchResult, type Row } from './common.ts';
import { startBenchHearth } from './hearth.ts';
import { DEVICES, FIELDS, LoadProcess, type PublishResult } from './mqtt-load.ts';
import { hotSpotNotes, startProfile } from './profile.ts';

const ENTITIES = DEVICES * FIELDS.length;
/** progress on stderr with HEARTH_BENCH_VERBOSE=1 */
const say = (line: string) => process.env.HEARTH_BENCH_VERBOSE && process.stderr.write(`[mqtt-ingest ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const env = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
/** paced rates, messages per second */
const RATES = (process.env.HEARTH_MQTT_RATES ?? '1000,2000,5000,10000').split(',').map(Number);
const STEP_MS = env('HEARTH_MQTT_STEP_MS', 2000);
/** messages of the back-to-back step */
const FLOOD = env('HEARTH_MQTT_FLOOD', 10_000);
/** the most a step may take Hearth past its last message before it counts as not keeping up */
const DRAIN_MS = env('HEARTH_MQTT_DRAIN_MS', 20_000);

interface Broker {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/** Mosquitto on a free port: anonymous, no persistence, no cap on what it queues for a slow subscriber. */
async function startBroker(dir: string): Promise<Broker> {
  const port = await freePort();
  const conf = join(dir, 'mosquitto.conf');
  // run as ourselves (as root it would switch users); QoS 0 messages for a subscriber behind are queued, not dropped
  await writeFile(conf, [`user ${userInfo().username}`, `listener ${port} 127.0.0.1`, 'allow_anonymous true', 'persistence false', 'max_queued_messages 0', 'log_dest none', ''].join('\n'));
  const child: ChildProcess = spawn('/usr/sbin/mosquitto', ['-c', conf], { stdio: 'ignore' });
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`mosquitto exited with ${child.exitCode}`);
    const up = await new Promise<boolean>((ok) => {
      const s = netConnect(port, '127.0.0.1');
      s.once('connect', () => (s.destroy(), ok(true)));
      s.once('error', () => ok(false));
    });
    if (up) break;
    if (i > 100) throw new Error('mosquitto did not listen');
    await sleep(50);
  }
  return {
    port,
    url: `mqtt://127.0.0.1:${port}`,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** A long-lived access token, made over the WebSocket API as a user makes one in their profile. */
async function longLivedToken(port: number, accessToken: string): Promise<string> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket`);
  try {
    return await new Promise<string>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('message', (data) => {
        const m = JSON.parse(data.toString());
        if (m.type === 'auth_required') ws.send(JSON.stringify({ type: 'auth', access_token: accessToken }));
        else if (m.type === 'auth_ok') ws.send(JSON.stringify({ id: 1, type: 'auth/long_lived_access_token', client_name: 'mqtt-ingest bench', lifespan: 10 }));
        else if (m.id === 1) (m.success ? resolve(m.result) : reject(new Error(JSON.stringify(m.error))));
      });
    });
  } finally {
    ws.close();
  }
}

/** What Hearth committed: sensor state changes, counted as they commit. */
class Commits {
  created = 0;
  changes = 0;
  lastSeen = 0;
  lastSeenAt = 0;
  bad: string[] = [];
  constructor(onCommit: (l: (records: any[]) => void) => unknown) {
    onCommit((records) => {
      const at = now();
      for (const r of records) {
        if ((r.type === 'state_changed' || r.type === 'state_reported') && r.data.new_state && !r.data.new_state.context && this.bad.length < 5) this.bad.push(`${r.type} ${r.stream} ${JSON.stringify(r.data.new_state).slice(0, 300)}`);
        if (r.type !== 'state_changed' || !r.stream.startsWith('entity/sensor.dev_')) continue;
        if (r.data.old_state === null) this.created++;
        else this.changes++;
        if (r.stream.endsWith('_last_seen')) {
          this.lastSeen++;
          this.lastSeenAt = at;
        }
      }
    });
  }

  /** Waits until `n` last_seen changes are committed past `from`, or nothing more comes for `idleMs`. */
  async until(from: number, n: number, idleMs: number, capMs = Infinity): Promise<boolean> {
    const end = now() + capMs;
    let seen = -1;
    let since = now();
    while (this.lastSeen - from < n) {
      if (this.lastSeen !== seen) {
        seen = this.lastSeen;
        since = now();
      } else if (now() - since > idleMs) return false;
      if (now() > end) return false;
      await sleep(5);
    }
    return true;
  }
}

interface Lat {
  p50: number;
  p99: number;
  max: number;
  n: number;
}
const lat = (values: number[]): Lat => ({ p50: percentile(values, 50), p99: percentile(values, 99), max: values.length ? Math.max(...values) : NaN, n: values.length });

interface StepFigures {
  label: string;
  offered: number;
  messages: number;
  changed: number;
  raw: { rate: number; received: number; latency: Lat };
  hearth: { rate: number; handled: boolean; records: number; latency: Lat; deliveries: number; dropped: boolean };
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const started = now();
  const dir = await tempDir('mqtt-ingest');
  await mkdir(join(dir, 'broker'));
  const broker = await startBroker(join(dir, 'broker'));
  const h = await startBenchHearth({ config: `mqtt:\n  broker: 127.0.0.1\n  port: ${broker.port}\n` });
  const commits = new Commits((l) => h.hearth.log.onCommit(l));
  const token = await longLivedToken(h.port, h.token);
  const publisher = new LoadProcess('publisher');
  const raw = new LoadProcess('raw');
  const dashboard = new LoadProcess('ws');
  const notes: string[] = [];
  const rows: Row[] = [];
  try {
    await Promise.all([publisher.call('start', 'publisher', broker.url), raw.call('start', 'raw', broker.url)]);
    for (let i = 0; i < 200 && !h.lines.some((l) => l.includes('Connected to MQTT server')); i++) await sleep(50);

    // discovery: 5,000 retained configs, until every entity exists
    say('connected; publishing discovery');
    const t0 = now();
    const stopDiscoveryProfile = options.profile ? await startProfile() : undefined;
    await publisher.call('discovery');
    const published = now();
    say(`discovery published in ${ms(published - t0)}; ${commits.created} entities so far`);
    for (let i = 0; commits.created < ENTITIES && i < 2400; i++) await sleep(50);
    const discovered = now();
    if (stopDiscoveryProfile) notes.push(...hotSpotNotes('Hearth during discovery', await stopDiscoveryProfile()));
    if (commits.created < ENTITIES) throw new Error(`only ${commits.created} of ${ENTITIES} entities were discovered`);
    say(`discovered in ${ms(discovered - t0)}`);
    // warm-up: one message per device until each device's sensors are subscribed and written
    for (let attempt = 0; ; attempt++) {
      const from = commits.lastSeen;
      await publisher.call('each', 'zigbee2mqtt');
      const done = await commits.until(from, DEVICES, 1000, 10_000);
      say(`warm-up ${attempt}: ${commits.lastSeen - from} of ${DEVICES} devices' last_seen written`);
      if (done) break;
      if (attempt === 5) throw new Error('the warm-up messages did not all reach their entities');
    }
    await dashboard.call('start', 'ws', h.port, token).catch((err) => {
      throw new Error(`${err.message}\nstates without a context: ${commits.bad.join('\n')}\nHearth's log:\n${h.lines.filter((l) => /ERROR|rror/.test(l)).slice(-20).join('\n')}`);
    });
    say('dashboard subscribed');
    const warm = now();
    notes.push(
      `discovery: ${ENTITIES} retained configs (QoS 1) published in ${ms(published - t0)}, all ${ENTITIES} entities committed ${ms(discovered - t0)} after the first; ` +
        `warm-up (one message per device, the dashboard subscribed) ${ms(warm - discovered)}`,
    );

    const step = async (label: string, rate: number, messages: number, unchanged: number, profile = false): Promise<StepFigures> => {
      // the raw baseline: the same messages on raw/..., which Hearth does not listen to
      await raw.call('reset');
      const r: PublishResult = await publisher.call('step', { prefix: 'raw', rate, messages, unchanged });
      const rr = await raw.call('collect', messages);
      // Hearth
      await dashboard.call('reset');
      const from = commits.lastSeen;
      const changesFrom = commits.changes;
      const stop = profile ? await startProfile() : undefined;
      const p: PublishResult = await publisher.call('step', { prefix: 'zigbee2mqtt', rate, messages, unchanged });
      say(`${label}: published ${p.messages} in ${ms(p.last - p.first)}; raw got ${rr.count}`);
      const handled = await commits.until(from, p.changed, 5000, DRAIN_MS + (p.last - p.first));
      if (stop) notes.push(...hotSpotNotes(`Hearth during "${label}"`, await stop()));
      const hearthRate = handled ? p.messages / ((commits.lastSeenAt - p.first) / 1000) : NaN;
      say(`${label}: Hearth ${handled ? 'handled them' : 'fell behind'} (${commits.lastSeen - from} of ${p.changed})`);
      const wsr = await dashboard.call('collect', p.changed, 2000);
      // a step Hearth did not finish would spill into the next: let it finish
      if (!handled) await commits.until(from, p.changed, 10_000, 60_000);
      return {
        label,
        offered: rate,
        messages: p.messages,
        changed: p.changed,
        raw: { rate: rr.count / ((rr.lastAt - r.first) / 1000), received: rr.count, latency: lat(rr.latencies) },
        hearth: { rate: hearthRate, handled, records: commits.changes - changesFrom, latency: lat(wsr.latencies), deliveries: wsr.stamped, dropped: wsr.closed },
      };
    };

    const table: string[] = [];
    table.push('| values | offered msg/s | raw subscriber msg/s | Hearth msg/s | ratio | raw p50 / p99 | Hearth delivery p50 / p99 | state changes committed |', '|---|---:|---:|---:|---:|---:|---:|---:|');
    const show = (mode: string, s: StepFigures) => {
      const ratio = s.hearth.rate / s.raw.rate;
      table.push(
        `| ${mode} | ${s.offered ? num(s.offered, 0) : 'back-to-back'} | ${num(s.raw.rate, 0)} | ${s.hearth.handled ? num(s.hearth.rate, 0) : 'fell behind'} | ${Number.isFinite(ratio) ? ratio.toFixed(2) + '×' : ''} | ` +
          `${ms(s.raw.latency.p50)} / ${ms(s.raw.latency.p99)} | ${ms(s.hearth.latency.p50)} / ${ms(s.hearth.latency.p99)}${s.hearth.dropped ? ' (dashboard dropped)' : ''} | ${num(s.hearth.records, 0)} |`,
      );
    };
    for (const [mode, unchanged] of [
      ['all new', 0],
      ['90% unchanged', 0.9],
    ] as const) {
      const steps: StepFigures[] = [];
      for (const rate of RATES) {
        const s = await step(`${mode}, ${rate} msg/s`, rate, Math.round((rate * STEP_MS) / 1000), unchanged);
        steps.push(s);
        show(mode, s);
      }
      const flood = await step(`${mode}, back-to-back`, 0, FLOOD, unchanged, !!options.profile);
      show(mode, flood);
      // the latency target: paced at half the raw subscriber's back-to-back rate
      const half = Math.round(flood.raw.rate / 2 / 100) * 100;
      // (at most 20,000 messages: where Hearth falls behind, more only lengthens the run)
      const target = await step(`${mode}, half the raw rate`, half, Math.min(20_000, Math.round((half * STEP_MS) / 1000)), unchanged);
      show(mode, target);
      rows.push(
        rateRow(
          `messages/s handled back-to-back, ${mode}`,
          flood.hearth.rate,
          'msg/s',
          { label: 'raw MQTT.js subscriber', value: flood.raw.rate },
          { text: '≥ 0.50× raw', min: 0.5 },
          `${num(flood.messages, 0)} messages (${num(flood.changed, 0)} with new values), ${num(flood.hearth.records, 0)} state changes committed; ${num((flood.hearth.records / flood.messages) * flood.hearth.rate, 0)} entity writes/s`,
        ),
        timeRow(
          `delivery p99 at ${num(half, 0)} msg/s (half the raw rate), ${mode}`,
          target.hearth.latency.p99,
          { label: 'raw MQTT.js subscriber', value: target.raw.latency.p99 },
          { text: '≤ 50 ms', met: target.hearth.handled && target.hearth.latency.p99 <= 50 },
          `message sent → subscribe_entities frame: p50 ${ms(target.hearth.latency.p50)}, max ${ms(target.hearth.latency.max)}, ${target.hearth.latency.n} of ${target.changed} last_seen changes delivered${target.hearth.handled ? `; handled ${num(target.hearth.rate, 0)} msg/s` : '; Hearth fell behind'}; raw p50 ${ms(target.raw.latency.p50)}`,
        ),
      );
      for (const s of steps) {
        rows.push(
          rateRow(
            `messages/s handled at ${num(s.offered, 0)} msg/s offered, ${mode}`,
            s.hearth.rate,
            'msg/s',
            { label: 'raw MQTT.js subscriber', value: s.raw.rate },
            undefined,
            `delivery p50 ${ms(s.hearth.latency.p50)} / p99 ${ms(s.hearth.latency.p99)} (raw ${ms(s.raw.latency.p50)} / ${ms(s.raw.latency.p99)}); ${s.hearth.latency.n} of ${s.changed} last_seen changes delivered${s.hearth.dropped ? ', the dashboard was dropped' : ''}`,
          ),
        );
      }
    }
    notes.unshift(
      `${DEVICES} devices × ${FIELDS.length} sensors (${FIELDS.join(', ')}) as zigbee2mqtt discovers them: one JSON state topic per device, a value_template \`{{ value_json.<field> }}\` per sensor, ` +
        `availability on zigbee2mqtt/bridge/state. Mosquitto ${broker.url.replace('mqtt://', '')} (no persistence); one MQTT.js publisher process (QoS 0, devices in turn, ${STEP_MS / 1000} s per paced step, ${num(FLOOD, 0)} messages back-to-back); ` +
        `Hearth in the bench process with durable commit; a dashboard process (\`ws\`, long-lived token, subscribe_entities of every entity, coalesced frames); a raw MQTT.js subscriber process. ` +
        `Rates run from the first message sent to the last one handled (Hearth: its last_seen change committed; raw: received). Latency: the message's send time (its last_seen) to the frame with that change, on this machine's clock. ` +
        `"all new": every message changes all 5 sensors; "90% unchanged": 9 of 10 messages repeat the device's previous payload byte for byte, which writes nothing.`,
      ...table,
    );
    notes.push(`total ${ms(now() - started)}`);
  } finally {
    await Promise.all([publisher.close(), raw.close(), dashboard.close()]);
    await h.hearth.stop();
    await broker.stop();
    await removeDir(h.dataDir);
    await removeDir(dir);
  }
  return { name: 'mqtt-ingest', title: `MQTT ingest: ${DEVICES} devices × ${FIELDS.length} sensors over Mosquitto, durable commit`, rows, notes };
}

if (isMain(import.meta.url)) await runAlone(run);
