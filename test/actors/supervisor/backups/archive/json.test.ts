// backup.json as the original writes and validates it (supervisor-wire §5.2/§5.3): v2 output,
// v1/legacy input with its defaults and conversions, and errors naming the bad field.
import t from 'tap';
import { backupDate, backupSlug, BackupMetaError, encodeBackupJson, parseBackupJson, validateBackupMeta } from '../../../../../actors/supervisor/backups/archive/backup-json.ts';

const SECOND = 1777604400n * 1_000_000n; // 2026-05-01T03:00:00Z

t.test('dates are UTC isoformat with microseconds and +00:00 (no fraction when it is zero, as Python)', async (t) => {
  t.equal(backupDate(SECOND + 123456n), '2026-05-01T03:00:00.123456+00:00');
  t.equal(backupDate(SECOND + 5n), '2026-05-01T03:00:00.000005+00:00');
  t.equal(backupDate(SECOND), '2026-05-01T03:00:00+00:00');
});

t.test('the slug is the first 8 hex digits of sha1("<date> - <name>" lower-cased)', async (t) => {
  // computed with Python's hashlib from the same strings
  t.equal(backupSlug('Nightly \u00dcn\u00efcode', '2026-05-01T03:00:00.123456+00:00'), '4a3857ec');
  t.match(backupSlug('', backupDate(SECOND)), /^[0-9a-f]{8}$/);
});

const V2 = {
  slug: '7fed74c8',
  version: 2,
  name: 'Nightly',
  date: '2026-05-01T03:00:00.123456+00:00',
  type: 'partial',
  supervisor_version: '2026.05.0',
  extra: { by: 'test' },
  compressed: true,
  protected: false,
  homeassistant: { version: '2026.5.0', exclude_database: false, size: 0 },
  folders: ['share', 'ssl'],
  addons: [{ slug: 'local_ssh', name: 'Terminal & SSH', version: '9.2.1', size: 0 }],
  repositories: ['core', 'local', 'https://github.com/hassio-addons/repository'],
};

t.test('a v2 document round-trips unchanged and is written compact', async (t) => {
  const bytes = encodeBackupJson(V2 as never);
  t.notMatch(bytes.toString(), /\n|": /, 'compact');
  t.same(parseBackupJson(bytes), V2);
});

t.test('v1 and legacy documents get the original defaults and conversions', async (t) => {
  const meta = parseBackupJson(
    JSON.stringify({
      slug: 'abcd1234',
      name: 'old',
      date: '2021-01-01T00:00:00+00:00',
      type: 'full',
      protected: 'aes128',
      crypto: 'aes128',
      homeassistant: { version: null },
      folders: ['homeassistant', 'share', 'addons/local'],
      snapshot_extra: 1,
    }),
  );
  t.equal(meta.version, 1, 'missing version is 1');
  t.equal(meta.supervisor_version, '2022.08.3', 'missing supervisor_version');
  t.equal(meta.compressed, true, 'missing compressed is true');
  t.equal(meta.protected, true, 'a non-boolean protected reads as true');
  t.notOk('crypto' in meta, 'crypto is stripped');
  t.equal(meta.homeassistant, null, 'a Core entry without version is null');
  t.same(meta.folders, ['share', 'addons/local'], 'the v1 homeassistant folder is dropped');
  t.same(meta.addons, []);
  t.same(meta.repositories, []);
  t.same(meta.extra, {});
  t.equal(meta.snapshot_extra, 1, 'unknown keys are kept');
  t.equal(parseBackupJson(JSON.stringify({ ...V2, homeassistant: {} })).homeassistant, null, 'an empty Core object is null');
  t.same(parseBackupJson(JSON.stringify({ ...V2, repositories: ['core', '/srv/hearth-apps'] })).repositories, ['core', '/srv/hearth-apps'], "a local folder of Hearth's store is a repository");
  t.equal(parseBackupJson(JSON.stringify({ ...V2, version: '2', compressed: 'no' })).compressed, false, 'booleans and numbers coerced as voluptuous does');
  t.same(parseBackupJson(JSON.stringify({ ...V2, addons: [{ slug: 'a', name: 'A', version: '1' }] })).addons, [{ slug: 'a', name: 'A', version: '1', size: 0 }], 'app size defaults to 0');
  t.same(parseBackupJson(JSON.stringify({ ...V2, homeassistant: { version: '2024.1.0', extra: 1 } })).homeassistant, { version: '2024.1.0', exclude_database: false, size: 0 }, 'Core defaults; extra keys removed');
});

t.test('a bad field is refused with an error naming it', async (t) => {
  const cases: Array<[string, unknown, RegExp]> = [
    ['not JSON', '{', /\(document\) is not valid JSON/],
    ['not an object', '[]', /\(document\) must be a JSON object/],
    ['slug missing', { ...V2, slug: undefined }, /slug is required/],
    ['name not a string', { ...V2, name: 5 }, /name must be a string/],
    ['date missing', { ...V2, date: undefined }, /date is required/],
    ['type unknown', { ...V2, type: 'incremental' }, /type must be "full" or "partial"/],
    ['version 3', { ...V2, version: 3 }, /version must be 1 or 2/],
    ['compressed a word', { ...V2, compressed: 'maybe' }, /compressed must be a boolean/],
    ['crypto other', { ...V2, crypto: 'aes256' }, /crypto must be "aes128"/],
    ['Core version bad', { ...V2, homeassistant: { version: {} } }, /homeassistant\.version must be a version/],
    ['Core a list', { ...V2, homeassistant: [1] }, /homeassistant must be an object or null/],
    ['unknown folder', { ...V2, folders: ['share', 'backup'] }, /folders\[1\] must be one of share, addons\/local, ssl, media/],
    ['folder twice', { ...V2, folders: ['ssl', 'ssl'] }, /folders contains a folder twice/],
    ['app without name', { ...V2, addons: [{ slug: 'a', version: '1' }] }, /addons\[0\]\.name is required/],
    ['app twice', { ...V2, addons: [{ slug: 'a', name: 'A', version: '1' }, { slug: 'a', name: 'B', version: '2' }] }, /addons lists an app twice/],
    ['app size text', { ...V2, addons: [{ slug: 'a', name: 'A', version: '1', size: 'big' }] }, /addons\[0\]\.size must be a number/],
    ['bad repository', { ...V2, repositories: ['not a url'] }, /repositories\[0\] is not a repository URL/],
    ['relative folder', { ...V2, repositories: ['apps/mine'] }, /repositories\[0\] is not a repository URL, an absolute folder/],
    ['repository twice', { ...V2, repositories: ['core', 'core'] }, /repositories contains a repository twice/],
    ['extra a list', { ...V2, extra: [] }, /extra must be an object/],
  ];
  for (const [label, doc, message] of cases) {
    const raw = typeof doc === 'string' ? doc : JSON.stringify(doc);
    t.throws(() => parseBackupJson(raw), message, label);
    try {
      parseBackupJson(raw);
    } catch (error) {
      t.ok(error instanceof BackupMetaError && /^backup\.json: /.test(error.message), `${label}: a BackupMetaError`);
    }
  }
  t.throws(() => validateBackupMeta(null), /must be a JSON object, not null/);
});
