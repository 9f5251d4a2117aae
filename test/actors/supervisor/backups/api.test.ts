// The backup routes (supervisor-wire §5.9) on a supervisor without a core: partial backups of
// folders (plain, compressed, encrypted) read back by BackupReader and Python's tarfile, list
// and info shapes on both trees, options, download bytes, upload into another supervisor,
// delete per location, one at a time, freeze/thaw, and an unfinished file left by a crash.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { mkdir, readFile, readdir, writeFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, startTestSupervisorWithV2, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { BackupReader } from '../../../../actors/supervisor/backups/archive/reader.ts';
import type { MountSystem } from '../../../../actors/supervisor/mounts/system.ts';

async function seedFolders(dataDir: string) {
  await mkdir(join(dataDir, 'share', 'sub'), { recursive: true });
  await writeFile(join(dataDir, 'share', 'hello.txt'), 'hello share\n');
  await writeFile(join(dataDir, 'share', 'sub', 'deep.bin'), Buffer.alloc(100_000, 7));
  await mkdir(join(dataDir, 'ssl'), { recursive: true });
  await writeFile(join(dataDir, 'ssl', 'cert.pem'), 'CERT');
}

/** The members of a tar file as Python's tarfile lists them. */
function pythonMembers(path: string): string[] {
  return execFileSync('python3', ['-c', 'import sys,tarfile; print("\\n".join(m.name for m in tarfile.open(sys.argv[1]).getmembers()))', path]).toString().trim().split('\n');
}

