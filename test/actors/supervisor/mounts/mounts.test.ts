// The mounts' logic without the host's mount table: given the supervisor's records, when a
// mount is created, updated, reloaded, removed or loaded at start, then exactly the records
// appended, the mount commands run and the issues raised. The real-mount tests
// (mounts-api.test.ts) stay for validation on the wire and the kernel's answers.
import t from 'tap';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildSupervisor, jobLine, fact, facts, type ScenarioSupervisor } from '../../../helpers/scenario.ts';
import type { MountConfig } from '../../../../actors/supervisor/mounts/types.ts';
import type { EventRecord } from '../../../../store/types.ts';

const BACKUPS: MountConfig = { name: 'backups', type: 'cifs', usage: 'backup', read_only: false, server: 'nas.local', share: 'backups', version: null };
const MEDIA: MountConfig = { name: 'films', type: 'nfs', usage: 'media', read_only: true, server: 'nas.local', path: '/export/films' };
const SECRET = { username: 'alice', password: 'hunter2' };

/** The mounts' records, the issues' and the jobs' names and ends, with the data directory as `<data>`. */
function told(s: ScenarioSupervisor, records: EventRecord[]) {
  return records
    .filter((r) => r.stream.startsWith('supervisor/mount') || r.stream.startsWith('resolution/') || r.type === 'job_created' || r.type === 'job_done')
    .map((r) => {
      if (r.type === 'job_created' || r.type === 'job_done') return jobLine(r)!;
      // issues and suggestions by what they are when made, by their stream after
      if (r.stream.startsWith('resolution/') && r.type.endsWith('_created')) return `${r.type} ${r.data.type} ${r.data.context} ${r.data.reference}`;
      if (r.stream.startsWith('resolution/')) return r.type;
      return `${r.type} ${JSON.stringify(r.data)}`;
    })
    .map((line) => line.replaceAll(s.dataDir, '<data>'));
}

const commands = (s: ScenarioSupervisor) => s.mountTable.calls.map((c) => c.replaceAll(s.dataDir, '<data>'));

const created = (config: MountConfig, credentials = false) => fact(`supervisor/mount/${config.name}`, 'mount_created', { config, credentials });

t.test('create a CIFS backup mount: mounted with the credentials file, kept, the default backup mount', async (t) => {
  const s = await buildSupervisor(t);
  const then = await s.when((s) => s.mounts.create(BACKUPS, SECRET, s.context()));
  t.error(then.error);
  t.same(told(s, then.records), [
    'job mount_manager_create_mount backups',
    `mount_created ${JSON.stringify({ config: BACKUPS, credentials: true })}`,
    'default_backup_mount_changed {"default_backup_mount":"backups"}',
    'job done',
  ]);
  t.same(commands(s), ['mount -t cifs -o noserverino,soft,echo_interval=10,retrans=0,credentials=<data>/.mounts_credentials/backups //nas.local/backups <data>/mounts/backups']);
  t.equal(await readFile(join(s.dataDir, '.mounts_credentials', 'backups'), 'utf8'), 'username=alice\npassword=hunter2\n');
  t.notMatch(JSON.stringify(then.records), /hunter2|alice/, 'no record holds the username or password');
  t.same((await s.mounts.list()).map((m) => [m.name, m.state, m.user_path]), [['backups', 'active', null]]);
});

t.test('create a media mount: mounted read-only, then bound into <data>/media', async (t) => {
  const s = await buildSupervisor(t);
  const then = await s.when((s) => s.mounts.create(MEDIA, undefined, s.context()));
  t.error(then.error);
  t.same(told(s, then.records), ['job mount_manager_create_mount films', `mount_created ${JSON.stringify({ config: MEDIA, credentials: false })}`, 'job done'], 'not a backup mount: no default');
  t.same(commands(s), ['mount -t nfs -o softerr,timeo=100,retrans=2,ro nas.local:/export/films <data>/mounts/films', 'bind <data>/mounts/films <data>/media/films']);
});

t.test('a create that fails to mount: answered with what mount said, nothing kept', async (t) => {
  const s = await buildSupervisor(t);
  s.mountTable.failNext(join(s.dataDir, 'mounts', 'backups'), 'mount error(113): No route to host');
  const then = await s.when((s) => s.mounts.create(BACKUPS, SECRET, s.context()));
  t.match(then.error, { message: 'Could not mount backups due to: mount error(113): No route to host', status: 400 });
  t.same(told(s, then.records), ['job mount_manager_create_mount backups', 'job failed: Could not mount backups due to: mount error(113): No route to host']);
  t.notOk(s.mounts.has('backups'));
  await t.rejects(readFile(join(s.dataDir, '.mounts_credentials', 'backups')), 'its credentials file is gone');
});

t.test('an update that fails to mount: the new configuration kept, failed, with an issue and its fixes', async (t) => {
  const s = await buildSupervisor(t, [created(BACKUPS)]);
  await s.mounts.load();
  s.mountTable.calls.length = 0;
  const changed = { ...BACKUPS, server: 'gone.local' };
  s.mountTable.failNext(join(s.dataDir, 'mounts', 'backups'), 'mount error(112): Host is down');
  const then = await s.when((s) => s.mounts.update(changed, undefined, s.context()));
  t.match(then.error, { message: 'Could not mount backups due to: mount error(112): Host is down' });
  t.same(told(s, then.records), [
    'job mount_manager_create_mount backups',
    `mount_updated ${JSON.stringify({ config: changed, credentials: false })}`,
    'issue_created mount_failed mount backups',
    'suggestion_created execute_reload mount backups',
    'suggestion_created execute_remove mount backups',
    'job failed: Could not mount backups due to: mount error(112): Host is down',
  ]);
  t.same(commands(s), ['umount <data>/mounts/backups', 'mount -t cifs -o noserverino,soft,echo_interval=10,retrans=0,guest //gone.local/backups <data>/mounts/backups']);
  t.same((await s.mounts.list()).map((m) => m.state), ['failed']);
});

