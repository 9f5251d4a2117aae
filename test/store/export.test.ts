import t from 'tap';
import { join } from 'node:path';
import { mkdir, readFile, readdir, rm, writeFile, stat } from 'node:fs/promises';
import { openEventLog } from '../../store/log.ts';
import { importLog, listExports } from '../../store/log-export.ts';
import { restoreLogFromExport } from '../../store/log-restore.ts';
import type { EventRecord, NewEvent } from '../../store/types.ts';
import { recordsOn } from '../helpers/log-records.ts';

const T0 = 1_700_000_000_000;
const ctx = { id: '01H', parent_id: null, user_id: null };

function stateChange(entity: string, n: number, time: number): NewEvent {
  return {
    time,
    stream: `entity/${entity}`,
    type: 'state_changed',
    data: { entity_id: entity, new_state: { state: String(n), last_changed: time }, old_state: null },
    context: ctx,
    inherit: { field: 'old_state', from: 'new_state' },
  };
}

t.test('a full export taken during appends restores to exactly the records up to its seq', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: join(dir, 'log'), commit: 'fast' });
  await log.saveSnapshot('entities', { seq: 0, version: 1, time: T0, data: {} });
  // an entry larger than the export's write buffer
  await log.saveSnapshot('big', { seq: 0, version: 1, time: T0, data: 'x'.repeat(5 * 1024 * 1024) });
  for (let i = 0; i < 50; i++) await log.append([stateChange('light.a', i, T0 + i), stateChange('light.b', i, T0 + i)]);
  // appends keep going while the export is taken
  let stop = false;
  let n = 1000;
  const writer = (async () => {
    while (!stop) await log.append([stateChange('light.a', n, T0 + n), stateChange('light.b', n, T0 + n++)]);
  })();
  await new Promise((r) => setTimeout(r, 5));
  const manifest = await log.exportTo({ dir: join(dir, 'backup'), mode: 'full' });
  stop = true;
  await writer;
  t.ok(log.lastSeq() > manifest.seq, 'appends went on after the export');
  t.equal(manifest.seq % 2, 0, 'a whole batch of two, never half of one');
  t.equal(manifest.records, manifest.seq, 'every record up to the seq');
  const before = (await recordsOn(log)).filter((r) => r.seq <= manifest.seq);
  await log.close();

  t.same((await listExports(join(dir, 'backup'))).map((e) => e.seq), [manifest.seq]);
  t.equal((await stat(join(dir, 'backup', manifest.file))).mode & 0o777, 0o600, 'secrets inside: for the owner only');
  const restored = join(dir, 'restored');
  await importLog(join(dir, 'backup', `log-${manifest.seq}.json`), restored);
  const again = await openEventLog({ path: restored });
  t.teardown(() => again.close());
  t.equal(again.lastSeq(), manifest.seq);
  t.same(await recordsOn(again), before, 'the same records, old states rebuilt');
  t.same((await again.loadSnapshot('entities'))?.seq, 0, 'area snapshots come along');
  t.equal((await again.loadSnapshot<string>('big'))?.data.length, 5 * 1024 * 1024, 'a big one too');
  const hist: EventRecord[] = [];
  for await (const r of again.history({ entityId: 'light.a' })) hist.push(r);
  t.equal(hist.length, manifest.seq / 2, 'the history index too');
  const [next] = await again.append([stateChange('light.a', 1, T0 + 99_999)]);
  t.equal(next.seq, manifest.seq + 1, 'seqs go on after the export');
});

t.test('a state export keeps the last record of each stream and every record of the streams asked', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: join(dir, 'log') });
  t.teardown(() => log.close());
  for (let i = 0; i < 10; i++) await log.append([stateChange('light.a', i, T0 + i)]);
  await log.append([{ time: T0 + 20, stream: 'auth/user/u1', type: 'user_created', data: { id: 'u1' }, context: ctx }]);
  await log.append([{ time: T0 + 21, stream: 'auth/user/u1', type: 'user_updated', data: { name: 'x' }, context: ctx }]);
  for (let i = 0; i < 5; i++) await log.append([stateChange('light.b', i, T0 + 30 + i)]);
  const m = await log.exportTo({ dir: join(dir, 'backup'), mode: 'state', keepAll: (s) => s.startsWith('auth/') });
  t.equal(m.seq, 17);
  t.equal(m.records, 4, 'light.a last, light.b last, both auth records');
  const restored = join(dir, 'restored');
  await importLog(join(dir, 'backup', m.file.replace('.hlog', '.json')), restored);
  const again = await openEventLog({ path: restored });
  t.teardown(() => again.close());
  const records = await recordsOn(again);
  t.same(records.map((r) => [r.seq, r.type]), [[10, 'state_changed'], [11, 'user_created'], [12, 'user_updated'], [17, 'state_changed']]);
  t.equal(records[0].data.new_state.state, '9');
  t.equal(records[0].data.old_state, null, 'the state it replaced is history: gone');
  t.equal(again.lastSeq(), 17);
});

