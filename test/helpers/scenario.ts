// Tests over recorded events: given a log, when commands, then exactly these records.
// The expected records live as JSON lines under test/fixtures/<area>/<name>.ndjson;
// UPDATE_FIXTURES=1 rewrites them from the current behaviour (review the diff before committing).
import { mkdtemp, readFile, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openEventLog } from '../../store/log.ts';
import type { EventLog, EventRecord, NewEvent } from '../../store/types.ts';
import { manualClock, sequentialIds } from '../../actors/clock.ts';
import { EntityActors } from '../../actors/entities/registry.ts';
import { HelperActors } from '../../actors/entities/helpers.ts';
import { helperDomains } from '../../actors/entities/domains/index.ts';
import { ServiceRegistry } from '../../actors/services/registry.ts';
import { CoreConfig } from '../../actors/core/core-config.ts';
import { coreServices } from '../../actors/core/services.ts';
import type { Context } from '../../store/types.ts';

const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** The actors of the core, built over a real log with a manual clock and sequential ids. */
export interface ScenarioCore {
  log: EventLog;
  entities: EntityActors;
  services: ServiceRegistry;
  helpers: Map<string, HelperActors>;
  clock: ReturnType<typeof manualClock>;
  context(userId?: string | null): Context;
}

/** Builds the core's actors on a fresh log holding `given`, with helper sections configured. */
export async function buildCore(given: NewEvent[], sections: Record<string, unknown> = {}): Promise<ScenarioCore> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-scenario-'));
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  if (given.length) await log.append(given);
  const clock = manualClock(Date.UTC(2026, 0, 1, 12, 0, 0), 1);
  const ids = sequentialIds();
  const entities = new EntityActors({ log, clock });
  for await (const r of log.read()) if (entities.area.owns(r)) entities.area.evolve(r);
  const services = new ServiceRegistry({ log, clock, entities });
  const coreConfig = new CoreConfig({ log, clock, configDir: dir });
  const context = (userId: string | null = null): Context => ({ id: ids.ulid(clock.now()), parent_id: null, user_id: userId });
  const helpers = new Map<string, HelperActors>();
  for (const d of helperDomains) {
    const h = new HelperActors(d, entities, clock, () => {});
    helpers.set(d.domain, h);
    for (const spec of h.specs(async (ctx) => h.configure(sections[d.domain], ctx))) await services.register(spec, context());
    await h.configure(sections[d.domain], context());
  }
  for (const spec of coreServices({ services, entities, coreConfig, reloadCoreConfig: async () => {}, stop() {}, restart() {}, log() {} })) {
    await services.register(spec, context());
  }
  return { log, entities, services, helpers, clock, context };
}

/** The records appended after `afterSeq`, in the form fixtures store them. */
export async function recordsAfter(log: EventLog, afterSeq: number, filter: (r: EventRecord) => boolean = () => true): Promise<EventRecord[]> {
  const out: EventRecord[] = [];
  for await (const r of log.read({ gt: afterSeq })) if (filter(r)) out.push(r);
  return JSON.parse(JSON.stringify(out));
}

/** Compares records with a fixture file (or writes it when UPDATE_FIXTURES=1). */
export async function expectFixture(t: { same(...args: any[]): unknown; fail(...args: any[]): unknown }, name: string, records: EventRecord[]) {
  const file = join(FIXTURES, `${name}.ndjson`);
  const text = records.map((r) => JSON.stringify(r)).join('\n') + '\n';
  if (process.env.UPDATE_FIXTURES === '1') {
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, text);
  }
  let expected: string;
  try {
    expected = await readFile(file, 'utf8');
  } catch {
    return t.fail(`fixture ${file} is missing; run with UPDATE_FIXTURES=1 to record it`);
  }
  const want = expected.split('\n').filter(Boolean).map((l) => JSON.parse(l));
  t.same(records, want, `records match ${name}.ndjson`);
}

/** Reads a fixture's records (to use as `given`). */
export async function fixtureRecords(name: string): Promise<EventRecord[]> {
  const text = await readFile(join(FIXTURES, `${name}.ndjson`), 'utf8');
  return text.split('\n').filter(Boolean).map((l) => JSON.parse(l));
}
