import t from 'tap';
import { isoformat as isoTime } from '../../../machines/python/isoformat.ts';
import { jsonLines, runEach } from './fixtures/cli.ts';
import { SECRETS, T0, writeFixtureLog } from './fixtures/log.ts';

const dataDir = t.testdir();
t.before(() => writeFixtureLog(dataDir));

const at = (ms: number) => isoTime(ms);
/** entity id → state string, as a run printed them */
const states = (stdout: string) => Object.fromEntries(jsonLines(stdout).map((s) => [s.entity_id, s.state]));

// light.kitchen: off at +1s, on at +2.00025s (reported at +3s), off at +5s
// switch.fan: on at +1.5s, removed at +4s; sensor.temp: 20.5 at +2.5s, 21 at +6s; camera.door: idle at +5.5s
const moments: { name: string; time: number; expect: Record<string, string> }[] = [
  { name: 'before any entity existed', time: T0 + 500, expect: {} },
  { name: 'after the first entity appeared', time: T0 + 1200, expect: { 'light.kitchen': 'off' } },
  { name: 'two entities', time: T0 + 1700, expect: { 'light.kitchen': 'off', 'switch.fan': 'on' } },
  { name: 'a moment is inclusive to the microsecond', time: T0 + 2000.25, expect: { 'light.kitchen': 'on', 'switch.fan': 'on' } },
  { name: 'a microsecond before', time: T0 + 2000.249, expect: { 'light.kitchen': 'off', 'switch.fan': 'on' } },
  { name: 'after switch.fan was removed', time: T0 + 4200, expect: { 'light.kitchen': 'on', 'sensor.temp': '20.5' } },
  { name: 'at the end', time: Date.UTC(2030, 0, 1), expect: { 'camera.door': 'idle', 'light.kitchen': 'off', 'sensor.temp': '21' } },
];

t.test('states at several moments', async (t) => {
  const runs = await runEach(moments.map(({ time }) => ['--data', dataDir, '--state-at', at(time), '--format', 'json']));
  moments.forEach(({ name, expect }, i) => {
    t.equal(runs[i].code, 0, `${name}: exit 0`);
    t.same(states(runs[i].stdout), expect, name);
    t.same(Object.keys(states(runs[i].stdout)), Object.keys(expect).sort(), `${name}: sorted by entity id`);
  });
});

t.test('json: one whole state per line, secrets hidden', async (t) => {
  const [later, end] = await runEach([
    ['--data', dataDir, '--state-at', at(T0 + 4200)],
    ['--data', dataDir, '--state-at', at(T0 + 60_000)],
  ]);
  const kitchen = jsonLines(later.stdout).find((s) => s.entity_id === 'light.kitchen');
  t.same(kitchen, {
    entity_id: 'light.kitchen',
    state: 'on',
    attributes: { brightness: 255 },
    last_changed: T0 + 2000.25,
    last_reported: T0 + 3000,
    last_updated: T0 + 2000.25,
    context: { id: '01JGKZ3M5D7Q8R9S0T1V2W3X00', parent_id: null, user_id: null },
  }, 'the state_reported record is folded in');
  const camera = jsonLines(end.stdout).find((s) => s.entity_id === 'camera.door');
  t.same(camera.attributes, { access_token: '***', entity_picture: '/api/camera_proxy/camera.door?token=***' });
  for (const secret of SECRETS) t.notOk(end.stdout.includes(secret));
});

t.test('--entity picks entities; table format', async (t) => {
  const [one, table, none] = await runEach([
    ['--data', dataDir, '--state-at', at(T0 + 4200), '--entity', 'sensor.temp,switch.fan'],
    ['--data', dataDir, '--state-at', at(T0 + 1700), '--format', 'table'],
    ['--data', dataDir, '--state-at', at(T0 + 500), '--format', 'table'],
  ]);
  t.same(states(one.stdout), { 'sensor.temp': '20.5' }, 'switch.fan is gone by then');
  t.same(table.stdout.trimEnd().split('\n').map((line) => line.split(/\s{2,}/)), [
    ['entity_id', 'state', 'last_changed'],
    ['light.kitchen', 'off', isoTime(T0 + 1000)],
    ['switch.fan', 'on', isoTime(T0 + 1500)],
  ]);
  t.equal(none.stdout.trimEnd(), 'entity_id  state  last_changed', 'only the header when nothing existed');
});
