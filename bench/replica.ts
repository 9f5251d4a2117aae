// Read replicas (issue 13): a real nats-server (-js), a primary exporting to it, replicas following
// the stream into their own LevelDB log.
//  1. write -> subscriber latency: POST /api/states on the primary at a steady rate, the time until
//     a state_changed subscriber on a replica (another process) is told, beside the same
//     subscriber on the primary's own WebSocket and a raw NATS core publish -> subscribe.
//  2. catch-up: a fresh replica reading a stream of 1M records (the exporter's exact format)
//     until it has applied the last, beside a raw JetStream consumer reading the same messages and
//     raw LevelDB writing values of the same size in batches of 1,000.
//  3. the same fresh start with a snapshot of the 20k entities in the object store.
import http from 'node:http';
import os from 'node:os';
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import WebSocket from 'ws';
import { Level } from 'level';
import { connect, DeliverPolicy, headers } from 'nats';
import { startReplica, type Replica } from '../bin/replica-instance.ts';
import { publishSnapshot } from '../actors/replica/snapshots.ts';
import { seqKey } from '../store/keys.ts';
import { killNats, startNats } from '../test/helpers/nats.ts';
import { freePort } from '../test/helpers/ports.ts';
import { isChild, isMain, ms, num, percentile, rateRow, removeDir, runAlone, runChild, serveChild, sleep, tempDir, timeRow, type BenchOptions, type BenchResult } from './common.ts';
import { startBenchHearth } from './hearth.ts';
import { hotSpotNotes, startProfile } from './profile.ts';
import { ENTITIES, fillStream, stateRecord, type EntityState } from './replica-stream.ts';

export const RECORDS = Number(process.env.HEARTH_REPLICA_RECORDS ?? 1_000_000);
const STREAM = 'hearth';
const WRITES_PER_SECOND = 300;
const WARMUP_MS = 1000;
const DURATION_MS = 10_000;
const RAW_NATS_MS = 5000;
const ENTITY = 'sensor.replica_latency';

// ---------------------------------------------------------------- the latency client (a child)

interface LatencyJob {
  primaryPort: number;
  replicaPort: number;
  natsPort: number;
  token: string;
}

interface Figures {
  p50: number;
  p99: number;
  max: number;
  count: number;
  missing: number;
}

interface LatencyResult {
  replica: Figures;
  primary: Figures;
  answered: Figures;
  nats: Figures;
  writes: number;
  failedWrites: number;
}

const figures = (values: number[], expected: number): Figures => ({
  p50: percentile(values, 50),
  p99: percentile(values, 99),
  max: values.length ? Math.max(...values) : NaN,
  count: values.length,
  missing: expected - values.length,
});

