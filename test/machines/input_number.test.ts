// Cross-checked against the original's tests/components/input_number/test_init.py (set_value with
// its out-of-range message, increment/decrement at the limits, float rounding, mode, restore,
// initial over restore, reload clamping the value into new limits).
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { inputNumberDomain as domain } from '../../actors/entities/domains/input_number.ts';
import { pyFloatState } from '../../machines/input_number.machine.ts';
import { floatRepr as pyFloat } from '../../machines/python/float.ts';
import { TEST_ENV, givenHelper } from '../helpers/helper-domain.ts';

const given = (section: unknown, restored?: string) => givenHelper(domain, section, restored);

const service = (name: string) => domain.services.find((s) => s.service === name)!;
const call = (name: string, data: Record<string, unknown> = {}) => service(name).toEvent(data, TEST_ENV);

t.test('set_value within the range; out of it is refused with the original message', async (t) => {
  const h = given({ test_1: { initial: 50, min: 0, max: 100 } });
  t.equal(h.shown.state, '50.0');
  t.equal(h.when(call('set_value', { value: '30.4' })).shown.state, '30.4');
  t.equal(h.when(call('set_value', { value: '70' })).shown.state, '70.0');
  h.when(call('set_value', { value: '110' }));
  t.equal(h.shown.state, '70.0', 'unchanged');
  t.same(h.rejected, [{ type: 'rejected', code: 'invalid_format', message: 'Invalid value for input_number.test_1: 110.0 (range 0.0 - 100.0)' }]);
  h.when(call('set_value', { value: -0.5 }));
  t.equal(h.rejected[1].message, 'Invalid value for input_number.test_1: -0.5 (range 0.0 - 100.0)');
  t.equal(h.when(call('set_value', { value: 100 })).shown.state, '100.0', 'max itself is allowed');
});

t.test('increment and decrement stop at the limits', async (t) => {
  const up = given({ test_2: { initial: 50, min: 0, max: 51 } });
  t.equal(up.when(call('increment')).shown.state, '51.0');
  t.equal(up.when(call('increment')).shown.state, '51.0');
  const down = given({ test_3: { initial: 50, min: 49, max: 100 } });
  t.equal(down.when(call('decrement')).shown.state, '49.0');
  t.equal(down.when(call('decrement')).shown.state, '49.0');
  t.same([...up.rejected, ...down.rejected], []);
});

t.test('a step that introduces floating-point error shows rounded', async (t) => {
  t.not(2.4 + 1.2, 3.6);
  t.equal(given({ test_2: { initial: 2.4, min: 0, max: 51, step: 1.2 } }).when(call('increment')).shown.state, '3.6');
});

t.test('attributes: keys and order of the original', async (t) => {
  const shown = given({ volume: { name: 'Volume', min: 0, max: 11, step: 0.5, initial: 3, unit_of_measurement: 'dB', icon: 'mdi:volume-high', mode: 'box' } }).shown;
  t.same(shown, {
    state: '3.0',
    attributes: { initial: 3, editable: false, min: 0, max: 11, step: 0.5, mode: 'box', unit_of_measurement: 'dB', icon: 'mdi:volume-high', friendly_name: 'Volume' },
  });
  t.same(Object.keys(shown.attributes), ['initial', 'editable', 'min', 'max', 'step', 'mode', 'unit_of_measurement', 'icon', 'friendly_name']);
  const plain = given({ b1: { min: 0, max: 100 } }).shown;
  t.same(plain, { state: '0.0', attributes: { initial: null, editable: false, min: 0, max: 100, step: 1, mode: 'slider' } }, 'defaults: step 1, slider, initial null');
});

t.test('restore: the last state when it is a number within the range, else min', async (t) => {
  const table: Array<[Record<string, unknown>, string | undefined, string]> = [
    [{ min: 0, max: 100 }, '70', '70.0'],
    [{ min: 10, max: 100 }, '200', '10.0'],
    [{ min: 10, max: 100 }, 'unknown', '10.0'],
    [{ min: 10, max: 100 }, 'nan', '10.0'],
    [{ min: 0, max: 100 }, ' 1_5.5 ', '15.5'],
    [{ min: 0, max: 100 }, undefined, '0.0'],
    [{ initial: 50, min: 0, max: 100 }, '70', '50.0'],
    [{ initial: 60, min: 0, max: 100 }, '200', '60.0'],
  ];
  for (const [config, restored, expected] of table) {
    t.equal(given({ b1: config }, restored).shown.state, expected, `${JSON.stringify(config)} restored ${restored}`);
  }
});

