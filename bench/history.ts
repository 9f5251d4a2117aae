// One day of history for one entity among 10,000, from a large log: GET /api/history/period and
// the History actor's query, beside a raw LevelDB range read of the same records (the
// entity-and-time index's keys, then their values, JSON.parse'd).
//
// HEARTH_HISTORY_RECORDS sets the log's size (default 1,000,000; the figure is
// 10,000,000). Every entity gets ~100 records a day, so the log spans records / 1M days. A log
// is built once per size and kept under <tmpdir>/hearth-bench-cache/ (keyed by a version of its
// contents); later runs reuse it. HEARTH_HISTORY_REBUILD=1 builds it afresh.
import { existsSync } from 'node:fs';
import http from 'node:http';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { Level } from 'level';
import { startHearth } from '../bin/instance.ts';
import { openEventLog } from '../store/log.ts';
import { History, type HistoryQuery } from '../actors/history/history.ts';
import type { NewEvent } from '../store/types.ts';
import { isMain, median, ms, num, percentile, runAlone, timeRow, type BenchOptions, type BenchResult } from './common.ts';

const ENTITIES = 10_000;
const PER_DAY = 100;
const DAY = 86_400_000;
/** records between two of the same entity, in ms: each entity gets PER_DAY a day */
const SPACING = DAY / (ENTITIES * PER_DAY);
const CHUNK = 10_000;
/** queries measured (each for another entity), after WARMUP unmeasured ones */
const QUERIES = 200;
const WARMUP = 20;
/** bump when the generated records change, so an old cache is not reused */
const CACHE_VERSION = 1;

const entityId = (i: number) => `sensor.history_${i}`;

/** The records of a busy home: 10,000 temperature sensors reporting in turn, as Hearth writes them. */
function records(from: number, to: number, t0: number): NewEvent[] {
  const out: NewEvent[] = [];
  for (let n = from; n < to; n++) {
    const i = n % ENTITIES;
    const id = entityId(i);
    const time = t0 + n * SPACING;
    const context = { id: `01JGKZ3M5D${String(n).padStart(16, '0')}`, parent_id: null, user_id: null };
    const state = (15 + ((n * 7) % 150) / 10).toFixed(1);
    const newState = {
      entity_id: id,
      state,
      attributes: { state_class: 'measurement', unit_of_measurement: '°C', device_class: 'temperature', friendly_name: `Room ${i} temperature` },
      last_changed: time,
      last_reported: time,
      last_updated: time,
      context,
    };
    out.push({
      time,
      stream: `entity/${id}`,
      type: 'state_changed',
      // the old state is a reference to the stream's previous record, as the entities append it
      data: { entity_id: id, old_state: null, new_state: newState },
      context,
      origin: 'LOCAL',
      ...(n < ENTITIES ? {} : { inherit: { field: 'old_state', from: 'new_state' } }),
    });
  }
  return out;
}

/** The cached data directory for `count` records, built if missing; its first record's time. */
async function cachedLog(count: number, notes: string[]): Promise<{ dataDir: string; t0: number }> {
  const dataDir = join(os.tmpdir(), 'hearth-bench-cache', `history-v${CACHE_VERSION}-${count}`);
  const marker = join(dataDir, 'complete.json');
  // the log ends a few minutes before its first use, so "the last day" is yesterday
  if (existsSync(marker) && process.env.HEARTH_HISTORY_REBUILD !== '1') {
    const { t0 } = JSON.parse(await readFile(marker, 'utf8'));
    notes.push(`log reused from ${dataDir}`);
    return { dataDir, t0 };
  }
  await rm(dataDir, { recursive: true, force: true });
  await mkdir(dataDir, { recursive: true });
  const t0 = Date.now() - count * SPACING - 600_000;
  const log = await openEventLog({ path: join(dataDir, 'log'), commit: 'fast' });
  const started = performance.now();
  for (let n = 0; n < count; n += CHUNK) await log.append(records(n, Math.min(count, n + CHUNK), t0));
  await log.close();
  notes.push(`log built in ${num((performance.now() - started) / 1000, 0)} s into ${dataDir} (kept for later runs)`);
  await writeFile(marker, JSON.stringify({ t0, count, version: CACHE_VERSION }));
  return { dataDir, t0 };
}

