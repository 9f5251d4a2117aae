// WebSocket clients (the `ws` package) run in a child process: many subscribe_entities
// subscribers plus one writer for the fan-out, or one client timing get_states. Times are taken
// on this process's clock only (performance.timeOrigin + performance.now()).
import WebSocket from 'ws';
import { HttpConnection, httpRequest } from './http-client.ts';
import { isChild, now, percentile, runChild, serveChild, sleep } from './common.ts';

export interface FanoutOptions {
  mode: 'fanout';
  port: number;
  token: string;
  subscribers: number;
  entityId: string;
  /** changes written one at a time, each after every subscriber got the previous one */
  pacedChanges: number;
  /** pause between paced changes */
  gapMs: number;
  /** then: changes written back to back (next write once the previous is acknowledged) for this long */
  floodMs: number;
}

export interface LatencyFigures {
  p50: number;
  p99: number;
  max: number;
}

export interface FanoutPhase {
  changes: number;
  deliveries: number;
  /** deliveries that never arrived (within 5 s) */
  missing: number;
  /** deliveries per second, from the first write sent to the last delivery received */
  perSecond: number;
  /** write sent (stamped in the attributes) to delivery received */
  fromSend: LatencyFigures;
  /** the write's HTTP answer received to delivery received (negative when the frame came first) */
  fromAck: LatencyFigures;
  /** write sent to its HTTP answer received */
  ack: LatencyFigures;
}

export interface FanoutResult {
  paced: FanoutPhase;
  flood: FanoutPhase;
  /** size of a change frame as received */
  frameBytes: number;
  connectMs: number;
}

export interface GetStatesOptions {
  mode: 'get-states';
  port: number;
  token: string;
  iterations: number;
}

export interface GetStatesResult {
  times: number[];
  bytes: number;
}

export function runWsClients(options: FanoutOptions): Promise<FanoutResult>;
export function runWsClients(options: GetStatesOptions): Promise<GetStatesResult>;
export function runWsClients(options: FanoutOptions | GetStatesOptions): Promise<unknown> {
  return runChild('./ws-clients.ts', options, { timeoutMs: 300_000 });
}

/** Opens a socket and completes the auth handshake; `onMessage` sees every later frame. */
async function authed(port: number, token: string, onMessage: (data: Buffer) => void): Promise<WebSocket> {
  const ws = new WebSocket(`ws://127.0.0.1:${port}/api/websocket`, { perMessageDeflate: false, skipUTF8Validation: true });
  await new Promise<void>((resolve, reject) => {
    let step = 0;
    ws.on('error', reject);
    ws.on('message', (data: Buffer) => {
      if (step === 2) return onMessage(data);
      const msg = JSON.parse(data.toString('utf8'));
      if (step === 0 && msg.type === 'auth_required') {
        step = 1;
        ws.send(JSON.stringify({ type: 'auth', access_token: token }));
      } else if (step === 1 && msg.type === 'auth_ok') {
        step = 2;
        resolve();
      } else reject(new Error(`unexpected frame during auth: ${data.toString('utf8').slice(0, 200)}`));
    });
  });
  return ws;
}

function figures(values: Float64Array): LatencyFigures {
  let max = -Infinity;
  for (const v of values) if (v > max) max = v;
  return { p50: percentile(values, 50), p99: percentile(values, 99), max };
}

