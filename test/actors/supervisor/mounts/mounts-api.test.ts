// Network mounts (supervisor-wire §4.6) as a client sees them: answers, records, the host's
// mount table, resolution issues, and the state after a restart.
//
// This machine's kernel has neither `cifs` nor `nfs` (/proc/filesystems) and no modules to load
// them, so a CIFS or NFS mount cannot succeed here: the tests with the real `mount` see the
// kernel refuse. The tests of what happens once a share is mounted (binds, defaults, reloads,
// restarts) use `LocalShares`: the real mount table and the supervisor's own binds, where only
// the network file system itself is stood in by a bind of a local folder per server and share
// (a missing folder is an unreachable server).
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir, type TestSupervisor } from '../../../helpers/supervisor.ts';
import { freePort } from '../../../helpers/ports.ts';
import { HostMounts, MountCommandError } from '../../../../actors/supervisor/mounts/system.ts';
import { openEventLog } from '../../../../store/log.ts';
import { recordsOn } from '../../../helpers/log-records.ts';

const PASSWORD = `pw-${Math.random().toString(36).slice(2)}-secret`;
const USERNAME = `user-${Math.random().toString(36).slice(2)}`;

/** A server's share is a folder `<root>/<server>/<share>`; the rest is the host's real mounting. */
class LocalShares extends HostMounts {
  readonly calls: { type: string; source: string; options: string[] }[] = [];
  constructor(readonly root: string) {
    super(10_000);
  }
  override async mount(type: string, source: string, target: string, options: string[]): Promise<void> {
    this.calls.push({ type, source, options });
    const m = type === 'cifs' ? /^\/\/([^/]+)\/(.+)$/.exec(source) : /^([^:]+):(.+)$/.exec(source);
    const dir = join(this.root, m![1], m![2]);
    if (!existsSync(dir)) throw new MountCommandError(`mount error(113): could not connect to ${m![1]}: No route to host`);
    await this.bind(dir, target);
  }
}

function mountPoints(): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter(Boolean);
}

/** Unmounts whatever the test left under `dir` (the supervisor leaves mounts up when it stops, as the original). */
function cleanMounts(t: { teardown(fn: () => unknown): void }, dir: string) {
  t.teardown(() => {
    for (const p of mountPoints().filter((p) => p.startsWith(dir + '/')).reverse()) execFileSync('umount', ['-l', p]);
  });
}

const records = (s: TestSupervisor, prefix = 'supervisor/mount') => recordsOn(s.supervisor.log, prefix);

/** Every file under `dir`, but for the credentials folder, as bytes. */
async function filesUnder(dir: string, skip: string): Promise<{ path: string; bytes: Buffer }[]> {
  const out: { path: string; bytes: Buffer }[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (path === skip) continue;
    if (entry.isDirectory() && !mountPoints().includes(path)) out.push(...(await filesUnder(path, skip)));
    else if (entry.isFile()) out.push({ path, bytes: await readFile(path) });
  }
  return out;
}

const mountFailed = (name: string) => ({ type: 'mount_failed', context: 'mount', reference: name, reference_extra: null });

async function resolution(s: TestSupervisor) {
  return (await s.json('GET', '/resolution/info')).body.data as { issues: any[]; suggestions: any[] };
}

const kernelFs = readFileSync('/proc/filesystems', 'utf8');

