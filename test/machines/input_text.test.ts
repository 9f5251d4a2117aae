// Cross-checked against the original's tests/components/input_text/test_init.py (set_value,
// too-long value left unchanged, empty string, mode, restore by length, initial over restore,
// None config keeps the defaults, reload). Diverges: the original only logs a warning for a value
// of the wrong length (the call succeeds) and never checks the pattern; Hearth refuses both.
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { inputTextDomain as domain } from '../../actors/entities/domains/input_text.ts';
import { TEST_ENV, givenHelper } from '../helpers/helper-domain.ts';

const given = (section: unknown, restored?: string, objectId?: string) => givenHelper(domain, section, restored, objectId);

const service = domain.services[0];
const setValue = (value: unknown) => service.toEvent({ value }, TEST_ENV);

t.test('set_value', async (t) => {
  const section = { test_1: { initial: 'test', min: 3, max: 10 }, test_2: {} };
  const one = given(section, undefined, 'test_1');
  const two = given(section, undefined, 'test_2');
  t.equal(one.shown.state, 'test');
  t.equal(two.shown.state, 'unknown');
  t.equal(one.when(setValue('testing')).shown.state, 'testing');
  t.equal(two.when(setValue('testing')).shown.state, 'testing');
  one.when(setValue('testing too long'));
  t.equal(one.shown.state, 'testing', 'too long: unchanged');
  t.same(one.rejected, [{ type: 'rejected', code: 'service_validation_error', message: 'Invalid value: testing too long (length range 3 - 10)' }]);
  t.equal(two.when(setValue('')).shown.state, '', 'empty string');
  t.equal(two.when(setValue(42)).shown.state, '42', 'cv.string makes a number its str()');
});

t.test('length counts code points, as Python does', async (t) => {
  const h = given({ emoji: { min: 1, max: 2 } });
  t.equal(h.when(setValue('😀😀')).shown.state, '😀😀');
  t.same(h.rejected, []);
});

t.test('pattern: the whole value must match', async (t) => {
  const h = given({ code: { pattern: '[a-z]+' } });
  t.equal(h.when(setValue('abc')).shown.state, 'abc');
  h.when(setValue('abc1'));
  t.equal(h.shown.state, 'abc');
  t.same(h.rejected.map((r) => r.message), ['Invalid value: abc1 (does not match pattern [a-z]+)']);
  t.equal(h.shown.attributes.pattern, '[a-z]+');
});

t.test('attributes: defaults, keys and order of the original', async (t) => {
  t.same(given({ b1: null }).shown, { state: 'unknown', attributes: { editable: false, min: 0, max: 100, pattern: null, mode: 'text' } });
  const shown = given({ pin: { name: 'PIN', initial: '1234', min: 4, max: 8, mode: 'password', unit_of_measurement: 'digits', icon: 'mdi:lock', pattern: '\\d+' } }).shown;
  t.equal(shown.state, '1234');
  t.same(Object.keys(shown.attributes), ['editable', 'min', 'max', 'pattern', 'mode', 'unit_of_measurement', 'icon', 'friendly_name']);
  t.equal(shown.attributes.mode, 'password');
});

t.test('restore: the last state when its length fits, unless there is an initial', async (t) => {
  const table: Array<[unknown, string | undefined, string]> = [
    [null, 'test', 'test'],
    [{ min: 0, max: 10 }, 'testing too long', 'unknown'],
    [{ min: 0, max: 100 }, undefined, 'unknown'],
    [{ initial: 'test', min: 0, max: 10 }, 'testing', 'test'],
    [{ initial: 'test', min: 0, max: 10 }, 'testing too long', 'test'],
    // the original restores whatever text the state held
    [{}, 'unavailable', 'unavailable'],
  ];
  for (const [config, restored, expected] of table) {
    t.equal(given({ b1: config }, restored).shown.state, expected, `${JSON.stringify(config)} restored ${restored}`);
  }
});

t.test('reload changes the limits and keeps the value', async (t) => {
  const h = given({ test_2: { initial: 'test 2' } });
  h.when({ type: 'configure', config: domain.parseConfig({ test_2: { initial: 'test reloaded', min: 12 } })[0].config });
  t.equal(h.shown.state, 'test 2');
  t.equal(h.shown.attributes.min, 12);
});

t.test('parseConfig', async (t) => {
  t.same(domain.parseConfig({ note: { max: '20', initial: 5 } }), [{ objectId: 'note', config: { min: 0, max: 20, mode: 'text', initial: '5' } }]);
  const bad: Array<[unknown, RegExp]> = [
    [{ test_1: { min: 50, max: 40 } }, /'input_text' item 'test_1': Max len \(40\) is not greater than min len \(50\)/],
    [{ test_1: { initial: 'far too long', max: 5 } }, /key 'initial': Initial value far too long length not in range 0-5/],
    [{ test_1: { pattern: '(' } }, /key 'pattern': invalid regular expression \(/],
    [{ test_1: { mode: 'secret' } }, /key 'mode': value must be one of \['text', 'password'\]/],
    [{ test_1: { max: 'long' } }, /key 'max': expected int/],
    [{ 'name with space': null }, /invalid slug name with space/],
  ];
  for (const [section, message] of bad) t.throws(() => domain.parseConfig(section), message, JSON.stringify(section));
});

t.test('service as the original describes it', async (t) => {
  t.same(domain.services.map((s) => s.service), ['set_value']);
  t.same(service.description, {
    name: 'Set',
    description: 'Sets the value.',
    fields: { value: { required: true, example: 'This is an example text', selector: { text: null }, name: 'Value', description: 'The target value.' } },
    target: { entity: [{ domain: ['input_text'] }] },
  });
  for (const ok of [{ value: 'x' }, { value: '' }, { value: 3 }]) t.ok(Value.Check(service.schema, ok), JSON.stringify(ok));
  for (const bad of [{}, { value: null }, { value: ['x'] }, { value: 'x', other: 1 }]) t.notOk(Value.Check(service.schema, bad), JSON.stringify(bad));
});
