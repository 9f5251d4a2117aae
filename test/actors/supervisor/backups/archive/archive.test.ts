// Whole backup files in the original's format (supervisor-wire §5.1–§5.6): written by Hearth and
// read back byte for byte, read by Python's tarfile / GNU tar / libsodium, backups made by Python
// in the original's layout read by Hearth, passwords, unsafe archives, and a killed writer.
import t, { type Test } from 'tap';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync, utimesSync, writeFileSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { backupDate, backupSlug, nowMicros } from '../../../../../actors/supervisor/backups/archive/backup-json.ts';
import { extractInnerArchive, UnsafeArchiveError } from '../../../../../actors/supervisor/backups/archive/extract.ts';
import { BackupReader, coreConfigDir } from '../../../../../actors/supervisor/backups/archive/reader.ts';
import { appArchiveSources, BackupWriter, partialPath } from '../../../../../actors/supervisor/backups/archive/writer.ts';
import { InvalidPasswordError, SecureTarKeys } from '../../../../../actors/supervisor/backups/securetar/securetar.ts';
import { sodium, sodiumMissing } from '../../../../helpers/sodium.ts';
import { gnuTar, py, type PyMember } from '../../../../helpers/tar-reference.ts';

const dir = mkdtempSync(join(tmpdir(), 'backup-archive-'));
t.teardown(() => rmSync(dir, { recursive: true, force: true }));

/** Writes a file with a mode and a fractional mtime. */
function put(path: string, data: string | Buffer, mode = 0o644, mtime = 1700000000.123456) {
  mkdirSync(join(path, '..'), { recursive: true });
  writeFileSync(path, data);
  chmodSync(path, mode);
  utimesSync(path, mtime, mtime);
}

// Core's config folder, with things the original's globs leave out
const config = join(dir, 'src/config');
put(join(config, 'configuration.yaml'), 'homeassistant:\n', 0o644, 1700000001.5);
put(join(config, 'secrets.yaml'), 'pw: x\n', 0o600, 1700000002.25);
put(join(config, '.storage/core.entity_registry'), '{}', 0o600);
put(join(config, '.storage/core.entity_registry.corrupt.2024'), 'bad');
put(join(config, 'home-assistant.log'), 'log');
put(join(config, 'home-assistant.log.1'), 'old log');
put(join(config, 'deep/component.log'), 'kept: *.log matches the top level only');
put(join(config, 'custom_components/foo/__pycache__/x.pyc'), 'pyc');
put(join(config, 'custom_components/foo/__init__.py'), 'x = 1\n', 0o755);
put(join(config, 'tts/hello.mp3'), 'mp3');
put(join(config, 'backups/old.tar'), 'tar');
put(join(config, 'home-assistant_v2.db'), randomBytes(50_000));
put(join(config, 'home-assistant_v2.db-shm'), 'shm');
put(join(config, 'big.bin'), randomBytes(3 * 1024 * 1024 + 7));
symlinkSync('configuration.yaml', join(config, 'link.yaml'));
mkdirSync(join(config, 'empty'), { mode: 0o700 });
utimesSync(join(config, 'empty'), 1600000000.5, 1600000000.5);
const CORE_EXCLUDED = ['.storage/core.entity_registry.corrupt.2024', 'home-assistant.log', 'home-assistant.log.1', 'custom_components/foo/__pycache__/x.pyc', 'tts/hello.mp3', 'backups/old.tar', 'home-assistant_v2.db-shm'];

const share = join(dir, 'src/share');
put(join(share, 'notes.txt'), 'shared', 0o664, 1650000000.75);
put(join(share, 'nested/deeper/data.bin'), randomBytes(10_000), 0o600);
symlinkSync('nested/deeper/data.bin', join(share, 'shortcut'));
const appData = join(dir, 'src/app-data');
put(join(appData, 'options.json'), '{"a":1}', 0o600);
put(join(appData, 'cache/x.tmp'), 'temporary');
put(join(appData, 'keys/id_rsa'), 'key', 0o600);
// directories get mtimes a float holds exactly (their creation time in ns would not survive a float seconds value)
function settleDirectories(path: string) {
  for (const entry of readdirSync(path, { withFileTypes: true })) if (entry.isDirectory() && entry.name !== 'empty') settleDirectories(join(path, entry.name));
  utimesSync(path, 1690000000.25, 1690000000.25);
}
for (const root of [config, share, appData]) settleDirectories(root);

