// One service call that changes 1,000 lights by area: POST /api/services/light/toggle with
// {"area_id": ...} over 1,000 virtual lights whose devices sit in one area, calls/s and p99,
// sequential and from a few concurrent clients. Beside it, in the same run, what the log must at
// least do per call: one raw LevelDB batch of 1,000 state-sized records with sync.
//
// Every call toggles all 1,000, so after an even number of calls they are all as before and after
// an odd number all flipped; the bench checks that (GET /api/states) and throws if not.
import http from 'node:http';
import { join } from 'node:path';
import { Level } from 'level';
import { isMain, ms, num, percentile, rateRow, removeDir, runAlone, sleep, tempDir, timeRow, type BenchOptions, type BenchResult } from './common.ts';
import { startBenchHearth, type BenchHearth } from './hearth.ts';
import { hotSpotNotes, startProfile } from './profile.ts';

const LIGHTS = 1000;
const WARMUP = 4;
const CALLS = 40;
const CLIENTS = 4;
/** calls per client in the concurrent run (even, like CALLS and WARMUP: the lights end as they began) */
const CONCURRENT_CALLS = 10;
const AREA = 'Bench hall';

function config(): string {
  const lines = ['light:'];
  for (let i = 0; i < LIGHTS; i++) {
    lines.push(`  - platform: virtual`, `    name: Bench ${i}`, `    unique_id: bench_light_${i}`, `    supported_color_modes: [brightness]`);
  }
  return `${lines.join('\n')}\n`;
}

/** A light's state as it is about to be written: the size of what a call logs per light. */
function stateRecord(i: number, n: number): string {
  const time = Date.now();
  const on = n % 2 === 0;
  const context = { id: `01JGKZ3M5D${String(n * LIGHTS + i).padStart(16, '0')}`, parent_id: null, user_id: 'bench' };
  return JSON.stringify({
    time,
    stream: `entity/light.bench_${i}`,
    type: 'state_changed',
    data: {
      entity_id: `light.bench_${i}`,
      old_state: null,
      new_state: {
        entity_id: `light.bench_${i}`,
        state: on ? 'on' : 'off',
        attributes: { supported_color_modes: ['brightness'], color_mode: on ? 'brightness' : null, brightness: on ? 255 : null, friendly_name: `Bench ${i}`, supported_features: 40 },
        last_changed: time,
        last_reported: time,
        last_updated: time,
        context,
      },
    },
    context,
    origin: 'LOCAL',
  });
}

type Timed = { times: number[]; seconds: number };

/** `clients` loops of `calls` each, one call in flight per loop; every call's time and the wall time. */
async function loops(clients: number, calls: number, call: (client: number, n: number) => Promise<void>): Promise<Timed> {
  const times: number[] = [];
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      for (let n = 0; n < calls; n++) {
        const started = performance.now();
        await call(c, n);
        times.push(performance.now() - started);
      }
    }),
  );
  return { times, seconds: (performance.now() - t0) / 1000 };
}