t.test('a damaged export is refused and nothing is left behind', async (t) => {
  const dir = t.testdir();
  const log = await openEventLog({ path: join(dir, 'log') });
  for (let i = 0; i < 20; i++) await log.append([stateChange('light.a', i, T0 + i)]);
  const m = await log.exportTo({ dir: join(dir, 'backup'), mode: 'full' });
  await log.close();
  const data = join(dir, 'backup', m.file);
  const manifestPath = join(dir, 'backup', m.file.replace('.hlog', '.json'));
  const bytes = await readFile(data);

  const flipped = Buffer.from(bytes);
  flipped[flipped.length - 3] ^= 0x20;
  await writeFile(data, flipped);
  await t.rejects(importLog(manifestPath, join(dir, 'restored')), { code: 'HEARTH_LOG_CORRUPT', message: /SHA-256/ });
  t.same(await readdir(dir).then((n) => n.sort()), ['backup', 'log'], 'no half-built log');
  t.same(await readFile(data), flipped, 'the export left as it was');

  await writeFile(data, bytes.subarray(0, bytes.length - 10));
  await t.rejects(importLog(manifestPath, join(dir, 'restored')), { code: 'HEARTH_LOG_CORRUPT', message: /bytes where the manifest says/ });

  await writeFile(data, bytes);
  await writeFile(manifestPath, '{"format":"nope"}');
  await t.rejects(importLog(manifestPath, join(dir, 'restored')), { code: 'HEARTH_LOG_CORRUPT', message: /not a hearth-log-export manifest/ });
  await t.rejects(stat(join(dir, 'restored')), { code: 'ENOENT' });
});

t.test('restoreLogFromExport: only a data directory without a log (or with an empty one) is restored', async (t) => {
  const dir = t.testdir();
  const source = await openEventLog({ path: join(dir, 'source') });
  for (let i = 0; i < 3; i++) await source.append([stateChange('light.a', i, T0 + i)]);
  const m = await source.exportTo({ dir: join(dir, 'data', 'backup'), mode: 'full' });
  await source.close();

  await mkdir(join(dir, 'data', 'log'));
  await writeFile(join(dir, 'data', 'log', 'CURRENT'), 'MANIFEST-000001\n');
  t.equal(await restoreLogFromExport(join(dir, 'data'), () => {}), undefined, 'a log is there: left alone');
  t.equal((await listExports(join(dir, 'data', 'backup'))).length, 1, 'and the export too');

  await rm(join(dir, 'data', 'log', 'CURRENT'));
  const lines: string[] = [];
  t.equal((await restoreLogFromExport(join(dir, 'data'), (l) => lines.push(l)))?.seq, m.seq, 'an empty log directory is replaced');
  t.match(lines.at(-1), new RegExp(`full export at seq ${m.seq}: 3 records`));
  t.same(await listExports(join(dir, 'data', 'backup')), [], 'the export is gone once it is the log');
  const log = await openEventLog({ path: join(dir, 'data', 'log') });
  t.teardown(() => log.close());
  t.equal((await recordsOn(log)).length, 3);
});

t.test('restoreLogFromExport with the restore marker: the log in place is replaced, and kept beside it', async (t) => {
  const dir = t.testdir();
  const data = join(dir, 'data');
  const source = await openEventLog({ path: join(dir, 'source') });
  for (let i = 0; i < 3; i++) await source.append([stateChange('light.a', i, T0 + i)]);
  const m = await source.exportTo({ dir: join(data, 'backup'), mode: 'full' });
  await source.close();
  const current = await openEventLog({ path: join(data, 'log') });
  for (let i = 0; i < 7; i++) await current.append([stateChange('light.b', i, T0 + i)]);
  await current.close();

  await writeFile(join(data, 'backup', 'restore'), '');
  const manifestFile = join(data, 'backup', m.file.replace('.hlog', '.json'));
  const good = await readFile(manifestFile);
  await writeFile(manifestFile, good.toString().replace(/"records": 3/, '"records": 4'));
  await t.rejects(restoreLogFromExport(data, () => {}), { code: 'HEARTH_LOG_CORRUPT', message: /3 records where the manifest says .* 4/ });
  t.same((await readdir(data)).sort(), ['backup', 'log'], 'a damaged export leaves the log in use as it was');
  await writeFile(manifestFile, good);

  const lines: string[] = [];
  t.equal((await restoreLogFromExport(data, (l) => lines.push(l)))?.seq, 3);
  const names = (await readdir(data)).sort();
  t.match(names, ['backup', 'log', /^log\.replaced-/]);
  t.same(await readdir(join(data, 'backup')), [], 'export and marker gone');
  t.ok(lines.some((l) => l.includes(names[2])), 'the log says where the old log went');
  const log = await openEventLog({ path: join(data, 'log') });
  t.same((await recordsOn(log)).map((r) => r.data.entity_id), ['light.a', 'light.a', 'light.a']);
  await log.close();
  const old = await openEventLog({ path: join(data, names[2]) });
  t.equal(old.lastSeq(), 7, 'the replaced log, whole');
  await old.close();

  await writeFile(join(data, 'backup', 'restore'), '');
  await t.rejects(restoreLogFromExport(data, () => {}), { message: /asks for the log to be restored, but .* holds no finished log export/ });
});
