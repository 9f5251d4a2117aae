// Mounts travel in a full backup's supervisor.tar.gz: restored into a FRESH supervisor they are
// configured again with their credentials and mounted, and the default backup mount comes back.
// The network file system is stood in as in mounts.test.ts (a bind of a local folder per share;
// a missing folder is an unreachable server), the mount table is the host's.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { HostMounts, MountCommandError } from '../../../../../actors/supervisor/mounts/system.ts';
import { supervisorWithCore, populate, newBackup, download, upload, jobDone } from '../../../../helpers/backups.ts';

class LocalShares extends HostMounts {
  constructor(readonly root: string) {
    super(10_000);
  }
  override async mount(type: string, source: string, target: string): Promise<void> {
    const m = type === 'cifs' ? /^\/\/([^/]+)\/(.+)$/.exec(source) : /^([^:]+):(.+)$/.exec(source);
    const dir = join(this.root, m![1], m![2]);
    if (!existsSync(dir)) throw new MountCommandError(`mount error(113): could not connect to ${m![1]}: No route to host`);
    await this.bind(dir, target);
  }
}

function cleanMounts(t: { teardown(fn: () => unknown): void }, dir: string) {
  t.teardown(() => {
    const points = readFileSync('/proc/self/mountinfo', 'utf8').split('\n').map((l) => l.split(' ')[4]).filter(Boolean);
    for (const p of points.filter((p) => p.startsWith(dir + '/')).reverse()) execFileSync('umount', ['-l', p]);
  });
}

t.test('a full backup brings its mounts and the default backup mount back into a fresh supervisor', async (t) => {
  const shares = async (label: string) => {
    const root = join('/tmp', `hearth-restore-shares-${process.pid}-${label}-${Math.random().toString(36).slice(2, 8)}`);
    await mkdir(join(root, 'nas', 'media'), { recursive: true });
    await mkdir(join(root, 'nas', 'backups'), { recursive: true });
    await writeFile(join(root, 'nas', 'media', 'film.mkv'), 'frames');
    return new LocalShares(root);
  };
  const a = await supervisorWithCore(t, { startCore: true, mountSystem: await shares('a') });
  cleanMounts(t, a.sup.dataDir);
  await populate(a.core().base);
  const media = { name: 'nas_media', type: 'cifs', usage: 'media', server: 'nas', share: 'media', username: 'film-user', password: 'film-secret' };
  const backups = { name: 'nas_backups', type: 'cifs', usage: 'backup', server: 'nas', share: 'backups' };
  for (const body of [media, backups]) t.equal((await a.sup.json('POST', '/mounts', { body })).status, 200);
  t.equal((await a.sup.json('POST', '/mounts/options', { body: { default_backup_mount: 'nas_backups' } })).status, 200);
  const mountsA = (await a.sup.json('GET', '/mounts')).body.data;
  const slug = await newBackup(t, a.sup, { name: 'mounts', location: null });
  const bytes = await download(a.sup, slug);
  await a.core().stop();

  const b = await supervisorWithCore(t, { startCore: false, mountSystem: await shares('b') });
  cleanMounts(t, b.sup.dataDir);
  await upload(b.sup, bytes, 'mounts.tar');
  t.same((await b.sup.json('GET', '/mounts')).body.data, { default_backup_mount: null, mounts: [] }, 'none before');
  const restored = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: {} });
  t.equal(restored.status, 200, JSON.stringify(restored.body).slice(0, 300));
  const job = await jobDone(b.sup, restored.body.data.job_id);
  t.same(job.errors, []);
  t.ok(job.child_jobs.some((c: any) => c.name === 'backup_restore_supervisor_config'), 'the supervisor config restored as its own child job');
  t.same((await b.sup.json('GET', '/mounts')).body.data, mountsA, 'the same mounts, active, and the same default backup mount');
  t.equal(await readFile(join(b.sup.dataDir, '.mounts_credentials', 'nas_media'), 'utf8'), 'username=film-user\npassword=film-secret\n', 'credentials back in their file');
  t.equal(await readFile(join(b.sup.dataDir, 'media', 'nas_media', 'film.mkv'), 'utf8'), 'frames', 'the share is mounted where the apps see media');
});