/** A WebSocket logged in with `token` and subscribed to state_changed; retries until the server accepts the token. */
async function subscriber(port: number, token: string, onChange: (entityId: string, state: string, at: number) => void): Promise<WebSocket> {
  const end = Date.now() + 30_000;
  for (;;) {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket`);
    const ok = await new Promise<boolean>((resolve, reject) => {
      ws.on('error', reject);
      ws.on('message', (data) => {
        const at = performance.now();
        const parsed = JSON.parse(data.toString());
        for (const m of Array.isArray(parsed) ? parsed : [parsed]) {
          if (m.type === 'auth_required') ws.send(JSON.stringify({ type: 'auth', access_token: token }));
          else if (m.type === 'auth_invalid') resolve(false);
          else if (m.type === 'auth_ok') ws.send(JSON.stringify({ id: 1, type: 'subscribe_events', event_type: 'state_changed' }));
          else if (m.type === 'result' && m.id === 1) resolve(m.success === true);
          else if (m.type === 'event' && m.event?.event_type === 'state_changed') onChange(m.event.data.entity_id, m.event.data.new_state?.state, at);
        }
      });
    });
    if (ok) return ws;
    ws.close();
    // a replica accepts the primary's tokens once the auth mirror reached it
    if (Date.now() > end) throw new Error(`the server on port ${port} refused the token for 30 s`);
    await sleep(200);
  }
}

/** Writes at a steady rate on the primary and times each write to both subscribers; then raw NATS. */
async function latencyClient(job: LatencyJob): Promise<LatencyResult> {
  const sent = new Map<string, number>();
  const toReplica: number[] = [];
  const toPrimary: number[] = [];
  const answered: number[] = [];
  const counted = new Set<string>();
  const seen = (into: number[]) => (entityId: string, state: string, at: number) => {
    if (entityId !== ENTITY) return;
    const t0 = sent.get(state);
    if (t0 !== undefined && counted.has(state)) into.push(at - t0);
  };
  const onReplica = await subscriber(job.replicaPort, job.token, seen(toReplica));
  const onPrimary = await subscriber(job.primaryPort, job.token, seen(toPrimary));
  const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
  let failedWrites = 0;
  const write = (state: string, measured: boolean) =>
    new Promise<void>((ok) => {
      const body = JSON.stringify({ state, attributes: { friendly_name: 'Replica latency' } });
      const t0 = performance.now();
      sent.set(state, t0);
      if (measured) counted.add(state);
      const req = http.request({ host: '127.0.0.1', port: job.primaryPort, path: `/api/states/${ENTITY}`, method: 'POST', agent, headers: { Authorization: `Bearer ${job.token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        res.resume();
        res.on('end', () => {
          if (res.statusCode! >= 300) failedWrites++;
          else if (measured) answered.push(performance.now() - t0);
          ok();
        });
      });
      req.on('error', () => {
        failedWrites++;
        ok();
      });
      req.end(body);
    });
  // paced by the clock, not by the answers: a slow answer does not slow the writes down
  const paced = async (durationMs: number, one: (i: number, measured: boolean) => unknown) => {
    const gap = 1000 / WRITES_PER_SECOND;
    const start = performance.now();
    const pending: unknown[] = [];
    for (let i = 0; ; i++) {
      const due = start + i * gap;
      if (due - start >= WARMUP_MS + durationMs) break;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      pending.push(one(i, due - start >= WARMUP_MS));
    }
    await Promise.all(pending);
  };
  await paced(DURATION_MS, (i, measured) => write(`w${i}`, measured));
  const writes = counted.size;
  const settle = Date.now() + 10_000;
  while ((toReplica.length < writes - failedWrites || toPrimary.length < writes - failedWrites) && Date.now() < settle) await sleep(50);
  onReplica.close();
  onPrimary.close();
  agent.destroy();

  // raw NATS core: a publisher and a subscriber connection, payloads of an exported record's size
  const nats: number[] = [];
  const servers = `127.0.0.1:${job.natsPort}`;
  const pub = await connect({ servers });
  const sub = await connect({ servers });
  const sentAt = new Map<number, number>();
  const payload = 'x'.repeat(700);
  sub.subscribe('bench.raw.latency', {
    callback: (_err, m) => {
      const at = performance.now();
      const i = Number(m.headers?.get('i'));
      const t0 = sentAt.get(i);
      if (t0 !== undefined) nats.push(at - t0);
    },
  });
  await sub.flush();
  let rawCount = 0;
  await paced(RAW_NATS_MS, (i, measured) => {
    const h = headers();
    h.set('i', String(i));
    if (measured) {
      sentAt.set(i, performance.now());
      rawCount++;
    }
    pub.publish('bench.raw.latency', payload, { headers: h });
  });
  await pub.flush();
  await sleep(200);
  await pub.close();
  await sub.close();
  return { replica: figures(toReplica, writes), primary: figures(toPrimary, writes), answered: figures(answered, writes), nats: figures(nats, rawCount), writes, failedWrites };
}

if (isChild(import.meta.url)) serveChild((m) => latencyClient(m as LatencyJob));

// ---------------------------------------------------------------- a replica in its own process

interface ReplicaJob {
  natsPort: number;
  dataDir: string;
}

/** In the replica's process: starts it, answers its port, stops it when told. */
async function replicaProcess(): Promise<void> {
  const job = await new Promise<ReplicaJob>((ok) => process.once('message', (m) => ok(m as ReplicaJob)));
  const replica = await startReplica({ nats: { servers: [`nats://127.0.0.1:${job.natsPort}`], stream: STREAM }, dataDir: job.dataDir, port: 0, host: '127.0.0.1', log: () => {}, logFile: false });
  process.send!({ port: replica.port });
  // a bench that died leaves no replica behind
  process.once('disconnect', () => process.exit(1));
  process.once('message', async () => {
    await replica.stop();
    process.send!({ stopped: true }, () => process.exit(0));
  });
}

if (isMain(import.meta.url) && process.argv.includes('--replica-child')) await replicaProcess();

async function forkReplica(job: ReplicaJob): Promise<{ port: number; stop(): Promise<void> }> {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--replica-child'], { execArgv: ['--import=tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const answer = () => new Promise<any>((ok, fail) => {
    child.once('message', ok);
    child.once('exit', (code) => fail(new Error(`the replica process exited with code ${code}`)));
  });
  const started = answer();
  child.send(job);
  const { port } = await started;
  return {
    port,
    stop: async () => {
      const stopped = answer().catch(() => undefined);
      child.send('stop');
      await stopped;
    },
  };
}

// ---------------------------------------------------------------- catch-up