/** Every path under `root` with what identifies it: type, mode, mtime, content or link target. */
function tree(root: string, skip: string[] = []): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (path: string) => {
    for (const name of readdirSync(path).sort()) {
      const full = join(path, name);
      const rel = relative(root, full);
      if (skip.includes(rel)) continue;
      const stats = lstatSync(full, { bigint: true });
      // microseconds: what a tar's float mtime keeps
      const mtime = String((stats.mtimeNs + 500n) / 1000n);
      if (stats.isSymbolicLink()) out[rel] = `link ${readlinkSync(full)}`;
      else if (stats.isDirectory()) {
        out[rel] = `dir ${(Number(stats.mode) & 0o7777).toString(8)} ${mtime}`;
        walk(full);
      } else out[rel] = `file ${(Number(stats.mode) & 0o7777).toString(8)} ${mtime} ${readFileSync(full).toString('base64')}`;
    }
  };
  walk(root);
  return out;
}

const ADDON_JSON = { user: { a: 1 }, system: { slug: 'local_ssh', repository: 'local' }, version: '9.2.1', state: 'started' };
const SETTINGS = { uuid: '0123', version: '2026.5.0', boot: true };

async function writeBackup(t: Test, options: { compressed: boolean; password?: string; coreVersion: string; excludeDatabase?: boolean }) {
  const date = backupDate(nowMicros());
  const slug = backupSlug('Nightly', date);
  const path = join(dir, `${slug}.tar`);
  const writer = await BackupWriter.create({ path, compressed: options.compressed, password: options.password, coreVersion: options.coreVersion });
  await writer.addCore({ version: options.coreVersion, settings: SETTINGS, configDir: config, excludeDatabase: options.excludeDatabase ?? false });
  await writer.addApp({ slug: 'local_ssh', name: 'Terminal & SSH', version: '9.2.1' }, appArchiveSources({ addonJson: ADDON_JSON, dataDir: appData, backupExclude: ['*.tmp'] }));
  await writer.addFolder('share', share);
  await writer.addFolder('addons/local', join(dir, 'src/share/nested'));
  await writer.addSupervisorConfig({ mounts: { default_backup_mount: null, mounts: [] }, docker: { registries: {} } });
  t.ok(existsSync(partialPath(path)) && !existsSync(path), 'while writing, only the .partial file exists');
  const done = await writer.finish({ slug, name: 'Nightly', date, type: 'partial', supervisor_version: '2026.05.0', repositories: ['core', 'local'] });
  return { slug, date, ...done };
}

const SECURETAR_CASES = [
  { label: 'plain', compressed: false, coreVersion: '2026.5.0' },
  { label: 'compressed', compressed: true, coreVersion: '2026.5.0' },
  { label: 'encrypted v2, compressed', compressed: true, password: 'hunter2', coreVersion: '2026.2.1', secureTar: 2 },
  { label: 'encrypted v3, compressed', compressed: true, password: 'hunter2', coreVersion: '2026.3.0', secureTar: 3 },
  { label: 'encrypted v3, plain', compressed: false, password: 'p\u00e4ss', coreVersion: '2026.11.0', secureTar: 3 },
] as const;