/** Raw LevelDB: the index keys of one entity's day and the one before it, then their records, JSON.parse'd. */
async function rawReads(path: string, picks: { id: string; from: number; to: number }[]): Promise<{ times: number[]; records: number }> {
  const db = new Level<string, string>(path, { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  await db.open();
  const index = db.sublevel<string, string>('idx-entity-time', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  const recs = db.sublevel<string, string>('rec', { keyEncoding: 'utf8', valueEncoding: 'utf8' });
  const hex = (n: number) => Math.round(n).toString(16).padStart(16, '0');
  const times: number[] = [];
  let records = 0;
  for (const p of picks) {
    const started = performance.now();
    const before = await index.keys({ gte: `${p.id}\x00`, lt: `${p.id}\x00${hex(p.from * 1000)}`, reverse: true, limit: 1 }).all();
    const keys = before.concat(await index.keys({ gte: `${p.id}\x00${hex(p.from * 1000)}`, lt: `${p.id}\x00${hex(p.to * 1000)}` }).all());
    const values = await recs.getMany(keys.map((k) => k.slice(-16)));
    for (const v of values) if (v !== undefined && JSON.parse(v)) records++;
    times.push(performance.now() - started);
  }
  await db.close();
  return { times, records };
}

/** A token of the log's owner: onboards on a fresh log, logs in on one an earlier run onboarded. */
async function ownerToken(base: string): Promise<string> {
  const post = async (path: string, body: unknown, form = false) =>
    (await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': form ? 'application/x-www-form-urlencoded' : 'application/json' },
      body: form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body),
    })) as Response;
  const client_id = 'http://127.0.0.1/';
  let code: string;
  const onboard = await post('/api/onboarding/users', { client_id, name: 'Bench', username: 'bench', password: 'bench bench bench', language: 'en' });
  if (onboard.status === 200) code = ((await onboard.json()) as { auth_code: string }).auth_code;
  else {
    const flow = (await (await post('/auth/login_flow', { client_id, handler: ['core', null], redirect_uri: client_id })).json()) as { flow_id: string };
    code = ((await (await post(`/auth/login_flow/${flow.flow_id}`, { client_id, username: 'bench', password: 'bench bench bench' })).json()) as { result: string }).result;
  }
  const tokens = await post('/auth/token', { grant_type: 'authorization_code', code, client_id }, true);
  return ((await tokens.json()) as { access_token: string }).access_token;
}

type Pick = { id: string; from: number; to: number };

