// Hostile backups (supervisor-wire §5.4): a share part whose archive tries to write outside its
// target — `../../x`, an absolute name, a symlink to /etc with a member through it, a hard link
// to a file outside, a device file, a FIFO. Each is refused naming the member, by the reader and
// by a restore through the supervisor's API, and a canary directory beside the target is untouched.
import t from 'tap';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { gzipSync } from 'node:zlib';
import { UnsafeArchiveError } from '../../../../actors/supervisor/backups/archive/extract.ts';
import { BackupReader } from '../../../../actors/supervisor/backups/archive/reader.ts';
import { TarFileWriter, TarStreamWriter, type TarEntry } from '../../../../actors/supervisor/backups/archive/tar.ts';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { upload } from '../../../helpers/backups.ts';

const base = mkdtempSync(join(tmpdir(), 'backup-hostile-'));
t.teardown(() => rmSync(base, { recursive: true, force: true }));
const canary = join(base, 'canary');
mkdirSync(canary);
writeFileSync(join(canary, 'secret.txt'), 'canary\n');
// a name no system has: the symlink-to-/etc case would leave it there if it got through
const inEtc = `hearth-hostile-${randomBytes(4).toString('hex')}`;
t.teardown(() => rmSync(join('/etc', inEtc), { force: true }));

/** Every path under the canary with its type, mode, mtime and content. */
function canaryState(): string[] {
  return readdirSync(canary, { recursive: true, encoding: 'utf8' })
    .sort()
    .map((name) => {
      const stats = lstatSync(join(canary, name));
      const content = stats.isFile() ? createHash('sha256').update(readFileSync(join(canary, name))).digest('hex') : '';
      return `${name} ${stats.mode.toString(8)} ${stats.mtimeMs} ${stats.nlink} ${content}`;
    });
}
const untouched = canaryState();

const file = (name: string, data = 'pwned\n') => ({ entry: { name, type: 'file', mode: 0o644, mtime: 1700000000.5, size: Buffer.byteLength(data) } as TarEntry, data: Buffer.from(data) });
const special = (name: string, type: TarEntry['type'], more: Partial<TarEntry> = {}) => ({ entry: { name, type, mode: 0o644, mtime: 1700000000.5, size: 0, ...more } as TarEntry });

interface Case {
  label: string;
  /** the member the refusal names */
  member: string;
  entries: Array<{ entry: TarEntry; data?: Buffer }>;
  /** where the archive aims, relative to the target; none of them may exist afterwards */
  aims: string[];
}

const CASES: Case[] = [
  { label: 'a member ../../x', member: '../../x', entries: [file('../../x')], aims: ['../../x'] },
  { label: 'an absolute name', member: join(canary, 'planted'), entries: [file(join(canary, 'planted'))], aims: [join(canary, 'planted')] },
  { label: 'a symlink to /etc, then a member through it', member: 'etc', entries: [special('etc', 'symlink', { linkname: '/etc' }), file(`etc/${inEtc}`)], aims: [join('/etc', inEtc)] },
  { label: 'a symlink to the canary, then a member through it', member: 'c', entries: [special('c', 'symlink', { linkname: canary }), file('c/planted')], aims: [join(canary, 'planted')] },
  { label: 'a hard link to a file outside, then data written to it', member: 'h', entries: [special('h', 'hardlink', { linkname: join(canary, 'secret.txt') }), file('h')], aims: [] },
  { label: 'a hard link out by ../', member: 'h', entries: [special('h', 'hardlink', { linkname: '../../canary/secret.txt' }), file('h')], aims: [] },
  { label: 'a character device', member: 'null', entries: [special('null', 'character', { devmajor: 1, devminor: 3 })], aims: [] },
  { label: 'a FIFO', member: 'pipe', entries: [special('pipe', 'fifo')], aims: [] },
];