/** Starts a replica on an empty data directory; how long until it has applied `last`. */
async function freshReplica(natsPort: number, last: number, profile: string | undefined, notes: string[]): Promise<{ ms: number; seededFrom: number | null }> {
  const dataDir = await tempDir('replica');
  const stop = profile ? await startProfile() : undefined;
  const t0 = performance.now();
  let replica: Replica | undefined;
  try {
    replica = await startReplica({ nats: { servers: [`nats://127.0.0.1:${natsPort}`], stream: STREAM }, dataDir, port: 0, host: '127.0.0.1', log: () => {}, logFile: false });
    const r = replica;
    if (r.follower.applied < last) {
      await new Promise<void>((ok) => {
        const off = r.follower.onApplied(() => {
          if (r.follower.applied >= last) {
            off();
            ok();
          }
        });
      });
    }
    const elapsed = performance.now() - t0;
    if (stop) notes.push(...hotSpotNotes(profile!, await stop()));
    return { ms: elapsed, seededFrom: r.status().seeded_from };
  } finally {
    await replica?.stop();
    await removeDir(dataDir);
  }
}

/** A JetStream consumer reading every message of the stream and doing nothing with them. */
async function rawConsume(natsPort: number, count: number): Promise<number> {
  const nc = await connect({ servers: `127.0.0.1:${natsPort}` });
  try {
    const js = nc.jetstream();
    const t0 = performance.now();
    const consumer = await js.consumers.get(STREAM, { deliver_policy: DeliverPolicy.StartSequence, opt_start_seq: 1 });
    const messages = await consumer.consume({ max_messages: 1000 });
    let n = 0;
    for await (const m of messages) {
      if (m.seq >= count || ++n >= count) break;
    }
    messages.close();
    return performance.now() - t0;
  } finally {
    await nc.close();
  }
}