/** Hearth on the log: each pick over HTTP, then through the History actor alone. */
async function hearthReads(dataDir: string, picks: Pick[], token: string | undefined) {
  const startedAt = performance.now();
  const h = await startHearth({ dataDir, port: 0, host: '127.0.0.1', log: () => {} });
  const startMs = performance.now() - startedAt;
  token ??= await ownerToken(`http://127.0.0.1:${h.port}`);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = http.get({ host: '127.0.0.1', port: h.port, path, agent, headers: { Authorization: `Bearer ${token}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
    });
  const httpTimes: number[] = [];
  let rows = 0;
  let bytes = 0;
  for (const p of picks) {
    const path = `/api/history/period/${encodeURIComponent(new Date(p.from).toISOString())}?filter_entity_id=${p.id}&end_time=${encodeURIComponent(new Date(p.to).toISOString())}`;
    const started = performance.now();
    const { status, body } = await get(path);
    httpTimes.push(performance.now() - started);
    if (status !== 200) throw new Error(`history answered ${status}: ${body.slice(0, 200)}`);
    rows += (JSON.parse(body) as unknown[][])[0]?.length ?? 0;
    bytes += body.length;
  }
  // the actor alone: the index reads and the JSON, without HTTP
  const history = new History({ log: h.log, current: () => undefined });
  const actorTimes: number[] = [];
  for (const p of picks) {
    const q: HistoryQuery = { entityIds: [p.id], start: p.from, end: p.to, includeStart: true, significantOnly: true, minimal: false, noAttributes: false };
    const started = performance.now();
    await history.periodJson(q);
    actorTimes.push(performance.now() - started);
  }
  agent.destroy();
  await h.stop();
  return { startMs, token, httpTimes, actorTimes, rows, bytes };
}

/** Rounds of raw reads and Hearth's, alternating, each over other entities: the box is shared. */
const ROUNDS = 3;

export async function run(_options: BenchOptions = {}): Promise<BenchResult> {
  const count = Number(process.env.HEARTH_HISTORY_RECORDS ?? 1_000_000);
  const notes: string[] = [];
  const { dataDir, t0 } = await cachedLog(count, notes);
  const logEnd = t0 + (count - 1) * SPACING;
  const path = join(dataDir, 'log');
  const measured = (times: number[]) => times.slice(WARMUP);
  const rounds: { raw: number; http: number; actor: number; httpTimes: number[]; actorTimes: number[] }[] = [];
  let token: string | undefined;
  let rows = 0;
  let bytes = 0;
  let queries = 0;
  const starts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    // one day ending at the log's last record, for entities spread over all 10,000
    const picks = Array.from({ length: WARMUP + QUERIES }, (_, k) => ({ id: entityId((k * 7919 + round * 1237) % ENTITIES), from: logEnd - DAY, to: logEnd }));
    const raw = await rawReads(path, picks);
    const hearth = await hearthReads(dataDir, picks, token);
    token = hearth.token;
    starts.push(hearth.startMs);
    rows += hearth.rows;
    bytes += hearth.bytes;
    queries += picks.length;
    rounds.push({
      raw: median(measured(raw.times)),
      http: median(measured(hearth.httpTimes)),
      actor: median(measured(hearth.actorTimes)),
      httpTimes: measured(hearth.httpTimes),
      actorTimes: measured(hearth.actorTimes),
    });
  }
  const best = (key: 'raw' | 'http' | 'actor') => rounds.reduce((a, b) => (b[key] < a[key] ? b : a));
  const baseline = { label: 'raw LevelDB index range + getMany + JSON.parse', value: best('raw').raw };
  const list = (key: 'raw' | 'http' | 'actor') => rounds.map((r) => ms(r[key])).join(', ');
  const span = (count * SPACING) / DAY;

  notes.unshift(
    `${num(count, 0)} state_changed records over ${num(ENTITIES, 0)} temperature sensors (~${PER_DAY} a day each, so the log spans ${num(span, 1)} days; ~550 B of JSON each, the old state a reference), ` +
      `written once with openEventLog (fast commit). HEARTH_HISTORY_RECORDS=10000000 gives the issue's 10M (1.5 GB on disk, built once in ~8 min on this box, then reused).`,
    `each query: the last day of one entity (${num(rows / queries, 0)} rows: the state at the start and the day's changes, ${num(bytes / queries / 1024, 1)} KiB of JSON), ` +
      `${QUERIES} entities spread over all ${num(ENTITIES, 0)}, one after another, after ${WARMUP} unmeasured; the files are in the page cache`,
    `raw baseline: the same records read as directly as LevelDB allows (the index keys of the entity's day and the one before it, getMany of their values, JSON.parse). ` +
      `No scan of the log: a full iteration of 1M records takes ~10 s (the replay bench's raw baseline)`,
    `${ROUNDS} rounds, each raw then Hearth over other entities (LevelDB admits one process at a time); the medians of the rounds: raw ${list('raw')}; GET ${list('http')}; actor ${list('actor')}; each row shows its best`,
    `Hearth started on the log in ${starts.map(ms).join(', ')}; GET is timed by a node:http client in the same process (one keep-alive connection, no Accept-Encoding, so the answer is not gzipped), from the call to the last byte read`,
  );
  const http = best('http');
  const actor = best('actor');
  return {
    name: 'history',
    title: `one day of one entity's history among ${num(ENTITIES, 0)} entities, ${num(count, 0)}-record log`,
    rows: [
      timeRow('GET /api/history/period, one entity, one day (median)', http.http, baseline, undefined, `p90 ${ms(percentile(http.httpTimes, 90))}, p99 ${ms(percentile(http.httpTimes, 99))}`),
      timeRow("the History actor's query and JSON, no HTTP (median)", actor.actor, baseline, undefined, `p90 ${ms(percentile(actor.actorTimes, 90))}`),
    ],
    notes,
  };
}

if (isMain(import.meta.url)) await runAlone(run);
