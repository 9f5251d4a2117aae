// Cross-checked against the original's tests/components/input_select/test_init.py (select_option
// with a refused unknown option, select_next/previous cycling, first/last, options as strings,
// set_options and its duplicates, restore, initial over restore, reload keeping the selection).
import t from 'tap';
import { Value } from '@sinclair/typebox/value';
import { inputSelectDomain as domain } from '../../actors/entities/domains/input_select.ts';
import { pyRepr as pyListRepr } from '../../machines/python/repr.ts';
import { TEST_ENV, givenHelper } from '../helpers/helper-domain.ts';

const given = (section: unknown, restored?: string) => givenHelper(domain, section, restored);

const service = (name: string) => domain.services.find((s) => s.service === name)!;
const call = (name: string, data: Record<string, unknown> = {}) => service(name).toEvent(data, TEST_ENV);
const three = { test_1: { options: ['first option', 'middle option', 'last option'], initial: 'middle option' } };

t.test('select_option; an unknown option is refused', async (t) => {
  const h = given({ test_1: { options: ['some option', 'another option'] } });
  t.equal(h.shown.state, 'some option');
  t.equal(h.when(call('select_option', { option: 'another option' })).shown.state, 'another option');
  h.when(call('select_option', { option: 'non existing option' }));
  t.equal(h.shown.state, 'another option');
  t.same(h.rejected, [
    { type: 'rejected', code: 'home_assistant_error', message: 'Invalid option: non existing option (possible options: some option, another option)' },
  ]);
});

t.test('select_next, select_previous, select_first, select_last', async (t) => {
  const table: Array<[string, Record<string, unknown>, string[]]> = [
    ['select_next', {}, ['last option', 'first option', 'middle option']],
    ['select_previous', {}, ['first option', 'last option', 'middle option']],
    ['select_next', { cycle: false }, ['last option', 'last option']],
    ['select_previous', { cycle: false }, ['first option', 'first option']],
  ];
  for (const [name, data, states] of table) {
    const h = given(three);
    const seen = states.map(() => h.when(call(name, data)).shown.state);
    t.same(seen, states, `${name} ${JSON.stringify(data)}`);
  }
  const h = given(three);
  t.equal(h.when(call('select_first')).shown.state, 'first option');
  t.equal(h.when(call('select_last')).shown.state, 'last option');
});

t.test('options are strings; attributes of the original', async (t) => {
  const one = given({ test_1: { options: [1, 2] } }).shown;
  t.same(one, { state: '1', attributes: { options: ['1', '2'], editable: false } });
  const two = given({ test_2: { name: 'Hello World', icon: 'mdi:work', options: ['Good Option', 'Better Option', 'Best Option'], initial: 'Better Option' } }).shown;
  t.equal(two.state, 'Better Option');
  t.same(Object.keys(two.attributes), ['options', 'editable', 'icon', 'friendly_name']);
  t.same(two.attributes, { options: ['Good Option', 'Better Option', 'Best Option'], editable: false, icon: 'mdi:work', friendly_name: 'Hello World' });
  t.same(given({ single: { options: 'only' } }).shown.attributes.options, ['only'], 'a single option is a list of one');
});

t.test('set_options', async (t) => {
  const h = given(three);
  t.equal(h.when(call('set_options', { options: ['first option', 'middle option'] })).shown.state, 'middle option', 'selection kept');
  t.equal(h.when(call('set_options', { options: ['test1', 'test2'] })).shown.state, 'test1', 'selection gone: first new option');
  h.when(call('select_option', { option: 'first option' }));
  t.equal(h.shown.state, 'test1');
  t.equal(h.when(call('select_option', { option: 'test2' })).shown.state, 'test2');
  t.same(h.shown.attributes.options, ['test1', 'test2']);
  t.equal(h.rejected.length, 1);

  const d = given(three);
  d.when(call('set_options', { options: ['option1', 'option1'] }));
  t.same(d.rejected.map((r) => [r.code, r.message]), [['home_assistant_error', "Duplicated options: ['option1', 'option1']"]]);
  t.same(d.shown, { state: 'middle option', attributes: { options: ['first option', 'middle option', 'last option'], editable: false } });
});