t.test('validation: each field checked as the original checks it, worded as it words it', async (t) => {
  const s = await startTestSupervisor(t);
  const cifs = { name: 'backup_test', type: 'cifs', usage: 'backup', server: 'backup.local', share: 'backups' };
  const cases: [unknown, string | RegExp][] = [
    [{ ...cifs, name: 'bad-name' }, /does not match regular expression .* @ data\['name'\]/],
    [{ ...cifs, name: 'bad name' }, /does not match regular expression/],
    [{ ...cifs, type: 'bind' }, "value must be one of ['cifs', 'nfs'] @ data['type']. Got 'bind'"],
    [{ ...cifs, usage: 'config' }, "value must be one of ['backup', 'media', 'share'] @ data['usage']. Got 'config'"],
    [{ ...cifs, share: undefined }, "required key not provided @ data['share']. Got None"],
    [{ ...cifs, server: 'a/b' }, /does not match regular expression .* @ data\['server'\]/],
    [{ ...cifs, share: 'x\\y' }, /does not match regular expression .* @ data\['share'\]/],
    [{ ...cifs, port: 0 }, "value must be at least 1 @ data['port']. Got 0"],
    [{ ...cifs, port: 65536 }, "value must be at most 65535 @ data['port']. Got 65536"],
    [{ ...cifs, version: '3.0' }, "value must be one of ['1.0', '2.0'] @ data['version']. Got '3.0'"],
    [{ ...cifs, username: USERNAME }, "some but not all values in the same group of inclusion 'basic_auth' @ data[<basic_auth>]"],
    [{ ...cifs, read_only: true }, 'Backup mounts cannot be read only'],
    [{ name: 'nfs_test', type: 'nfs', usage: 'media', server: 'nas' }, "required key not provided @ data['path']. Got None"],
    [{ ...cifs, type: undefined }, "required key not provided @ data['type']. Got None"],
  ];
  for (const [body, message] of cases) {
    const r = await s.json('POST', '/mounts', { body });
    t.equal(r.status, 400, JSON.stringify(body));
    if (typeof message === 'string') t.equal(r.body.message, message);
    else t.match(r.body.message, message);
  }
  // a credential that fails its check is named, never repeated
  for (const bad of [`${PASSWORD},x`, `${PASSWORD}=x`, `${PASSWORD}\nx`]) {
    const r = await s.call('POST', '/mounts', { body: { ...cifs, username: USERNAME, password: bad } });
    const text = await r.text();
    t.equal(r.status, 400);
    t.match(text, /@ data\['password'\]/);
    t.notOk(text.includes(PASSWORD), 'the password is not in the answer');
  }
  // read-only is fine for media and share
  for (const usage of ['media', 'share']) {
    const r = await s.json('POST', '/mounts', { body: { ...cifs, name: `ro_${usage}`, usage, read_only: true, server: '127.0.0.1', port: await freePort() } });
    t.notMatch(r.body.message, /read only/, `${usage} may be read-only`);
  }
  t.same(await s.json('PUT', '/mounts/bad', { body: cifs }), { status: 404, body: { result: 'error', message: 'No mount exists with name bad' } });
  t.same(await s.json('DELETE', '/mounts/bad'), { status: 404, body: { result: 'error', message: 'No mount exists with name bad' } });
  t.same(await s.json('POST', '/mounts/bad/reload'), { status: 404, body: { result: 'error', message: 'No mount exists with name bad' } });
  t.same(await s.json('POST', '/mounts/options', { body: { default_backup_mount: 'bad' } }), { status: 404, body: { result: 'error', message: "No mount exists with name 'bad'" } });
  t.same(await s.json('POST', '/mounts/options', { body: { default_backup_mount: 3 } }), { status: 400, body: { result: 'error', message: "expected str @ data['default_backup_mount']. Got 3" } });
  t.same(await s.json('GET', '/mounts'), { status: 200, body: { result: 'ok', data: { default_backup_mount: null, mounts: [] } } });
  t.same(await records(s), [], 'nothing recorded');
});

