// Backups of a running Hearth core taken through the supervisor's API, downloaded, uploaded to a
// supervisor with a FRESH data directory and restored there: the core comes back with the same
// states, users (the old password logs in), refresh tokens and history; a wrong password changes
// nothing; a backup taken during a write burst restores to one seq, none torn.
import t from 'tap';
import type { Test } from 'tap';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BackupReader } from '../../../../../actors/supervisor/backups/archive/reader.ts';
import { login, postForm, CLIENT_ID } from '../../../auth/harness.ts';
import { onboard, api } from '../../../../helpers/hearth.ts';
import { OWNER, supervisorWithCore, jobDone, newBackup, download, upload, tree, coreView, populate } from '../../../../helpers/backups.ts';
import { openEventLog } from '../../../../../store/log.ts';
import type { EventLog } from '../../../../../store/types.ts';

async function restoreAndCompare(t: Test, password: string | null) {
  const a = await supervisorWithCore(t, { startCore: true });
  const tokens = await populate(a.core().base);
  await mkdir(join(a.sup.dataDir, 'share', 'deep'), { recursive: true });
  await writeFile(join(a.sup.dataDir, 'share', 'deep', 'file.txt'), 'shared bytes');
  const shareA = await tree(join(a.sup.dataDir, 'share'));
  const entities = ['sensor.kitchen', 'light.hall'];
  const slug = await newBackup(t, a.sup, { name: `restore ${password ? 'encrypted' : 'plain'}`, ...(password ? { password } : {}) });
  const before = await coreView(a.core().base, tokens.access_token, entities);
  const bytes = await download(a.sup, slug);
  // the source goes away: the restored core must not lean on it
  await a.core().stop();

  const b = await supervisorWithCore(t, { startCore: false });
  t.equal(await upload(b.sup, bytes, 'uploaded.tar'), slug, 'the upload names the same backup');
  await mkdir(join(b.sup.dataDir, 'share'), { recursive: true });
  await writeFile(join(b.sup.dataDir, 'share', 'stale.txt'), 'goes away');
  if (password) {
    const coreFiles = await tree(join(b.sup.dataDir, 'core'));
    const seq = b.sup.supervisor.log.lastSeq();
    const wrong = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: { password: 'not it' } });
    t.same([wrong.status, wrong.body.message], [400, `Invalid password for backup ${slug}`], 'a wrong password is refused');
    const none = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: {} });
    t.same([none.status, none.body.message], [400, `Invalid password for backup ${slug}`], 'no password for a protected backup');
    t.same(await tree(join(b.sup.dataDir, 'core')), coreFiles, 'the core data as it was');
    // the fresh supervisor's own background work (its first checks) may append; a refused restore may not
    // (the upload's own job may finish meanwhile: only jobs begun after the refusal count)
    // (and another job, the upload's or a check of the supervisor's own whose records land late on a loaded box, is not the restore's)
    const since: string[] = [];
    const earlier = new Set<string>();
    const foreignJobs = new Set<string>();
    for await (const r of b.sup.supervisor.log.read()) {
      if (r.seq <= seq) earlier.add(r.stream);
      else if (r.type === 'job_created' && !/restore/.test(String((r.data as { name?: string }).name))) foreignJobs.add(r.stream);
      if (r.seq > seq && !earlier.has(r.stream) && !foreignJobs.has(r.stream)) since.push(`${r.stream} ${r.type}`);
    }
    t.same(since.filter((line) => /^(job\/|core\/|supervisor\/app\/|supervisor\/mount)/.test(line)), [], `nothing recorded by the restore (${since.join(', ')})`);
    t.same(b.calls, [], 'the core was not touched');
  }
  const restored = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: password ? { password } : {} });
  t.equal(restored.status, 200, `restored: ${JSON.stringify(restored.body).slice(0, 300)}`);
  const job = await jobDone(b.sup, restored.body.data.job_id);
  t.equal(job.name, 'backup_manager_full_restore');
  t.same(job.errors, []);
  t.same(b.calls, ['stop', 'start'], 'the core stopped for the restore and started on the restored data');

  const refreshed = await postForm(b.core().base, '/auth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT_ID });
  t.equal(refreshed.status, 200, 'the refresh token of before the backup');
  t.equal((await login(b.core().base, OWNER.username, OWNER.password)).json.type, 'create_entry', 'the old password logs in');
  const after = await coreView(b.core().base, refreshed.json.access_token, entities);
  t.same(after.states, before.states, 'the same states');
  t.same(after.history, before.history, 'the same history');
  t.same(await tree(join(b.sup.dataDir, 'share')), shareA, 'the share folder emptied first, then as backed up');
  return { a, b, slug };
}

