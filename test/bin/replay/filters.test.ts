import t from 'tap';
import { join } from 'node:path';
import { jsonLines, runEach, runReplay, ENTRY } from './fixtures/cli.ts';
import { FIXTURE, SECRETS, T0, writeFixtureLog } from './fixtures/log.ts';

t.comment(`running hearth replay through ${ENTRY}`);

const dataDir = t.testdir();
t.before(() => writeFixtureLog(dataDir));

const iso = (ms: number) => new Date(ms).toISOString();
const all = FIXTURE.map((_, i) => i + 1);

// Seq n of the fixture is FIXTURE[n - 1]; test/bin/replay/fixtures/log.ts lists them with their times.
const cases: { name: string; args: string[]; seqs: number[] }[] = [
  { name: 'everything', args: [], seqs: all },
  { name: 'seq range', args: ['--from', '4', '--to', '8'], seqs: [4, 5, 6, 7, 8] },
  { name: 'from a seq', args: ['--from', '12'], seqs: [12, 13] },
  { name: 'to a seq', args: ['--to', '3'], seqs: [1, 2, 3] },
  { name: 'one seq', args: ['--from', '9', '--to', '9'], seqs: [9] },
  { name: 'past the end', args: ['--from', '14'], seqs: [] },
  { name: 'time range', args: ['--from', iso(T0 + 2000), '--to', iso(T0 + 4000)], seqs: [4, 5, 6, 7, 8] },
  {
    name: 'time bounds are inclusive to the microsecond',
    args: ['--from', '2025-01-02T03:04:07.000250+00:00', '--to', '2025-01-02T03:04:08+00:00'],
    seqs: [4, 5, 6],
  },
  { name: 'a microsecond later', args: ['--from', '2025-01-02T03:04:07.000251Z', '--to', '2025-01-02T03:04:08Z'], seqs: [5, 6] },
  { name: 'time with an offset', args: ['--to', '2025-01-02T04:04:06+01:00'], seqs: [1, 2] },
  { name: 'seq from, time to', args: ['--from', '5', '--to', iso(T0 + 4000)], seqs: [5, 6, 7, 8] },
  { name: 'type', args: ['--type', 'state_changed'], seqs: [2, 3, 4, 5, 8, 10, 11, 12] },
  { name: 'types repeated and comma-separated', args: ['--type', 'state_reported,custom_event', '--type', 'call_service'], seqs: [6, 7, 13] },
  { name: 'unknown type', args: ['--type', 'nothing_like_it'], seqs: [] },
  { name: 'entity: its stream and data.entity_id', args: ['--entity', 'light.kitchen'], seqs: [2, 4, 6, 7, 10] },
  { name: 'entities', args: ['--entity', 'light.kitchen,switch.fan'], seqs: [2, 3, 4, 6, 7, 8, 10] },
  { name: 'entity with type and time', args: ['--entity', 'sensor.temp', '--type', 'state_changed', '--from', iso(T0 + 3000)], seqs: [12] },
  { name: 'entity that never existed', args: ['--entity', 'light.nowhere'], seqs: [] },
  { name: 'json asked for', args: ['--format', 'json', '--to', '2'], seqs: [1, 2] },
];

// stdout is a pipe here, so json is the default format
t.test('filters', async (t) => {
  const runs = await runEach(cases.map(({ args }) => ['--data', dataDir, ...args]));
  cases.forEach(({ name, seqs }, i) => {
    const run = runs[i];
    t.equal(run.code, 0, `${name}: exit 0`);
    t.equal(run.stderr, '', `${name}: nothing on stderr`);
    t.same(jsonLines(run.stdout).map((r) => r.seq), seqs, name);
    for (const secret of SECRETS) t.notOk(run.stdout.includes(secret), `${name}: no secret printed`);
  });
});

t.test('HEARTH_DATA is the default data directory', async (t) => {
  const run = await runReplay(['--to', '1'], { HEARTH_DATA: dataDir });
  t.equal(run.code, 0);
  t.same(jsonLines(run.stdout).map((r) => r.seq), [1]);
});

t.test('--data wins over HEARTH_DATA', async (t) => {
  const run = await runReplay(['--data', dataDir, '--to', '1'], { HEARTH_DATA: join(dataDir, 'nowhere') });
  t.equal(run.code, 0);
  t.same(jsonLines(run.stdout).map((r) => r.seq), [1]);
});
