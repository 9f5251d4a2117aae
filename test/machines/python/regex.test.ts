// Python patterns translated for JavaScript's RegExp: each matches what re.match / re.search match.
import t from 'tap';
import { pythonPattern } from '../../../machines/python/regex.ts';

const compile = (pattern: string, ignoreCase = false) => {
  const { source, flags } = pythonPattern(pattern, ignoreCase);
  return new RegExp(source, flags);
};

t.test('the syntax that differs is translated', async (t) => {
  t.same(pythonPattern('(?P<year>\\d{4})-(?P=year)'), { source: '(?<year>\\d{4})-\\k<year>', flags: '' });
  t.same(pythonPattern('\\Aab\\Z'), { source: '^ab$(?![\\s\\S])', flags: '' });
  t.same(pythonPattern('\\\\A'), { source: '\\\\A', flags: '' }, 'an escaped backslash before A is no anchor');
  t.same(pythonPattern('a{,3}'), { source: 'a{0,3}', flags: '' });
  t.same(pythonPattern('(?im)abc'), { source: 'abc', flags: 'im' });
  t.same(pythonPattern('abc', true), { source: 'abc', flags: 'i' });
  t.same(pythonPattern('(?x) a b  # a comment\n [ ] c'), { source: 'ab[ ]c', flags: '' });
});

t.test('the translated pattern matches as Python matches', async (t) => {
  // pattern, text, re.search(pattern, text) is not None
  const cases: [string, string, boolean][] = [
    ['\\Aab\\Z', 'ab', true],
    ['\\Aab\\Z', 'ab\n', false],
    ['(?P<x>a)(?P=x)', 'aa', true],
    ['(?P<x>a)(?P=x)', 'ab', false],
    ['(?i)ABC', 'xabc', true],
    ['^a{,2}$', 'aaa', false],
    ['^a{,2}$', 'aa', true],
  ];
  for (const [pattern, text, found] of cases) t.equal(compile(pattern).test(text), found, `${pattern} on ${JSON.stringify(text)}`);
});

t.test('what has no translation is refused', async (t) => {
  t.throws(() => pythonPattern('(?i:a)b'), { name: 'UnsupportedPattern' });
  t.throws(() => pythonPattern('(a)?(?(1)b|c)'), { name: 'UnsupportedPattern' });
});
