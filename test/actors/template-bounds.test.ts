// Every function that makes a value grow, at a value limit of 1,000: a result at the limit is
// built, one a character or an item past it is refused; work on nested values counts as steps.
// And what the bounded functions give, checked against Python's and Jinja's answers.
import t from 'tap';
import { systemClock } from '../../actors/clock.ts';
import { Templates } from '../../actors/templates/index.ts';

const LIMIT = 1000;
const STEPS = 200_000;

function templates(limits: { valueChars?: number; steps?: number } = {}) {
  return new Templates({
    entities: { get: () => undefined, states: () => [] },
    coreConfig: { asDict: () => ({ time_zone: 'UTC', latitude: 0, longitude: 0, unit_system: { length: 'km' } }) },
    clock: systemClock(),
    limits,
  });
}

const small = templates({ valueChars: LIMIT, steps: STEPS });
const render = (source: string, engine = small) => {
  const outcome = engine.render(source, {});
  return outcome.ok ? outcome.text : `error: ${outcome.error}`;
};

const REFUSED = `error: Template value exceeded maximum size of ${LIMIT} characters`;
const TOO_MUCH_WORK = `error: Template rendering exceeded ${STEPS} steps`;

/** [what, a template giving a value at the limit (its length printed), the same a step past it] */
const GROWING: Array<[string, string, string]> = [
  ['str * n', "{{ ('x' * 1000) | length }}", "{{ 'x' * 1001 }}"],
  ['list * n', '{{ ([1] * 1000) | length }}', '{{ [1] * 1001 }}'],
  ['str + str', "{{ ('x' * 500 + 'x' * 500) | length }}", "{{ 'x' * 500 + 'x' * 501 }}"],
  ['list + list', '{{ ([1] * 500 + [1] * 500) | length }}', '{{ [1] * 500 + [1] * 501 }}'],
  ['~', "{{ ('x' * 500 ~ 'x' * 500) | length }}", "{{ 'x' * 500 ~ 'x' * 501 }}"],
  ['str.zfill', "{{ '1'.zfill(1000) | length }}", "{{ '1'.zfill(1001) }}"],
  ['str.ljust', "{{ 'x'.ljust(1000, '*') | length }}", "{{ 'x'.ljust(1001) }}"],
  ['str.rjust', "{{ 'x'.rjust(1000) | length }}", "{{ 'x'.rjust(1001) }}"],
  ['str.center', "{{ 'x'.center(1000) | length }}", "{{ 'x'.center(1001) }}"],
  ['center', "{{ 'x' | center(1000) | length }}", "{{ 'x' | center(1001) }}"],
  ['indent', "{{ ('x\\n' * 100) | indent(8) | length }}", "{{ ('x\\n' * 100) | indent(9) }}"],
  ['indent by a string', "{{ ('x\\n' * 100) | indent('12345678') | length }}", "{{ ('x\\n' * 100) | indent('123456789') }}"],
  ['str.replace', "{{ ('x' * 100).replace('x', 'y' * 10) | length }}", "{{ ('x' * 100).replace('x', 'y' * 11) }}"],
  ['replace', "{{ ('x' * 100) | replace('x', 'y' * 10) | length }}", "{{ ('x' * 100) | replace('x', 'y' * 11) }}"],
  ['str.join', "{{ 'c'.join(['ab'] * 333) | length }}", "{{ 'c'.join(['ab'] * 334) }}"],
  ['join', "{{ (['ab'] * 333) | join('c') | length }}", "{{ (['ab'] * 334) | join('c') }}"],
  ['join of printed lists', '{{ ([[1, 2]] * 166) | join | length }}', '{{ ([[1, 2]] * 167) | join }}'],
  ['str.format', "{{ '{:>1000}'.format('x') | length }}", "{{ '{:>1001}'.format('x') }}"],
  ['format', "{{ '%1000s' | format('x') | length }}", "{{ '%1001s' | format('x') }}"],
  ['%', "{{ ('%1000s' % 'x') | length }}", "{{ '%*s' % (1001, 'x') }}"],
  ['batch', '{{ [1] | batch(1000, 0) | first | length }}', '{{ [1] | batch(1001, 0) | list }}'],
  ['slice', "{{ [1] | slice(1000) | list | length }}", '{{ [1] | slice(1001) | list }}'],
  ['slice with a fill value', "{{ [1, 2] | slice(999, 'f') | list | length }}", "{{ [1, 2] | slice(1000, 'f') | list }}"],
  ['wordwrap', "{{ ('ab ' * 99 ~ 'ab') | wordwrap(2, wrapstring='y' * 8) | length }}", "{{ ('ab ' * 99 ~ 'ab') | wordwrap(2, wrapstring='y' * 9) }}"],
  ['truncate', "{{ ('x' * 1000) | truncate(0, end='y' * 995) | length }}", "{{ ('x' * 1000) | truncate(1, end='y' * 995) }}"],
  ['tojson', "{{ ('x' * 998) | tojson | length }}", "{{ ('x' * 999) | tojson }}"],
  ['tojson, indented', '{{ [1] | tojson(indent=995) | length }}', '{{ [1] | tojson(indent=996) }}'],
  ['to_json of a list', '{{ ([1] * 499) | to_json | length }}', '{{ ([10] * 334) | to_json }}'],
  ['urlencode', "{{ ('/' * 1000) | urlencode | length }}", "{{ ('&' * 334) | urlencode }}"],
  ['escape', "{{ ('&' * 200) | e | length }}", "{{ ('&' * 201) | e }}"],
  ['upper', "{{ ('ß' * 500) | upper | length }}", "{{ ('ß' * 501) | upper }}"],
  ['base64_encode', "{{ ('x' * 750) | base64_encode | length }}", "{{ ('x' * 751) | base64_encode }}"],
  ['slugify', "{{ ('a ' * 100) | slugify('x' * 9) | length }}", "{{ ('a ' * 100) | slugify('x' * 10) }}"],
  ['regex_replace', "{{ ('x' * 100) | regex_replace('x', 'y' * 10) | length }}", "{{ ('x' * 100) | regex_replace('x', 'y' * 11) }}"],
  ['strftime', "{{ (0 | timestamp_custom('%Y' * 250)) | length }}", "{{ 0 | timestamp_custom('%Y' * 251) }}"],
  ['flatten', '{{ [[1] * 500, [1] * 500] | flatten | length }}', '{{ [[1] * 500, [1] * 501] | flatten }}'],
  ['combine', '{{ combine(dict(zip(range(500), range(500))), dict(zip(range(500, 1000), range(500)))) | length }}', '{{ combine(dict(zip(range(500), range(500))), dict(zip(range(500, 1001), range(501)))) }}'],
  ['repr of a nested list', '{{ ([[1] * 100] * 3) | string | length }}', '{{ [[1] * 100] * 4 }}'],
  ['{% set %} block', "{% set x %}{% for i in range(100) %}{{ 'x' * 10 }}{% endfor %}{% endset %}{{ x | length }}", "{% set x %}{% for i in range(101) %}{{ 'x' * 10 }}{% endfor %}{% endset %}{{ x }}"],
];

