// The companion apps' webhook under load: `update_sensor_states` batches of 20 sensors, plaintext
// and encrypted (secretbox, current key), posted by 16 keep-alive connections from a child process.
// Beside them, in the same run and with the same client: a raw uWS app that reads the body and
// answers a fixed body of the same size, and one that also opens the box, parses the JSON and
// seals its answer (the crypto's own floor). And tweetnacl's open of the same payloads alone.
import http from 'node:http';
import nacl from 'tweetnacl';
import uWS from '@trufflesuite/uws-js-unofficial';
import { isChild, isMain, ms, num, percentile, rate, rateRow, removeDir, runAlone, runChild, serveChild, type BenchOptions, type BenchResult } from './common.ts';
import { FAST_CONFIG, startBenchHearth } from './hearth.ts';

const SENSORS = 20;
const CONNECTIONS = 16;
const WARMUP_MS = 1000;
const DURATION_MS = 5000;
const BODIES = 64;

interface Drive {
  port: number;
  path: string;
  bodies: string[];
  connections: number;
  warmupMs: number;
  durationMs: number;
}

interface Driven {
  rps: number;
  p50: number;
  p99: number;
  statuses: Record<string, number>;
  answerBytes: number;
}

/** In the child: posts the bodies round robin over keep-alive connections, one request in flight each. */
async function drive(d: Drive): Promise<Driven> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: d.connections });
  const statuses: Record<string, number> = {};
  const latencies: number[] = [];
  let counted = 0;
  let answerBytes = 0;
  let next = 0;
  const start = performance.now();
  const measureFrom = start + d.warmupMs;
  const end = measureFrom + d.durationMs;
  const one = (body: string) =>
    new Promise<void>((ok, fail) => {
      const t0 = performance.now();
      const req = http.request({ host: '127.0.0.1', port: d.port, path: d.path, method: 'POST', agent, headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) } }, (res) => {
        let size = 0;
        res.on('data', (c: Buffer) => (size += c.length));
        res.on('end', () => {
          const t1 = performance.now();
          if (t0 >= measureFrom && t1 <= end) {
            counted++;
            latencies.push(t1 - t0);
            statuses[res.statusCode!] = (statuses[res.statusCode!] ?? 0) + 1;
            answerBytes = size;
          }
          ok();
        });
      });
      req.on('error', fail);
      req.end(body);
    });
  const worker = async () => {
    while (performance.now() < end) await one(d.bodies[next++ % d.bodies.length]);
  };
  await Promise.all(Array.from({ length: d.connections }, worker));
  agent.destroy();
  return { rps: (counted / d.durationMs) * 1000, p50: percentile(latencies, 50), p99: percentile(latencies, 99), statuses, answerBytes };
}

if (isChild(import.meta.url)) serveChild((m) => drive(m as Drive));

const seal = (text: string, key: Uint8Array) => {
  const nonce = nacl.randomBytes(24);
  return Buffer.concat([Buffer.from(nonce), Buffer.from(nacl.secretbox(new Uint8Array(Buffer.from(text)), nonce, key))]).toString('base64');
};

/** A raw uWS app: reads the body, optionally opens and parses it and seals the answer, answers `answer`. */
async function startRaw(answer: string, key?: Uint8Array): Promise<{ port: number; close(): void }> {
  const app = uWS.App();
  app.post('/api/webhook/:id', (res) => {
    let aborted = false;
    res.onAborted(() => (aborted = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, last) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!last || aborted) return;
      let out = answer;
      if (key) {
        const env = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        const bytes = new Uint8Array(Buffer.from(env.encrypted_data, 'base64'));
        const opened = nacl.secretbox.open(bytes.subarray(24), bytes.subarray(0, 24), key);
        JSON.parse(Buffer.from(opened!).toString('utf8'));
        out = JSON.stringify({ encrypted: true, encrypted_data: seal(answer, key) });
      }
      res.cork(() => {
        res.writeStatus('200 OK');
        res.writeHeader('Content-Type', 'application/json; charset=utf-8');
        res.end(out);
      });
    });
  });
  const socket = await new Promise<uWS.us_listen_socket>((ok, fail) => app.listen('127.0.0.1', 0, (s) => (s ? ok(s) : fail(new Error('raw uWS: cannot listen')))));
  return { port: uWS.us_socket_local_port(socket), close: () => uWS.us_listen_socket_close(socket) };
}

