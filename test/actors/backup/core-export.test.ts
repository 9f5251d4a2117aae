// The core's data taken for a backup while Hearth runs (backup/start, backup/end) and a core
// started on the copy: a write burst during the export restores to one seq, no torn log.
import t from 'tap';
import type { Test } from 'tap';
import { cp, mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { startTestHearth, onboard, api, type TestHearth } from '../../helpers/hearth.ts';
import { authedClient } from '../../helpers/ws.ts';
import { login, postForm, CLIENT_ID } from '../auth/harness.ts';
import { startHearth } from '../../../bin/instance.ts';
import { CORE_BACKUP_EXCLUDE, CORE_EXPORT_DIR } from '../../../store/backup-layout.ts';
import { listExports, readManifest, type ExportManifest } from '../../../store/log-export.ts';
import type { EventLog } from '../../../store/types.ts';
import { recordsWhere } from '../../helpers/log-records.ts';

const OWNER = { name: 'Owner', username: 'owner', password: 'correct horse battery' };
const CLIENTS = 4;

/** The globs as an archiver applies them to paths relative to the data directory. */
function excluded(path: string): boolean {
  return CORE_BACKUP_EXCLUDE.some((glob) => {
    const re = glob
      .split('**')
      .map((part) => part.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*'))
      .join('.*');
    return new RegExp(`^${re}$`).test(path);
  });
}

/** What a backup archiver packs of a running core: its data directory without the excluded paths. */
async function archiveCopy(dataDir: string): Promise<string> {
  const target = await mkdtemp(join(tmpdir(), 'hearth-restored-'));
  await cp(dataDir, target, {
    recursive: true,
    filter: (src) => {
      const rel = relative(dataDir, src).split(sep).join('/');
      return rel === '' || !excluded(rel);
    },
  });
  return target;
}

/** POSTs states from several clients until told to stop; resolves to the count written. */
function burst(base: string, token: string) {
  let stop = false;
  const post = api(base, token);
  const loops = Array.from({ length: CLIENTS }, async (_, c) => {
    let n = 0;
    while (!stop) {
      const r = await post('POST', `/api/states/sensor.burst_${c}`, { state: String(++n), attributes: { client: c } });
      if (r.status !== 200 && r.status !== 201) throw new Error(`POST failed: ${r.status} ${r.text}`);
    }
    return n;
  });
  return { stop: async () => ((stop = true), Promise.all(loops)) };
}

/** Each entity's state (or its removal) after the records up to `seq`. */
async function statesAt(log: EventLog, seq: number): Promise<Map<string, { state: string; attributes: unknown } | null>> {
  const out = new Map<string, { state: string; attributes: unknown } | null>();
  for await (const r of log.read({ lte: seq, rebuild: false })) {
    if (!r.stream.startsWith('entity/') || r.type !== 'state_changed' && r.type !== 'state_reported') continue;
    const s = r.data.new_state;
    out.set(r.data.entity_id, s ? { state: s.state, attributes: s.attributes } : null);
  }
  return out;
}

const records = (log: EventLog, lte: number) => recordsWhere(log, undefined, { lte });

/** Starts a core with a burst going, runs backup/start meanwhile, copies the data as an archiver would. */
async function backupDuringBurst(t: Test, excludeDatabase: boolean) {
  const a: TestHearth = await startTestHearth(t);
  const tokens = await onboard(a.base, OWNER);
  const owner = api(a.base, tokens.access_token);
  for (let i = 0; i < 5; i++) await owner('POST', '/api/states/sensor.before', { state: `b${i}` });
  const ws = await authedClient(a.base, tokens.access_token);
  t.teardown(() => ws.ws.close());
  const writes = burst(a.base, tokens.access_token);
  // let the burst get going, so records land before and after the export's seq
  await new Promise((r) => setTimeout(r, 300));
  const seqAtStart = a.hearth.log.lastSeq();
  ws.send({ id: 1, type: 'backup/start', ...(excludeDatabase ? { exclude_database: true } : {}) });
  const started = await ws.until((m) => m.id === 1, 30_000);
  t.same(started, { id: 1, type: 'result', success: true, result: null }, 'backup/start answers once the export is written');
  const [found] = await listExports(join(a.dataDir, CORE_EXPORT_DIR));
  const manifest: ExportManifest = await readManifest(found.manifest);
  const copy = await archiveCopy(a.dataDir);
  await new Promise((r) => setTimeout(r, 200));
  const written = await writes.stop();
  t.ok(written.every((n) => n > 5), 'every client kept writing');
  t.ok(manifest.seq >= seqAtStart, 'the export holds every write committed before it was asked for');
  t.ok(a.hearth.log.lastSeq() > manifest.seq, 'writes went on after the export');
  t.notOk((await readdir(copy)).includes('log'), 'the live log is not in the archive');

  ws.send({ id: 2, type: 'backup/end' });
  t.same(await ws.until((m) => m.id === 2), { id: 2, type: 'result', success: true, result: null });
  t.same(await listExports(join(a.dataDir, CORE_EXPORT_DIR)), [], 'backup/end removes the export');
  return { a, tokens, manifest, copy };
}

async function startRestored(t: Test, dataDir: string) {
  const lines: string[] = [];
  const hearth = await startHearth({ port: 0, host: '127.0.0.1', dataDir, log: (l) => lines.push(l) });
  t.teardown(() => hearth.stop());
  return { hearth, base: `http://127.0.0.1:${hearth.port}`, lines };
}

t.test('a backup taken during a write burst restores to the export\'s seq: states, users, tokens, history', async (t) => {
  const { a, tokens, manifest, copy } = await backupDuringBurst(t, false);
  const expected = await statesAt(a.hearth.log, manifest.seq);
  const expectedRecords = await records(a.hearth.log, manifest.seq);
  const afterwards = await statesAt(a.hearth.log, a.hearth.log.lastSeq());
  t.notSame(afterwards.get('sensor.burst_0'), expected.get('sensor.burst_0'), 'the live core moved on after the export');

  const bootAt = Date.now();
  const b = await startRestored(t, copy);
  t.ok(b.lines.some((l) => l.includes(`full export at seq ${manifest.seq}`)), 'the log says from which seq it was restored');
  t.same(await records(b.hearth.log, manifest.seq), expectedRecords, 'the same records up to the seq, byte for byte as read');
  const own = (await records(b.hearth.log, Infinity)).filter((r) => r.seq > manifest.seq);
  t.ok(own.some((r) => r.type === 'core_start'), 'the restored core started after it');
  t.ok(own.every((r) => r.time >= bootAt), 'after the seq, only what the restored core itself appended');

  // the old refresh token still works, and the password logs in
  const refreshed = await postForm(b.base, '/auth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT_ID });
  t.equal(refreshed.status, 200, 'the refresh token of before the backup');
  const flow = await login(b.base, OWNER.username, OWNER.password);
  t.equal(flow.json.type, 'create_entry', 'the old password');

  const get = api(b.base, refreshed.json.access_token);
  const states = (await get('GET', '/api/states')).json as any[];
  for (let c = 0; c < CLIENTS; c++) {
    const id = `sensor.burst_${c}`;
    t.same(states.find((s) => s.entity_id === id) && { state: states.find((s) => s.entity_id === id).state, attributes: states.find((s) => s.entity_id === id).attributes }, expected.get(id), `${id} as at the seq`);
  }
  t.equal(states.find((s) => s.entity_id === 'sensor.before')?.state, 'b4');

  const changes = expectedRecords.filter((r) => r.type === 'state_changed' && r.data.entity_id === 'sensor.burst_1').length;
  const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
  const history = await get('GET', `/api/history/period/${since}?filter_entity_id=sensor.burst_1&minimal_response`);
  t.equal(history.status, 200);
  t.equal(history.json[0].length, changes, 'the whole history up to the seq, none after');
});

t.test('exclude_database: states, users and tokens come back, history does not', async (t) => {
  const { a, tokens, manifest, copy } = await backupDuringBurst(t, true);
  t.equal(manifest.mode, 'state');
  const expected = await statesAt(a.hearth.log, manifest.seq);
  t.ok(manifest.records < manifest.seq / 2, 'far fewer records than the log holds');

  const b = await startRestored(t, copy);
  t.ok(b.lines.some((l) => l.includes(`no history) export at seq ${manifest.seq}`)));
  const refreshed = await postForm(b.base, '/auth/token', { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: CLIENT_ID });
  t.equal(refreshed.status, 200, 'the refresh token of before the backup');
  t.equal((await login(b.base, OWNER.username, OWNER.password)).json.type, 'create_entry', 'the old password');
  const get = api(b.base, refreshed.json.access_token);
  const states = (await get('GET', '/api/states')).json as any[];
  for (let c = 0; c < CLIENTS; c++) {
    const s = states.find((x) => x.entity_id === `sensor.burst_${c}`);
    t.same({ state: s?.state, attributes: s?.attributes }, expected.get(`sensor.burst_${c}`), `sensor.burst_${c} as at the seq`);
  }
  const since = encodeURIComponent(new Date(Date.now() - 3_600_000).toISOString());
  const history = await get('GET', `/api/history/period/${since}?filter_entity_id=sensor.burst_1,sensor.before&minimal_response`);
  t.same(history.json.map((rows: any[]) => rows.length), [1, 1], 'only the current state of each: no history');
  t.equal(b.hearth.log.lastSeq() > manifest.seq, true, 'seqs go on after the export\'s');
});

t.test('a damaged export refuses to start and leaves the files as they were', async (t) => {
  const a = await startTestHearth(t);
  const tokens = await onboard(a.base, OWNER);
  const ws = await authedClient(a.base, tokens.access_token);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'backup/start' });
  t.equal((await ws.until((m) => m.id === 1)).success, true);
  const copy = await archiveCopy(a.dataDir);
  const [found] = await listExports(join(copy, CORE_EXPORT_DIR));
  const manifest = await readManifest(found.manifest);
  const dataFile = join(copy, CORE_EXPORT_DIR, manifest.file);
  const bytes = await readFile(dataFile);
  // the last byte is inside the last entry's value: the framing stays whole, only the hash can tell
  bytes[bytes.length - 1] ^= 0x01;
  await writeFile(dataFile, bytes);
  // the core's own log file gets its lines; the data is what must stay as it was
  const files = async () => (await readdir(copy, { recursive: true })).filter((f) => f !== 'hearth.log').sort();
  const before = await files();

  await t.rejects(startHearth({ port: 0, host: '127.0.0.1', dataDir: copy, log: () => {} }), {
    message: new RegExp(`log export .*${manifest.file} is damaged \\(its SHA-256 is not the one in the manifest\\)`),
  });
  t.same(await files(), before, 'no log made, nothing removed');
  t.same(await readFile(dataFile), bytes, 'the export as it was');
});

t.test('backup/start and backup/end: one backup at a time, admins only, end without start is fine', async (t) => {
  const a = await startTestHearth(t);
  const tokens = await onboard(a.base, OWNER);
  const ws = await authedClient(a.base, tokens.access_token);
  t.teardown(() => ws.ws.close());
  ws.send({ id: 1, type: 'backup/end' });
  t.same(await ws.until((m) => m.id === 1), { id: 1, type: 'result', success: true, result: null }, 'nothing to end');
  ws.send({ id: 2, type: 'backup/start' });
  t.equal((await ws.until((m) => m.id === 2)).success, true);
  ws.send({ id: 3, type: 'backup/start' });
  t.same(await ws.until((m) => m.id === 3), {
    id: 3,
    type: 'result',
    success: false,
    error: { code: 'pre_backup_actions_failed', message: 'Error during pre-backup: Could not lock database within timeout' },
  }, 'a second start while one is open');
  ws.send({ id: 4, type: 'backup/start', exclude_database: 'yes' });
  t.match(await ws.until((m) => m.id === 4), { success: false, error: { code: 'invalid_format' } });
  ws.send({ id: 5, type: 'backup/end' });
  t.equal((await ws.until((m) => m.id === 5)).success, true);
  ws.send({ id: 6, type: 'backup/start', exclude_database: true });
  t.equal((await ws.until((m) => m.id === 6)).success, true, 'a new backup once the last one ended');
  ws.send({ id: 7, type: 'backup/end' });
  t.equal((await ws.until((m) => m.id === 7)).success, true);

  // a non-admin user
  ws.send({ id: 8, type: 'config/auth/create', name: 'Kid', group_ids: ['system-users'] });
  const kid = await ws.until((m) => m.id === 8);
  ws.send({ id: 9, type: 'config/auth_provider/homeassistant/create', user_id: kid.result.user.id, username: 'kid', password: 'kid password 123' });
  t.equal((await ws.until((m) => m.id === 9)).success, true);
  const code = (await login(a.base, 'kid', 'kid password 123')).json.result;
  const kidTokens = await postForm(a.base, '/auth/token', { grant_type: 'authorization_code', code, client_id: CLIENT_ID });
  const kidWs = await authedClient(a.base, kidTokens.json.access_token);
  t.teardown(() => kidWs.ws.close());
  for (const [id, type] of [[1, 'backup/start'], [2, 'backup/end']] as const) {
    kidWs.send({ id, type });
    t.match(await kidWs.until((m) => m.id === id), { success: false, error: { code: 'unauthorized' } }, `${type} refused to a non-admin`);
  }
  t.same(await listExports(join(a.dataDir, CORE_EXPORT_DIR)), []);
});