t.test('given a kept mount that fails at start: an issue, never a failed start; a reload that mounts resolves it', async (t) => {
  const s = await buildSupervisor(t, [created(MEDIA)]);
  s.mountTable.failNext(join(s.dataDir, 'mounts', 'films'), 'mount.nfs: Connection timed out');
  const loaded = await s.when((s) => s.mounts.load());
  t.error(loaded.error);
  t.same(told(s, loaded.records), ['issue_created mount_failed mount films', 'suggestion_created execute_reload mount films', 'suggestion_created execute_remove mount films']);
  t.ok(s.lines.includes('Could not mount films due to: mount.nfs: Connection timed out'), 'and a log line says why');

  const issue = s.resolution.issues()[0];
  const reloaded = await s.when((s) => s.mounts.reload('films', s.context()));
  t.error(reloaded.error);
  t.same(told(s, reloaded.records), ['job mount_manager_reload_mount films', 'issue_resolved', 'suggestion_resolved', 'suggestion_resolved', 'job done']);
  t.equal(reloaded.records.find((r) => r.type === 'issue_resolved')?.stream, `resolution/issue/${issue.uuid}`);
  t.same(s.resolution.issues(), []);
  t.same((await s.mounts.list()).map((m) => m.state), ['active']);
});

t.test('a mount unmounted behind the supervisor reads inactive; the refresh mounts it again', async (t) => {
  const s = await buildSupervisor(t, [created(BACKUPS)]);
  await s.mounts.load();
  s.mountTable.unmountBehind(join(s.dataDir, 'mounts', 'backups'));
  t.same((await s.mounts.list()).map((m) => m.state), ['inactive']);
  s.mountTable.calls.length = 0;
  const then = await s.when((s) => s.mounts.refresh());
  t.same(told(s, then.records), ['job mount_manager_reload_mount backups', 'job done']);
  t.same(commands(s), ['mount -t cifs -o noserverino,soft,echo_interval=10,retrans=0,guest //nas.local/backups <data>/mounts/backups'], 'kept without credentials: a guest');
  t.same((await s.mounts.list()).map((m) => m.state), ['active']);
});

t.test('remove: unmounted (the bind first), mount_removed, the default backup mount cleared', async (t) => {
  const s = await buildSupervisor(t, [created(BACKUPS), created(MEDIA), fact('supervisor/mounts', 'default_backup_mount_changed', { default_backup_mount: 'backups' })]);
  await s.mounts.load();
  s.mountTable.calls.length = 0;
  const films = await s.when((s) => s.mounts.remove('films', s.context()));
  t.same(told(s, films.records), ['job mount_manager_remove_mount films', 'mount_removed {"name":"films"}', 'job done']);
  t.same(commands(s), ['umount <data>/media/films', 'umount <data>/mounts/films']);
  const backups = await s.when((s) => s.mounts.remove('backups', s.context()));
  t.same(told(s, backups.records), ['job mount_manager_remove_mount backups', 'mount_removed {"name":"backups"}', 'default_backup_mount_changed {"default_backup_mount":null}', 'job done']);
  t.same(await s.mounts.list(), []);
});

t.test('the default backup mount: only a backup mount, only a known one; the same again records nothing', async (t) => {
  const s = await buildSupervisor(t, [created(BACKUPS), created(MEDIA)]);
  const media = await s.when((s) => s.mounts.setDefaultBackupMount('films', s.context()));
  t.match(media.error, { message: 'Mount films is not used for backups, cannot use it as default backup mount' });
  const unknown = await s.when((s) => s.mounts.setDefaultBackupMount('nope', s.context()));
  t.match(unknown.error, { message: "No mount exists with name 'nope'", status: 404 });
  const set = await s.when((s) => s.mounts.setDefaultBackupMount('backups', s.context()));
  t.same(facts(set.records), [{ stream: 'supervisor/mounts', type: 'default_backup_mount_changed', data: { default_backup_mount: 'backups' } }]);
  const again = await s.when((s) => s.mounts.setDefaultBackupMount('backups', s.context()));
  t.same(again.records, []);
  t.same([media, unknown].map((o) => o.records), [[], []]);
});

t.test("a host where the supervisor may not mount: the original's condition refusal, unless mount_available is ignored", async (t) => {
  const s = await buildSupervisor(t);
  s.mountTable.canMount = false;
  const refused = await s.when((s) => s.mounts.create(MEDIA, undefined, s.context()));
  t.match(refused.error, { message: "'MountManager.create_mount' blocked from execution, mounting not supported on system" });
  t.same(refused.records, []);
  await s.jobs.setIgnoredConditions(['mount_available'], s.context());
  const ignored = await s.when((s) => s.mounts.create(MEDIA, undefined, s.context()));
  t.error(ignored.error);
  t.ok(s.mounts.has('films'));
});
