import t from 'tap';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import { isoformat as isoTime } from '../../../machines/python/isoformat.ts';
import type { EventRecord } from '../../../store/types.ts';
import { runEach } from './fixtures/cli.ts';
import { JWT_KEY, SECRETS, T0, writeFixtureLog } from './fixtures/log.ts';

const dataDir = t.testdir();
const stored: EventRecord[] = [];
let json = '';
let table = '';
let tableFiltered = '';

t.before(async () => {
  await writeFixtureLog(dataDir);
  const log = await openEventLog({ path: join(dataDir, 'log') });
  for await (const record of log.read()) stored.push(record);
  await log.close();
  const runs = await runEach([
    ['--data', dataDir, '--format', 'json'],
    ['--data', dataDir, '--format', 'table'],
    ['--data', dataDir, '--format', 'table', '--entity', 'sensor.temp'],
  ]);
  for (const run of runs) if (run.code !== 0) throw new Error(`replay failed: ${run.stderr}`);
  [json, table, tableFiltered] = runs.map((run) => run.stdout);
});

t.test('no secret is ever printed', async (t) => {
  for (const secret of SECRETS) {
    for (const [name, out] of Object.entries({ json, table, tableFiltered })) t.notOk(out.includes(secret), `${name}: no ${secret.split('-')[0]}`);
  }
  t.notOk(json.includes(JWT_KEY));
});

t.test('json lines are the records as stored, secrets aside', async (t) => {
  const lines = json.trimEnd().split('\n');
  t.equal(lines.length, stored.length);
  for (const record of stored) {
    if (record.seq === 9 || record.seq === 11) continue; // the two records holding secrets
    t.equal(lines[record.seq - 1], JSON.stringify(record), `record ${record.seq} as stored`);
  }
  const auth = JSON.parse(lines[8]);
  t.same(auth.data, { id: 'rt1', user_id: 'u1', client_id: null, token: '***', jwt_key: '***' }, 'token and token key redacted');
  t.same({ ...auth, data: undefined }, { ...stored[8], data: undefined }, 'the rest of the record as stored');
  const camera = JSON.parse(lines[10]);
  t.same(
    camera.data.new_state.attributes,
    { access_token: '***', entity_picture: '/api/camera_proxy/camera.door?token=***' },
    'a secret is also hidden where another field quotes it',
  );
});

t.test('table', async (t) => {
  const lines = table.trimEnd().split('\n');
  t.equal(lines.length, stored.length + 1, 'a header and one row per record');
  t.match(lines[0], /^\s*seq\s+time\s+type\s+stream\s+summary$/);
  const row = (seq: number) => lines[seq].trim().split(/\s{2,}/);
  t.same(row(2), ['2', isoTime(T0 + 1000), 'state_changed', 'entity/light.kitchen', '(none) → off']);
  t.same(row(4), ['4', '2025-01-02T03:04:07.000250+00:00', 'state_changed', 'entity/light.kitchen', 'off → on']);
  t.same(row(8), ['8', isoTime(T0 + 4000), 'state_changed', 'entity/switch.fan', 'on → (removed)']);
  t.same(row(7), ['7', isoTime(T0 + 3500), 'custom_event', 'bus', '{"entity_id":"light.kitchen","note":"hello"}']);
  t.same(row(9).slice(2), ['refresh_token_created', 'auth/refresh_token/rt1', '{"id":"rt1","user_id":"u1","client_id":null,"token":"***","jwt_key":"***"}']);
  const reported = row(6);
  t.equal(reported[2], 'state_reported');
  const summary = reported[4];
  t.equal(Array.from(summary).length, 120, 'a long summary is cut to 120 characters off a terminal');
  t.ok(summary.endsWith('…'));
  t.ok(summary.startsWith('{"entity_id":"light.kitchen","old_last_reported":'));
});

t.test('table with a filter', async (t) => {
  const lines = tableFiltered.trimEnd().split('\n');
  t.equal(lines.length, 3);
  t.match(lines[1], /^\s+5\s.*\(none\) → 20\.5$/);
  t.match(lines[2], /^\s+12\s.*20\.5 → 21$/);
});
