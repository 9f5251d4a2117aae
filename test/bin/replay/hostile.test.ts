// Records the server accepted but that are hard to print: nested thousands deep, or holding a
// 10 MB attribute. Replay prints them (or says why not) and goes on; secrets stay hidden.
import t from 'tap';
import { join } from 'node:path';
import { openEventLog } from '../../../store/log.ts';
import type { EventRecord, NewEvent } from '../../../store/types.ts';
import { jsonLines, runEach } from './fixtures/cli.ts';
import { CAMERA_TOKEN, FIXTURE, REFRESH_TOKEN, SECRETS, T0, openFixtureLog } from './fixtures/log.ts';

const DEPTH = 2_500;
const BIG = 10_000_000;
const DEEP_TOKEN = 'deeptoken-1c3e5a7b9d1f3a5c7e9b1d3f5a7c9e1b';
const ALL_SECRETS = [...SECRETS, DEEP_TOKEN];

const context = { id: '01JGKZ3M5D7Q8R9S0T1V2W3X50', parent_id: null, user_id: null };

function nestedArray(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

function nestedObject(depth: number, leaf: unknown): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
}

const bigState = {
  entity_id: 'sensor.big',
  state: 'x',
  // a secret quoted at the end of the huge attribute, behind a 10 MB run of letters
  attributes: { blob: `${'A'.repeat(BIG)}?token=${CAMERA_TOKEN}` },
  last_changed: T0 + 7200,
  last_reported: T0 + 7200,
  last_updated: T0 + 7200,
  context,
};

// seq 14 onwards, after the fixture's 13
const HOSTILE: NewEvent[] = [
  /* 14 */ { time: T0 + 7000, stream: 'bus', type: 'deep_array', data: { a: nestedArray(DEPTH, 1) }, context, origin: 'LOCAL' },
  // a secret stored deep down: learnt, although no --type below prints this record
  /* 15 */ { time: T0 + 7100, stream: 'bus', type: 'deep_object', data: nestedObject(DEPTH, { token: DEEP_TOKEN, n: 1 }), context, origin: 'LOCAL' },
  /* 16 */ { time: T0 + 7200, stream: 'entity/sensor.big', type: 'state_changed', data: { entity_id: 'sensor.big', old_state: null, new_state: bigState }, context, origin: 'LOCAL' },
  /* 17 */ {
    time: T0 + 7300,
    stream: 'bus',
    type: 'after',
    data: { note: 'still here', quoted: `/hook?deep=${DEEP_TOKEN}&refresh=${REFRESH_TOKEN}` },
    context,
    origin: 'LOCAL',
  },
  // a time the store takes but no date can show: the table says so and goes on
  /* 18 */ { time: 1e20, stream: 'bus', type: 'far_future', data: { n: 1 }, context, origin: 'LOCAL' },
  /* 19 */ { time: T0 + 7400, stream: 'bus', type: 'after', data: { note: 'the last' }, context, origin: 'LOCAL' },
];

const dataDir = t.testdir();
const stored: EventRecord[] = [];

t.before(async () => {
  const log = await openFixtureLog(dataDir);
  await log.append(HOSTILE);
  await log.close();
  const reader = await openEventLog({ path: join(dataDir, 'log') });
  for await (const record of reader.read()) stored.push(record);
  await reader.close();
});

/** A record as replay must print it: as stored, with every secret as *** */
function expectedLine(record: EventRecord): string {
  let line = JSON.stringify(record);
  for (const secret of ALL_SECRETS) line = line.split(secret).join('***');
  return line;
}