/** Raw LevelDB: one batch of LIGHTS records per call, sync, keyed in order like a log. */
async function rawBatches(dir: string, clients: number, calls: number, warmup: number): Promise<Timed> {
  const db = new Level<string, string>(dir, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  let seq = 0;
  const call = async (_c: number, n: number) => {
    const batch = db.batch();
    for (let i = 0; i < LIGHTS; i++) batch.put((seq++).toString(16).padStart(16, '0'), stateRecord(i, n));
    await batch.write({ sync: true });
  };
  await loops(1, warmup, call);
  const r = await loops(clients, calls, call);
  await db.close();
  return r;
}

/** The 1,000 lights' devices put in one new area through the registries; the area's id. */
async function lightsInOneArea(h: BenchHearth): Promise<string> {
  const registries = h.hearth.registries;
  const lights = () => registries.entities().filter((e) => e.entity_id.startsWith('light.bench_') && e.device_id);
  for (let waited = 0; lights().length < LIGHTS; waited += 50) {
    if (waited > 60_000) throw new Error(`only ${lights().length} of ${LIGHTS} lights were registered with a device`);
    await sleep(50);
  }
  const area = await registries.createArea({ name: AREA });
  for (const e of lights()) await registries.updateDevice(e.device_id!, { area_id: area.area_id });
  const inArea = registries.entitiesOfArea(area.area_id).filter((id) => id.startsWith('light.')).length;
  if (inArea !== LIGHTS) throw new Error(`the area holds ${inArea} lights, not ${LIGHTS}`);
  return area.area_id;
}

function client(h: BenchHearth) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const request = (method: string, path: string, body?: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.request(
        { host: '127.0.0.1', port: h.port, path, method, agent, headers: { Authorization: `Bearer ${h.token}`, 'Content-Type': 'application/json' } },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  return { request, close: () => agent.destroy() };
}

/** How many bench lights are on, by GET /api/states. */
async function lightsOn(get: ReturnType<typeof client>['request']): Promise<{ on: number; off: number }> {
  const r = await get('GET', '/api/states');
  if (r.status !== 200) throw new Error(`GET /api/states answered ${r.status}`);
  const states = (JSON.parse(r.body) as { entity_id: string; state: string }[]).filter((s) => s.entity_id.startsWith('light.bench_'));
  return { on: states.filter((s) => s.state === 'on').length, off: states.filter((s) => s.state === 'off').length };
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const notes: string[] = [];
  const rawDir = await tempDir('area-raw');
  const started = performance.now();
  const h = await startBenchHearth({ config: config() });
  const startMs = performance.now() - started;
  const c = client(h);
  try {
    const area = await lightsInOneArea(h);
    const body = JSON.stringify({ area_id: area });
    const changed: number[] = [];
    const toggle = async () => {
      const r = await c.request('POST', '/api/services/light/toggle', body);
      if (r.status !== 200) throw new Error(`light.toggle answered ${r.status}: ${r.body.slice(0, 200)}`);
      changed.push((JSON.parse(r.body) as unknown[]).length);
    };
    const before = await lightsOn(c.request);
    if (before.on + before.off !== LIGHTS) throw new Error(`GET /api/states shows ${before.on + before.off} bench lights, not ${LIGHTS}`);
    const check = async (calls: number, phase: string) => {
      const after = await lightsOn(c.request);
      const expected = calls % 2 === 0 ? before.on : before.off;
      if (after.on !== expected) throw new Error(`after ${phase} (${calls} toggles) ${after.on} lights are on, expected ${expected}`);
      return after;
    };

    // one toggle first, checked on its own: a bench of calls that change nothing would measure nothing
    await toggle();
    await check(1, 'the first call');
    await loops(1, WARMUP - 1, toggle);
    await check(WARMUP, 'the warm-up');

    const rawSeq = await rawBatches(join(rawDir, 'seq'), 1, CALLS, WARMUP);
    const stop = options.profile ? await startProfile() : undefined;
    const seq = await loops(1, CALLS, toggle);
    if (stop) notes.push(...hotSpotNotes('sequential area calls', await stop()));
    await check(WARMUP + CALLS, 'the sequential calls');

    const rawConc = await rawBatches(join(rawDir, 'conc'), CLIENTS, CONCURRENT_CALLS, 0);
    const seqChanged = changed.splice(0);
    const short = seqChanged.filter((n) => n !== LIGHTS);
    if (short.length) throw new Error(`${short.length} of ${seqChanged.length} sequential calls answered fewer than ${LIGHTS} changed states: ${short.join(', ')}`);
    const conc = await loops(CLIENTS, CONCURRENT_CALLS, toggle);
    const whole = changed.filter((n) => n === LIGHTS).length;
    const none = changed.filter((n) => n === 0).length;
    const final = await check(WARMUP + CALLS + CLIENTS * CONCURRENT_CALLS, 'the concurrent calls');

    const rate = (t: Timed) => t.times.length / t.seconds;
    const lat = (t: Timed) => `p50 ${ms(percentile(t.times, 50))}, p99 ${ms(percentile(t.times, 99))}, max ${ms(Math.max(...t.times))}`;
    const rawLabel = 'raw LevelDB batch of 1,000 records, sync';
    notes.push(
      `concurrent calls: ${whole} of ${changed.length} answers listed all ${LIGHTS} changed states, ${none} listed none (each call writes the state its own event made, so every answer should list all)`,
    );
    notes.unshift(
      `${LIGHTS} \`light:\` entries \`platform: virtual\` with a name, a unique_id (so a device and an entity-registry entry each) and \`supported_color_modes: [brightness]\`; ` +
        `their devices put in one area with Hearth.registries (createArea, updateDevice); Hearth started and its lights registered in ${ms(startMs)} (durable commit, the default)`,
      `each call: POST /api/services/light/toggle {"area_id": "${area}"}, which changes all ${LIGHTS} states; every sequential call's answer listed all ${LIGHTS} changed states (checked). ` +
        `${WARMUP} unmeasured calls, then ${CALLS} one after another on one keep-alive connection, then ${CLIENTS} clients × ${CONCURRENT_CALLS} calls at once. ` +
        `Checked by GET /api/states after each phase: ${final.on} on, ${final.off} off at the end, as the number of toggles says`,
      `raw baseline: what the log must at least do per call, one LevelDB chained batch of ${LIGHTS} state_changed records (~${num(stateRecord(0, 0).length / 1000, 1)} kB of JSON each, one put per record where the store writes three) written with sync, ` +
        `the same number of calls and clients, just before Hearth's in the same run; raw sequential ${lat(rawSeq)}; raw concurrent ${lat(rawConc)}`,
    );
    return {
      name: 'area-call',
      title: `a service call that changes ${num(LIGHTS, 0)} lights by area`,
      rows: [
        rateRow('light.toggle by area_id, sequential', rate(seq), 'calls/s', { label: rawLabel, value: rate(rawSeq) }, undefined, lat(seq)),
        timeRow('light.toggle by area_id, sequential, p99', percentile(seq.times, 99), { label: rawLabel, value: percentile(rawSeq.times, 99) }),
        rateRow(`light.toggle by area_id, ${CLIENTS} clients at once`, rate(conc), 'calls/s', { label: `${rawLabel}, ${CLIENTS} at once`, value: rate(rawConc) }, undefined, `${lat(conc)}; ${whole} of ${changed.length} calls wrote all ${LIGHTS} changes, ${none} coalesced with another (notes)`),
      ],
      notes,
    };
  } finally {
    c.close();
    await h.hearth.stop();
    await removeDir(h.dataDir);
    await removeDir(rawDir);
  }
}

if (isMain(import.meta.url)) await runAlone(run);
