// Cross-checked against the original's tests/components/input_boolean/test_init.py (config
// options, methods, restore, initial over restore, reload keeps state).
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { inputBooleanDomain as domain } from '../../actors/entities/domains/input_boolean.ts';
import { TEST_ENV, givenHelper } from '../helpers/helper-domain.ts';

const given = (section: unknown, restored?: string) => givenHelper(domain, section, restored);

const service = (name: string) => domain.services.find((s) => s.service === name)!;
const call = (name: string, data: Record<string, unknown> = {}) => service(name).toEvent(data, TEST_ENV);

t.test('config options: defaults, name, icon, initial', async (t) => {
  t.same(given({ test_1: {} }).shown, { state: 'off', attributes: { editable: false } });
  t.same(given({ test_1: null }).shown, { state: 'off', attributes: { editable: false } });
  const shown = given({ test_2: { name: 'Hello World', icon: 'mdi:work', initial: true } }).shown;
  t.same(shown, { state: 'on', attributes: { editable: false, icon: 'mdi:work', friendly_name: 'Hello World' } });
  t.same(Object.keys(shown.attributes), ['editable', 'icon', 'friendly_name'], 'attribute order of the original');
  // cv.boolean words
  t.equal(given({ b: { initial: 'yes' } }).shown.state, 'on');
  t.equal(given({ b: { initial: 'off' } }).shown.state, 'off');
});

t.test('turn_on, turn_off, toggle', async (t) => {
  const h = given({ test_1: {} });
  t.equal(h.when(call('turn_on')).shown.state, 'on');
  t.equal(h.when(call('turn_on')).shown.state, 'on', 'turning on again stays on');
  t.equal(h.when(call('turn_off')).shown.state, 'off');
  t.equal(h.when(call('toggle')).shown.state, 'on');
  t.equal(h.when(call('toggle')).shown.state, 'off');
  t.same(h.rejected, []);
});

t.test('restore: the last state when there is no initial', async (t) => {
  const table: Array<[unknown, string | undefined, string]> = [
    [{}, 'on', 'on'],
    [{}, 'off', 'off'],
    [{}, 'unavailable', 'off'],
    [{}, undefined, 'off'],
    [{ initial: true }, 'off', 'on'],
    [{ initial: false }, 'on', 'off'],
  ];
  for (const [config, restored, expected] of table) {
    t.equal(given({ b1: config }, restored).shown.state, expected, `${JSON.stringify(config)} restored ${restored}`);
  }
});

t.test('reload changes name and icon, keeps the state', async (t) => {
  const h = given({ porch: { name: 'Porch light' } }).when(call('turn_on'));
  h.when({ type: 'configure', config: { name: 'Porch', icon: 'mdi:lightbulb', initial: false } });
  t.same(h.shown, { state: 'on', attributes: { editable: false, icon: 'mdi:lightbulb', friendly_name: 'Porch' } });
});

t.test('parseConfig', async (t) => {
  t.same(domain.parseConfig({ porch: { name: 'Porch light', initial: true, icon: 'mdi:lightbulb' }, garden: null }), [
    { objectId: 'porch', config: { name: 'Porch light', initial: true, icon: 'mdi:lightbulb' } },
    { objectId: 'garden', config: {} },
  ]);
  t.same(domain.parseConfig(null), [], 'an empty section has no items');
  const bad: Array<[unknown, RegExp]> = [
    [{ 'name with space': null }, /'input_boolean' item 'name with space': invalid slug name with space \(try name_with_space\)/],
    [{ Porch: {} }, /invalid slug Porch \(try porch\)/],
    [{ porch: { colour: 'red' } }, /'input_boolean' item 'porch', key 'colour': extra keys not allowed/],
    [{ porch: { initial: 'maybe' } }, /key 'initial': invalid boolean value maybe/],
    [{ porch: { icon: 'lightbulb' } }, /key 'icon': Icons should be specified in the form "prefix:name"/],
    [{ porch: { name: ['a'] } }, /key 'name': value should be a string/],
    [{ porch: 'on' }, /item 'porch': expected a dictionary/],
    [['porch'], /'input_boolean': expected a dictionary/],
  ];
  for (const [section, message] of bad) t.throws(() => domain.parseConfig(section), message, JSON.stringify(section));
});

t.test('services as the original describes them', async (t) => {
  t.same(domain.services.map((s) => s.service), ['turn_on', 'turn_off', 'toggle']);
  t.same(service('toggle').description, {
    name: 'Toggle',
    description: 'Toggles an input boolean on/off.',
    fields: {},
    target: { entity: [{ domain: ['input_boolean'] }] },
  });
  t.equal(service('turn_on').description.name, 'Turn on');
  t.equal(service('turn_off').description.description, 'Turns off an input boolean.');
  t.ok(Value.Check(service('turn_on').schema, {}));
  t.notOk(Value.Check(service('turn_on').schema, { brightness: 5 }), 'no extra keys');
});
