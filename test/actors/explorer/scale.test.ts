// The home at a moment with 10k entities, fast enough for a slider: measured on a real LevelDB
// log (10 changes per entity), printed, and asserted only against a bound that proves no scan.
import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import { Explorer } from '../../../actors/explorer/explorer.ts';
import { StateFold } from '../../../actors/explorer/state-at.ts';
import type { NewEvent } from '../../../store/types.ts';

const ENTITIES = 10_000;
const ROUNDS = 10;
const T0 = Date.UTC(2026, 0, 1);
const ROUND_MS = 60_000;

t.test('state_at over 10k entities', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-explorer-'));
  const log = await openEventLog({ path: dir, commit: 'fast' });
  t.teardown(async () => {
    await log.close();
    await rm(dir, { recursive: true, force: true });
  });
  const context = { id: '01JGZZZZZZZZZZZZZZZZZZZZZZ', parent_id: null, user_id: null };
  for (let round = 0; round < ROUNDS; round++) {
    const events: NewEvent[] = [];
    for (let i = 0; i < ENTITIES; i++) {
      const time = T0 + round * ROUND_MS + i / 1000;
      const entity_id = `sensor.s${i}`;
      const state = { entity_id, state: String(round), attributes: { round }, last_changed: time, last_reported: time, last_updated: time, context };
      events.push({ time, stream: `entity/${entity_id}`, type: 'state_changed', data: { entity_id, old_state: null, new_state: state }, context, origin: 'LOCAL' });
    }
    for (let i = 0; i < events.length; i += 1000) await log.append(events.slice(i, i + 1000));
  }
  const explorer = new Explorer({ log });

  const timed = async (label: string, at: number) => {
    const started = performance.now();
    const r = await explorer.stateAt(at);
    const ms = performance.now() - started;
    t.comment(`${label}: ${r.states.length} states in ${ms.toFixed(0)} ms`);
    return { ...r, ms };
  };
  const first = await timed('first question (reads the index keys of every entity stream)', T0 + 9.5 * ROUND_MS);
  const now = await timed('now', T0 + ROUNDS * ROUND_MS);
  t.equal(now.states.length, ENTITIES);
  t.ok(now.states.every((s) => s.state === String(ROUNDS - 1)));
  const past = await timed('the middle of the log', T0 + 4.5 * ROUND_MS);
  t.equal(past.states.length, ENTITIES);
  t.ok(past.states.every((s) => s.state === '4'), 'every entity as it was then');
  const partial = await timed('half way through the first round', T0 + 5);
  t.equal(partial.states.length, 5001, 'only the entities that existed then');
  t.ok(first.states.length > 0);

  // the same answer as replay's fold of the whole log
  const fold = new StateFold(T0 + 4.5 * ROUND_MS);
  const started = performance.now();
  for await (const r of log.read()) fold.add(r);
  t.comment(`replay's fold of all ${log.lastSeq()} records: ${(performance.now() - started).toFixed(0)} ms`);
  t.same(fold.states(), past.states, 'the fold of replay --state-at agrees');

  // generous: a full scan of this log on a loaded machine would still pass 10 s only rarely
  t.ok(past.ms < 10_000, `a moment in the past answered in ${past.ms.toFixed(0)} ms`);
});
