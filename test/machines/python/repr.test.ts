// Python's repr(), against what python3 prints for the same values.
import t from 'tap';
import { pyRepr, pyStr, strRepr } from '../../../machines/python/repr.ts';

t.test("strRepr is Python's repr(str): the quote it picks, its escapes, what it leaves printable", async (t) => {
  const cases: [string, string][] = [
    ['', "''"],
    ['a', "'a'"],
    ["it's", `"it's"`],
    ['say "hi"', `'say "hi"'`],
    [`both ' and "`, `'both \\' and "'`],
    ['back\\slash', "'back\\\\slash'"],
    ['tab\there', "'tab\\there'"],
    ['nl\n', "'nl\\n'"],
    ['cr\r', "'cr\\r'"],
    ['\x00\x07\x1f\x7f', "'\\x00\\x07\\x1f\\x7f'"],
    ['\x80\x9f\xa0\xad', "'\\x80\\x9f\\xa0\\xad'"],
    ['é ü ß 漢字', "'é ü ß 漢字'"],
    ['emoji 😀', "'emoji 😀'"],
    ['\u2028\u2029', "'\\u2028\\u2029'"],
    ['\u200b\ufeff', "'\\u200b\\ufeff'"],
    ['\ue000', "'\\ue000'"],
    ['😀\u{E0001}', "'😀\\U000e0001'"],
    ['\u3000 ideographic', "'\\u3000 ideographic'"],
    ['a\u00a0b', "'a\\xa0b'"],
    ['\x1b[31m', "'\\x1b[31m'"],
    ['\ud800 lone', "'\\ud800 lone'"],
  ];
  // named by the expected text: the given one may hold line separators, which would cut the report
  for (const [s, text] of cases) t.equal(strRepr(s), text, text);
});

t.test("pyRepr is Python's repr() of what json.loads gives", async (t) => {
  const cases: [unknown, string][] = [
    [null, 'None'],
    [undefined, 'None'],
    [true, 'True'],
    [false, 'False'],
    [0, '0'],
    [5, '5'],
    [-7, '-7'],
    [1e21, '1000000000000000000000'],
    [1.5, '1.5'],
    [0.1, '0.1'],
    [1e-5, '1e-05'],
    [123456789.125, '123456789.125'],
    [2.5e-7, '2.5e-07'],
    [[], '[]'],
    [{}, '{}'],
    [[1, 'a', null], "[1, 'a', None]"],
    [{ name: 5, b: [true, { c: "it's" }] }, `{'name': 5, 'b': [True, {'c': "it's"}]}`],
    [{ "k'ey": 'v' }, `{"k'ey": 'v'}`],
  ];
  for (const [v, text] of cases) t.equal(pyRepr(v), text, JSON.stringify(v) ?? 'undefined');
});

t.test("pyStr is Python's str(): text as it is, the rest as repr", async (t) => {
  t.equal(pyStr("it's"), "it's");
  t.equal(pyStr(true), 'True');
  t.equal(pyStr(['a']), "['a']");
});