t.test('a full backup, downloaded and uploaded to a fresh supervisor, restores the core', async (t) => {
  await restoreAndCompare(t, null);
});

t.test('an encrypted full backup: a wrong password changes nothing, the right one restores', async (t) => {
  await restoreAndCompare(t, 'sesame open');
});

t.test('partial restore of the core from a partial backup; refusals before anything is touched', async (t) => {
  const a = await supervisorWithCore(t, { startCore: true });
  const tokens = await populate(a.core().base);
  const slug = await newBackup(t, a.sup, { name: 'core only', homeassistant: true, password: 'pw' }, 'partial');
  const before = await coreView(a.core().base, tokens.access_token, ['sensor.kitchen']);
  const bytes = await download(a.sup, slug);
  await a.core().stop();

  const b = await supervisorWithCore(t, { startCore: false });
  await upload(b.sup, bytes, 'partial.tar');
  const full = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: { password: 'pw' } });
  t.same([full.status, full.body.message], [400, `${slug} is only a partial backup!`]);
  const unknown = await b.sup.json('POST', '/backups/00000000/restore/partial', { body: { homeassistant: true } });
  t.same([unknown.status, unknown.body.message], [404, 'Backup does not exist']);
  const extra = await b.sup.json('POST', `/backups/${slug}/restore/partial`, { body: { password: 'pw', apps: [] } });
  t.equal(extra.status, 400, 'v1 names apps `addons`');
  t.match(extra.body.message, /extra keys not allowed @ data\['apps'\]/);
  const elsewhere = await b.sup.json('POST', `/backups/${slug}/restore/partial`, { body: { password: 'pw', homeassistant: true, location: '.cloud_backup' } });
  t.same([elsewhere.status, elsewhere.body], [403, '403: Forbidden'], 'the core\'s own folder is for the core alone');
  const release = b.sup.supervisor.deps.backups!.claim('backup_manager_full_backup');
  const busy = await b.sup.json('POST', `/backups/${slug}/restore/partial`, { body: { password: 'pw', homeassistant: true } });
  t.same([busy.status, busy.body.message], [400, 'Another job is running for job group backup_manager'], 'one backup or restore at a time');
  release();
  t.same(b.calls, []);

  const restored = await b.sup.json('POST', `/backups/${slug}/restore/partial`, { body: { password: 'pw', homeassistant: true, background: true } });
  t.equal(restored.status, 200);
  t.ok(restored.body.data.job_id, 'background answers the job at once');
  const job = await jobDone(b.sup, restored.body.data.job_id);
  t.equal(job.name, 'backup_manager_partial_restore');
  t.same(job.errors, []);
  const refreshed = await postForm(b.core().base, '/auth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT_ID });
  t.equal(refreshed.status, 200);
  const after = await coreView(b.core().base, refreshed.json.access_token, ['sensor.kitchen']);
  t.same(after, before, 'states and history as backed up');
});

/** Each entity's state after the records up to `seq`. */
async function statesAt(log: EventLog, seq: number): Promise<Map<string, string | null>> {
  const out = new Map<string, string | null>();
  for await (const r of log.read({ lte: seq, rebuild: false })) {
    if (!r.stream.startsWith('entity/') || (r.type !== 'state_changed' && r.type !== 'state_reported')) continue;
    out.set(r.data.entity_id, r.data.new_state?.state ?? null);
  }
  return out;
}

