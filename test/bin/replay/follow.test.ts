import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import { serveLog } from '../../../store/log-socket.ts';
import type { EventLog } from '../../../store/types.ts';
import { exitOf, jsonLines, lineReader, runReplay, startReplay, stderrReader } from './fixtures/cli.ts';
import { busEvent, openFixtureLog, SECRETS } from './fixtures/log.ts';

/** A data directory short enough for `<dir>/hearth.sock` to fit a Unix socket address. */
async function dataDir(t: Test): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-replay-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Stands in for a running Hearth: its log open (and so locked) and served on `<dir>/hearth.sock`. */
async function runningHearth(dir: string, log?: EventLog) {
  const opened = log ?? (await openEventLog({ path: join(dir, 'log'), commit: 'fast' }));
  const server = await serveLog(opened, join(dir, 'hearth.sock'));
  return {
    log: opened,
    async stop() {
      await server.close();
      await opened.close();
    },
  };
}

const seqs = (lines: string[]) => jsonLines(lines.join('\n')).map((r) => r.seq);

t.test('a running Hearth is read through its socket', async (t) => {
  const dir = await dataDir(t);
  const log = await openFixtureLog(dir);
  const server = await serveLog(log, join(dir, 'hearth.sock'));
  t.teardown(() => log.close());

  const run = await runReplay(['--data', dir, '--entity', 'light.kitchen']);
  t.equal(run.code, 0, run.stderr);
  t.same(jsonLines(run.stdout).map((r) => r.seq), [2, 4, 6, 7, 10], 'read through the socket while the log is locked');
  const all = await runReplay(['--data', dir, '--format', 'table']);
  t.equal(all.stdout.trimEnd().split('\n').length, 14);
  for (const secret of SECRETS) t.notOk(all.stdout.includes(secret), 'secrets hidden over the socket too');

  await server.close();
  const locked = await runReplay(['--data', dir]);
  t.equal(locked.code, 1, 'without the socket, the locked log cannot be read');
  t.match(locked.stderr, /is locked by another process/);
});

t.test('--follow prints new records as they commit, until Ctrl-C', async (t) => {
  const dir = await dataDir(t);
  const hearth = await runningHearth(dir, await openFixtureLog(dir));
  t.teardown(() => hearth.stop());

  const child = startReplay(['--data', dir, '--follow', '--format', 'json']);
  const out = lineReader(child);
  const err = stderrReader(child);
  t.same(seqs(await out.until(13)), Array.from({ length: 13 }, (_, i) => i + 1), 'the records already there');
  await hearth.log.append([busEvent(1)]);
  await hearth.log.append([busEvent(2), busEvent(3)]);
  const lines = await out.until(16);
  t.same(seqs(lines.slice(13)), [14, 15, 16], 'then the new ones');
  t.same(jsonLines(lines.slice(13).join('\n')).map((r) => r.data.n), [1, 2, 3]);
  child.kill('SIGINT');
  t.equal(await exitOf(child), 0, 'Ctrl-C ends it normally');
  t.equal(err.text(), '');
  t.equal(out.lines.length, 16, 'nothing twice');
});

t.test('--follow with filters, up to a seq', async (t) => {
  const dir = await dataDir(t);
  const hearth = await runningHearth(dir, await openFixtureLog(dir));
  t.teardown(() => hearth.stop());

  const child = startReplay(['--data', dir, '--follow', '--format', 'table', '--type', 'test_event,custom_event', '--to', '16']);
  const out = lineReader(child);
  await out.until(2);
  t.match(out.lines[1], /^\s+7\s.*custom_event\s+bus\s/);
  await hearth.log.append([busEvent(1), { ...busEvent(2), type: 'other_event' }]);
  await hearth.log.append([busEvent(3), busEvent(4)]);
  t.equal(await exitOf(child), 0, 'it ends once past --to');
  t.same(out.lines.slice(2).map((line) => line.trim().split(/\s+/)[0]), ['14', '16']);
});

t.test('--follow waits for Hearth to start, and resumes after a restart', async (t) => {
  const dir = await dataDir(t);
  await (await openFixtureLog(dir)).close();

  const child = startReplay(['--data', dir, '--follow']);
  t.teardown(() => child.kill('SIGKILL'));
  const out = lineReader(child);
  const err = stderrReader(child);
  await out.until(13);
  await err.until('Hearth is not running');
  // replay read the log straight from LevelDB and has let go of it: Hearth can start
  let hearth = await runningHearth(dir);
  await hearth.log.append([busEvent(1)]);
  t.same(seqs((await out.until(14)).slice(13)), [14], 'picked up once Hearth answers');

  const before = err.text().length;
  await hearth.stop();
  await err.until('Hearth stopped', before);
  hearth = await runningHearth(dir);
  t.teardown(() => hearth.stop());
  await hearth.log.append([busEvent(2)]);
  await hearth.log.append([busEvent(3)]);
  t.same(seqs((await out.until(16)).slice(14)), [15, 16], 'and again after a restart, from where it was');
  child.kill('SIGINT');
  t.equal(await exitOf(child), 0);
  t.equal(out.lines.length, 16);
});
