// Full and partial backups of a supervisor with a running core process (its data taken through
// backup/start and backup/end) and the built-in echo app installed on the real engine (its
// locally built image saved in the backup): plain, compressed and encrypted, each read back by
// BackupReader and Python's tarfile.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSupervisor, supervisorDataDir } from '../../../helpers/supervisor.ts';
import { startSupervisedCore, onboard } from '../../../helpers/supervised-core.ts';
import { appPrefix } from '../../../helpers/apps.ts';
import { freePort } from '../../../helpers/ports.ts';
import { BackupReader } from '../../../../actors/supervisor/backups/archive/reader.ts';

const ECHO = 'core_hearth_echo';

function pythonMembers(path: string): string[] {
  return execFileSync('python3', ['-c', 'import sys,tarfile; print("\\n".join(m.name for m in tarfile.open(sys.argv[1]).getmembers()))', path]).toString().trim().split('\n');
}

async function names(reader: BackupReader, part: string): Promise<string[]> {
  return (await reader.entries(part)).map((e) => e.name.replace(/^\.\//, ''));
}

t.test('full and partial backups of a running core and an installed app', async (t) => {
  const dataDir = await supervisorDataDir();
  const corePort = await freePort();
  const prefix = appPrefix(t, 'backup');
  const sup = await startTestSupervisor(t, { dataDir, coreUrl: `http://127.0.0.1:${corePort}`, appContainerPrefix: prefix });
  t.same((await sup.json('POST', `/store/addons/${ECHO}/install`)).body, { result: 'ok', data: {} });
  await writeFile(join(dataDir, 'apps', 'data', ECHO, 'state.txt'), 'echo state');
  await mkdir(join(dataDir, 'share'), { recursive: true });
  await writeFile(join(dataDir, 'share', 'note.txt'), 'shared');
  const core = await startSupervisedCore(t, sup, corePort, join(dataDir, 'core'));
  await onboard(core.base);

  for (const variant of [
    { name: 'plain', body: { compressed: false }, suffix: '.tar' },
    { name: 'compressed', body: {}, suffix: '.tar.gz' },
    { name: 'encrypted', body: { password: 'sekrit' }, suffix: '.tar.gz' },
  ]) {
    const res = await sup.json('POST', '/backups/new/full', { body: { name: `Full ${variant.name}`, ...variant.body } });
    t.equal(res.status, 200, `${variant.name}: ${JSON.stringify(res.body)}`);
    const path = join(dataDir, 'backup', `${res.body.data.slug}.tar`);
    const members = pythonMembers(path);
    t.same(members, [`homeassistant${variant.suffix}`, `${ECHO}${variant.suffix}`, `share${variant.suffix}`, './backup.json'], `${variant.name}: tarfile lists Core, the app, the folder that exists, metadata last`);
    const reader = await BackupReader.open(path, variant.name === 'encrypted' ? { password: 'sekrit' } : {});
    t.match(reader.meta, { type: 'full', name: `Full ${variant.name}`, protected: variant.name === 'encrypted', homeassistant: { exclude_database: false }, addons: [{ slug: ECHO, name: 'Echo', version: '1.0.0' }], folders: ['share'] });
    const coreFiles = await names(reader, 'homeassistant');
    t.ok(coreFiles.includes('homeassistant.json'), 'the supervisor\'s core settings');
    t.ok(coreFiles.some((n) => /^data\/backup\/log-\d+\.hlog$/.test(n)), `the core's log export: ${coreFiles.filter((n) => n.startsWith('data/backup')).join(',')}`);
    t.notOk(coreFiles.some((n) => /^data\/log(\/|$)/.test(n)), 'never the live log');
    const appFiles = await names(reader, ECHO);
    t.ok(appFiles.includes('addon.json') && appFiles.includes('image.tar') && appFiles.includes('data/state.txt'), `the app: ${appFiles.join(',')}`);
    const job = (await sup.json('GET', `/jobs/${res.body.data.job_id}`)).body.data;
    t.match(job, { name: 'backup_manager_full_backup', done: true, errors: [] });
    t.same(job.child_jobs.map((c: any) => c.name), ['backup_store_homeassistant', 'backup_store_apps', 'backup_store_folders']);
  }

  // an app's archive restores its addon.json as the original writes it
  const partial = await sup.json('POST', '/backups/new/partial', { body: { name: 'apps only', addons: 'ALL', background: true } });
  t.match(partial.body.data, { job_id: /^[0-9a-f]{32}$/ });
  let job: any;
  for (let i = 0; i < 200; i++) {
    job = (await sup.json('GET', `/jobs/${partial.body.data.job_id}`)).body.data;
    if (job.done) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.match(job, { name: 'backup_manager_partial_backup', done: true, errors: [] });
  const listed = (await sup.json('GET', '/backups')).body.data.backups;
  const entry = listed.find((b: any) => b.slug === job.reference);
  t.same(entry.content, { homeassistant: false, core: false, addons: [ECHO], folders: [] });
  const reader = await BackupReader.open(join(dataDir, 'backup', `${job.reference}.tar`));
  const out = await mkdtemp(join(tmpdir(), 'hearth-backup-app-'));
  await reader.extract(ECHO, out);
  const addonJson = JSON.parse(await readFile(join(out, 'addon.json'), 'utf8'));
  t.match(addonJson, { version: '1.0.0', state: 'stopped', system: { slug: 'hearth_echo', repository: 'core' }, user: { version: '1.0.0' } });
  t.equal(await readFile(join(out, 'data', 'state.txt'), 'utf8'), 'echo state');
  t.ok((await readdir(out)).includes('image.tar'));

  // the core still answers and may be backed up again (backup/end was sent)
  t.equal((await sup.json('POST', '/backups/new/partial', { body: { homeassistant: true } })).status, 200);
  // core_exclude_database: the core's flag recorded
  const noDb = await sup.json('POST', '/backups/new/partial', { body: { homeassistant: true, homeassistant_exclude_database: true } });
  t.equal((await sup.json('GET', `/backups/${noDb.body.data.slug}/info`)).body.data.homeassistant_exclude_database, true);
});