t.test('each growing function builds up to the value limit and refuses past it', async (t) => {
  for (const [what, at, past] of GROWING) {
    const size = Number(render(at));
    t.ok(size > LIMIT * 0.9 && size <= LIMIT, `${what}: ${at} gives ${LIMIT * 0.9} to ${LIMIT} (got ${render(at).slice(0, 100)})`);
    t.equal(render(past), REFUSED, `${what}: ${past}`);
  }
});

t.test('work on values counts as steps', async (t) => {
  t.equal(render('{{ [[1] * 1000] * 1000 == [[1] * 1000] * 1000 }}'), TOO_MUCH_WORK, 'comparing a million items');
  t.equal(render('{{ ([[1] * 1000] * 1000) | sort | length }}'), TOO_MUCH_WORK, 'sorting by comparing long lists');
  t.equal(render('{{ zip(*([range(1000) | list] * 1000)) | length }}'), TOO_MUCH_WORK, 'zip of a thousand lists of a thousand');
  t.equal(render('{{ ([[1] * 1000] * 1000) in ([[[1] * 1000] * 1000] * 1000) }}'), TOO_MUCH_WORK, 'in, by comparing');
  t.equal(render('{{ ([1] * 1000) | sum }}'), '1000', 'a sum is a step an item');
  t.equal(render('{% for i in range(100000) %}{{ i }}{% endfor %}x', templates({ steps: 150_000 })), 'error: Template rendering exceeded 150000 steps', 'loops count steps as before');
});