t.test('partial backups: plain, compressed, encrypted; list and info on both trees; download; delete', async (t) => {
  const s = await startTestSupervisorWithV2(t);
  await seedFolders(s.dataDir);

  const plain = await s.json('POST', '/backups/new/partial', { body: { name: 'Plain one', folders: ['share'], compressed: false } });
  t.equal(plain.status, 200, JSON.stringify(plain.body));
  t.match(plain.body.data, { job_id: /^[0-9a-f]{32}$/, slug: /^[0-9a-f]{8}$/ });
  const slug = plain.body.data.slug;
  const file = join(s.dataDir, 'backup', `${slug}.tar`);
  const reader = await BackupReader.open(file);
  t.match(reader.meta, { slug, name: 'Plain one', type: 'partial', compressed: false, protected: false, homeassistant: null, folders: ['share'], addons: [], version: 2 });
  t.same(pythonMembers(file), ['share.tar', './backup.json'], 'tarfile reads the outer archive (inner parts named as the original writes them)');
  const entries = (await reader.entries('share')).map((e) => e.name);
  t.ok(entries.includes('./hello.txt') || entries.includes('hello.txt'), `share holds its files: ${entries.join(',')}`);

  const gz = await s.json('POST', '/backups/new/partial', { body: { name: 'Gz', folders: ['share', 'ssl'] } });
  t.equal(gz.status, 200);
  const gzFile = join(s.dataDir, 'backup', `${gz.body.data.slug}.tar`);
  t.same(pythonMembers(gzFile), ['share.tar.gz', 'ssl.tar.gz', './backup.json']);

  const enc = await s.json('POST', '/v2/backups/new/partial', { body: { name: 'Secret', folders: ['ssl'], password: 'hunter2', extra: { by: 'test' } } });
  t.equal(enc.status, 200, JSON.stringify(enc.body));
  const encReader = await BackupReader.open(join(s.dataDir, 'backup', `${enc.body.data.slug}.tar`));
  t.equal(encReader.meta.protected, true);
  t.equal(await encReader.passwordMatches('hunter2'), true);
  t.equal(await encReader.passwordMatches('wrong'), false);
  const extracted = join(s.dataDir, 'x');
  await mkdir(extracted);
  await encReader.usePassword('hunter2');
  await encReader.extract('ssl', extracted);
  t.equal(await readFile(join(extracted, 'cert.pem'), 'utf8'), 'CERT', 'decrypts to the folder');

  // the job stays with its stages and child jobs
  const job = (await s.json('GET', `/jobs/${plain.body.data.job_id}`)).body.data;
  t.match(job, { name: 'backup_manager_partial_backup', reference: slug, done: true, errors: [] });
  t.match(job.child_jobs, [{ name: 'backup_store_folders', child_jobs: [{ name: 'backup_folder_save', reference: 'share' }] }]);

  // list and info
  const v1 = (await s.json('GET', '/backups')).body.data.backups;
  t.equal(v1.length, 3);
  const one = v1.find((b: any) => b.slug === slug);
  const size = (await stat(file)).size;
  t.same(Object.keys(one), ['slug', 'name', 'date', 'type', 'size', 'size_bytes', 'location', 'locations', 'protected', 'location_attributes', 'compressed', 'content']);
  t.match(one, { name: 'Plain one', type: 'partial', size_bytes: size, location: null, locations: [null], protected: false, compressed: false, location_attributes: { '.local': { protected: false, size_bytes: size } } });
  t.same(one.content, { homeassistant: false, core: false, addons: [], folders: ['share'] });
  const v2 = (await s.json('GET', '/v2/backups/info')).body.data;
  t.equal(v2.days_until_stale, 30);
  t.same(v2.backups.find((b: any) => b.slug === slug).content, { homeassistant: false, core: false, apps: [], folders: ['share'] });
  const info = (await s.json('GET', `/backups/${enc.body.data.slug}/info`)).body.data;
  t.match(info, { name: 'Secret', protected: true, supervisor_version: /./, homeassistant: null, addons: [], folders: ['ssl'], extra: { by: 'test' }, homeassistant_exclude_database: null });
  t.ok('apps' in (await s.json('GET', `/v2/backups/${enc.body.data.slug}/info`)).body.data, 'v2 detail: apps');
  t.same(await s.json('GET', '/backups/deadbeef/info'), { status: 404, body: { result: 'error', message: 'Backup does not exist' } });

  // download: the file's bytes, named after the backup
  const dl = await s.call('GET', `/backups/${slug}/download`);
  t.equal(dl.status, 200);
  t.equal(dl.headers.get('content-type'), 'application/tar');
  t.equal(dl.headers.get('content-disposition'), `attachment; filename="Plain_one.tar"; filename*=UTF-8''Plain_one.tar`);
  t.same(Buffer.from(await dl.arrayBuffer()), await readFile(file));
  t.same((await s.json('GET', `/backups/${slug}/download?location=nomount`)).body, { result: 'error', message: `Backup ${slug} is not in location nomount` });

  // a vanished file: bare 404, then the rescan drops it
  const gone = join(s.dataDir, 'backup', `${gz.body.data.slug}.tar`);
  await writeFile(gone + '.keep', await readFile(gone));
  execFileSync('rm', [gone]);
  const missing = await s.call('GET', `/backups/${gz.body.data.slug}/download`);
  t.same([missing.status, await missing.text()], [404, '']);
  await s.json('POST', '/backups/reload');
  t.notOk((await s.json('GET', '/backups')).body.data.backups.some((b: any) => b.slug === gz.body.data.slug), 'rescanned');

  // delete
  t.same(await s.json('DELETE', `/backups/${slug}`), { status: 200, body: { result: 'ok', data: {} } });
  t.notOk(await stat(file).then(() => true, () => false), 'file removed');
  t.equal((await s.json('DELETE', `/backups/${slug}`)).status, 404);
});

