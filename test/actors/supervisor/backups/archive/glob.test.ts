// Which files a backup leaves out (supervisor-wire §5.4) and which SecureTar version it writes
// (§5.5): Core's globs as `PurePath.full_match` reads them, an app's `backup_exclude` checked
// against Python's own `PurePath.match`.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import { appExcludeMatches, compileGlob, CORE_BACKUP_EXCLUDE, CORE_BACKUP_EXCLUDE_DATABASE, excludedBy } from '../../../../../actors/supervisor/backups/archive/glob.ts';
import { innerArchiveName, secureTarVersionFor } from '../../../../../actors/supervisor/backups/archive/inner.ts';

t.test("Core's exclusions, relative to data/", async (t) => {
  const core = excludedBy(CORE_BACKUP_EXCLUDE, 'data');
  const withDb = excludedBy([...CORE_BACKUP_EXCLUDE, ...CORE_BACKUP_EXCLUDE_DATABASE], 'data');
  const table: Array<[string, boolean, boolean?]> = [
    ['data/__pycache__/x.pyc', true],
    ['data/custom_components/a/b/__pycache__/x.pyc', true],
    ['data/custom_components/__pycache__', false],
    ['data/__pycache__/sub/x.pyc', false],
    ['data/.DS_Store', true],
    ['data/www/.DS_Store', true],
    ['data/home-assistant.log', true],
    ['data/home-assistant.log.1', true],
    ['data/logs/home-assistant.log', false],
    ['data/home-assistant_v2.db-shm', true],
    ['data/.storage/core.config.corrupt.123', true],
    ['data/x.corrupt.1', true],
    ['data/.storage/core.config', false],
    ['data/OZW_Log.txt', true],
    ['data/backups/a.tar', true],
    ['data/backups/sub/a.tar', false],
    ['data/tmp_backups/b.tar', true],
    ['data/tts', false],
    ['data/tts/x.mp3', true],
    ['data/.cache/pip', true],
    ['data/configuration.yaml', false],
    ['data', false],
    ['data/home-assistant_v2.db', false, true],
    ['data/home-assistant_v2.db-wal', false, true],
    ['data/home-assistant_v12.db', false, false],
  ];
  for (const [path, excluded, excludedWithDb = excluded] of table) {
    t.equal(core(path), excluded, `${path}: ${excluded ? 'excluded' : 'kept'}`);
    t.equal(withDb(path), excludedWithDb, `${path} with exclude_database: ${excludedWithDb ? 'excluded' : 'kept'}`);
  }
  t.ok(compileGlob('a/[bc]?/*')('a/cx/y') && !compileGlob('a/[!bc]?/*')('a/cx/y'), 'character classes');
});

t.test("an app's backup_exclude matches like Python's PurePath.match on the full path", async (t) => {
  const patterns = ['*.tmp', 'cache/*', '/data/cache/*', '**/*.log', 'data/*', '*', 'cache', '/data', 'x?.bin', '[ab]*'];
  const paths = ['/data/cache/x.tmp', '/data/cache', '/data/a.log', '/data/logs/b.log', '/data', '/data/x1.bin', '/data/b', '/config/cache/y'];
  const cases = patterns.flatMap((pattern) => paths.map((path) => [pattern, path]));
  const run = spawnSync('python3', ['-c', 'import json,sys; from pathlib import PurePosixPath as P; print(json.dumps([P(p).match(g) for g, p in json.load(sys.stdin)]))'], { input: JSON.stringify(cases) });
  if (run.status !== 0) {
    t.comment(`python3 is not available, Python's match not consulted: ${run.stderr}`);
    return;
  }
  const python = JSON.parse(run.stdout.toString()) as boolean[];
  cases.forEach(([pattern, path], i) => t.equal(appExcludeMatches(pattern, path), python[i], `${pattern} on ${path}`));
});

t.test('SecureTar v3 from Core 2026.3.0, v2 before, for pre-releases and the landing page', async (t) => {
  const table: Array<[string | null, 2 | 3]> = [
    ['2026.3.0', 3],
    ['2026.3.1', 3],
    ['2026.10.0', 3],
    ['2027.1.0', 3],
    ['2026.3.0b1', 2],
    ['2026.2.5', 2],
    ['2025.12.0', 2],
    ['landingpage', 2],
    [null, 2],
    // a container tag ranks above every number in the original's order
    ['dev', 3],
    ['no-version', 2],
  ];
  for (const [version, expected] of table) t.equal(secureTarVersionFor(version), expected, String(version));
});

t.test('inner archive names', async (t) => {
  t.equal(innerArchiveName('addons/local', true), 'addons_local.tar.gz');
  t.equal(innerArchiveName('homeassistant', false), 'homeassistant.tar');
});