for (const c of SECURETAR_CASES) {
  t.test(`${c.label}: the backup file reads back part for part, byte for byte`, async (t) => {
    const written = await writeBackup(t, c);
    const ext = c.compressed ? '.tar.gz' : '.tar';
    t.notOk(existsSync(partialPath(written.path)), 'the .partial file is gone once finished');

    // the outer tar, read by Python's tarfile and GNU tar
    const outer = py({ op: 'list', path: written.path, mode: 'r:' }).members;
    const names = ['homeassistant', 'local_ssh', 'share', 'addons_local', 'supervisor'].map((n) => `${n}${ext}`);
    t.same(outer.map((m) => m.name), [...names, './backup.json'], 'members in the original order, backup.json last');
    for (const m of outer.slice(0, -1)) t.match(m.pax, { mtime: /\./ }, `${m.name}: PAX header with a fractional mtime`);
    t.equal(gnuTar(['-tf', written.path]).trim().split('\n').length, 6, 'GNU tar lists the same six members');
    const meta = JSON.parse(readMember(written.path, './backup.json'));
    t.match(meta, {
      slug: written.slug,
      version: 2,
      date: written.date,
      type: 'partial',
      compressed: c.compressed,
      protected: 'password' in c,
      homeassistant: { version: c.coreVersion, exclude_database: false, size: 0 },
      folders: ['share', 'addons/local'],
      addons: [{ slug: 'local_ssh', name: 'Terminal & SSH', version: '9.2.1', size: 0 }],
      repositories: ['core', 'local'],
    });
    t.notOk('crypto' in meta, 'no crypto key any more');

    if ('secureTar' in c) {
      // one key context per backup: every part shares the root and validation salts (one Argon2id)
      const heads = names.map((name) => readRaw(written.path, name).subarray(0, 64));
      t.ok(heads.every((head) => head.subarray(0, 10).equals(Buffer.from(`SecureTar${String.fromCharCode(c.secureTar)}`, 'latin1'))), `every part is SecureTar v${c.secureTar}`);
      if (c.secureTar === 3) t.equal(new Set(heads.map((head) => head.subarray(32, 64).toString('hex'))).size, 1, 'one root salt and validation salt for all parts');
    }

    // each inner archive, read by an independent reader
    const inner = (member: string) => independentInner(written.path, member, c.compressed, 'password' in c ? c.password : undefined, 'secureTar' in c ? c.secureTar : undefined, t);
    const core = inner(`homeassistant${ext}`);
    if (core) {
      t.same(core.slice(0, 3).map((m) => m.name), ['.', './homeassistant.json', 'data'], 'Core archive: `.`, homeassistant.json, then data');
      t.match(core[3].pax, { mtime: /\./ }, 'inner members carry fractional mtimes');
      const listed = new Set(core.map((m) => m.name));
      for (const excluded of CORE_EXCLUDED) t.notOk(listed.has(`data/${excluded}`), `excluded: ${excluded}`);
      t.ok(listed.has('data/deep/component.log') && listed.has('data/tts') && listed.has('data/home-assistant_v2.db'), 'kept: nested logs, the tts folder itself, the database');
    }
    const folder = inner(`share${ext}`);
    if (folder) t.same(folder.map((m) => m.name), ['.', 'nested', 'nested/deeper', 'nested/deeper/data.bin', 'notes.txt', 'shortcut'], 'folder archive: `.` then relative names');
    const app = inner(`local_ssh${ext}`);
    if (app) t.notOk(app.some((m) => m.name.endsWith('.tmp')), "the app's backup_exclude applies");

    // Hearth's reader: metadata, password, every part extracted as it was
    const reader = await BackupReader.open(written.path, { password: 'password' in c ? c.password : undefined });
    t.same(reader.meta, written.meta);
    const out = join(dir, `out-${written.slug}`);
    for (const part of ['homeassistant', 'share', 'local_ssh', 'supervisor']) {
      mkdirSync(join(out, part), { recursive: true });
      await reader.extract(part, join(out, part));
    }
    t.same(tree(join(out, 'homeassistant/data')), tree(config, CORE_EXCLUDED), 'Core config: same files, modes, mtimes, links, data');
    t.same(JSON.parse(readFileSync(join(out, 'homeassistant/homeassistant.json'), 'utf8')), SETTINGS);
    t.same(tree(join(out, 'share')), tree(share), 'share: same tree');
    t.same(tree(join(out, 'local_ssh/data')), tree(appData, ['cache/x.tmp']), 'app data without its excluded files');
    t.same(JSON.parse(readFileSync(join(out, 'local_ssh/addon.json'), 'utf8')), ADDON_JSON);
    t.same(JSON.parse(readFileSync(join(out, 'supervisor/mounts.json'), 'utf8')), { default_backup_mount: null, mounts: [] });
    t.same(readdirSync(join(out, 'supervisor')).sort(), ['docker.json', 'mounts.json'], 'supervisor part: two plain members');
  });
}

/** A member's raw bytes, cut out by GNU tar. */
function readRaw(path: string, name: string): Buffer {
  return spawnSync('tar', ['-xOf', path, name], { maxBuffer: 64 * 1024 * 1024 }).stdout;
}

function readMember(path: string, name: string): string {
  return gnuTar(['-xOf', path, name]);
}