t.test('reload keeps the value, moved into the new limits', async (t) => {
  const h = given({ test_1: { initial: 50, min: 0, max: 51 } });
  h.when({ type: 'configure', config: domain.parseConfig({ test_1: { initial: 40, min: 0, max: 51 } })[0].config });
  t.equal(h.shown.state, '50.0', 'a new initial does not move the value');
  t.equal(h.shown.attributes.initial, 40);
  h.when({ type: 'configure', config: domain.parseConfig({ test_1: { min: 0, max: 5 } })[0].config });
  t.equal(h.shown.state, '5.0');
  h.when({ type: 'configure', config: domain.parseConfig({ test_1: { min: 9, max: 20 } })[0].config });
  t.equal(h.shown.state, '9.0');
});

t.test('Python float formatting', async (t) => {
  const repr: Array<[number, string]> = [
    [50, '50.0'], [0.1, '0.1'], [-0.5, '-0.5'], [1e-5, '1e-05'], [0.0001, '0.0001'], [1e16, '1e+16'],
    [123456789012345680, '1.2345678901234568e+17'], [1.5e300, '1.5e+300'], [Infinity, 'inf'], [-0, '-0.0'],
  ];
  for (const [n, text] of repr) t.equal(pyFloat(n), text, `repr(${n})`);
  const state: Array<[number, string]> = [
    [2.4 + 1.2, '3.6'], [0.1 + 0.2, '0.3'], [50, '50.0'], [1e14, '1e+14'], [12345678901234, '12345678901234.0'],
    [123456789012345, '1.23456789012345e+14'], [0.00001, '1e-05'], [1 / 3, '0.333333333333333'], [0, '0.0'],
  ];
  for (const [n, text] of state) t.equal(pyFloatState(n), text, `f"{${n}:.15}"`);
});

t.test('parseConfig', async (t) => {
  t.same(domain.parseConfig({ volume: { min: '0', max: 10, step: '0.5' } }), [{ objectId: 'volume', config: { min: 0, max: 10, step: 0.5, mode: 'slider' } }]);
  const bad: Array<[unknown, RegExp]> = [
    [{ test_1: { min: 50, max: 50 } }, /'input_number' item 'test_1': Maximum \(50\.0\) is not greater than minimum \(50\.0\)/],
    [{ test_1: { min: 0, max: 10, initial: 11 } }, /key 'initial': Initial value 11\.0 not in range 0\.0-10\.0/],
    [{ test_1: { max: 10 } }, /'input_number' item 'test_1', key 'min': required key not provided/],
    [{ test_1: null }, /key 'min': required key not provided/],
    [{ test_1: { min: 0, max: 10, step: 0 } }, /key 'step': value must be at least 1e-09/],
    [{ test_1: { min: 'low', max: 10 } }, /key 'min': expected float/],
    [{ test_1: { min: 0, max: 10, mode: 'dial' } }, /key 'mode': value must be one of \['box', 'slider'\]/],
    [{ test_1: { min: 0, max: 10, unit: 'W' } }, /key 'unit': extra keys not allowed/],
    [{ 'test-1': { min: 0, max: 10 } }, /invalid slug test-1 \(try test_1\)/],
  ];
  for (const [section, message] of bad) t.throws(() => domain.parseConfig(section), message, JSON.stringify(section));
});

t.test('services as the original describes them', async (t) => {
  t.same(domain.services.map((s) => s.service), ['set_value', 'increment', 'decrement']);
  t.same(service('set_value').description, {
    name: 'Set',
    description: 'Sets the value of an input number.',
    fields: {
      value: {
        required: true,
        selector: { number: { min: 0, max: 9223372036854775807, step: 0.001, mode: 'box' } },
        name: 'Value',
        description: 'The target value.',
      },
    },
    target: { entity: [{ domain: ['input_number'] }] },
  });
  t.equal(service('increment').description.description, 'Increments the value of an input number by 1 step.');
  const schema = service('set_value').schema;
  for (const ok of [{ value: 5 }, { value: '30.4' }, { value: ' -1e3 ' }, { value: 'inf' }]) t.ok(Value.Check(schema, ok), JSON.stringify(ok));
  for (const bad of [{}, { value: 'abc' }, { value: 'nan' }, { value: null }, { value: 1, extra: 2 }]) t.notOk(Value.Check(schema, bad), JSON.stringify(bad));
  t.same(call('set_value', { value: ' -1e3 ' }), { type: 'set_value', value: -1000 });
});