t.test('json and table, with and without filters that leave the hard records out', async (t) => {
  const [json, table, jsonAfter, tableAfter, tableBig] = await runEach([
    ['--data', dataDir, '--format', 'json'],
    ['--data', dataDir, '--format', 'table'],
    ['--data', dataDir, '--format', 'json', '--type', 'after,custom_event'],
    ['--data', dataDir, '--format', 'table', '--type', 'after'],
    ['--data', dataDir, '--format', 'table', '--entity', 'sensor.big'],
  ]);
  for (const [name, run] of Object.entries({ json, table, jsonAfter, tableAfter, tableBig })) {
    t.equal(run.code, 0, `${name}: exit 0`);
    t.equal(run.stderr, '', `${name}: nothing on stderr`);
    for (const secret of ALL_SECRETS) t.notOk(run.stdout.includes(secret), `${name}: ${secret.split('-')[0]} hidden`);
  }

  const lines = json.stdout.trimEnd().split('\n');
  t.equal(lines.length, FIXTURE.length + HOSTILE.length, 'json: every record');
  t.equal(lines[0], JSON.stringify(stored[0]), 'json: the records before are printed');
  for (const seq of [14, 15, 16, 17, 18, 19]) t.ok(lines[seq - 1] === expectedLine(stored[seq - 1]), `json: record ${seq} whole, secrets hidden`);
  t.ok(lines[14].includes('"token":"***"'), 'the deep secret is redacted where it is stored');
  t.ok(lines[15].length > BIG, 'the 10 MB attribute is printed in full');
  t.ok(lines[15].endsWith(`?token=***"},"last_changed":${T0 + 7200},"last_reported":${T0 + 7200},"last_updated":${T0 + 7200},"context":${JSON.stringify(context)}}},"context":${JSON.stringify(context)},"origin":"LOCAL"}`));

  const rows = table.stdout.trimEnd().split('\n');
  t.equal(rows.length, 1 + FIXTURE.length + HOSTILE.length, 'table: a header and a row per record');
  const row = (seq: number) => rows[seq].trim().split(/\s{2,}/);
  t.same(row(14).slice(2, 4), ['deep_array', 'bus']);
  t.ok(row(14)[4].startsWith('{"a":[[[[') && row(14)[4].endsWith('…'), 'a deep record is summarised and cut');
  t.equal(Array.from(row(14)[4]).length, 120);
  t.ok(row(15)[4].startsWith('{"a":{"a":{"a":'));
  t.same(row(16).slice(2), ['state_changed', 'entity/sensor.big', '(none) → x']);
  t.same(row(17).slice(2), ['after', 'bus', '{"note":"still here","quoted":"/hook?deep=***&refresh=***"}']);
  t.same(row(18), ['18', 'far_future', 'bus', '(record 18 (far_future) cannot be printed: Invalid time value)']);
  t.same(row(19).slice(2), ['after', 'bus', '{"note":"the last"}'], 'and the rows after it are printed');
  t.ok(table.stdout.length < 10_000, 'the table does not carry the 10 MB attribute');

  t.same(jsonLines(jsonAfter.stdout).map((r) => r.seq), [7, 17, 19], 'json --type: only the records asked for');
  t.equal(jsonAfter.stdout.trimEnd().split('\n')[1], expectedLine(stored[16]), 'secrets of records left out are still hidden where quoted');
  const afterRows = tableAfter.stdout.trimEnd().split('\n');
  t.equal(afterRows.length, 3);
  t.match(afterRows[1], /^\s+17\s.*after\s+bus\s+\{"note":"still here","quoted":"\/hook\?deep=\*\*\*&refresh=\*\*\*"\}$/);
  const bigRows = tableBig.stdout.trimEnd().split('\n');
  t.equal(bigRows.length, 2);
  t.match(bigRows[1], /^\s+16\s.*\(none\) → x$/);
});

t.test('--state-at with a 10 MB attribute', async (t) => {
  const [json, table] = await runEach([
    ['--data', dataDir, '--format', 'json', '--state-at', '2030-01-01T00:00:00Z'],
    ['--data', dataDir, '--format', 'table', '--state-at', '2030-01-01T00:00:00Z'],
  ]);
  for (const [name, run] of Object.entries({ json, table })) {
    t.equal(run.code, 0, `${name}: exit 0`);
    t.equal(run.stderr, '', `${name}: nothing on stderr`);
    for (const secret of ALL_SECRETS) t.notOk(run.stdout.includes(secret), `${name}: ${secret.split('-')[0]} hidden`);
  }
  const states = jsonLines(json.stdout);
  t.same(states.map((s) => s.entity_id), ['camera.door', 'light.kitchen', 'sensor.big', 'sensor.temp']);
  t.equal(states[2].attributes.blob.length, BIG + '?token=***'.length);
  t.match(table.stdout, /^sensor\.big\s+x\s+/m);
});