/** An inner archive as Python / libsodium / GNU tar see it (undefined when a reference tool is missing). */
function independentInner(path: string, member: string, compressed: boolean, password: string | undefined, version: 2 | 3 | undefined, t: Test): PyMember[] | undefined {
  if (!password) {
    const members = py({ op: 'inner', path, member, compressed }).members;
    // GNU tar unpacks the outer file, then the inner one
    const scratch = mkdtempSync(join(dir, 'gnu-'));
    gnuTar(['-xf', path, '-C', scratch, member]);
    mkdirSync(join(scratch, 'x'));
    gnuTar([compressed ? '-xzf' : '-xf', join(scratch, member), '-C', join(scratch, 'x')]);
    t.ok(readdirSync(join(scratch, 'x')).length > 0, `GNU tar unpacks ${member}`);
    return members;
  }
  if (version === 2) return py({ op: 'inner', path, member, compressed, password }).members;
  if (sodiumMissing) {
    t.comment(sodiumMissing);
    return undefined;
  }
  const scratch = mkdtempSync(join(dir, 'sodium-'));
  gnuTar(['-xf', path, '-C', scratch, member]);
  t.same(sodium({ op: 'securetar_decrypt_v3', password, in: join(scratch, member), out: join(scratch, 'plain') }), { ok: true }, `libsodium decrypts ${member}`);
  return py({ op: 'list', path: join(scratch, 'plain'), mode: compressed ? 'r:gz' : 'r:' }).members;
}

t.test('exclude_database leaves the database and its WAL out', async (t) => {
  const written = await writeBackup(t, { compressed: true, coreVersion: '2026.5.0', excludeDatabase: true });
  const names = py({ op: 'inner', path: written.path, member: 'homeassistant.tar.gz', compressed: true }).members.map((m) => m.name);
  t.notOk(names.includes('data/home-assistant_v2.db'));
  t.match(written.meta.homeassistant, { exclude_database: true });
});

t.test('a wrong or missing password is found before anything is extracted', async (t) => {
  for (const coreVersion of ['2026.1.0', '2026.6.0']) {
    const written = await writeBackup(t, { compressed: true, password: 'right', coreVersion });
    await t.rejects(BackupReader.open(written.path, { password: 'wrong' }), InvalidPasswordError, `${coreVersion}: open refuses a wrong password`);
    const reader = await BackupReader.open(written.path);
    t.equal(await reader.passwordMatches('wrong'), false);
    t.equal(await reader.passwordMatches('right'), true);
    const target = mkdtempSync(join(dir, 'untouched-'));
    await t.rejects(reader.extract('share', target), /a password is needed/, 'no password, no extraction');
    const member = reader.member('share')!;
    await t.rejects(extractInnerArchive(reader.memberBytes(member), target, { compressed: true, keys: new SecureTarKeys('wrong') }), InvalidPasswordError);
    t.same(readdirSync(target), [], 'the target stays empty');
  }
});

t.test('backups made by Python in the original layout are read by Hearth (plain, v2-encrypted, legacy snapshot.json)', async (t) => {
  const meta = {
    slug: 'c0ffee00',
    name: 'From Python',
    date: '2025-01-01T00:00:00.000001+00:00',
    type: 'partial',
    supervisor_version: '2025.01.0',
    compressed: true,
    protected: false,
    homeassistant: { version: '2025.1.0', exclude_database: false, size: 0 },
    folders: ['share'],
    addons: [],
    repositories: [],
  };
  const cases = [
    // the original's securetar names inner parts through PurePath, which drops the `./`
    { label: 'compressed', compressed: true, metaName: './backup.json', prefix: '' },
    { label: 'v2-encrypted', compressed: true, password: 'secret', metaName: './backup.json', prefix: '' },
    { label: 'legacy snapshot.json, uncompressed, ./ names', compressed: false, metaName: './snapshot.json', prefix: './' },
  ];
  for (const c of cases) {
    const path = join(dir, `python-${c.label.replace(/\W+/g, '-')}.tar`);
    const settings = join(dir, `py-settings-${c.label.replace(/\W+/g, '-')}`);
    put(join(settings, 'homeassistant.json'), JSON.stringify(SETTINGS));
    const ext = c.compressed ? '.tar.gz' : '.tar';
    py<{ ok: boolean }>({
      op: 'make_backup',
      path,
      compressed: c.compressed,
      password: c.password,
      meta_name: c.metaName,
      meta: JSON.stringify({ ...meta, compressed: c.compressed, protected: Boolean(c.password), ...(c.password ? { crypto: 'aes128' } : {}) }),
      parts: [
        { name: `${c.prefix}homeassistant${ext}`, sources: [{ path: settings, arcname: '.' }, { path: config, arcname: 'data' }] },
        { name: `${c.prefix}share${ext}`, sources: [{ path: share, arcname: '.' }] },
      ],
    });
    const reader = await BackupReader.open(path, { password: c.password });
    t.match(reader.meta, { slug: 'c0ffee00', compressed: c.compressed, protected: Boolean(c.password), folders: ['share'] }, `${c.label}: metadata`);
    t.notOk('crypto' in reader.meta);
    const out = mkdtempSync(join(dir, 'from-python-'));
    mkdirSync(join(out, 'core'));
    mkdirSync(join(out, 'share'));
    await reader.extract('homeassistant', join(out, 'core'));
    await reader.extract('share', join(out, 'share'));
    t.equal(await coreConfigDir(join(out, 'core')), join(out, 'core/data'));
    t.same(tree(join(out, 'core/data')), tree(config), `${c.label}: Core config as Python archived it`);
    t.same(tree(join(out, 'share')), tree(share), `${c.label}: share`);
  }
});

