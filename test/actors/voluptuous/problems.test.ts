// TypeBox's errors in voluptuous' words: each builder's reason, where a problem is, and humanize_error's text.
import t from 'tap';
import { allProblems, decode, firstProblem } from '../../../actors/voluptuous/check.ts';
import { humanize, humanizeProblem } from '../../../actors/voluptuous/humanize.ts';
import * as v from '../../../actors/voluptuous/schema.ts';

t.test('each validator refuses in the original words', async (t) => {
  // schema, value, reason of the first problem
  const cases: [string, import('@sinclair/typebox').TSchema, unknown, string][] = [
    ['str', v.str, 5, 'expected str'],
    ['bool', v.bool, 'yes', 'expected bool'],
    ['boolean', v.boolean, 'maybe', 'expected boolean'],
    ['boolean refuses 2', v.boolean, 2, 'expected boolean'],
    ['lenientBoolean', v.lenientBoolean, 'maybe', 'expected boolean'],
    ['int', v.int(), 1.5, 'expected int'],
    ['int below', v.int(1, 65535), 0, 'value must be at least 1'],
    ['int above', v.int(1, 65535), 70000, 'value must be at most 65535'],
    ['intRange refuses a str as an int', v.intRange(0, 200), '10', 'expected int'],
    ['intRange above', v.intRange(0, 200), 201, 'value must be at most 200'],
    ['float', v.float, 'high', 'expected float'],
    ['coerceInt', v.coerceInt, '1.5', 'expected int'],
    ['oneOf', v.oneOf(['auto', 'manual']), 'sometimes', "value must be one of ['auto', 'manual']"],
    ['coerceEnum', v.coerceEnum('BootSlot', ['A', 'B']), 'C', "expected BootSlot or one of 'A', 'B'"],
    ['matching', v.matching(/^[a-z]+$/), 'A1', 'does not match regular expression ^[a-z]+$'],
    ['matching with flags', v.matching(/^\d+([KMG](i?B)?|B)?$/i, 'expected string or buffer'), '2X', 'does not match regular expression ^\\d+([KMG](i?B)?|B)?$'],
    ['matching a number', v.matching(/^\d+$/i, 'expected string or buffer'), 2, 'expected string or buffer'],
    ['nameMatching', v.nameMatching(/^[^/]+\.tar$/), 'a\x01.tar', 'contains control characters'],
    ['versionTag', v.versionTag, [1], 'not a valid value'],
    ['maybe speaks as its value', v.maybe(v.int(68)), 'x', 'expected int'],
    ['maybe of a range', v.maybe(v.int(68)), 67, 'value must be at least 68'],
    ['list', v.list(v.str), 'a', 'expected list'],
    ['listOf', v.listOf(v.str), 'a', 'expected a list'],
    ['list item', v.list(v.oneOf(['a'])), ['b'], "value must be one of ['a']"],
    ['dict', v.dict, [], 'expected dict'],
    ['schema', v.schema({}), 'x', 'expected a dictionary'],
  ];
  for (const [name, schema, value, reason] of cases) t.equal(firstProblem(schema, value)?.reason, reason, name);
});

t.test('a passing value is decoded with its coercions', async (t) => {
  t.equal(decode(v.boolean, 'Yes'), true);
  t.equal(decode(v.lenientBoolean, []), false);
  t.equal(decode(v.float, '1.5'), 1.5);
  t.equal(decode(v.coerceInt, ' 7 '), 7);
  t.equal(decode(v.coerceInt, 7.9), 7);
  t.equal(decode(v.intRange(0, 200), true), 1);
  t.equal(decode(v.versionTag, 17.1), '17.1');
  t.same(decode(v.schema({ a: v.boolean, b: v.required(v.str) }), { a: 'off', b: 'x' }), { a: false, b: 'x' });
});

t.test('a refinement refuses with its own reason; its other errors go through as they are', async (t) => {
  const even = v.refine(v.int(), (n) => {
    if (n % 2) throw new v.Refusal('expected an even number');
    return n;
  });
  t.throws(() => decode(even, 3), { message: 'expected an even number', constructor: v.Refusal });
  t.equal(decode(even, 4), 4);
});

const NESTED = v.schema({
  ipv4: v.schema({ address: v.listOf(v.checkedText('test_ip', (s) => /^\d+\.\d+\.\d+\.\d+$/.test(s), 'expected IPv4Address')), method: v.coerceEnum('InterfaceMethod', ['auto', 'static']) }),
  ports: v.dict,
  slot: v.required(v.coerceEnum('BootSlot', ['A', 'B'])),
});

t.test("humanize_error: every problem, sorted, the value's own in a dict 'for dictionary value'", async (t) => {
  const problems = allProblems(NESTED, { ipv4: { address: ['1.2.3.4', 'x'], method: 'dhcp', dns: 1 }, bogus: "it's" });
  t.equal(
    humanize(problems),
    [
      "expected IPv4Address @ data['ipv4']['address'][1]. Got 'x'",
      "expected InterfaceMethod or one of 'auto', 'static' for dictionary value @ data['ipv4']['method']. Got 'dhcp'",
      "extra keys not allowed @ data['bogus']. Got \"it's\"",
      "extra keys not allowed @ data['ipv4']['dns']. Got 1",
      "required key not provided @ data['slot']. Got None",
    ].join('\n'),
  );
  t.equal(humanize(allProblems(NESTED, { slot: 'A', ipv4: 'auto' })), "expected a dictionary for dictionary value @ data['ipv4']. Got 'auto'");
  t.equal(humanize(allProblems(NESTED, [])), 'expected a dictionary. Got []', 'the top has no path');
});

t.test('a path tells list indices from dict keys that look like numbers', async (t) => {
  const schema = v.schema({ m: v.schema({ 0: v.str }), l: v.listOf(v.str) });
  t.equal(humanize(allProblems(schema, { m: { 0: 1 }, l: ['a', 2] })), "expected str @ data['l'][1]. Got 2\nexpected str for dictionary value @ data['m']['0']. Got 1");
});

t.test("humanizeProblem cuts the repr where the caller keeps voluptuous' limit", async (t) => {
  const p = { reason: 'expected int', path: [], value: { a: 'x'.repeat(600) }, own: false };
  t.equal(humanizeProblem(p, 500), `expected int. Got {'a': '${'x'.repeat(490)}...`);
  t.equal(humanizeProblem(p).length, 'expected int. Got '.length + 609);
});
