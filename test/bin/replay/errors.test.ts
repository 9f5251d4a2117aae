import t from 'tap';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import { runEach, runReplay } from './fixtures/cli.ts';
import { writeFixtureLog } from './fixtures/log.ts';

const dataDir = t.testdir();
t.before(() => writeFixtureLog(dataDir));

t.test('--help', async (t) => {
  const run = await runReplay(['--help']);
  t.equal(run.code, 0);
  t.match(run.stdout, /usage: hearth replay/);
  t.match(run.stdout, /--state-at TIME/);
});

t.test('bad options are usage errors', async (t) => {
  const cases: [string[], RegExp][] = [
    [['--format', 'xml'], /--format must be json or table/],
    [['--from', 'yesterday'], /--from needs a sequence number or an ISO time/],
    [['--to', '2025-13-45T99:00:00Z'], /--to needs a sequence number or an ISO time/],
    [['--state-at', '12'], /--state-at needs an ISO time/],
    [['--state-at', '2025-01-02T03:04:05Z', '--from', '3'], /cannot be combined with --from/],
    [['--follow', '--to', '2025-01-02T03:04:05Z'], /--to must be a sequence number/],
    [['--bogus'], /Unknown option '--bogus'/],
    [['stray'], /positional/],
  ];
  const runs = await runEach(cases.map(([args]) => ['--data', dataDir, ...args]));
  cases.forEach(([args, message], i) => {
    t.equal(runs[i].code, 2, `${args.join(' ')}: exit 2`);
    t.match(runs[i].stderr, message, args.join(' '));
    t.equal(runs[i].stdout, '');
  });
});

t.test('a data directory without a log', async (t) => {
  const missing = join(t.testdir(), 'nowhere');
  const empty = t.testdir();
  const [first, second] = await runEach([['--data', missing], ['--data', empty]]);
  t.equal(first.code, 1);
  t.match(first.stderr, `no data directory at ${missing}`);
  t.equal(second.code, 1);
  t.match(second.stderr, `no event log in ${empty}`);
  t.notOk(existsSync(join(empty, 'log')), 'replay did not create a log');
});

t.test('a log locked by another process, with no socket answering', async (t) => {
  const dir = t.testdir();
  await writeFixtureLog(dir);
  const held = await openEventLog({ path: join(dir, 'log') });
  t.teardown(() => held.close());
  const run = await runReplay(['--data', dir]);
  t.equal(run.code, 1);
  t.match(run.stderr, `the event log of ${dir} is locked by another process`);
  t.match(run.stderr, join(dir, 'hearth.sock'));
  t.equal(run.stdout, '');
});