t.test('a v1 backup keeps Core config at the top of its archive; the reader finds it there', async (t) => {
  const path = join(dir, 'python-v1.tar');
  py<{ ok: boolean }>({
    op: 'make_backup',
    path,
    compressed: true,
    meta: JSON.stringify({ slug: 'aa11bb22', name: 'v1', date: '2020-01-01T00:00:00+00:00', type: 'full', homeassistant: { version: '0.110.0' }, folders: ['homeassistant'] }),
    parts: [{ name: 'homeassistant.tar.gz', sources: [{ path: share, arcname: '.' }] }],
  });
  const reader = await BackupReader.open(path);
  t.match(reader.meta, { version: 1, folders: [], homeassistant: { version: '0.110.0' } });
  const out = mkdtempSync(join(dir, 'v1-'));
  await reader.extract('homeassistant', out);
  t.equal(await coreConfigDir(out), out);
  t.same(tree(await coreConfigDir(out)), tree(share));
});

t.test('unsafe inner archives are refused at the offending entry, nothing written outside', async (t) => {
  const outside = mkdtempSync(join(dir, 'outside-'));
  const cases: Array<[string, Array<Record<string, unknown>>, RegExp]> = [
    ['parent traversal', [{ name: '../escaped', data: '6869' }], /leaves the target directory/],
    ['nested traversal', [{ name: 'a/../../escaped', data: '6869' }], /leaves the target directory/],
    ['absolute name', [{ name: `${outside}/abs`, data: '6869' }], /absolute name/],
    ['symlink out', [{ name: 'out', type: 'symlink', linkname: '../../..' }], /symlink pointing outside/],
    ['absolute symlink', [{ name: 'etc', type: 'symlink', linkname: outside }], /symlink pointing outside/],
    ['links that lead out only together', [{ name: 'a', type: 'symlink', linkname: 'sub/l/../..' }, { name: 'sub', type: 'directory', mode: 0o755 }, { name: 'sub/l', type: 'symlink', linkname: '.' }], /leading outside the target through other links/],
    ['a link through a link out', [{ name: 'up', type: 'symlink', linkname: '..' }, { name: 'b', type: 'symlink', linkname: 'up/x' }], /symlink pointing outside/],
    ['hard link out', [{ name: 'hard', type: 'hardlink', linkname: '../secret' }], /leaves the target directory/],
    ['device file', [{ name: 'null', type: 'character' }], /device file/],
    ['fifo', [{ name: 'pipe', type: 'fifo' }], /FIFO/],
  ];
  for (const [label, entries, message] of cases) {
    const file = join(dir, `evil-${label.replace(/\W+/g, '-')}.tar`);
    py<{ ok: boolean }>({ op: 'write', path: file, entries: [{ name: 'fine.txt', data: '6f6b' }, ...entries] });
    const target = mkdtempSync(join(dir, 'target-'));
    const failure = await extractInnerArchive(readFileSync(file), target, { compressed: false }).then(() => undefined, (error: Error) => error);
    t.ok(failure instanceof UnsafeArchiveError, `${label}: refused`);
    t.match(failure?.message, message, `${label}: the message names the problem`);
    t.same(readdirSync(outside), [], `${label}: nothing outside the target`);
  }
  // a symlink already in the target (or extracted earlier) must not carry a write elsewhere
  const target = mkdtempSync(join(dir, 'target-'));
  symlinkSync(outside, join(target, 'esc'));
  const file = join(dir, 'through-link.tar');
  py<{ ok: boolean }>({ op: 'write', path: file, entries: [{ name: 'esc/planted', data: '6869' }] });
  await t.rejects(extractInnerArchive(readFileSync(file), target, { compressed: false }), /written through a symlink/);
  t.same(readdirSync(outside), [], 'through a symlink: nothing outside');
});