const batch = (round: number) => Array.from({ length: SENSORS }, (_, i) => ({ type: 'sensor', unique_id: `s${i}`, state: (round * 7 + i) % 1000, attributes: { round } }));

interface Setup {
  plainBodies: string[];
  sealedBodies: string[];
  plainPath: string;
  sealedPath: string;
  key: Uint8Array;
  answerText: string;
}

const load = (port: number, path: string, bodies: string[]) =>
  runChild<Driven>('./webhook.ts', { port, path, bodies, connections: CONNECTIONS, warmupMs: WARMUP_MS, durationMs: DURATION_MS } satisfies Drive);

/** A fresh Hearth with two apps (plain, encrypting) of 20 sensors each, measured under both loads. */
async function measureHearth(config: string | undefined): Promise<{ setup: Setup; plain: Driven; sealed: Driven }> {
  const h = await startBenchHearth(config === undefined ? {} : { config });
  const post = async (webhookId: string, body: unknown) => {
    const res = await fetch(`${h.base}/api/webhook/${webhookId}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    return { status: res.status, json: (await res.json().catch(() => undefined)) as any };
  };
  const registerApp = async (deviceId: string, encrypted: boolean) => {
    const res = await fetch(`${h.base}/api/mobile_app/registrations`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${h.token}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ app_id: 'io.bench', app_name: 'Bench', app_version: '1', device_name: `Bench ${deviceId}`, manufacturer: 'B', model: 'B', os_name: 'iOS', device_id: deviceId, supports_encryption: encrypted }),
    });
    return (await res.json()) as { webhook_id: string; secret: string | null };
  };
  const plainApp = await registerApp('PLAIN', false);
  const sealedApp = await registerApp('SEALED', true);
  const key = new Uint8Array(Buffer.from(sealedApp.secret!, 'hex'));
  const envelope = (app: 'plain' | 'sealed', type: string, data: unknown) =>
    app === 'plain' ? { type, data } : { type, encrypted: true, encrypted_data: seal(JSON.stringify(data), key) };
  for (const [app, id] of [['plain', plainApp.webhook_id], ['sealed', sealedApp.webhook_id]] as const) {
    for (let i = 0; i < SENSORS; i++) {
      const r = await post(id, envelope(app, 'register_sensor', { type: 'sensor', unique_id: `s${i}`, name: `S${i}`, state: 0, unit_of_measurement: 'W' }));
      if (r.status !== 201) throw new Error(`register_sensor answered ${r.status}`);
    }
  }
  const plainBodies = Array.from({ length: BODIES }, (_, r) => JSON.stringify(envelope('plain', 'update_sensor_states', batch(r))));
  const sealedBodies = Array.from({ length: BODIES }, (_, r) => JSON.stringify(envelope('sealed', 'update_sensor_states', batch(r))));
  const check = await post(plainApp.webhook_id, JSON.parse(plainBodies[1]));
  const answerText = JSON.stringify(check.json);
  if (Object.keys(check.json ?? {}).length !== SENSORS) throw new Error(`update_sensor_states answered ${answerText}`);
  const setup = { plainBodies, sealedBodies, plainPath: `/api/webhook/${plainApp.webhook_id}`, sealedPath: `/api/webhook/${sealedApp.webhook_id}`, key, answerText };
  const plain = await load(h.port, setup.plainPath, plainBodies);
  const sealed = await load(h.port, setup.sealedPath, sealedBodies);
  await h.hearth.stop();
  await removeDir(h.dataDir);
  return { setup, plain, sealed };
}

export async function run(_options: BenchOptions = {}): Promise<BenchResult> {
  const notes: string[] = [];
  const durable = await measureHearth(undefined);
  const fast = await measureHearth(FAST_CONFIG);
  const { plainBodies, sealedBodies, plainPath, sealedPath, key, answerText } = durable.setup;
  const rawPlain = await startRaw(answerText);
  const rawBase = await load(rawPlain.port, plainPath, plainBodies);
  rawPlain.close();
  const rawCrypto = await startRaw(answerText, key);
  const rawSealed = await load(rawCrypto.port, sealedPath, sealedBodies);
  rawCrypto.close();
  const { plain, sealed } = durable;

  // tweetnacl alone: open one request's box and parse it
  let i = 0;
  const boxes = sealedBodies.map((b) => {
    const bytes = new Uint8Array(Buffer.from(JSON.parse(b).encrypted_data, 'base64'));
    return { nonce: bytes.subarray(0, 24), box: bytes.subarray(24) };
  });
  const opens = rate(1000, () => {
    const b = boxes[i++ % boxes.length];
    JSON.parse(Buffer.from(nacl.secretbox.open(b.box, b.nonce, key)!).toString('utf8'));
  });

  const lat = (r: Driven) => `p50 ${ms(r.p50)}, p99 ${ms(r.p99)}, statuses ${JSON.stringify(r.statuses)}, answer ${num(r.answerBytes, 0)} B`;
  for (const [who, r] of [['plaintext', plain], ['encrypted', sealed], ['plaintext, fast commit', fast.plain], ['encrypted, fast commit', fast.sealed]] as const) {
    const bad = Object.entries(r.statuses).filter(([s]) => s !== '200');
    if (bad.length) notes.push(`${who}: answers not 200: ${JSON.stringify(Object.fromEntries(bad))}`);
  }
  notes.push(
    `${CONNECTIONS} keep-alive connections from a child process (node:http), one request in flight each, ${WARMUP_MS / 1000} s warm-up then ${DURATION_MS / 1000} s measured; ` +
      `each request is one update_sensor_states of ${SENSORS} registered sensors (${num(Buffer.byteLength(plainBodies[0]), 0)} B plaintext, ${num(Buffer.byteLength(sealedBodies[0]), 0)} B encrypted), ` +
      `${BODIES} different batches round robin so states change`,
    `sensor updates/s = batches/s × ${SENSORS}: plaintext ${num(plain.rps * SENSORS, 0)}, encrypted ${num(sealed.rps * SENSORS, 0)} (durable); ${num(fast.plain.rps * SENSORS, 0)} and ${num(fast.sealed.rps * SENSORS, 0)} (fast commit)`,
    `tweetnacl alone opens and parses ${num(opens, 0)} of these payloads/s in-process (one core): the crypto is not the limit`,
  );
  const rawLabel = { label: 'raw uWS, fixed answer', value: rawBase.rps };
  return {
    name: 'webhook',
    title: `webhook update_sensor_states batches/s (${SENSORS} sensors each)`,
    rows: [
      rateRow('plaintext (durable commit)', plain.rps, 'batches/s', rawLabel, undefined, `Hearth ${lat(plain)}; raw ${lat(rawBase)}`),
      rateRow('plaintext, recorder: commit: fast', fast.plain.rps, 'batches/s', rawLabel, undefined, `Hearth ${lat(fast.plain)}`),
      rateRow('encrypted, current key (durable commit)', sealed.rps, 'batches/s', { label: 'raw uWS + secretbox open/seal', value: rawSealed.rps }, undefined, `Hearth ${lat(sealed)}; raw ${lat(rawSealed)}`),
      rateRow('encrypted, recorder: commit: fast', fast.sealed.rps, 'batches/s', { label: 'raw uWS + secretbox open/seal', value: rawSealed.rps }, undefined, `Hearth ${lat(fast.sealed)}`),
      rateRow('tweetnacl open + JSON.parse alone', opens, 'payloads/s', undefined),
    ],
    notes,
  };
}

if (isMain(import.meta.url) && !process.argv.includes('--bench-child')) await runAlone(run);