t.test('validation: filename, folders, location, keys per tree; options; cloud location is the core\'s', async (t) => {
  const s = await startTestSupervisorWithV2(t);
  t.same((await s.json('POST', '/backups/new/full', { body: { filename: 'a/b.tar' } })).body.message, "does not match regular expression ^[^\\\\/]+\\.tar$ @ data['filename']. Got 'a/b.tar'");
  t.match((await s.json('POST', '/backups/new/partial', { body: { folders: ['etc'] } })).body.message, /@ data\['folders'\]/);
  t.match((await s.json('POST', '/v2/backups/new/partial', { body: { addons: ['x'] } })).body.message, /extra keys not allowed @ data\['addons'\]/);
  t.match((await s.json('POST', '/v2/backups/new/partial', { body: { folders: ['homeassistant'] } })).body.message, /@ data\['folders'\]/);
  t.same((await s.json('POST', '/backups/new/partial', { body: { location: 'nope' } })).body, { result: 'error', message: "No mount exists with name 'nope'", error_key: 'mount_not_found_error' });
  const cloud = await s.call('POST', '/backups/new/partial', { body: { location: '.cloud_backup' } });
  t.same([cloud.status, await cloud.text()], [403, '403: Forbidden']);
  t.same((await s.json('POST', '/backups/options', { body: { days_until_stale: 0 } })).body.message, "value must be at least 1 @ data['days_until_stale']. Got 0");
  t.equal((await s.json('POST', '/backups/options', { body: { days_until_stale: 7 } })).status, 200);
  t.equal((await s.json('GET', '/backups/info')).body.data.days_until_stale, 7);

  // after validation, a failure is the job's: no core answers here, so a full backup fails
  const failed = await s.json('POST', '/backups/new/full', { body: { name: 'No core' } });
  t.equal(failed.status, 400);
  t.match(failed.body, { result: 'error', job_id: /^[0-9a-f]{32}$/ });
  t.equal(failed.body.message, `An error occurred while making backup, check job '${failed.body.job_id}' or supervisor logs for details`);
  const job = (await s.json('GET', `/jobs/${failed.body.job_id}`)).body.data;
  t.match(job, { name: 'backup_manager_full_backup', done: true, errors: [{ type: 'CoreBackupError', message: /Core does not answer/, stage: 'home_assistant' }] });
  t.same(await readdir(join(s.dataDir, 'backup')), [], 'no file, not even a partial one');
  t.equal((await s.json('GET', '/info')).body.data.state, 'running', 'thawed again');
});

t.test('upload of a downloaded backup into another data dir lists it; the same backup again adds a location', async (t) => {
  const a = await startTestSupervisor(t);
  await seedFolders(a.dataDir);
  const made = (await a.json('POST', '/backups/new/partial', { body: { name: 'Moving', folders: ['share'] } })).body.data;
  const bytes = Buffer.from(await (await a.call('GET', `/backups/${made.slug}/download`)).arrayBuffer());

  const b = await startTestSupervisor(t);
  const upload = (query = '') => {
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'Moving.tar');
    return fetch(`${b.base}/backups/new/upload${query}`, { method: 'POST', headers: { Authorization: `Bearer ${b.supervisor.adminToken}` }, body: form });
  };
  const res = await upload('?filename=moved.tar');
  t.same(await res.json(), { result: 'ok', data: { slug: made.slug } });
  t.same(await readFile(join(b.dataDir, 'backup', 'moved.tar')), bytes, 'stored as given');
  t.same((await b.json('GET', '/backups')).body.data.backups.map((x: any) => x.slug), [made.slug]);
  t.same(await (await upload('?filename=moved.tar')).json(), { result: 'ok', data: { slug: made.slug } }, 'the same backup again: already there');
  t.same(await readdir(join(b.dataDir, 'backup')), ['moved.tar']);
  const bad = await upload('?filename=nope.zip');
  t.equal(bad.status, 400);
  const junk = new FormData();
  junk.append('file', new Blob([Buffer.from('not a tar')]), 'x.tar');
  const junkRes = await fetch(`${b.base}/backups/new/upload`, { method: 'POST', headers: { Authorization: `Bearer ${b.supervisor.adminToken}` }, body: junk });
  t.same([junkRes.status, (await junkRes.json()).message], [400, 'Unknown error, see Supervisor logs']);
  const stranger = new FormData();
  stranger.append('file', new Blob([bytes]), 'x.tar');
  const refused = await fetch(`${b.base}/backups/new/upload`, { method: 'POST', body: stranger });
  t.same([refused.status, await refused.text()], [401, '401: Unauthorized'], 'no token: refused before the body is read');
  const app = (await b.supervisor.tokens.issue({ name: 'plain app', kind: 'app', role: 'default' }, { id: 'x', parent_id: null, user_id: null })).token;
  const byApp = await fetch(`${b.base}/backups/new/upload`, { method: 'POST', headers: { Authorization: `Bearer ${app}` }, body: stranger });
  t.equal(byApp.status, 403, 'a default-role app: 403');
  t.same(await readdir(join(b.dataDir, 'backup')), ['moved.tar'], 'no partial file left behind');
  t.same(await readdir(join(b.dataDir, 'tmp')).catch(() => []), [], 'nothing spooled');
});

