// Template renders/s: one template of 100 states() lookups rendered by actors/templates (compile
// cached, as every render after the first), beside the same work in plain JavaScript (100 Map
// lookups and a join). What the bounded evaluator costs over doing the lookups directly.
import { Templates } from '../actors/templates/index.ts';
import type { EntityState } from '../actors/entities/types.ts';
import { isMain, num, rateRow, runAlone, type BenchOptions, type BenchResult, rate } from './common.ts';
import { hotSpotNotes, startProfile } from './profile.ts';

const ENTITIES = 1000;
const LOOKUPS = 100;
const ROUNDS = 3;
const ROUND_MS = 2000;

function states(): Map<string, EntityState> {
  const map = new Map<string, EntityState>();
  for (let i = 0; i < ENTITIES; i++) {
    const entity_id = `sensor.bench_${i}`;
    map.set(entity_id, {
      entity_id,
      state: String(i % 37),
      attributes: { unit_of_measurement: '°C', friendly_name: `Bench ${i}` },
      last_changed: 1_767_225_600_000,
      last_reported: 1_767_225_600_000,
      last_updated: 1_767_225_600_000,
      context: { id: '01J00000000000000000000000', parent_id: null, user_id: null },
    });
  }
  return map;
}

export async function run(options: BenchOptions = {}): Promise<BenchResult> {
  const map = states();
  const ids = Array.from({ length: LOOKUPS }, (_, i) => `sensor.bench_${(i * 7) % ENTITIES}`);
  const source = ids.map((id) => `{{ states('${id}') }}`).join(',');
  const templates = new Templates({
    entities: { get: (id) => map.get(id), states: () => map.values() },
    coreConfig: { asDict: () => ({ latitude: 52.37, longitude: 4.89, time_zone: 'UTC', unit_system: { length: 'km' } }) },
    clock: { now: () => Date.now() },
  });
  const check = templates.render(source, undefined);
  if (!check.ok || check.text.split(',').length !== LOOKUPS) throw new Error(`the bench template did not render: ${check.ok ? check.text.slice(0, 80) : check.error}`);

  let sink = 0;
  const raw = () => {
    const parts: string[] = [];
    for (const id of ids) parts.push(map.get(id)?.state ?? 'unknown');
    sink += parts.join(',').length;
  };
  const rendered = () => {
    const outcome = templates.render(source, undefined);
    if (outcome.ok) sink += outcome.text.length;
  };
  rate(300, raw);
  rate(300, rendered);
  const notes: string[] = [];
  const runs = { raw: [] as number[], template: [] as number[] };
  for (let round = 0; round < ROUNDS; round++) {
    runs.raw.push(rate(ROUND_MS, raw));
    const stop = options.profile && round === 0 ? await startProfile() : undefined;
    runs.template.push(rate(ROUND_MS, rendered));
    if (stop) notes.push(...hotSpotNotes('template renders', await stop()));
  }
  const best = (xs: number[]) => Math.max(...xs);
  const perRender = (1e6 / best(runs.template)).toFixed(1);
  notes.unshift(
    `template: ${LOOKUPS} \`{{ states('sensor.bench_N') }}\` joined by commas over ${ENTITIES} states, compiled once (the cache), each render counting its steps, collecting the entities it read and stripping its output; raw: ${LOOKUPS} Map.get(...).state and a join`,
    `best of ${ROUNDS} interleaved rounds of ${ROUND_MS / 1000} s: template ${runs.template.map((x) => num(x, 0)).join(', ')}; raw ${runs.raw.map((x) => num(x, 0)).join(', ')} per s (checksum ${sink % 1000})`,
  );
  return {
    name: 'templates',
    title: 'template renders/s (100 states() lookups) vs the lookups in plain JavaScript',
    rows: [rateRow('template with 100 states() lookups', best(runs.template), 'renders/s', { label: '100 Map lookups + join', value: best(runs.raw) }, undefined, `${perRender} µs per render`)],
    notes,
  };
}

if (isMain(import.meta.url)) await runAlone(run);