t.test('with the real mount command: an unreachable server is answered with the reason, and nothing is kept', async (t) => {
  const s = await startTestSupervisor(t);
  cleanMounts(t, s.dataDir);
  const port = await freePort(); // nobody listens: a kernel with cifs is refused at once
  const r = await s.call('POST', '/mounts', { body: { name: 'unreachable', type: 'cifs', usage: 'backup', server: '127.0.0.1', port, share: 'backups', username: USERNAME, password: PASSWORD } });
  const text = await r.text();
  t.equal(r.status, 400);
  const body = JSON.parse(text);
  t.match(body.message, /^Could not mount unreachable due to: \S/);
  // mount(8)'s words for the kernel's ENODEV, or mount.cifs's when cifs-utils is installed
  if (!/\bcifs\b/.test(kernelFs)) t.match(body.message, /unknown filesystem type 'cifs'|cifs filesystem not supported/, "this kernel's refusal");
  t.notOk(text.includes(PASSWORD) || text.includes(USERNAME), 'no credential in the answer');
  t.same((await s.json('GET', '/mounts')).body.data, { default_backup_mount: null, mounts: [] });
  t.same(await records(s), []);
  t.notOk(existsSync(join(s.dataDir, '.mounts_credentials', 'unreachable')), 'the credentials file went with it');
  t.notOk(existsSync(join(s.dataDir, 'mounts', 'unreachable')), 'no mount point left behind');
  t.match(s.lines.join('\n'), /Could not mount unreachable due to/);
  const log = await readFile(join(s.dataDir, 'supervisor.log'), 'utf8');
  t.notOk(log.includes(PASSWORD), 'the log file never has the password');
  // NFS the same
  const nfs = await s.json('POST', '/mounts', { body: { name: 'nfs_down', type: 'nfs', usage: 'media', server: '127.0.0.1', port, path: '/export' } });
  t.equal(nfs.status, 400);
  t.match(nfs.body.message, /^Could not mount nfs_down due to: \S/);
});

t.test('a kept mount whose server is unreachable ends failed with an issue at start; reload says why; restart keeps one issue; execute_remove removes it', async (t) => {
  const dataDir = await supervisorDataDir();
  const port = await freePort();
  // the mount was made while its server answered: its records and credentials are there
  const log = await openEventLog({ path: join(dataDir, 'log') });
  const config = { name: 'nas', type: 'cifs', usage: 'backup', read_only: false, server: '127.0.0.1', port, share: 'backups', version: null };
  const ctx = { id: 'seed', parent_id: null, user_id: null };
  await log.append([
    { time: Date.now(), stream: 'supervisor/mount/nas', type: 'mount_created', data: { config, credentials: true }, context: ctx },
    { time: Date.now(), stream: 'supervisor/mounts', type: 'default_backup_mount_changed', data: { default_backup_mount: 'nas' }, context: ctx },
  ]);
  await log.close();
  await mkdir(join(dataDir, '.mounts_credentials'), { recursive: true });
  await writeFile(join(dataDir, '.mounts_credentials', 'nas'), `username=${USERNAME}\npassword=${PASSWORD}\n`, { mode: 0o600 });

  const s = await startTestSupervisor(t, { dataDir });
  cleanMounts(t, dataDir);
  const list = (await s.json('GET', '/mounts')).body.data;
  t.same(list, { default_backup_mount: 'nas', mounts: [{ name: 'nas', type: 'cifs', usage: 'backup', read_only: false, server: '127.0.0.1', port, share: 'backups', version: null, state: 'failed', user_path: null }] });
  let info = await resolution(s);
  t.same(info.issues.map(({ uuid, ...i }) => i), [mountFailed('nas')]);
  t.same(info.suggestions.map(({ uuid, ...x }) => x).sort((a, b) => (a.type < b.type ? -1 : 1)), [
    { type: 'execute_reload', context: 'mount', reference: 'nas', reference_extra: null, auto: false },
    { type: 'execute_remove', context: 'mount', reference: 'nas', reference_extra: null, auto: false },
  ]);
  const issue = info.issues[0].uuid;
  t.match(s.lines.join('\n'), /Could not mount nas due to: \S/, 'the reason in the log');
  t.equal(await s.supervisor.deps.mounts!.activeBackupPath('nas'), undefined, 'not a place to write backups');
  await t.rejects(s.supervisor.deps.mounts!.backupLocation('nas'), { status: 400, errorKey: 'backup_mount_down', message: "Backup mount 'nas' is down", extraFields: { mount: 'nas' } });

  const reload = await s.json('POST', '/mounts/nas/reload');
  t.equal(reload.status, 400);
  t.match(reload.body.message, /^Reloading nas did not succeed: \S/);
  t.equal((await s.json('GET', '/mounts')).body.data.mounts[0].state, 'failed');
  t.same((await resolution(s)).issues.map((i) => i.uuid), [issue], 'still the one issue');

  // the suggestion to reload runs the same reload
  const reloadSuggestion = (await resolution(s)).suggestions.find((x) => x.type === 'execute_reload');
  const applied = await s.json('POST', `/resolution/suggestion/${reloadSuggestion.uuid}`);
  t.equal(applied.status, 400);
  t.match(applied.body.message, /^Reloading nas did not succeed/);

  await s.supervisor.stop();
  const again = await startTestSupervisor(t, { dataDir });
  t.equal((await again.json('GET', '/mounts')).body.data.mounts[0].state, 'failed', 'failed again after a restart');
  info = await resolution(again);
  t.same(info.issues.map((i) => i.uuid), [issue], 'the same issue, not a second one');

  const remove = info.suggestions.find((x) => x.type === 'execute_remove');
  t.equal((await again.json('POST', `/resolution/suggestion/${remove.uuid}`)).status, 200);
  t.same((await again.json('GET', '/mounts')).body.data, { default_backup_mount: null, mounts: [] });
  info = await resolution(again);
  t.same(info.issues, [], 'the issue is resolved');
  t.same(info.suggestions, []);
  t.notOk(existsSync(join(dataDir, '.mounts_credentials', 'nas')), 'its credentials are gone');
  const recs = await records(again);
  t.same(recs.slice(-2).map((r) => [r.stream, r.type, r.data]), [
    ['supervisor/mount/nas', 'mount_removed', { name: 'nas' }],
    ['supervisor/mounts', 'default_backup_mount_changed', { default_backup_mount: null }],
  ]);
});

