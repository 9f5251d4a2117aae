// The one version order as a supervisor's users meet it: a beta user is told the release is
// out, and a backup made on a beta supervisor restores on the release (a pre-release is older).
import t from 'tap';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestSupervisor } from '../../helpers/supervisor.ts';
import { craftBackup, jobDone } from '../../helpers/backups.ts';
import { CORE_VERSION, SUPERVISOR_VERSION } from '../../../actors/version.ts';
import { updateAvailable } from '../../../actors/supervisor/apps/info.ts';
import type { InstalledApp } from '../../../actors/supervisor/apps/types.ts';
import type { RepositoryApp } from '../../../actors/supervisor/apps/repository.ts';

const ctx = { id: 'test', parent_id: null, user_id: null };
const RELEASE = '2026.11.0';
const BETA = '2026.11.0b1';

t.test('the release is the version this Hearth ships', async (t) => {
  t.same([CORE_VERSION, SUPERVISOR_VERSION], [RELEASE, RELEASE], 'the cases below are written against it');
});

t.test('a core on the beta is told the release is out', async (t) => {
  const sup = await startTestSupervisor(t, { bootApps: false });
  await sup.supervisor.settings.section('core', { version: null as string | null, boot: true }).set({ version: BETA, boot: false }, ctx);
  const info = (await sup.json('GET', '/core/info')).body.data;
  t.same([info.version, info.version_latest, info.update_available], [BETA, RELEASE, true], '/core/info');
  const updates = (await sup.json('GET', '/available_updates')).body.data.available_updates;
  t.match(updates, [{ update_type: 'core', version_latest: RELEASE }], '/available_updates agrees');

  await sup.supervisor.settings.section('core', { version: null as string | null, boot: true }).set({ version: '2026.12.0b1', boot: false }, ctx);
  t.equal((await sup.json('GET', '/core/info')).body.data.update_available, false, 'a beta of a later release is newer');
});

t.test('a backup made on a beta supervisor restores on the release; one from a later supervisor does not', async (t) => {
  const sup = await startTestSupervisor(t, { bootApps: false });
  const meta = (slug: string, supervisorVersion: string) => ({
    slug, version: 2, name: `from ${supervisorVersion}`, date: '2026-11-28T05:00:00+00:00', type: 'partial', supervisor_version: supervisorVersion,
    extra: {}, compressed: true, protected: false, homeassistant: null, folders: ['share'], addons: [], repositories: [],
  });
  await mkdir(join(sup.dataDir, 'backup'), { recursive: true });
  craftBackup(join(sup.dataDir, 'backup', 'beta0001.tar'), meta('beta0001', BETA), { 'share.tar.gz': { 'note.txt': 'from the beta' } });
  craftBackup(join(sup.dataDir, 'backup', 'next0001.tar'), meta('next0001', '2026.12.0'), { 'share.tar.gz': { 'note.txt': 'from the future' } });
  t.equal((await sup.json('POST', '/backups/reload')).status, 200);

  const beta = await sup.json('POST', '/backups/beta0001/restore/partial', { body: { folders: ['share'] } });
  t.equal(beta.status, 200, `restored: ${JSON.stringify(beta.body)}`);
  const job = await jobDone(sup, beta.body.data.job_id);
  t.same(job.errors, []);
  t.equal(await readFile(join(sup.dataDir, 'share', 'note.txt'), 'utf8'), 'from the beta');

  const next = await sup.json('POST', '/backups/next0001/restore/partial', { body: { folders: ['share'] } });
  t.same([next.status, next.body.message], [400, `Backup was made on supervisor version 2026.12.0, can't restore on ${RELEASE}. Must update supervisor first.`]);
  t.equal(await readFile(join(sup.dataDir, 'share', 'note.txt'), 'utf8'), 'from the beta', 'nothing of it restored');
});

t.test("an app's update is any other version in its store, as the original's need_update", async (t) => {
  const installed = (version: string) => ({ user: { version } }) as unknown as InstalledApp;
  const inStore = (version: string) => ({ config: { version } }) as unknown as RepositoryApp;
  t.equal(updateAvailable(installed('1.0.0'), inStore('1.0.1')), true);
  t.equal(updateAvailable(installed('1.0.0-beta.1'), inStore('1.0.0')), true);
  t.equal(updateAvailable(installed('1.0.1'), inStore('1.0.0')), true, 'a store that went back offers it too');
  t.equal(updateAvailable(installed('1.0.0'), inStore('1.0.0')), false);
  t.equal(updateAvailable(installed('1.0.0'), null), false, 'no longer in any store');
});
