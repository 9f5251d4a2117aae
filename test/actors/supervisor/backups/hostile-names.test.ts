// Backups made by someone else are hostile input: their backup.json names apps, their
// supervisor.tar.gz names mounts, and each of those names becomes a folder on the host. Crafted
// backups (built here with Python's tarfile, as an attacker would) try to reach a canary folder
// outside the supervisor's data; the canary must be exactly as it was, and the refusal must
// say which field was wrong.
import t from 'tap';
import { copyFile, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';
import { craftBackup, jobDone, tree } from '../../../helpers/backups.ts';
import { childPath, isSlug, PathEscapeError } from '../../../../actors/supervisor/paths.ts';
import { appConfigDir, appDataDir } from '../../../../actors/supervisor/apps/container-spec.ts';
import { parseBackupJson } from '../../../../actors/supervisor/backups/archive/backup-json.ts';

const META = { slug: 'c0ffee00', version: 2, name: 'crafted', date: '2026-11-28T05:00:00+00:00', type: 'partial', supervisor_version: '2026.11.0', extra: {}, compressed: true, protected: false, homeassistant: null, folders: [], addons: [], repositories: [] };

async function canary() {
  const dir = await mkdtemp(join(tmpdir(), 'hearth-canary-'));
  await writeFile(join(dir, 'keep.txt'), 'the host folder an attacker wants');
  return { dir, before: await tree(dir) };
}

t.test('paths built from names stay inside their folder', async (t) => {
  t.equal(childPath('/srv/data', 'core_echo'), '/srv/data/core_echo');
  for (const name of ['..', '.', '', '../x', '/etc', 'a/../../x', 'x\0y']) t.throws(() => childPath('/srv/data', name), PathEscapeError, JSON.stringify(name));
  for (const slug of ['core_hearth_echo', 'local_my-app', 'a1b2c3d4_x.y']) t.ok(isSlug(slug), slug);
  for (const slug of ['..', '.', '../../etc', 'a/b', 'a b', '', 'x\r\n']) t.notOk(isSlug(slug), JSON.stringify(slug));
  t.throws(() => appDataDir('/srv', '../../etc'), PathEscapeError, 'an app data folder');
  t.throws(() => appConfigDir('/srv', '..'), PathEscapeError, 'an app config folder');
});

t.test('backup.json: an app or backup slug that is a path is refused with its field', async (t) => {
  const bad = (meta: Record<string, unknown>) => () => parseBackupJson(JSON.stringify({ ...META, ...meta }));
  t.throws(bad({ addons: [{ slug: '../../../tmp/escaped', name: 'x', version: '1' }] }), /^backup\.json: addons\[0\]\.slug must match /);
  t.throws(bad({ addons: [{ slug: '..', name: 'x', version: '1' }] }), /^backup\.json: addons\[0\]\.slug must match /);
  t.throws(bad({ slug: '../x' }), /^backup\.json: slug must match /);
  t.equal(parseBackupJson(JSON.stringify({ ...META, addons: [{ slug: 'local_ok', name: 'x', version: '1' }] })).addons[0].slug, 'local_ok');
});

t.test('a crafted backup naming an app by a path reaches nothing outside its folder', async (t) => {
  const sup = await startTestSupervisor(t, { bootApps: false });
  const { dir, before } = await canary();
  const slug = relative(join(sup.dataDir, 'apps', 'data'), join(dir, 'escaped'));
  const file = join(await mkdtemp(join(tmpdir(), 'hearth-crafted-')), 'crafted.tar');
  craftBackup(file, { ...META, addons: [{ slug, name: 'Escape', version: '1.0.0', size: 0 }] }, {
    [`${slug}.tar.gz`]: { 'addon.json': JSON.stringify({ version: '1.0.0', system: {}, user: {}, state: 'started' }), 'data/owned.txt': 'written by the backup' },
  });

  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(await readFile(file))]), 'crafted.tar');
  const res = await fetch(`${sup.base}/backups/new/upload`, { method: 'POST', headers: { Authorization: `Bearer ${sup.supervisor.adminToken}` }, body: form });
  const body = (await res.json()) as any;
  t.equal(res.status, 400, 'the upload is refused');
  t.match(body.message, /^backup\.json: addons\[0\]\.slug must match /, 'naming the field');

  // the same file dropped into the backup folder by hand is left out of the list
  await mkdir(join(sup.dataDir, 'backup'), { recursive: true });
  await copyFile(file, join(sup.dataDir, 'backup', 'crafted.tar'));
  t.equal((await sup.json('POST', '/backups/reload')).status, 200);
  t.same((await sup.json('GET', '/backups')).body.data.backups, [], 'not listed');
  t.equal((await sup.json('POST', `/backups/${META.slug}/restore/partial`, { body: { addons: [slug] } })).status, 404, 'so it cannot be restored');
  t.ok(sup.lines.some((l) => l.includes('crafted.tar') && l.includes('addons[0].slug')), 'the log says why it was left out');
  t.same(await tree(dir), before, 'the canary is untouched');
});

t.test("a crafted backup's mounts.json naming a mount by a path writes no credentials outside", async (t) => {
  const sup = await startTestSupervisor(t, { bootApps: false });
  const { dir, before } = await canary();
  const name = relative(join(sup.dataDir, '.mounts_credentials'), join(dir, 'escaped'));
  const mounts = { default_backup_mount: null, mounts: [{ name, type: 'cifs', usage: 'media', server: 'nas', share: 'films', username: 'user', password: 'secret' }] };
  await mkdir(join(sup.dataDir, 'backup'), { recursive: true });
  await copyFile(await (async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'hearth-crafted-')), 'mounts.tar');
    craftBackup(file, { ...META, slug: 'c0ffee01' }, { 'supervisor.tar.gz': { 'mounts.json': JSON.stringify(mounts) } });
    return file;
  })(), join(sup.dataDir, 'backup', 'c0ffee01.tar'));
  await sup.json('POST', '/backups/reload');
  const restore = await sup.json('POST', '/backups/c0ffee01/restore/partial', { body: { folders: [] } });
  const job = await jobDone(sup, restore.body.job_id ?? restore.body.data?.job_id);
  t.match(JSON.stringify(job.errors), /mount .*does not match regular expression/, `the job names the mount and the rule: ${JSON.stringify(job.errors)}`);
  t.same((await sup.json('GET', '/mounts')).body.data.mounts, [], 'no mount was made');
  t.same(await tree(dir), before, 'the canary is untouched');
});