t.test('restore: the last state when it is an option, unless there is an initial', async (t) => {
  const options = ['first option', 'middle option', 'last option'];
  const table: Array<[Record<string, unknown>, string | undefined, string]> = [
    [{ options }, 'last option', 'last option'],
    [{ options }, 'bad option', 'first option'],
    [{ options }, undefined, 'first option'],
    [{ options, initial: 'middle option' }, 'last option', 'middle option'],
    [{ options, initial: 'middle option' }, 'bad option', 'middle option'],
  ];
  for (const [config, restored, expected] of table) {
    t.equal(given({ s1: config }, restored).shown.state, expected, `${JSON.stringify(config)} restored ${restored}`);
  }
});

t.test('reload offers the configured options and keeps the selection', async (t) => {
  const h = given({ test_2: { options: ['an option', 'not an option'], initial: 'an option' } });
  h.when({ type: 'configure', config: domain.parseConfig({ test_2: { options: ['an option', 'reloaded option'], initial: 'reloaded option' } })[0].config });
  t.same(h.shown, { state: 'an option', attributes: { options: ['an option', 'reloaded option'], editable: false } });
  // the select entity of the original shows a selection that is no longer offered as unknown,
  // and steps on from the first option
  h.when({ type: 'configure', config: domain.parseConfig({ test_2: { options: ['x', 'y', 'z'] } })[0].config });
  t.equal(h.shown.state, 'unknown');
  t.equal(h.when(call('select_next')).shown.state, 'y');
  // set_options lasts until the next reload
  h.when(call('set_options', { options: ['p', 'q'] }));
  h.when({ type: 'configure', config: domain.parseConfig({ test_2: { options: ['p', 'z'] } })[0].config });
  t.same(h.shown, { state: 'p', attributes: { options: ['p', 'z'], editable: false } });
});

t.test('parseConfig', async (t) => {
  t.same(domain.parseConfig({ mode: { options: ['a', 'b', 'a'] } }), [{ objectId: 'mode', config: { options: ['a', 'b'] } }], 'repeated options dropped');
  const bad: Array<[unknown, RegExp]> = [
    [{ bad_initial: { options: [1, 2], initial: 3 } }, /'input_select' item 'bad_initial', key 'initial': initial state 3 is not part of the options: 1,2/],
    [{ test_1: { options: [] } }, /key 'options': length of value must be at least 1/],
    [{ test_1: { name: 'x' } }, /key 'options': required key not provided/],
    [{ test_1: null }, /key 'options': required key not provided/],
    [{ test_1: { options: [['nested']] } }, /key 'options': value should be a string/],
    [{ 'name with space': { options: ['a'] } }, /invalid slug name with space/],
  ];
  for (const [section, message] of bad) t.throws(() => domain.parseConfig(section), message, JSON.stringify(section));
});

t.test('Python list repr', async (t) => {
  t.equal(pyListRepr(['a', "it's", 'say "hi"', 'back\\slash']), `['a', "it's", 'say "hi"', 'back\\\\slash']`);
});

t.test('services as the original describes them', async (t) => {
  t.same(domain.services.map((s) => s.service), ['select_first', 'select_last', 'select_next', 'select_option', 'select_previous', 'set_options']);
  const target = { entity: [{ domain: ['input_select'] }] };
  t.same(service('select_next').description, {
    name: 'Next',
    description: 'Selects the next option.',
    fields: { cycle: { default: true, selector: { boolean: null }, name: 'Cycle', description: 'If the option should cycle from the last to the first option on the list.' } },
    target,
  });
  t.same(service('select_option').description, {
    name: 'Select',
    description: 'Selects an option.',
    fields: { option: { required: true, example: '"Item A"', selector: { text: null }, name: 'Option', description: 'Option to be selected.' } },
    target,
  });
  t.same(service('set_options').description.fields.options, {
    required: true,
    example: '["Item A", "Item B", "Item C"]',
    selector: { object: null },
    name: 'Options',
    description: 'List of options.',
  });
  t.same(service('select_first').description, { name: 'First', description: 'Selects the first option.', fields: {}, target });
  t.same(call('select_next'), { type: 'select_next', cycle: true }, 'cycle defaults to true');
  t.ok(Value.Check(service('select_next').schema, { cycle: false }));
  t.notOk(Value.Check(service('select_next').schema, { cycle: 'no' }), 'cycle is a strict bool');
  t.ok(Value.Check(service('set_options').schema, { options: 'single' }));
  t.notOk(Value.Check(service('set_options').schema, { options: [] }));
  t.same(call('set_options', { options: 'single' }), { type: 'set_options', options: ['single'] });
  t.notOk(Value.Check(service('select_option').schema, {}));
});
