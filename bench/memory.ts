// Resident memory per entity at 100k entities: Hearth in a child process (--expose-gc), the
// entities created through POST /api/states, beside the same states held in a plain Map in a
// fresh child process.
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fromStateDict } from '../actors/entities/state.ts';
import type { EntityState } from '../actors/entities/types.ts';
import { fullGc, isChild, isMain, num, removeDir, runAlone, runChild, serveChild, tempDir, type BenchOptions, type BenchResult, type Row } from './common.ts';
import { FAST_CONFIG, startBenchHearth } from './hearth.ts';
import { loadgen } from './loadgen.ts';

export const ENTITIES = 100_000;
// V8's memory reducer runs some 8 s after allocation calms down, and may take a second round
const SETTLE_MS = 20_000;

interface Sample {
  rss: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
}

const sample = (): Sample => {
  const m = process.memoryUsage();
  return { rss: m.rss, heapUsed: m.heapUsed, heapTotal: m.heapTotal, external: m.external };
};

interface HearthMemory {
  before: Sample;
  after: Sample;
  /** after SETTLE_MS without load: V8 gives back the pages the burst left empty */
  settled: Sample;
  afterGet: Sample;
  entities: number;
  createSeconds: number;
  errors: number;
}

interface MapMemory {
  before: Sample;
  after: Sample;
  entities: number;
}

/** In the child: Hearth, 100k entities by POST, memory before, after, and after one GET /api/states. */
async function hearthChild(m: { count: number; statesFile: string }): Promise<HearthMemory> {
  // fast commit only to create the entities sooner; the memory held does not depend on it
  const h = await startBenchHearth({ config: FAST_CONFIG });
  await fullGc();
  const before = sample();
  const created = await loadgen({ port: h.port, connections: 64, count: m.count, request: { kind: 'post-state', token: h.token, ids: m.count, prefix: 'sensor.mem_' } });
  await fullGc();
  const after = sample();
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  await fullGc();
  const settled = sample();
  let text: string | undefined = await (await fetch(`${h.base}/api/states`, { headers: { Authorization: `Bearer ${h.token}` } })).text();
  await writeFile(m.statesFile, text);
  const entities = (JSON.parse(text) as unknown[]).length;
  text = undefined;
  await fullGc();
  const afterGet = sample();
  await h.hearth.stop();
  await removeDir(h.dataDir);
  return { before, after, settled, afterGet, entities, createSeconds: created.seconds, errors: created.errors };
}

/** In the child: the same states (read back from Hearth's answer) in a Map<entity_id, EntityState>. */
async function mapChild(m: { statesFile: string }): Promise<MapMemory> {
  const map = new Map<string, EntityState>();
  await fullGc();
  const before = sample();
  let dicts: any[] | undefined = JSON.parse(await readFile(m.statesFile, 'utf8'));
  for (const d of dicts!) map.set(d.entity_id, fromStateDict(d));
  dicts = undefined;
  await fullGc();
  const after = sample();
  return { before, after, entities: map.size };
}

const KiB = 1024;

export async function run(_options: BenchOptions = {}): Promise<BenchResult> {
  const dir = await tempDir('memory');
  const statesFile = join(dir, 'states.json');
  try {
    const opts = { execArgv: ['--expose-gc'], timeoutMs: 600_000 };
    const h = await runChild<HearthMemory>('./memory.ts', { role: 'hearth', count: ENTITIES, statesFile }, opts);
    const b = await runChild<MapMemory>('./memory.ts', { role: 'map', statesFile }, opts);
    const mib = (v: number) => `${num(v / 2 ** 20, 1)} MiB`;
    const per = (a: Sample, z: Sample, k: keyof Sample, n: number) => (z[k] - a[k]) / n / KiB;
    const target = (v: number) => ({ target: '≤ 2 KiB', met: v <= 2 });
    const row = (label: string, k: 'rss' | 'heapUsed', after: Sample, detail?: string, withTarget = true): Row => {
      const value = per(h.before, after, k, h.entities);
      const base = per(b.before, b.after, k, b.entities);
      // memory is a cost: the ratio is baseline / value, as for times (1.0× = as small as the Map)
      return { label, value, unit: 'KiB/entity', baseline: { label: 'plain Map of the states', value: base }, ratio: base / value, ...(withTarget ? target(value) : {}), detail };
    };
    return {
      name: 'memory',
      title: `resident memory per entity at ${num(ENTITIES, 0)} entities`,
      rows: [
        row(
          'rss, after creating them',
          'rss',
          h.after,
          `rss ${mib(h.before.rss)} → ${mib(h.after.rss)} (V8 heap committed ${mib(h.before.heapTotal)} → ${mib(h.after.heapTotal)}, ` +
            `external ${mib(h.before.external)} → ${mib(h.after.external)}); Map child ${mib(b.before.rss)} → ${mib(b.after.rss)} (heap committed ${mib(b.after.heapTotal)})`,
        ),
        row(
          `rss, settled (${SETTLE_MS / 1000} s later)`,
          'rss',
          h.settled,
          `rss ${mib(h.settled.rss)} (V8 heap committed ${mib(h.settled.heapTotal)} for ${mib(h.settled.heapUsed)} used): what V8 keeps once its memory reducer has run`,
          false,
        ),
        row('heapUsed, after creating them', 'heapUsed', h.after, `heap used ${mib(h.before.heapUsed)} → ${mib(h.after.heapUsed)}; Map child ${mib(b.before.heapUsed)} → ${mib(b.after.heapUsed)}`),
      ],
      notes: [
        `Hearth in a child process (--expose-gc, fast commit), onboarded, then ${num(h.entities, 0)} entities created with POST /api/states ` +
          `(the power-sensor body, one write per entity, 64 connections, ${num(h.createSeconds, 1)} s${h.errors ? `, ${h.errors} errors` : ''}); ` +
          `before = after start and onboarding, after = once the writes are answered; three gc() before each sample`,
        `one GET /api/states afterwards changed heapUsed by ${num((h.afterGet.heapUsed - h.after.heapUsed) / 2 ** 20, 1)} MiB ` +
          `(rss ${mib(h.afterGet.rss)}): the answers to the POSTs had already cached every state's JSON`,
        `baseline: a fresh child process, the same states (parsed from Hearth's GET /api/states answer, turned into Hearth's ` +
          `EntityState objects with fromStateDict) in a Map<entity_id, EntityState>`,
      ],
    };
  } finally {
    await removeDir(dir);
  }
}

if (isChild(import.meta.url)) serveChild((m) => (m.role === 'hearth' ? hearthChild(m) : mapChild(m)));
else if (isMain(import.meta.url)) await runAlone(run);