async function fanout(options: FanoutOptions): Promise<FanoutResult> {
  const SENT = '"sent":';
  const K = '"k":';
  const CHANGE = '"event":{"c"';
  const recvAt: number[] = [];
  const sentOf: number[] = [];
  const kOf: number[] = [];
  let received = 0;
  let frameBytes = 0;
  const counts = new Map<number, number>();
  let waiting: { k: number; resolve: () => void } | undefined;

  const onMessage = (data: Buffer) => {
    const at = now();
    const text = data.toString('latin1');
    if (!text.includes(CHANGE)) return;
    const s = text.indexOf(SENT);
    const kAt = text.indexOf(K, s);
    if (s < 0 || kAt < 0) return;
    const sent = parseFloat(text.slice(s + SENT.length));
    const k = parseInt(text.slice(kAt + K.length), 10);
    recvAt.push(at);
    sentOf.push(sent);
    kOf.push(k);
    received++;
    frameBytes = data.length;
    const n = (counts.get(k) ?? 0) + 1;
    counts.set(k, n);
    if (waiting && waiting.k === k && n === options.subscribers) waiting.resolve();
  };

  const writer = new HttpConnection(options.port);
  await writer.open();
  const auth = { Authorization: `Bearer ${options.token}` };
  const write = async (k: number): Promise<number> => {
    const sent = now();
    const body = JSON.stringify({ state: String(k), attributes: { sent, k } });
    const res = await writer.request(httpRequest('POST', `/api/states/${options.entityId}`, auth, body));
    if (res.status !== 200 && res.status !== 201) throw new Error(`write ${k} answered ${res.status}`);
    return now();
  };
  // the entity exists before anyone subscribes, so every later write is a change
  await write(0);

  const connectStart = now();
  const sockets: WebSocket[] = [];
  for (let i = 0; i < options.subscribers; i += 50) {
    const group = await Promise.all(
      Array.from({ length: Math.min(50, options.subscribers - i) }, async () => {
        let subscribed!: () => void;
        const ready = new Promise<void>((r) => (subscribed = r));
        let seen = 0;
        const ws = await authed(options.port, options.token, (data) => {
          // the subscription's result, then its first event (the current states), then changes
          if (seen < 2) {
            if (++seen === 2) subscribed();
            return;
          }
          onMessage(data);
        });
        // every entity (only the written one exists), as a dashboard subscribes
        ws.send(JSON.stringify({ id: 1, type: 'subscribe_entities' }));
        await ready;
        return ws;
      }),
    );
    sockets.push(...group);
  }
  const connectMs = now() - connectStart;

  const ackAt = new Map<number, number>();
  const phase = async (first: number, last: number, from: number, start: number): Promise<FanoutPhase> => {
    // wait for stragglers
    const expected = (last - first + 1) * options.subscribers;
    const deadline = now() + 5000;
    const delivered = () => {
      let n = 0;
      for (let k = first; k <= last; k++) n += counts.get(k) ?? 0;
      return n;
    };
    while (delivered() < expected && now() < deadline) await sleep(20);
    const fromSend: number[] = [];
    const fromAck: number[] = [];
    let lastRecv = start;
    for (let i = from; i < received; i++) {
      const k = kOf[i];
      if (k < first || k > last) continue;
      fromSend.push(recvAt[i] - sentOf[i]);
      fromAck.push(recvAt[i] - (ackAt.get(k) ?? NaN));
      if (recvAt[i] > lastRecv) lastRecv = recvAt[i];
    }
    const acks: number[] = [];
    for (let k = first; k <= last; k++) acks.push(ackLatency.get(k) ?? NaN);
    return {
      changes: last - first + 1,
      deliveries: fromSend.length,
      missing: expected - fromSend.length,
      perSecond: fromSend.length / ((lastRecv - start) / 1000),
      fromSend: figures(Float64Array.from(fromSend)),
      fromAck: figures(Float64Array.from(fromAck)),
      ack: figures(Float64Array.from(acks)),
    };
  };
  const ackLatency = new Map<number, number>();
  const timedWrite = async (k: number) => {
    const sent = now();
    const acked = await write(k);
    ackAt.set(k, acked);
    ackLatency.set(k, acked - sent);
  };

  // paced: one change at a time, each once every subscriber has the previous one
  let k = 1;
  let from = received;
  let start = now();
  for (; k <= options.pacedChanges; k++) {
    const all = new Promise<void>((resolve) => (waiting = { k, resolve }));
    const timeout = sleep(2000);
    await timedWrite(k);
    await Promise.race([all, timeout]);
    waiting = undefined;
    await sleep(options.gapMs);
  }
  const paced = await phase(1, options.pacedChanges, from, start);

  // flood: back-to-back writes, deliveries overlapping
  from = received;
  start = now();
  const firstFlood = k;
  const until = start + options.floodMs;
  while (now() < until) await timedWrite(k++);
  const flood = await phase(firstFlood, k - 1, from, start);

  writer.close();
  for (const ws of sockets) ws.terminate();
  return { paced, flood, frameBytes, connectMs };
}

async function getStates(options: GetStatesOptions): Promise<GetStatesResult> {
  let resolveNext: ((data: Buffer) => void) | undefined;
  const ws = await authed(options.port, options.token, (data) => resolveNext?.(data));
  const times: number[] = [];
  let bytes = 0;
  for (let i = 1; i <= options.iterations; i++) {
    const got = new Promise<Buffer>((resolve) => (resolveNext = resolve));
    const t0 = performance.now();
    ws.send(`{"id":${i},"type":"get_states"}`);
    const data = await got;
    times.push(performance.now() - t0);
    const head = data.toString('latin1', 0, 64);
    if (!head.startsWith(`{"id":${i},"type":"result","success":true`)) throw new Error(`unexpected answer: ${head}`);
    bytes = data.length;
  }
  ws.terminate();
  return { times, bytes };
}

if (isChild(import.meta.url)) serveChild((m) => (m.mode === 'fanout' ? fanout(m) : getStates(m)));