t.test('mounted shares: credentials never leave their file; binds for media and share; default backup mount rules; restart', async (t) => {
  const dataDir = await supervisorDataDir();
  const shares = new LocalShares(join(dataDir, '..', `${dataDir.split('/').pop()}-shares`));
  await mkdir(join(shares.root, 'nas', 'backups'), { recursive: true });
  await mkdir(join(shares.root, 'nas', 'media'), { recursive: true });
  await mkdir(join(shares.root, 'nas', 'export', 'share'), { recursive: true });
  await writeFile(join(shares.root, 'nas', 'media', 'film.mkv'), 'frames');
  const s = await startTestSupervisor(t, { dataDir, mountSystem: shares });
  cleanMounts(t, dataDir);

  const backup = { name: 'backup_test', type: 'cifs', usage: 'backup', server: 'nas', share: 'backups', version: '2.0', username: USERNAME, password: PASSWORD };
  const created = await s.call('POST', '/mounts', { body: { ...backup, extra: 'dropped' } });
  t.equal(created.status, 200, await created.text());
  t.same(shares.calls.at(-1), {
    type: 'cifs',
    source: '//nas/backups',
    options: ['noserverino', 'soft', 'echo_interval=10', 'retrans=0', 'vers=2.0', `credentials=${join(dataDir, '.mounts_credentials', 'backup_test')}`],
  });
  const credFile = join(dataDir, '.mounts_credentials', 'backup_test');
  t.equal(await readFile(credFile, 'utf8'), `username=${USERNAME}\npassword=${PASSWORD}\n`);
  t.equal((await stat(credFile)).mode & 0o777, 0o600, 'owner only');
  t.equal((await stat(join(dataDir, '.mounts_credentials'))).mode & 0o777, 0o700);

  t.equal((await s.json('POST', '/mounts', { body: backup })).body.message, 'A mount already exists with name backup_test');

  const media = { name: 'media_test', type: 'cifs', usage: 'media', server: 'nas', share: 'media', read_only: true };
  t.equal((await s.json('POST', '/mounts', { body: media })).status, 200);
  t.same(shares.calls.at(-1)!.options, ['noserverino', 'soft', 'echo_interval=10', 'retrans=0', 'guest', 'ro']);
  t.equal(await readFile(join(dataDir, 'media', 'media_test', 'film.mkv'), 'utf8'), 'frames', 'bound into the media folder apps see');
  const nfs = { name: 'share_nfs', type: 'nfs', usage: 'share', server: 'nas', path: 'export/share', port: 2049 };
  t.equal((await s.json('POST', '/mounts', { body: nfs })).status, 200);
  t.same(shares.calls.at(-1), { type: 'nfs', source: 'nas:export/share', options: ['port=2049', 'softerr', 'timeo=100', 'retrans=2'] });
  t.ok(mountPoints().includes(join(dataDir, 'share', 'share_nfs')), 'bound into the share folder');

  const listed = await s.call('GET', '/mounts');
  const listedText = await listed.text();
  t.notOk(listedText.includes(PASSWORD) || listedText.includes(USERNAME), 'GET /mounts has no credential');
  t.same(JSON.parse(listedText).data, {
    default_backup_mount: 'backup_test',
    mounts: [
      { name: 'backup_test', type: 'cifs', usage: 'backup', read_only: false, server: 'nas', share: 'backups', version: '2.0', state: 'active', user_path: null },
      { name: 'media_test', type: 'cifs', usage: 'media', read_only: true, server: 'nas', share: 'media', version: null, state: 'active', user_path: '/media/media_test' },
      { name: 'share_nfs', type: 'nfs', usage: 'share', read_only: false, server: 'nas', port: 2049, path: 'export/share', state: 'active', user_path: '/share/share_nfs' },
    ],
  });
  t.equal(await s.supervisor.deps.mounts!.activeBackupPath('backup_test'), join(dataDir, 'mounts', 'backup_test'));
  t.equal(await s.supervisor.deps.mounts!.activeBackupPath('media_test'), undefined, 'a media mount is no backup location');
  t.equal(await s.supervisor.deps.mounts!.backupLocation('backup_test'), join(dataDir, 'mounts', 'backup_test'));
  await t.rejects(s.supervisor.deps.mounts!.backupLocation('media_test'), { status: 400, message: 'Mount media_test is not used for backups, cannot backup to there' });
  t.same(s.supervisor.deps.mounts!.boundFolders(), [join(dataDir, 'media', 'media_test'), join(dataDir, 'share', 'share_nfs')]);
  t.same((await s.supervisor.deps.mounts!.exportForBackup()).mounts[0], { name: 'backup_test', type: 'cifs', usage: 'backup', read_only: false, server: 'nas', share: 'backups', version: '2.0', username: USERNAME, password: PASSWORD }, "a backup's mounts.json has the credentials");
  await t.rejects(s.supervisor.deps.mounts!.backupLocation('nothing'), { status: 404, errorKey: 'mount_not_found_error', message: "No mount exists with name 'nothing'" });

  // default backup mount rules
  t.same(await s.json('POST', '/mounts/options', { body: { default_backup_mount: 'media_test' } }), {
    status: 400,
    body: { result: 'error', message: 'Mount media_test is not used for backups, cannot use it as default backup mount' },
  });
  t.equal((await s.json('POST', '/mounts/options', { body: { default_backup_mount: null } })).status, 200);
  t.equal((await s.json('GET', '/mounts')).body.data.default_backup_mount, null);
  t.equal((await s.json('POST', '/mounts/options', { body: { default_backup_mount: 'backup_test' } })).status, 200);
  t.equal((await s.json('POST', '/mounts', { body: { ...backup, name: 'backup_two' } })).status, 200);
  t.equal((await s.json('GET', '/mounts')).body.data.default_backup_mount, 'backup_test', 'a second backup mount does not take the default');

  // PUT: the name in the body must be the path's; a default turned to media usage is no default any more
  t.match((await s.json('PUT', '/mounts/backup_test', { body: { ...backup, name: 'other' } })).body.message, /^not a valid value @ data\['name'\]/);
  t.equal((await s.json('PUT', '/mounts/backup_test', { body: { ...backup, usage: 'media', share: 'media', name: undefined } })).status, 200);
  let data = (await s.json('GET', '/mounts')).body.data;
  t.equal(data.default_backup_mount, null);
  t.same(data.mounts[0], { name: 'backup_test', type: 'cifs', usage: 'media', read_only: false, server: 'nas', share: 'media', version: '2.0', state: 'active', user_path: '/media/backup_test' });
  t.ok(mountPoints().includes(join(dataDir, 'media', 'backup_test')));

  // the server goes away under a mount: inactive, then a reload fails with an issue, and succeeds once it is back
  execFileSync('umount', ['-l', join(dataDir, 'share', 'share_nfs')]);
  execFileSync('umount', ['-l', join(dataDir, 'mounts', 'share_nfs')]);
  t.equal((await s.json('GET', '/mounts')).body.data.mounts.find((m: any) => m.name === 'share_nfs').state, 'inactive');
  execFileSync('mv', [join(shares.root, 'nas', 'export'), join(shares.root, 'nas', 'export.away')]);
  const failed = await s.json('POST', '/mounts/share_nfs/reload');
  t.same(failed, { status: 400, body: { result: 'error', message: 'Reloading share_nfs did not succeed: mount error(113): could not connect to nas: No route to host' } });
  t.equal((await s.json('GET', '/mounts')).body.data.mounts.find((m: any) => m.name === 'share_nfs').state, 'failed');
  t.same((await resolution(s)).issues.map(({ uuid, ...i }) => i), [mountFailed('share_nfs')]);
  execFileSync('mv', [join(shares.root, 'nas', 'export.away'), join(shares.root, 'nas', 'export')]);
  t.equal((await s.json('POST', '/mounts/share_nfs/reload')).status, 200);
  t.equal((await s.json('GET', '/mounts')).body.data.mounts.find((m: any) => m.name === 'share_nfs').state, 'active');
  t.same((await resolution(s)).issues, [], 'mounted again: the issue is resolved');
  // the periodic refresh mounts again what is not mounted
  execFileSync('umount', ['-l', join(dataDir, 'share', 'share_nfs')]);
  execFileSync('umount', ['-l', join(dataDir, 'mounts', 'share_nfs')]);
  await s.supervisor.deps.mounts!.refresh();
  t.equal((await s.json('GET', '/mounts')).body.data.mounts.find((m: any) => m.name === 'share_nfs').state, 'active');
  t.ok(mountPoints().includes(join(dataDir, 'share', 'share_nfs')), 'bound again');

  // a PUT to an unreachable server keeps the new configuration, failed, with an issue
  const put = await s.json('PUT', '/mounts/backup_two', { body: { ...backup, name: 'backup_two', server: 'gone' } });
  t.same(put, { status: 400, body: { result: 'error', message: 'Could not mount backup_two due to: mount error(113): could not connect to gone: No route to host' } });
  data = (await s.json('GET', '/mounts')).body.data;
  t.match(data.mounts.find((m: any) => m.name === 'backup_two'), { server: 'gone', state: 'failed' });
  t.same((await resolution(s)).issues.map(({ uuid, ...i }) => i), [mountFailed('backup_two')]);

  // DELETE: unmounted, its folders and credentials gone, the issue resolved
  t.equal((await s.json('DELETE', '/mounts/backup_two')).status, 200);
  t.same((await resolution(s)).issues, []);
  t.notOk(existsSync(join(dataDir, '.mounts_credentials', 'backup_two')));
  t.equal((await s.json('DELETE', '/mounts/media_test')).status, 200);
  t.notOk(mountPoints().some((p) => p.endsWith('/media_test')), 'unmounted, bind included');
  t.notOk(existsSync(join(dataDir, 'media', 'media_test')));
  t.equal(await readFile(join(shares.root, 'nas', 'media', 'film.mkv'), 'utf8'), 'frames', "the server's files are untouched");

  // the password is in its file and nowhere else: not in a record, not in the log file, not in any other file
  const recs = await records(s);
  t.ok(recs.length >= 6);
  const recText = JSON.stringify(recs);
  t.notOk(recText.includes(PASSWORD) || recText.includes(USERNAME), 'no record holds a credential');
  t.same(recs[0].data, { config: { name: 'backup_test', type: 'cifs', usage: 'backup', read_only: false, server: 'nas', share: 'backups', version: '2.0' }, credentials: true });
  let all = '';
  for await (const r of s.supervisor.log.read()) all += JSON.stringify(r);
  t.notOk(all.includes(PASSWORD), 'no record of any stream holds it');
  t.notOk(s.lines.join('\n').includes(PASSWORD), 'no log line holds it');
  await s.supervisor.stop();
  for (const f of await filesUnder(dataDir, join(dataDir, '.mounts_credentials'))) t.notOk(f.bytes.includes(PASSWORD), `${f.path} has no password`);

  // after a restart: the same mounts, mounted, the same default
  const again = await startTestSupervisor(t, { dataDir, mountSystem: shares });
  data = (await again.json('GET', '/mounts')).body.data;
  t.same(
    data.mounts.map((m: any) => [m.name, m.usage, m.state]),
    [
      ['backup_test', 'media', 'active'],
      ['share_nfs', 'share', 'active'],
    ],
  );
  t.equal(data.default_backup_mount, null);
  t.equal((await again.json('POST', '/mounts/options', { body: { default_backup_mount: 'backup_test' } })).body.message, 'Mount backup_test is not used for backups, cannot use it as default backup mount');
  // the first backup mount made becomes the default; deleting it clears it
  t.equal((await again.json('POST', '/mounts', { body: { ...backup, name: 'backup_three' } })).status, 200);
  t.equal((await again.json('GET', '/mounts')).body.data.default_backup_mount, 'backup_three');
  t.equal((await again.json('DELETE', '/mounts/backup_three')).status, 200);
  t.equal((await again.json('GET', '/mounts')).body.data.default_backup_mount, null);
  await again.supervisor.stop();
  // unmounted meanwhile (a host reboot): mounted again at start
  for (const p of mountPoints().filter((p) => p.startsWith(dataDir + '/')).reverse()) execFileSync('umount', ['-l', p]);
  const third = await startTestSupervisor(t, { dataDir, mountSystem: shares });
  t.same((await third.json('GET', '/mounts')).body.data.mounts.map((m: any) => m.state), ['active', 'active']);
  t.ok(mountPoints().includes(join(dataDir, 'media', 'backup_test')), 'the bind too');
});