t.test('the writer keeps the original order and never overwrites a backup', async (t) => {
  const path = join(dir, 'order.tar');
  const writer = await BackupWriter.create({ path, compressed: false });
  await writer.addFolder('share', share);
  await t.rejects(writer.addCore({ version: '2026.1.0', settings: {}, configDir: config, excludeDatabase: false }), /cannot be added after later parts/);
  await t.rejects(writer.addFolder('share', share), /already in this backup/);
  await t.rejects(writer.addFolder('backup' as never, share), /not a folder a backup can hold/);
  await t.rejects(BackupWriter.create({ path, compressed: false }), /already being written/, 'a second writer for the same file');
  await writer.abort();
  t.notOk(existsSync(partialPath(path)), 'abort removes the partial file');
  writeFileSync(path, 'existing');
  await t.rejects(BackupWriter.create({ path, compressed: false }), /file already exists/);
  t.equal(readFileSync(path, 'utf8'), 'existing');
  await t.rejects(BackupReader.open(path), /Can't read backup tarfile/, 'a file that is not a tar');
});

t.test('a part that fails is left out and the backup goes on; a missing folder gets no member', async (t) => {
  const path = join(dir, 'part-failure.tar');
  const writer = await BackupWriter.create({ path, compressed: true });
  const sources = appArchiveSources({ addonJson: ADDON_JSON, dataDir: appData, imageTar: join(dir, 'no-such-image.tar') });
  await t.rejects(writer.addApp({ slug: 'broken', name: 'Broken', version: '1' }, sources), { name: 'BackupPartError', message: /Can't backup broken\.tar\.gz: .*ENOENT/ });
  await t.rejects(writer.addFolder('media', join(dir, 'no-such-media')), { name: 'BackupPartError', message: /does not exist/ });
  await writer.addFolder('share', share);
  const { meta } = await writer.finish({ slug: 'f00dbabe', name: 'partly', date: backupDate(nowMicros()), type: 'partial', supervisor_version: '2026.05.0' });
  t.same(meta.addons, [], 'the failed app is not listed');
  t.same(meta.folders, ['share'], 'nor the missing folder');
  t.same(py({ op: 'list', path, mode: 'r:' }).members.map((m) => m.name), ['broken.tar.gz', 'share.tar.gz', './backup.json'], 'the outer tar stays valid around the failed part');
  const reader = await BackupReader.open(path);
  const out = mkdtempSync(join(dir, 'after-failure-'));
  await reader.extract('share', out);
  t.same(tree(out), tree(share));
});

t.test('a writer killed mid-backup leaves no file named .tar', async (t) => {
  const path = join(dir, 'killed.tar');
  const child = spawn(process.execPath, ['--import=tsx', fileURLToPath(new URL('../../../../helpers/backup-writer-child.ts', import.meta.url)), path, config], { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise((ok) => child.once('exit', ok));
  await new Promise<void>((ok, fail) => {
    child.stdout.on('data', (chunk: Buffer) => chunk.toString().includes('core written') && ok());
    child.once('exit', (code) => fail(new Error(`the writer exited early (${code})`)));
  });
  t.ok(lstatSync(partialPath(path)).size > 0, 'the partial file holds the part written so far');
  child.kill('SIGKILL');
  await exited;
  t.notOk(existsSync(path), 'no .tar');
  await t.rejects(BackupReader.open(partialPath(path)), /no backup\.json|truncated/, 'the partial file is not a backup');
});