t.test('what takes no room takes no time', async (t) => {
  const full = templates();
  t.equal(render('{{ ([] * 100000000000) | length }}', full), '0', 'an empty list repeated any number of times');
  t.equal(render("{{ ('' * 100000000000) | length }}", full), '0');
  t.equal(render('{{ set(range(100000) | list) | length }}', full), '100000', 'set() hashes numbers and strings');
  t.equal(render("{{ (range(100000) | map('string') | unique | list) | length }}", full), '100000');
  t.equal(render('{{ intersect(range(100000) | list, range(50000, 150000) | list) | length }}', full), '50000');
  t.equal(render('{{ set([1, 1.0, true, none, none, [1], [1]]) | list }}', full), '[1, None, [1]]', 'equal values as Python counts them');
  t.equal(render("{{ ('<' * 100000) | striptags | length }}", full), '100000', 'striptags scans once');
  t.equal(render('{{ [[1] * 200000] | flatten | length }}', full), '200000');
  t.equal(render('{{ 1 }}'.repeat(100_000), full), '1'.repeat(100_000), 'a template of 100,000 statements');
});

t.test('the bounded functions answer as Python and Jinja do', async (t) => {
  const full = templates();
  const cases: Array<[string, string]> = [
    ["{{ 'abc'.replace('', '-') }} {{ 'ab'.replace('', '-', 1) }} {{ 'aaa'.replace('a', 'b', 2) }}", '-a-b-c- -ab bba'],
    ["{{ 'ab'.center(5, '*') }}|{{ 'x'.center(4, '*') }}|{{ '-12'.zfill(6) }}|{{ 'x'.ljust(3, '.') }}|{{ 'x'.rjust(3) }}", '**ab*|*x**|-00012|x..|  x'],
    ["{{ 'x'.center(5, 'ab') }}", "error: TypeError: The fill character must be exactly one character long"],
    ["{{ 'x'.zfill('5') }}", "error: TypeError: 'str' object cannot be interpreted as an integer"],
    ["|{{ 'Hello World!' | center(20) }}|", '|    Hello World!    |'],
    ['{{ \'<a href="x">link</a> <!-- note --> text <b\' | striptags }}|{{ \'x<!--y\' | striptags }}|{{ \'a <!-- b > c --> d\' | striptags }}', 'link text <b|x<!--y|a d'],
    ["{{ 'a\\nb' | indent(-2, true) }}|{{ 'a\\nb' | indent(2) }}", 'a\nb|a\n  b'],
    ["{{ [1] | slice(3, 'f') | list }} {{ [1, 2, 3, 4] | slice(3, 'f') | list }} {{ [1, 2, 3] | batch(2, 0) | list }}", "[[1], ['f'], ['f']] [[1, 2], [3, 'f'], [4, 'f']] [[1, 2], [3, 0]]"],
    ['{{ [1] | tojson(indent=-1) }}', '[\n1\n]'],
    ["{{ 'Hello World!' | slugify('-') }} {{ 'a b' | slugify('$&') }} {{ '' | slugify }}", 'hello-world a$&b unknown'],
    ["{{ strptime('2025-01-02   10:20', '%Y-%m-%d %H:%M') }} {{ strptime('2025-01-0210:20', '%Y-%m-%d %H:%M', 'no') }}", '2025-01-02 10:20:00 no'],
    ["{{ '%-5s|%05d|%+d' % ('a', 42, 7) }} {{ '{:*^7}|{:,}'.format('ab', 1234567) }}", 'a    |00042|+7 **ab***|1,234,567'],
    ["{{ ['a\\x01', \"b'c\"] }}", "['a\\x01', \"b'c\"]"],
    ["{{ 'x' | join('y').capitalize() }}", "error: TemplateSyntaxError: expected token 'end of print statement', got '.'"],
  ];
  for (const [source, expected] of cases) t.equal(render(source, full), expected, source);
});
