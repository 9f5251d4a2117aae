// Where a record goes when Hearth runs on its own (`npm start`): stdout as readable lines or as
// JSON lines, and the log file, which turns over past its size.
import t from 'tap';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Logs } from '../../actors/logging/logs.ts';
import { LogLevels, severityOf } from '../../actors/logging/levels.ts';
import { manualClock } from '../../actors/clock.ts';
import { SystemLog, CAPTURED_TEXT_MAX } from '../../actors/logging/system-log.ts';

const T0 = Date.UTC(2024, 4, 1, 12, 0, 0, 123);

t.test('stdout: time, level, logger and message on one line; the stack under it', async (t) => {
  const out: string[] = [];
  const logs = new Logs({ clock: manualClock(T0), stdout: (l) => out.push(l) });
  logs.get('hearth.auth').info('hello');
  logs.get('hearth.auth').debug('not at the default level');
  logs.get('hearth.bus').error('it broke', new Error('boom'));
  t.equal(out.length, 2);
  t.match(out[0], /^2024-05-01 \d\d:\d\d:00\.123 INFO \(MainThread\) \[hearth\.auth\] hello$/);
  t.match(out[1], /^\S+ \S+ ERROR \(MainThread\) \[hearth\.bus\] it broke\nError: boom\n\s+at /);
});

t.test('stdout as JSON lines: pino records with the level by name', async (t) => {
  const out: string[] = [];
  const logs = new Logs({ clock: manualClock(T0), format: 'json', stdout: (l) => out.push(l) });
  logs.get('hearth.http').warning('slow client dropped');
  logs.get('hearth.http').logLine('said as before: info');
  const [warning, info] = out.map((l) => JSON.parse(l));
  t.match(warning, { level: 'warning', time: T0, name: 'hearth.http', msg: 'slow client dropped' });
  t.equal(warning.source[0], 'test/actors/logging-outlets.test.ts', 'where it was logged from');
  t.match(info, { level: 'info', name: 'hearth.http', msg: 'said as before: info' });
});

t.test('the file turns over past its size, keeping one older file', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-logfile-'));
  const file = join(dir, 'hearth.log');
  const logs = new Logs({ clock: manualClock(T0), file, fileMaxBytes: 300, lines: () => {} });
  const log = logs.get('hearth.test');
  for (let i = 0; i < 10; i++) {
    log.info(`line ${i} ${'x'.repeat(50)}`);
    await new Promise((r) => setImmediate(r)); // one write per tick
  }
  logs.close();
  const current = await readFile(file, 'utf8');
  const older = await readFile(`${file}.1`, 'utf8');
  t.ok(current.length < 300 && older.length < 400, 'both stay near the bound');
  t.match(current, /line 9 /, 'the newest line is in the current file');
  t.notMatch(older, /line 0 /, 'the oldest lines are gone');
});

t.test('thresholds: nearest configured parent, else the default; NOTSET inherits', async (t) => {
  const levels = new LogLevels(20, { hearth: 30, 'hearth.auth.mfa': 10 });
  t.equal(levels.thresholdOf('hearth.auth'), 30);
  t.equal(levels.thresholdOf('hearth.auth.mfa.totp'), 10);
  t.equal(levels.thresholdOf('hearthling'), 20, 'a parent is a whole dotted segment');
  levels.set({ hearth: 0 });
  t.equal(levels.thresholdOf('hearth.auth'), 20);
  t.same(['warn', 'Fatal', 'NOTSET', 'loud', 10].map(severityOf), [30, 50, 0, undefined, undefined]);
});

t.test('the capture keeps a bounded copy of a long message', async (t) => {
  const capture = new SystemLog(50);
  const long = 'x'.repeat(CAPTURED_TEXT_MAX * 2);
  capture.add({ name: 'hearth.test', message: long, level: 'ERROR', source: ['a.ts', 1], time: T0, exception: '' });
  const [entry] = capture.list();
  t.equal(entry.message[0].length, CAPTURED_TEXT_MAX);
  t.ok(entry.message[0].endsWith('…'), 'marked as cut');
});