/** Raw LevelDB: `count` values of the stream's records (20k distinct, in turn) under seq keys, batches of 1,000, no sync. */
async function rawLevel(count: number): Promise<number> {
  const dir = await tempDir('replica-raw');
  const last: EntityState[] = new Array(ENTITIES);
  const values: string[] = [];
  for (let seq = 1; seq <= ENTITIES; seq++) values.push(JSON.stringify(stateRecord(seq + ENTITIES, last, Date.now())));
  const db = new Level<string, string>(join(dir, 'db'), { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  const t0 = performance.now();
  for (let seq = 1; seq <= count; seq += 1000) {
    const batch = db.batch();
    for (let s = seq; s < seq + 1000 && s <= count; s++) batch.put(`!rec!${seqKey(s)}`, values[(s - 1) % ENTITIES]);
    await batch.write();
  }
  const elapsed = performance.now() - t0;
  await db.close();
  await removeDir(dir);
  return elapsed;
}

// ---------------------------------------------------------------- the benchmark

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const notes: string[] = [];
  const natsDir = await tempDir('replica-nats');
  const natsPort = await freePort();
  let nats = await startNats(natsPort, natsDir);
  try {
    // 1. latency: primary (this process) -> nats-server -> replica (a process) -> client (a process)
    const primary = await startBenchHearth({ config: `recorder:\n  export:\n    nats:\n      servers: [nats://127.0.0.1:${natsPort}]\n` });
    const replicaDir = await tempDir('replica-live');
    const replica = await forkReplica({ natsPort, dataDir: replicaDir });
    const stopProfile = options.profile ? await startProfile() : undefined;
    const lat = await runChild<LatencyResult>('./replica.ts', { primaryPort: primary.port, replicaPort: replica.port, natsPort, token: primary.token } satisfies LatencyJob, { timeoutMs: 120_000 });
    if (stopProfile) notes.push(...hotSpotNotes('the primary during the latency run', await stopProfile()));
    await replica.stop();
    await primary.hearth.stop();
    await removeDir(primary.dataDir);
    await removeDir(replicaDir);

    // 2. and 3. on a stream of their own, in a fresh nats-server store
    await killNats(nats);
    await removeDir(natsDir);
    nats = await startNats(natsPort, natsDir);
    const filled = await fillStream(`127.0.0.1:${natsPort}`, STREAM, RECORDS);
    const rawRead = await rawConsume(natsPort, RECORDS);
    const rawWrite = await rawLevel(RECORDS);
    const full = await freshReplica(natsPort, filled.lastSeq, options.profile ? `the replica catching up ${num(RECORDS, 0)} records` : undefined, notes);
    const nc = await connect({ servers: `127.0.0.1:${natsPort}` });
    const snapshotStarted = performance.now();
    await publishSnapshot(nc.jetstream(), STREAM, filled.lastSeq, filled.lastSeq, [{ name: 'entities', version: 1, data: filled.states }]);
    const publishMs = performance.now() - snapshotStarted;
    await nc.close();
    const seeded = await freshReplica(natsPort, filled.lastSeq, undefined, notes);
    if (seeded.seededFrom !== filled.lastSeq) notes.push(`the seeded replica did NOT start from the snapshot (seeded_from ${seeded.seededFrom})`);

    const lf = (f: Figures) => `p50 ${ms(f.p50)}, p99 ${ms(f.p99)}, max ${ms(f.max)} (${num(f.count, 0)} writes${f.missing ? `, ${f.missing} MISSING` : ''})`;
    const perS = (count: number, t: number) => (count / t) * 1000;
    notes.push(
      `latency: ${WRITES_PER_SECOND} POST /api/states/s for ${DURATION_MS / 1000} s after ${WARMUP_MS / 1000} s of warm-up, paced by the clock, from a client process that also holds a subscribe_events state_changed WebSocket on the replica and one on the primary; each write's time from sending the request to each subscriber's event. ` +
        `The primary (durable commit, export to NATS) runs in the bench process, the replica in a process of its own, nats-server in a third: four processes on ${os.cpus().length} cores. Writes answered: ${lf(lat.answered)}${lat.failedWrites ? `; ${lat.failedWrites} writes FAILED` : ''}`,
      `raw NATS: core publish -> subscribe of ${700}-byte messages between two connections of the client process, ${WRITES_PER_SECOND}/s for ${RAW_NATS_MS / 1000} s: ${lf(lat.nats)}`,
      `catch-up: ${num(RECORDS, 0)} state_changed records of ${num(ENTITIES, 0)} entities (${num(filled.bytes / RECORDS, 0)} B of JSON each, old and new state whole, as the exporter publishes them; subject from subjectOf, msgID = seq), ` +
        `published straight into the stream with core NATS publishes in ${ms(filled.ms)} (${num(perS(RECORDS, filled.ms), 0)}/s); the replica is started on an empty data directory and timed until follower.applied reaches the last seq` +
        (RECORDS !== 1_000_000 ? ` (HEARTH_REPLICA_RECORDS=${RECORDS}: scaled down from 1M)` : ''),
      `raw LevelDB: the same number of values (the stream's JSON, ${num(ENTITIES, 0)} distinct ones in turn) under seq keys in chained batches of 1,000 without sync: ${ms(rawWrite)} (${num(perS(RECORDS, rawWrite), 0)}/s); the replica also writes two index entries per record and projects each one`,
      `seed: a snapshot of the ${num(ENTITIES, 0)} entities' states (area entities, version 1, seq = stream_seq = the last) put in the object store by publishSnapshot in ${ms(publishMs)}; the replica starts from it and reads no message`,
    );
    return {
      name: 'replica',
      title: `read replicas: write -> replica subscriber latency, catch-up of ${num(RECORDS, 0)} records, start from a snapshot`,
      rows: [
        timeRow('write -> replica subscriber, p50', lat.replica.p50, { label: 'write -> primary subscriber p50', value: lat.primary.p50 }, undefined, `replica ${lf(lat.replica)}; primary ${lf(lat.primary)}`),
        timeRow('write -> replica subscriber, p99', lat.replica.p99, { label: 'write -> primary subscriber p99', value: lat.primary.p99 }),
        timeRow('write -> replica subscriber, p99 vs raw NATS', lat.replica.p99, { label: 'raw NATS core publish -> subscribe p99', value: lat.nats.p99 }, undefined, `raw NATS ${lf(lat.nats)}`),
        rateRow(`catch-up of ${num(RECORDS, 0)} records`, perS(RECORDS, full.ms), 'records/s', { label: 'raw JetStream consumer reading them', value: perS(RECORDS, rawRead) }, undefined, `${ms(full.ms)} from start to the last seq applied; raw consumer ${ms(rawRead)}`),
        rateRow(`catch-up of ${num(RECORDS, 0)} records vs raw LevelDB`, perS(RECORDS, full.ms), 'records/s', { label: 'raw LevelDB batches of 1,000', value: perS(RECORDS, rawWrite) }),
        timeRow(`fresh replica from a snapshot of ${num(ENTITIES, 0)} entities`, seeded.ms, { label: 'full catch-up', value: full.ms }, undefined, `start to applied = ${num(filled.lastSeq, 0)}: ${ms(seeded.ms)} vs ${ms(full.ms)} reading the whole stream`),
      ],
      notes,
    };
  } finally {
    await killNats(nats);
    await removeDir(natsDir);
  }
}

if (isMain(import.meta.url) && !process.argv.includes('--bench-child') && !process.argv.includes('--replica-child')) await runAlone(run);
