// Cross-checked against the original's tests/components/counter/test_init.py (config options,
// increment/decrement/reset, step, restore unless `restore: false`, minimum/maximum clamping,
// set_value and its three refusals, reload clamping into the new limits).
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { counterDomain as domain } from '../../actors/entities/domains/counter.ts';
import { TEST_ENV, givenHelper } from '../helpers/helper-domain.ts';

const given = (section: unknown, restored?: string) => givenHelper(domain, section, restored);

const service = (name: string) => domain.services.find((s) => s.service === name)!;
const call = (name: string, data: Record<string, unknown> = {}) => service(name).toEvent(data, TEST_ENV);

t.test('config options', async (t) => {
  t.same(given({ test_1: {} }).shown, { state: '0', attributes: { editable: false, initial: 0, step: 1 } });
  t.same(given({ test_1: null }).shown.state, '0');
  const shown = given({ test_2: { name: 'Hello World', icon: 'mdi:work', initial: 10, step: 5, minimum: -5, maximum: 50 } }).shown;
  t.same(shown, { state: '10', attributes: { editable: false, initial: 10, step: 5, minimum: -5, maximum: 50, icon: 'mdi:work', friendly_name: 'Hello World' } });
  t.same(Object.keys(shown.attributes), ['editable', 'initial', 'step', 'minimum', 'maximum', 'icon', 'friendly_name'], 'attribute order of the original');
});

t.test('increment, decrement, reset', async (t) => {
  const table: Array<[Record<string, unknown>, string[], string[]]> = [
    [{}, ['increment', 'increment', 'decrement', 'reset'], ['1', '2', '1', '0']],
    [{ name: 'Hello World', initial: 10, step: 5 }, ['increment', 'increment', 'decrement'], ['15', '20', '15']],
    [{ minimum: -1, maximum: 1, initial: 0 }, ['increment', 'increment', 'decrement', 'decrement', 'decrement'], ['1', '1', '0', '-1', '-1']],
    // the original moves the initial value inside the limits only when it is applied again
    [{ minimum: 5, initial: 0 }, ['reset'], ['5']],
  ];
  for (const [config, services, states] of table) {
    const h = given({ test: config });
    t.same(services.map((s) => h.when(call(s)).shown.state), states, `${JSON.stringify(config)}: ${services.join(', ')}`);
    t.same(h.rejected, []);
  }
  t.equal(given({ test: { minimum: 5, initial: 0 } }).shown.state, '0', 'initial below minimum shows as it is at start');
});

t.test('set_value and its refusals', async (t) => {
  const h = given({ test: { minimum: -10, maximum: 10, step: 3 } });
  t.equal(h.when(call('set_value', { value: 9 })).shown.state, '9');
  t.equal(h.when(call('set_value', { value: '-6' })).shown.state, '-6', 'strings coerced as int() does');
  h.when(call('set_value', { value: 12 }), call('set_value', { value: -12 }), call('set_value', { value: 4 }));
  t.equal(h.shown.state, '-6', 'unchanged');
  t.same(h.rejected, [
    { type: 'rejected', code: 'unknown_error', message: 'Value 12 for counter.test exceeding the maximum value of 10' },
    { type: 'rejected', code: 'unknown_error', message: 'Value -12 for counter.test exceeding the minimum value of -10' },
    { type: 'rejected', code: 'unknown_error', message: 'Value 4 for counter.test is not a multiple of the step size 3' },
  ]);
  t.equal(given({ test: { step: 0 } }).when(call('set_value', { value: 7 })).shown.state, '7', 'step 0: no multiple check');
});

t.test('restore: the last count (within the limits) unless restore is false', async (t) => {
  const table: Array<[Record<string, unknown>, string | undefined, string]> = [
    [{}, '11', '11'],
    [{ initial: 10 }, '-22', '-22'],
    [{ restore: false }, '11', '0'],
    [{ restore: false, initial: 10 }, '-22', '10'],
    [{ maximum: 5 }, '11', '5'],
    [{ minimum: 0 }, '-22', '0'],
    [{ initial: 3 }, undefined, '3'],
    [{ initial: 3 }, 'unknown', '3'],
  ];
  for (const [config, restored, expected] of table) {
    t.equal(given({ test1: config }, restored).shown.state, expected, `${JSON.stringify(config)} restored ${restored}`);
  }
});

t.test('reload keeps the count, moved into the new limits', async (t) => {
  const h = given({ test: { initial: 8 } });
  h.when({ type: 'configure', config: domain.parseConfig({ test: { maximum: 5, step: 2 } })[0].config });
  t.same(h.shown, { state: '5', attributes: { editable: false, initial: 0, step: 2, maximum: 5 } });
  h.when({ type: 'configure', config: domain.parseConfig({ test: { minimum: 6 } })[0].config });
  t.equal(h.shown.state, '6');
});

t.test('parseConfig', async (t) => {
  t.same(domain.parseConfig({ visits: { initial: '3', restore: 'off', minimum: null, maximum: '9' } }), [
    { objectId: 'visits', config: { initial: 3, maximum: 9, minimum: null, restore: false, step: 1 } },
  ]);
  const bad: Array<[unknown, RegExp]> = [
    [{ test: { initial: -1 } }, /'counter' item 'test', key 'initial': value must be at least 0/],
    [{ test: { step: 'two' } }, /key 'step': expected int/],
    [{ test: { restore: 'maybe' } }, /key 'restore': invalid boolean value maybe/],
    [{ test: { maximum: 'lots' } }, /key 'maximum': expected int/],
    [{ test: { min: 0 } }, /key 'min': extra keys not allowed/],
    [{ 'name with space': null }, /invalid slug name with space/],
  ];
  for (const [section, message] of bad) t.throws(() => domain.parseConfig(section), message, JSON.stringify(section));
});

t.test('services as the original describes them', async (t) => {
  t.same(domain.services.map((s) => s.service), ['increment', 'decrement', 'reset', 'set_value']);
  const target = { entity: [{ domain: ['counter'] }] };
  t.same(service('reset').description, { name: 'Reset', description: 'Resets a counter to its initial value.', fields: {}, target });
  t.same(service('set_value').description, {
    name: 'Set',
    description: 'Sets the counter to a specific value.',
    fields: {
      value: {
        required: true,
        selector: { number: { min: 0, max: 9223372036854775807, mode: 'box' } },
        name: 'Value',
        description: 'The new counter value the entity should be set to.',
      },
    },
    target,
  });
  const schema = service('set_value').schema;
  for (const ok of [{ value: 5 }, { value: '5' }, { value: ' -5 ' }, { value: 5.7 }]) t.ok(Value.Check(schema, ok), JSON.stringify(ok));
  for (const bad of [{}, { value: '5.5' }, { value: 'x' }, { value: 5, step: 1 }]) t.notOk(Value.Check(schema, bad), JSON.stringify(bad));
  t.same(call('set_value', { value: 5.7 }), { type: 'set_value', value: 5 }, 'int() truncates');
});
