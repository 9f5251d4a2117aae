// An installed, running app in a full backup restored into a FRESH supervisor on the real engine:
// installed again from its addon.json, its options kept, its data folder byte for byte, started
// because it was; a partial restore of one app replaces only that app's data.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import { cp, mkdir, readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { appPrefix, appRecords, docker } from '../../../../helpers/apps.ts';
import { supervisorDataDir } from '../../../../helpers/supervisor.ts';
import { populate, supervisorWithCore, jobDone, newBackup, download, upload, tree } from '../../../../helpers/backups.ts';
import { postForm, CLIENT_ID } from '../../../auth/harness.ts';

const ECHO = 'core_hearth_echo';
const BUILTIN = fileURLToPath(new URL('../../../../../actors/supervisor/apps/builtin/', import.meta.url));

t.test('a full backup with a running app restores the app, its options and data into a fresh supervisor', async (t) => {
  const a = await supervisorWithCore(t, { startCore: true, appContainerPrefix: appPrefix(t, 'bka') });
  const tokens = await populate(a.core().base);
  t.same((await a.sup.json('POST', `/store/addons/${ECHO}/install`)).body, { result: 'ok', data: {} });
  t.equal((await a.sup.json('POST', `/addons/${ECHO}/options`, { body: { options: { greeting: 'restored hello' } } })).status, 200);
  t.equal((await a.sup.json('POST', `/addons/${ECHO}/start`)).status, 200);
  const dataA = join(a.sup.dataDir, 'apps', 'data', ECHO);
  await mkdir(join(dataA, 'nested'), { recursive: true });
  await writeFile(join(dataA, 'blob.bin'), randomBytes(300_000));
  await writeFile(join(dataA, 'nested', 'note.txt'), 'kept as it was\n');
  const slug = await newBackup(t, a.sup, { name: 'with app', password: 'app pw' });
  const filesA = await tree(dataA);
  t.ok(filesA['blob.bin'] && filesA['nested/note.txt'] && filesA['options.json'], 'the app has data');
  const bytes = await download(a.sup, slug);
  await a.sup.json('POST', `/addons/${ECHO}/stop`);
  await a.core().stop();

  const b = await supervisorWithCore(t, { startCore: false, appContainerPrefix: appPrefix(t, 'bkb') });
  await upload(b.sup, bytes, 'apps.tar');
  t.equal((await b.sup.json('GET', `/addons/${ECHO}/info`)).body.data.installed, false, 'not installed before');
  const restored = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: { password: 'app pw' } });
  t.equal(restored.status, 200, JSON.stringify(restored.body).slice(0, 300));
  const job = await jobDone(b.sup, restored.body.data.job_id);
  t.same(job.errors, []);
  t.same(job.child_jobs.map((c: any) => c.name), ['backup_restore_homeassistant', 'backup_remove_delta_apps', 'backup_restore_apps']);
  t.same(job.child_jobs[2].child_jobs.map((c: any) => [c.name, c.reference]), [['backup_app_restore', ECHO]]);

  const info = (await b.sup.json('GET', `/addons/${ECHO}/info`)).body.data;
  t.match(info, { version: '1.0.0', state: 'started', options: { greeting: 'restored hello' } }, 'installed, started, its options');
  t.same(await tree(join(b.sup.dataDir, 'apps', 'data', ECHO)), filesA, 'the app data byte for byte');
  t.match((await appRecords(b.sup.supervisor.log, ECHO)).map((r) => r.type), ['app_installed', 'app_started']);
  const refreshed = await postForm(b.core().base, '/auth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT_ID });
  t.equal(refreshed.status, 200, 'the core came back too');

  // a partial restore of the app alone: its data back, the core left running
  await writeFile(join(b.sup.dataDir, 'apps', 'data', ECHO, 'blob.bin'), 'changed since');
  const calls = b.calls.length;
  const partial = await b.sup.json('POST', `/backups/${slug}/restore/partial`, { body: { password: 'app pw', addons: [ECHO] } });
  t.equal(partial.status, 200, JSON.stringify(partial.body).slice(0, 300));
  t.same((await jobDone(b.sup, partial.body.data.job_id)).errors, []);
  t.equal(b.calls.length, calls, 'the core was not stopped');
  t.same(await readFile(join(b.sup.dataDir, 'apps', 'data', ECHO, 'nested', 'note.txt'), 'utf8'), 'kept as it was\n');
  t.same(await tree(join(b.sup.dataDir, 'apps', 'data', ECHO)), filesA, 'the app data as backed up again');
  t.equal((await b.sup.json('GET', `/addons/${ECHO}/info`)).body.data.state, 'started');
  await b.sup.json('POST', `/addons/${ECHO}/stop`);
});

t.test('an app whose image is gone comes back from the image.tar in its backup', async (t) => {
  // an app of this test alone in the local repository: its image name is this test's, so
  // removing the image harms no other test
  const dataDir = await supervisorDataDir();
  const own = `restore_img_${process.pid}`;
  const appDir = join(dataDir, 'apps', 'local', own);
  await cp(join(BUILTIN, 'hearth_stdin_logger'), appDir, { recursive: true });
  const config = await readFile(join(appDir, 'config.yaml'), 'utf8');
  await writeFile(join(appDir, 'config.yaml'), config.replace('slug: hearth_stdin_logger', `slug: ${own}`).replace('name: Stdin logger', 'name: Restore image'));
  const slug = `local_${own}`;

  const a = await supervisorWithCore(t, { startCore: true, dataDir, appContainerPrefix: appPrefix(t, 'bki') });
  await populate(a.core().base);
  t.same((await a.sup.json('POST', `/store/addons/${slug}/install`)).body, { result: 'ok', data: {} });
  const ref = `${a.sup.supervisor.deps.apps!.get(slug)!.user.image}:1.0.0`;
  t.teardown(() => docker('rmi', '-f', ref).catch(() => ''));
  t.equal((await a.sup.json('POST', `/addons/${slug}/start`)).status, 200);
  await writeFile(join(a.sup.dataDir, 'apps', 'data', slug, 'kept.txt'), 'app bytes');
  const backupSlug = await newBackup(t, a.sup, { name: 'image' });
  const bytes = await download(a.sup, backupSlug);
  await a.sup.json('POST', `/addons/${slug}/stop`);
  await a.core().stop();
  await docker('rmi', '-f', ref);
  await t.rejects(docker('image', 'inspect', ref), 'the image is gone from the engine');

  // a fresh supervisor: its store does not have the app (the restored addons/local is not read
  // until the store reloads), only the backup can bring the image back
  const b = await supervisorWithCore(t, { startCore: false, appContainerPrefix: appPrefix(t, 'bkj') });
  await upload(b.sup, bytes, 'image.tar');
  const restored = await b.sup.json('POST', `/backups/${backupSlug}/restore/full`, { body: {} });
  t.equal(restored.status, 200, JSON.stringify(restored.body).slice(0, 300));
  t.same((await jobDone(b.sup, restored.body.data.job_id)).errors, []);
  t.ok(await docker('image', 'inspect', ref), 'the image loaded from the backup');
  t.match((await b.sup.json('GET', `/addons/${slug}/info`)).body.data, { version: '1.0.0', state: 'started' });
  t.equal(await readFile(join(b.sup.dataDir, 'apps', 'data', slug, 'kept.txt'), 'utf8'), 'app bytes');
  await b.sup.json('POST', `/addons/${slug}/stop`);
});