/** A compressed partial backup of `share` whose archive holds `entries` after a harmless file. */
async function hostileBackup(path: string, slug: string, entries: Case['entries']): Promise<void> {
  const inner = new TarStreamWriter();
  const parts: Buffer[] = [];
  for (const { entry, data } of [file('fine.txt', 'fine\n'), ...entries]) for await (const chunk of inner.entry(entry, data)) parts.push(chunk);
  parts.push(inner.end());
  const share = gzipSync(Buffer.concat(parts));
  const meta = Buffer.from(JSON.stringify({ slug, version: 2, name: `hostile ${slug}`, date: '2026-01-01T00:00:00.000001+00:00', type: 'partial', supervisor_version: '2025.01.0', compressed: true, protected: false, homeassistant: null, folders: ['share'], addons: [], repositories: [] }));
  const handle = await open(path, 'wx');
  try {
    const outer = new TarFileWriter(handle);
    await outer.add({ name: 'share.tar.gz', type: 'file', mode: 0o644, mtime: 1700000000.5, size: share.length }, share);
    await outer.add({ name: './backup.json', type: 'file', mode: 0o644, mtime: 1700000000, size: meta.length }, meta);
    await outer.finish();
  } finally {
    await handle.close();
  }
}

const slugOf = (i: number) => `bad0000${i}`;

t.test('the reader refuses each hostile member by name; nothing lands outside the target', async (t) => {
  for (const [i, c] of CASES.entries()) {
    const path = join(base, `${slugOf(i)}.tar`);
    await hostileBackup(path, slugOf(i), c.entries);
    const target = join(base, 'work', String(i), 'target');
    mkdirSync(target, { recursive: true });
    const reader = await BackupReader.open(path);
    const failure = await reader.extract('share', target).then(() => undefined, (error: Error) => error);
    t.ok(failure instanceof UnsafeArchiveError, `${c.label}: refused (${failure?.message})`);
    t.equal((failure as UnsafeArchiveError | undefined)?.entryName, c.member, `${c.label}: the error names the member`);
    t.match(failure?.message, JSON.stringify(c.member), `${c.label}: and so does its message`);
    t.same(readFileSync(join(target, 'fine.txt'), 'utf8'), 'fine\n', `${c.label}: members before it were extracted`);
    for (const aim of c.aims) t.notOk(existsSync(resolve(target, aim)), `${c.label}: nothing at ${aim}`);
    t.same(canaryState(), untouched, `${c.label}: the canary is untouched`);
  }
});

t.test('a restore through the API fails naming the member; share, the canary and the staging area are left as they were', async (t) => {
  const dataDir = join(base, 'data');
  const sup = await startTestSupervisor(t, { dataDir });
  mkdirSync(join(dataDir, 'share'), { recursive: true });
  writeFileSync(join(dataDir, 'share', 'kept.txt'), 'kept\n');
  for (const [i, c] of CASES.entries()) {
    const path = join(base, `api-${slugOf(i)}.tar`);
    await hostileBackup(path, slugOf(i), c.entries);
    t.equal(await upload(sup, readFileSync(path), `${slugOf(i)}.tar`), slugOf(i), `${c.label}: uploaded`);
    const res = await sup.json('POST', `/backups/${slugOf(i)}/restore/partial`, { body: { folders: ['share'] } });
    t.equal(res.status, 400, `${c.label}: the restore fails`);
    t.match(res.body.message, `An error occurred during restore of ${slugOf(i)}`);
    const logged = sup.lines.find((line) => line.includes(`restore of backup ${slugOf(i)} failed`));
    t.match(logged, `archive entry ${JSON.stringify(c.member)}`, `${c.label}: the log names the member`);
    t.same(readdirSync(join(dataDir, 'share')), ['kept.txt'], `${c.label}: share as it was`);
    t.same(readdirSync(dataDir).filter((name) => name.includes('.restore-')), [], `${c.label}: no staging directory left`);
    const staged = join(dataDir, '.share.restore-x');
    for (const aim of c.aims) t.notOk(existsSync(resolve(staged, aim)), `${c.label}: nothing at ${aim}`);
    t.same(canaryState(), untouched, `${c.label}: the canary is untouched`);
  }
});
