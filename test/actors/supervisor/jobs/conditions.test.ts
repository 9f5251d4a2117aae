// Job conditions: an update, install or restore the system is not fit for is refused before its
// job starts with the original's "'<Class.method>' blocked from execution, ..." 400; a condition
// in ignore_conditions is not checked.
import t from 'tap';
import { requireConditions, gigabytes } from '../../../../actors/supervisor/jobs/conditions.ts';
import { startTestSupervisor } from '../../../helpers/supervisor.ts';

const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
    return undefined;
  } catch (err) {
    return { status: (err as { status?: number }).status, message: (err as Error).message };
  }
};

t.test('each condition in the original\'s words; an ignored or unknown fact passes', async (t) => {
  const m = 'HomeAssistantCore.update';
  t.same(await refusal(requireConditions(m, ['healthy'], { unhealthy: () => ['docker', 'supervisor'] }, [])), { status: 400, message: `'${m}' blocked from execution, system is not healthy - docker, supervisor` });
  t.same(await refusal(requireConditions(m, ['running'], { state: () => 'freeze' }, [])), { status: 400, message: `'${m}' blocked from execution, system is not running - freeze` });
  t.same(await refusal(requireConditions(m, ['frozen'], { state: () => 'running' }, [])), { status: 400, message: `'${m}' blocked from execution, system is not frozen - running` });
  t.same(await refusal(requireConditions(m, ['supervisor_updated'], { supervisorNeedsUpdate: () => true }, [])), { status: 400, message: `'${m}' blocked from execution, supervisor needs to be updated first` });
  let told = 0;
  const low = { freeSpace: async () => ({ free: 1.25 * 1024 ** 3, min: 2 * 1024 ** 3 }), lowOnSpace: async () => void told++ };
  t.same(await refusal(requireConditions(m, ['free_space'], low, [])), { status: 400, message: `'${m}' blocked from execution, not enough free space (1.3GB) left on the device` });
  t.equal(told, 1, 'the low space is told (an issue)');
  t.equal(await refusal(requireConditions(m, ['free_space', 'healthy'], { ...low, unhealthy: () => ['docker'] }, ['free_space', 'healthy'])), undefined, 'ignored conditions are not checked');
  t.equal(await refusal(requireConditions(m, ['healthy', 'running', 'free_space', 'supervisor_updated', 'internet_host', 'internet_system'], {}, [])), undefined, 'no facts: nothing fails');
  t.equal(await refusal(requireConditions(m, ['healthy'], { unhealthy: () => [] }, [])), undefined);
  t.same(await refusal(requireConditions(m, ['architecture_supported', 'os_supported'], { unsupported: () => ['system_architecture'] }, [])), { status: 400, message: `'${m}' blocked from execution, unsupported system architecture` });
  t.same(await refusal(requireConditions(m, ['home_assistant_core_supported'], { unsupported: () => ['home_assistant_core_version'] }, [])), { status: 400, message: `'${m}' blocked from execution, unsupported Home Assistant Core version` });
  t.same(await refusal(requireConditions(m, ['os_supported'], { unsupported: () => ['os_version'] }, [])), { status: 400, message: `'${m}' blocked from execution, unsupported OS version` });
  // checked in the original's order, whatever the order asked in
  t.match(await refusal(requireConditions(m, ['supervisor_updated', 'running', 'healthy'], { state: () => 'startup', unhealthy: () => ['docker'], supervisorNeedsUpdate: () => true }, [])), { message: /system is not healthy - docker$/ });
  t.match(await refusal(requireConditions(m, ['supervisor_updated', 'running', 'healthy'], { state: () => 'startup', unhealthy: () => ['docker'], supervisorNeedsUpdate: () => true }, ['healthy'])), { message: /system is not running - startup$/ });
  const warned: string[] = [];
  await requireConditions(m, ['healthy', 'free_space'], { warn: (l) => warned.push(l) }, ['free_space', 'running']);
  t.same(warned, ['the following job conditions are ignored and will make the system unstable when they occur: free_space'], 'an ignored condition that a job asks is said');
  t.same([gigabytes(0), gigabytes(12 * 1024 ** 3), gigabytes(1.04 * 1024 ** 3)], ['0.0', '12.0', '1.0']);
});