t.test("a host where the supervisor may not mount: the original's job condition refusal, unless mount_available is ignored", async (t) => {
  const dataDir = await supervisorDataDir();
  const shares = new (class extends LocalShares {
    override async available() {
      return false;
    }
  })(join(dataDir, '..', `${dataDir.split('/').pop()}-shares`));
  await mkdir(join(shares.root, 'nas', 'backups'), { recursive: true });
  const s = await startTestSupervisor(t, { dataDir, mountSystem: shares });
  cleanMounts(t, dataDir);
  const body = { name: 'b', type: 'cifs', usage: 'backup', server: 'nas', share: 'backups' };
  t.same(await s.json('POST', '/mounts', { body }), { status: 400, body: { result: 'error', message: "'MountManager.create_mount' blocked from execution, mounting not supported on system" } });
  t.equal((await s.json('POST', '/jobs/options', { body: { ignore_conditions: ['mount_available'] } })).status, 200);
  t.equal((await s.json('POST', '/mounts', { body })).status, 200, 'ignored: mounted');
  t.equal((await s.json('GET', '/mounts')).body.data.mounts[0].state, 'active');
});

// what keeps a real mount from being tested here, if anything
const realMountSkip = (() => {
  const missing = ['cifs', 'nfs'].filter((fs) => !new RegExp(`\\b${fs}\\n`).test(kernelFs));
  if (missing.length) {
    const release = readFileSync('/proc/sys/kernel/osrelease', 'utf8').trim();
    const modules = existsSync(`/lib/modules/${release}`) ? `and /lib/modules/${release} was not loaded from` : `and there is no /lib/modules/${release} to load one from`;
    return `this kernel (${release}) has no ${missing.join(' or ')} file system in /proc/filesystems ${modules}, so no CIFS or NFS mount can succeed here, whatever server runs; the kernel's refusal is what the other tests see`;
  }
  return 'this kernel has cifs and nfs, but .ci/run installs no Samba or NFS server yet';
})();

t.test('a real CIFS or NFS mount against a local server', { skip: realMountSkip }, async () => {});
