// An app's backup mode on the real engine (supervisor-wire §5.4, §5.8): a hot app runs its
// backup_pre before its part is written and its backup_post after; a cold app is stopped for its
// part and started again; a pre command that fails leaves that app out, its error on the job,
// and the backup still made. A freeze holds the apps still the same way until the thaw.
import t from 'tap';
import { cp, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { appPrefix, appRecords, docker } from '../../../helpers/apps.ts';
import { supervisorDataDir, startTestSupervisor } from '../../../helpers/supervisor.ts';
import { jobDone, download, tree } from '../../../helpers/backups.ts';
import { BackupReader } from '../../../../actors/supervisor/backups/archive/reader.ts';

const BUILTIN = fileURLToPath(new URL('../../../../actors/supervisor/apps/builtin/', import.meta.url));
const exists = (path: string) => stat(path).then(() => true, () => false);

/** A local app of this test alone, from the stdin logger (a shell waiting on its stdin), with `extra` config lines. */
async function localApp(dataDir: string, name: string, extra: string): Promise<string> {
  const own = `${name.toLowerCase().replace(/ /g, '_')}_${process.pid}`;
  const appDir = join(dataDir, 'apps', 'local', own);
  await cp(join(BUILTIN, 'hearth_stdin_logger'), appDir, { recursive: true });
  const config = await readFile(join(appDir, 'config.yaml'), 'utf8');
  await writeFile(join(appDir, 'config.yaml'), `${config.replace('slug: hearth_stdin_logger', `slug: ${own}`).replace('name: Stdin logger', `name: ${name}`)}${extra}\n`);
  return `local_${own}`;
}

t.test('hot, cold and failing apps in one backup; then a freeze and a thaw', async (t) => {
  const dataDir = await supervisorDataDir();
  const hot = await localApp(dataDir, 'Hot app', [
    // no shell runs these: the quotes are split as a shell would, the rest is plain argv
    `backup_pre: "touch /data/pre-ran"`,
    `backup_post: "sh -c 'echo post \\"ran\\" > /data/post-ran'"`,
    // the legacy name of backup_exclude
    'snapshot_exclude: ["*.tmp"]',
  ].join('\n'));
  const cold = await localApp(dataDir, 'Cold app', 'backup: cold\nbackup_pre: "touch /data/never"');
  const failing = await localApp(dataDir, 'Failing app', `backup_pre: "sh -c 'echo no >&2; exit 3'"\nbackup_post: "touch /data/post-ran"`);
  const unquoted = await localApp(dataDir, 'Unquoted app', `backup_pre: "sh -c 'oops"`);
  const sup = await startTestSupervisor(t, { dataDir, backupsCheck: false, bootApps: false, appContainerPrefix: appPrefix(t, 'bkm') });
  for (const slug of [hot, cold, failing, unquoted]) {
    t.same((await sup.json('POST', `/store/addons/${slug}/install`)).body, { result: 'ok', data: {} }, `${slug} installed`);
    const ref = `${sup.supervisor.deps.apps!.get(slug)!.user.image}:1.0.0`;
    t.teardown(() => docker('rmi', '-f', ref).catch(() => ''));
    t.equal((await sup.json('POST', `/addons/${slug}/start`)).status, 200, `${slug} started`);
  }
  const dataOf = (slug: string) => join(sup.dataDir, 'apps', 'data', slug);
  await writeFile(join(dataOf(hot), 'scratch.tmp'), 'left out');
  await writeFile(join(dataOf(cold), 'kept.txt'), 'cold bytes');

  const res = await sup.json('POST', '/backups/new/partial', { body: { name: 'modes', addons: [hot, cold, failing, unquoted] } });
  t.equal(res.status, 200, `the backup is made although one app's pre command failed: ${JSON.stringify(res.body).slice(0, 300)}`);
  const job = await jobDone(sup, res.body.data.job_id);
  t.same(job.errors, [], 'the backup job itself succeeded');
  const store = job.child_jobs.find((c: any) => c.name === 'backup_store_apps');
  t.match(store.errors, [{
    type: 'AppPrePostBackupCommandReturnedError',
    error_key: 'app_pre_post_backup_command_returned_error',
    message: /^Pre-\/Post backup command for app Failing app returned error code: 3\. Please report this to the app developer\./,
    extra_fields: { app: 'Failing app', exit_code: 3, debug_logging_command: 'ha supervisor options --logging debug' },
    stage: null,
  }, {
    type: 'BackupError',
    message: "Failed running pre-/post backup command sh -c 'oops: No closing quotation",
    error_key: null,
  }], "the failing apps' errors are kept on the job that stores the apps");
  t.same(store.child_jobs.map((c: any) => [c.reference, c.errors.map((e: any) => e.type)]), [[hot, []], [cold, []], [failing, ['AppPrePostBackupCommandReturnedError']], [unquoted, ['BackupError']]], 'and each on its own backup_app_save job');
  const steps = (slug: string) => store.child_jobs.find((c: any) => c.reference === slug).child_jobs.map((c: any) => [c.name, c.errors.length]);
  t.same(steps(hot), [['app_begin_backup', 0], ['app_end_backup', 0]], "an app's begin and end of backup are jobs under its backup_app_save");
  t.same(steps(failing), [['app_begin_backup', 1]], 'a failed begin has no end');

  const file = join(await mkdtemp(join(tmpdir(), 'hearth-modes-')), 'b.tar');
  t.teardown(() => rm(file, { force: true }));
  await writeFile(file, await download(sup, res.body.data.slug));
  const reader = await BackupReader.open(file);
  t.same(reader.meta.addons.map((a: any) => a.slug), [hot, cold], 'the failing apps are left out of the backup');
  const out = await mkdtemp(join(tmpdir(), 'hearth-modes-out-'));
  t.teardown(() => rm(out, { recursive: true, force: true }));
  for (const [slug, dir] of [[hot, 'hot'], [cold, 'cold']]) {
    await mkdir(join(out, dir));
    await reader.extract(slug, join(out, dir));
  }
  const hotFiles = Object.keys(await tree(join(out, 'hot', 'data')));
  t.ok(hotFiles.includes('pre-ran'), 'the pre command ran before the part was written');
  t.notOk(hotFiles.includes('post-ran'), 'the post command after it');
  t.notOk(hotFiles.includes('scratch.tmp'), 'snapshot_exclude (the legacy backup_exclude) applies');
  t.equal(await readFile(join(dataOf(hot), 'post-ran'), 'utf8'), 'post ran\n', 'the post command ran in the container, quotes split as a shell would');
  t.same(JSON.parse(await readFile(join(out, 'cold', 'addon.json'), 'utf8')).state, 'started', 'the cold app is kept as started');
  t.equal(await readFile(join(out, 'cold', 'data', 'kept.txt'), 'utf8'), 'cold bytes');
  t.notOk(await exists(join(dataOf(cold), 'never')), 'a cold app runs no pre command');
  t.notOk(await exists(join(dataOf(failing), 'post-ran')), 'no post command after a failed pre command');

  const coldRecords = (await appRecords(sup.supervisor.log, cold)).map((r) => r.type);
  t.same(coldRecords.slice(-3), ['app_started', 'app_stopped', 'app_started'], 'the cold app was stopped for its part and started again');
  for (const slug of [hot, cold, failing, unquoted]) t.equal((await sup.json('GET', `/addons/${slug}/info`)).body.data.state, 'started', `${slug} runs after the backup`);

  // a freeze holds them still the same way, until the thaw
  await rm(join(dataOf(hot), 'pre-ran'));
  await rm(join(dataOf(hot), 'post-ran'));
  const frozen = await sup.json('POST', '/backups/freeze', { body: {} });
  t.equal(frozen.status, 200, JSON.stringify(frozen.body));
  t.ok(await exists(join(dataOf(hot), 'pre-ran')), 'frozen: the hot app ran its pre command');
  t.equal((await sup.json('GET', `/addons/${cold}/info`)).body.data.state, 'stopped', 'frozen: the cold app is stopped');
  t.notOk(await exists(join(dataOf(hot), 'post-ran')), 'and nothing thawed yet');
  t.equal((await sup.json('POST', '/backups/thaw')).status, 200);
  t.ok(await exists(join(dataOf(hot), 'post-ran')), 'thawed: the hot app ran its post command');
  t.equal((await sup.json('GET', `/addons/${cold}/info`)).body.data.state, 'started', 'thawed: the cold app runs again');
  const jobs = (await sup.json('GET', '/jobs/info')).body.data.jobs;
  const freezeJob = jobs.find((j: any) => j.name === 'backup_manager_freeze_all');
  t.same(freezeJob.child_jobs.map((c: any) => [c.name, c.reference]), [hot, cold, failing, unquoted].map((slug) => ['app_begin_backup', slug]), 'the freeze holds each app under its own job');
  t.same(jobs.find((j: any) => j.name === 'backup_manager_thaw_all').child_jobs.map((c: any) => [c.name, c.reference]), [['app_end_backup', hot], ['app_end_backup', cold]], 'the thaw lets go of those it held');
  t.match(freezeJob.errors, [{ error_key: 'app_pre_post_backup_command_returned_error', extra_fields: { app: 'Failing app', exit_code: 3 } }, { message: /No closing quotation/ }], "the failing app's pre command is an error on the freeze job, which still froze the rest");
  for (const slug of [hot, cold, failing, unquoted]) await sup.json('POST', `/addons/${slug}/stop`);
});