t.test('one backup at a time; freeze and thaw; a frozen system refuses a backup', async (t) => {
  const s = await startTestSupervisor(t);
  const release = s.supervisor.deps.backups!.claim('test');
  t.same((await s.json('POST', '/backups/new/partial', { body: {} })).body, { result: 'error', message: 'Another job is running for job group backup_manager' });
  release();

  t.same((await s.json('POST', '/backups/thaw')).body, { result: 'error', message: "'BackupManager.thaw_all' blocked from execution, system is not frozen - running" });
  t.same((await s.json('POST', '/backups/freeze', { body: { timeout: 0 } })).body.message, "value must be at least 1 @ data['timeout']. Got 0");
  t.equal((await s.json('POST', '/backups/freeze', { body: { timeout: 60 } })).status, 200);
  t.equal((await s.json('GET', '/info')).body.data.state, 'freeze');
  t.same((await s.json('POST', '/backups/new/full', { body: {} })).body, { result: 'error', message: "'BackupManager.do_backup_full' blocked from execution, system is not running - freeze" });
  t.equal((await s.json('POST', '/backups/thaw')).status, 200);
  t.equal((await s.json('GET', '/info')).body.data.state, 'running');

  // automatic thaw
  t.equal((await s.json('POST', '/backups/freeze', { body: { timeout: 1 } })).status, 200);
  const until = Date.now() + 10_000;
  while ((await s.json('GET', '/info')).body.data.state !== 'running' && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  t.equal((await s.json('GET', '/info')).body.data.state, 'running', 'thawed by the timeout');
  const names = (await s.json('GET', '/jobs/info')).body.data.jobs.map((j: any) => j.name);
  t.ok(names.includes('backup_manager_freeze_all') && names.includes('backup_manager_thaw_all'), names.join(','));

  // a stop while frozen thaws first instead of waiting for the timeout
  t.equal((await s.json('POST', '/backups/freeze', { body: { timeout: 600 } })).status, 200);
  const stopped = Date.now();
  await s.supervisor.stop();
  t.ok(Date.now() - stopped < 30_000, 'stopped without waiting for the thaw timeout');
});

t.test('not enough free space: the original error and the free_space issue', async (t) => {
  const s = await startTestSupervisor(t, { freeSpaceMinBytes: Number.MAX_SAFE_INTEGER });
  const res = await s.json('POST', '/backups/new/full', { body: {} });
  t.equal(res.status, 400);
  t.match(res.body.message, /^'BackupManager\.do_backup_full' blocked from execution, not enough free space \(\d+\.\dGB\) left on the device$/);
  t.ok((await s.json('GET', '/resolution/info')).body.data.issues.some((i: any) => i.type === 'free_space'));
  t.same(await readdir(join(s.dataDir, 'backup')), [], 'nothing written');
});

t.test('an unfinished file from a crash is not listed, is removed at start, and is an issue', async (t) => {
  const dataDir = await supervisorDataDir();
  await mkdir(join(dataDir, 'backup'), { recursive: true });
  await writeFile(join(dataDir, 'backup', 'abcdef01.tar.partial'), Buffer.alloc(2048, 1));
  const s = await startTestSupervisor(t, { dataDir });
  t.same((await s.json('GET', '/backups')).body.data.backups, []);
  t.same(await readdir(join(dataDir, 'backup')), []);
  t.ok((await s.json('GET', '/resolution/info')).body.data.issues.some((i: any) => i.reference === 'abcdef01.tar.partial'));
});

t.test('the backups check: no current full backup is an issue with create_full_backup', async (t) => {
  const s = await startTestSupervisor(t, { backupsCheck: true });
  await s.json('POST', '/resolution/check/backups/run');
  const info = (await s.json('GET', '/resolution/info')).body.data;
  t.ok(info.checks.some((c: any) => c.slug === 'backups'));
  const issue = info.issues.find((i: any) => i.type === 'no_current_backup');
  t.match(issue, { context: 'system', reference: null });
  t.ok(info.suggestions.some((x: any) => x.type === 'create_full_backup'));
});

/** Mounts that only pretend: the mount point is a local folder (what is tested is where backups go). */
class PretendMounts implements MountSystem {
  private readonly up = new Set<string>();
  async available() {
    return true;
  }
  async mount(_type: string, _source: string, target: string) {
    await mkdir(target, { recursive: true });
    this.up.add(target);
  }
  async bind(_source: string, target: string) {
    await this.mount('bind', '', target);
  }
  async unmount(target: string) {
    this.up.delete(target);
  }
  async mounted(target: string) {
    return this.up.has(target);
  }
}

t.test('a backup mount: the default location, extra copies, delete per location, download from a location', async (t) => {
  const s = await startTestSupervisor(t, { mountSystem: new PretendMounts() });
  await seedFolders(s.dataDir);
  t.equal((await s.json('POST', '/mounts', { body: { name: 'nas', type: 'cifs', usage: 'backup', server: 'nas', share: 'b' } })).status, 200);
  const both = await s.json('POST', '/backups/new/partial', { body: { name: 'Twice', folders: ['ssl'], location: [null, 'nas'] } });
  t.equal(both.status, 200, JSON.stringify(both.body));
  const slug = both.body.data.slug;
  const entry = (await s.json('GET', '/backups')).body.data.backups.find((b: any) => b.slug === slug);
  t.match(entry, { location: null, locations: [null, 'nas'], location_attributes: { '.local': { protected: false }, nas: { protected: false } } });
  const local = await readFile(join(s.dataDir, 'backup', `${slug}.tar`));
  // the mounts go with every backup, in supervisor.tar.gz
  const withConfig = await BackupReader.open(join(s.dataDir, 'backup', `${slug}.tar`));
  const configDir = join(s.dataDir, 'supervisor-config');
  await mkdir(configDir);
  await withConfig.extract('supervisor', configDir);
  t.match(JSON.parse(await readFile(join(configDir, 'mounts.json'), 'utf8')), { default_backup_mount: 'nas', mounts: [{ name: 'nas', type: 'cifs', usage: 'backup', server: 'nas', share: 'b' }] });
  t.same(JSON.parse(await readFile(join(configDir, 'docker.json'), 'utf8')), { registries: {} });
  t.same(await readFile(join(s.dataDir, 'mounts', 'nas', `${slug}.tar`)), local, 'the copy is the same bytes');
  const job = (await s.json('GET', `/jobs/${both.body.data.job_id}`)).body.data;
  t.ok(job.child_jobs.some((c: any) => c.name === 'backup_copy_to_additional_locations'));
  t.same(Buffer.from(await (await s.call('GET', `/backups/${slug}/download?location=nas`)).arrayBuffer()), local);
  t.same(await s.json('POST', '/backups/new/partial', { body: { location: [null, null] } }).then((r) => r.status), 400, 'duplicate locations');

  t.equal((await s.json('DELETE', `/backups/${slug}`, { body: { location: 'nas' } })).status, 200);
  t.notOk(await stat(join(s.dataDir, 'mounts', 'nas', `${slug}.tar`)).then(() => true, () => false), 'the mount copy removed');
  t.same((await s.json('GET', `/backups/${slug}/info`)).body.data.locations, [null], 'the local copy stays');

  // no location given: the default backup mount
  const onNas = await s.json('POST', '/backups/new/partial', { body: { name: 'Default', folders: ['ssl'] } });
  t.same((await s.json('GET', `/backups/${onNas.body.data.slug}/info`)).body.data.locations, ['nas']);
});

t.test('a large download is streamed from the file at the reader\'s pace, byte for byte', async (t) => {
  const s = await startTestSupervisor(t);
  await mkdir(join(s.dataDir, 'share'), { recursive: true });
  for (let i = 0; i < 6; i++) await writeFile(join(s.dataDir, 'share', `r${i}.bin`), randomBytes(4 * 1024 * 1024));
  const made = (await s.json('POST', '/backups/new/partial', { body: { name: 'Big', folders: ['share'], compressed: false } })).body.data;
  const file = await readFile(join(s.dataDir, 'backup', `${made.slug}.tar`));
  // a reader that stops for a while: the answer waits for it instead of piling up
  const got = await new Promise<Buffer>((resolve, reject) => {
    const req = httpGet(`${s.base}/backups/${made.slug}/download`, { headers: { Authorization: `Bearer ${s.supervisor.adminToken}`, 'Accept-Encoding': 'gzip' } }, (res) => {
      t.equal(res.headers['content-length'], String(file.length));
      t.notOk(res.headers['content-encoding'], 'never gzipped on the way');
      const parts: Buffer[] = [];
      res.pause();
      setTimeout(() => res.resume(), 500);
      res.on('data', (c) => parts.push(c));
      res.on('end', () => resolve(Buffer.concat(parts)));
      res.on('error', reject);
    });
    req.on('error', reject);
  });
  t.equal(got.length, file.length);
  t.ok(got.equals(file), 'the same bytes');
  const head = await s.call('HEAD', `/backups/${made.slug}/download`);
  t.same([head.status, head.headers.get('content-type'), (await head.arrayBuffer()).byteLength], [200, 'application/tar', 0], 'HEAD: the headers without the file');
});

t.test(".cloud_backup: the core's own folder, for the core alone, not listed when it is the only copy", async (t) => {
  const s = await startTestSupervisor(t);
  await seedFolders(s.dataDir);
  const core = (await s.supervisor.tokens.rotateCore({ id: 'x', parent_id: null, user_id: null })).token;
  const made = await s.json('POST', '/backups/new/partial', { token: core, body: { name: 'Cloud', folders: ['ssl'], location: '.cloud_backup', password: 'pw' } });
  t.equal(made.status, 200, JSON.stringify(made.body));
  const slug = made.body.data.slug;
  t.ok((await readdir(join(s.dataDir, 'core', 'backup'))).includes(`${slug}.tar`), 'in <data>/core/backup');
  const reader = await BackupReader.open(join(s.dataDir, 'core', 'backup', `${slug}.tar`));
  t.equal(reader.meta.protected, true);
  t.same((await s.json('GET', '/backups')).body.data.backups, [], 'only in the core\'s folder: not listed');
  t.match((await s.json('GET', `/backups/${slug}/info`)).body.data, { location: '.cloud_backup', locations: ['.cloud_backup'], location_attributes: { '.cloud_backup': { protected: true } } });
  const byOperator = await s.call('GET', `/backups/${slug}/download`);
  t.same([byOperator.status, await byOperator.text()], [403, '403: Forbidden']);
  t.equal((await s.call('GET', `/backups/${slug}/download`, { token: core })).status, 200);
  t.equal((await s.call('DELETE', `/backups/${slug}`)).status, 403, 'the operator may not remove the core\'s copy');
  t.equal((await s.json('DELETE', `/backups/${slug}`, { token: core })).status, 200);
  t.same(await readdir(join(s.dataDir, 'core', 'backup')), []);
});