t.test('a backup taken during a write burst restores to the export\'s seq, none torn', async (t) => {
  const a = await supervisorWithCore(t, { startCore: true });
  const tokens = await onboard(a.core().base, OWNER);
  const clients = 3;
  let stop = false;
  const loops = Array.from({ length: clients }, async (_, c) => {
    const post = api(a.core().base, tokens.access_token);
    let n = 0;
    while (!stop) await post('POST', `/api/states/sensor.burst_${c}`, { state: String(++n) });
    return n;
  });
  await new Promise((r) => setTimeout(r, 300));
  const slug = await newBackup(t, a.sup, { name: 'burst' });
  await new Promise((r) => setTimeout(r, 200));
  stop = true;
  const written = await Promise.all(loops);
  const bytes = await download(a.sup, slug);
  await a.core().stop();

  const b = await supervisorWithCore(t, { startCore: false });
  await upload(b.sup, bytes, 'burst.tar');
  const restored = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: {} });
  t.equal(restored.status, 200, JSON.stringify(restored.body).slice(0, 300));
  const seq = Number(/full export at seq (\d+)/.exec(b.core().process.output())?.[1]);
  t.ok(seq > 0, 'the restored core rebuilt its log from the export');

  const log = await openEventLog({ path: join(a.sup.dataDir, 'core', 'log'), commit: 'fast' });
  t.teardown(() => log.close());
  t.ok(log.lastSeq() > seq, 'the source went on writing after the export');
  const expected = await statesAt(log, seq);
  const refreshed = await postForm(b.core().base, '/auth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT_ID });
  const states = (await api(b.core().base, refreshed.json.access_token)('GET', '/api/states')).json as any[];
  for (let c = 0; c < clients; c++) {
    const id = `sensor.burst_${c}`;
    const got = states.find((s) => s.entity_id === id)?.state;
    t.equal(got, expected.get(id), `${id} as at seq ${seq}`);
    t.ok(Number(got) < written[c], `${id}: not the burst's last write`);
  }
});

t.test('a restore that fails part way leaves the previous state in place and names its job', async (t) => {
  const a = await supervisorWithCore(t, { startCore: true });
  await populate(a.core().base);
  await mkdir(join(a.sup.dataDir, 'share'), { recursive: true });
  await writeFile(join(a.sup.dataDir, 'share', 'from-backup.txt'), 'backed up');
  const slug = await newBackup(t, a.sup, { name: 'damaged' });
  const path = join(a.sup.dataDir, 'backup', `${slug}.tar`);
  const reader = await BackupReader.open(path);
  const core = reader.member('homeassistant')!;
  const bytes = await download(a.sup, slug);
  // the gzip trailer's CRC of the core's archive: its data only fails once read to the end
  bytes[core.offset + core.size - 6] ^= 0xff;
  await a.core().stop();

  const b = await supervisorWithCore(t, { startCore: true });
  const tokensB = await onboard(b.core().base, { name: 'Other', username: 'other', password: 'another password' });
  await mkdir(join(b.sup.dataDir, 'share'), { recursive: true });
  await writeFile(join(b.sup.dataDir, 'share', 'mine.txt'), 'not in the backup');
  await upload(b.sup, bytes, 'damaged.tar');
  const share = await tree(join(b.sup.dataDir, 'share'));
  const coreFiles = async () => Object.fromEntries(Object.entries(await tree(join(b.sup.dataDir, 'core'))).filter(([name]) => !name.startsWith('log') && !name.endsWith('.log')));
  const coreBefore = await coreFiles();

  const failed = await b.sup.json('POST', `/backups/${slug}/restore/full`, { body: {} });
  t.equal(failed.status, 400);
  const jobId = failed.body.job_id;
  t.match(jobId, /^[0-9a-f]{32}$/, 'the error names the job');
  t.equal(failed.body.message, `An error occurred during restore of ${slug}, check job '${jobId}' or supervisor logs for details`);
  const job = await jobDone(b.sup, jobId);
  t.equal(job.errors.length, 1, 'the cause is on the job');
  t.same(b.calls, [], 'the core was never stopped');
  t.same(await tree(join(b.sup.dataDir, 'share')), share, 'the share folder as it was');
  t.same(await coreFiles(), coreBefore, 'the core data as it was');
  t.same((await readdir(b.sup.dataDir)).filter((name) => name.includes('.restore-')), [], 'no staging left behind');
  const still = await api(b.core().base, tokensB.access_token)('GET', '/api/states');
  t.equal(still.status, 200, 'the core still runs with its own users');
  t.equal(b.sup.supervisor.deps.backups!.running(), null, 'the backup manager is free again');
});
