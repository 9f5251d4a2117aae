// Cross-checked against the original's tests/components/input_button/test_init.py (press sets the
// state to the time of the press, restore of the last state, editable false from YAML).
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { inputButtonDomain as domain } from '../../actors/entities/domains/input_button.ts';
import { TEST_ENV, givenHelper } from '../helpers/helper-domain.ts';

const given = (section: unknown, restored?: string) => givenHelper(domain, section, restored);

const press = domain.services[0];
const at = (time: number) => ({ ...press.toEvent({}, TEST_ENV), time });

t.test('the state is the time of the last press', async (t) => {
  const h = given({ doorbell: { name: 'Doorbell', icon: 'mdi:bell' } });
  t.same(h.shown, { state: 'unknown', attributes: { editable: false, icon: 'mdi:bell', friendly_name: 'Doorbell' } });
  t.equal(h.when(at(Date.UTC(2025, 0, 2, 3, 4, 5, 123))).shown.state, '2025-01-02T03:04:05.123000+00:00');
  t.equal(h.when(at(Date.UTC(2025, 0, 2, 3, 4, 6) + 0.5)).shown.state, '2025-01-02T03:04:06.000500+00:00', 'microseconds');
  t.equal(h.when(at(Date.UTC(2025, 0, 2, 3, 4, 7))).shown.state, '2025-01-02T03:04:07+00:00', 'no fraction when zero');
  t.same(h.rejected, []);
});

t.test('a press without its time is refused', async (t) => {
  const h = given({ doorbell: null });
  h.when(press.toEvent({}, TEST_ENV));
  t.equal(h.shown.state, 'unknown');
  t.same(h.rejected.map((r) => r.message), ['Press of input_button.doorbell carries no time']);
});

t.test('restore: the last state verbatim, unless unavailable', async (t) => {
  const table: Array<[string | undefined, string]> = [
    ['2024-06-01T10:00:00.250000+00:00', '2024-06-01T10:00:00.250000+00:00'],
    ['unknown', 'unknown'],
    ['unavailable', 'unknown'],
    [undefined, 'unknown'],
  ];
  for (const [restored, expected] of table) t.equal(given({ b: {} }, restored).shown.state, expected, `restored ${restored}`);
  const h = given({ b: {} }, '2024-06-01T10:00:00+00:00').when(at(Date.UTC(2025, 0, 1)));
  t.equal(h.shown.state, '2025-01-01T00:00:00+00:00', 'a press replaces the restored state');
});

t.test('reload changes name and icon, keeps the last press', async (t) => {
  const h = given({ b: { name: 'Old' } }).when(at(Date.UTC(2025, 0, 1)));
  h.when({ type: 'configure', config: { name: 'New' } });
  t.same(h.shown, { state: '2025-01-01T00:00:00+00:00', attributes: { editable: false, friendly_name: 'New' } });
});

t.test('parseConfig', async (t) => {
  t.same(domain.parseConfig({ a: null, b: { name: 2 } }), [{ objectId: 'a', config: {} }, { objectId: 'b', config: { name: '2' } }]);
  const bad: Array<[unknown, RegExp]> = [
    [{ b: { initial: 'x' } }, /'input_button' item 'b', key 'initial': extra keys not allowed/],
    [{ b: { icon: 'bell' } }, /key 'icon': Icons should be specified/],
    [{ B: null }, /invalid slug B \(try b\)/],
  ];
  for (const [section, message] of bad) t.throws(() => domain.parseConfig(section), message, JSON.stringify(section));
});

t.test('service as the original describes it', async (t) => {
  t.same(domain.services.map((s) => s.service), ['press']);
  t.same(press.description, {
    name: 'Press',
    description: 'Mimics a physical button press on a device.',
    fields: {},
    target: { entity: [{ domain: ['input_button'] }] },
  });
  t.ok(Value.Check(press.schema, {}));
  t.notOk(Value.Check(press.schema, { time: 1 }));
});