t.test('plugins_updated updates the out-of-date plugins first; one that cannot be updated refuses the job', async (t) => {
  const m = 'AppManager.install';
  const updated: string[] = [];
  const plugin = (name: string, fails = false) => ({ name, update: async () => (fails ? Promise.reject(new Error('no image')) : void updated.push(name)) });
  t.equal(await refusal(requireConditions(m, ['plugins_updated'], { outdatedPlugins: () => [plugin('dns'), plugin('cli')] }, [])), undefined);
  t.same(updated, ['dns', 'cli'], 'both updated, and the job may go on');
  updated.length = 0;
  t.same(await refusal(requireConditions(m, ['plugins_updated'], { outdatedPlugins: () => [plugin('dns', true), plugin('cli'), plugin('audio', true)] }, [])), {
    status: 400,
    message: `'${m}' blocked from execution, was unable to update plugin(s) dns, audio and all plugins must be up to date first`,
  });
  t.same(updated, ['cli'], 'the others were updated all the same');
  updated.length = 0;
  t.equal(await refusal(requireConditions(m, ['plugins_updated'], { outdatedPlugins: () => [plugin('dns', true)] }, ['plugins_updated'])), undefined);
  t.same(updated, [], 'ignored: nothing updated');
});

t.test('over the API: too little free space refuses a core update, an app install and a restore; ignoring free_space lets them through', async (t) => {
  // no disk is this big: every free_space condition fails
  const s = await startTestSupervisor(t, { freeSpaceMinBytes: 2 ** 60 });
  const blocked = (method: string) => new RegExp(`^'${method.replace('.', '\\.')}' blocked from execution, not enough free space \\(\\d+\\.\\dGB\\) left on the device$`);
  const seq = s.supervisor.log.lastSeq();

  const update = await s.json('POST', '/core/update', { body: { version: '2099.1.1' } });
  t.equal(update.status, 400);
  t.match(update.body, { result: 'error', message: blocked('HomeAssistantCore.update') });
  const install = await s.json('POST', '/store/addons/core_hearth_echo/install');
  t.equal(install.status, 400);
  t.match(install.body.message, blocked('AppManager.install'));
  const issues = (await s.json('GET', '/resolution/info')).body.data.issues;
  t.ok(issues.some((i: any) => i.type === 'free_space' && i.context === 'system'), 'the free_space issue is raised');
  // (the supervisor's own background jobs may run meanwhile)
  const jobs: string[] = [];
  for await (const r of s.supervisor.log.read({ gt: seq })) if (r.type === 'job_created') jobs.push((r.data as { name: string }).name);
  t.same(jobs.filter((name) => name === 'home_assistant_core_update' || name === 'app_manager_install'), [], `no update or install job was started (${jobs.join(', ')})`);

  // a backup, made with the condition ignored, cannot be restored once it is not
  t.equal((await s.json('POST', '/jobs/options', { body: { ignore_conditions: ['free_space'] } })).status, 200);
  const made = await s.json('POST', '/backups/new/partial', { body: { name: 'conditions', folders: ['share'] } });
  t.equal(made.status, 200, JSON.stringify(made.body));
  t.equal((await s.json('POST', '/jobs/reset')).status, 200);
  const restore = await s.json('POST', `/backups/${made.body.data.slug}/restore/partial`, { body: { folders: ['share'] } });
  t.equal(restore.status, 400);
  t.match(restore.body.message, blocked('BackupManager.do_restore_partial'));
  t.notOk('job_id' in restore.body, 'refused before a job');

  t.equal((await s.json('POST', '/jobs/options', { body: { ignore_conditions: ['free_space'] } })).status, 200);
  const next = await s.json('POST', '/core/update', { body: { version: '2099.1.1' } });
  t.same(next.body.error_key, 'homeassistant_update_image_error', 'past the condition: the next refusal is the update\'s own');
  const restored = await s.json('POST', `/backups/${made.body.data.slug}/restore/partial`, { body: { folders: ['share'] } });
  t.equal(restored.status, 200, JSON.stringify(restored.body));
});
