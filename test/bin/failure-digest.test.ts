// The test runner repeats the failed assertions just above its count, for CI that keeps the tail.
import t from 'tap';
import { FailureDigest } from '../helpers/failure-digest.ts';

const stream = [
  '# Subtest: test/a.test.ts',
  '    # Subtest: outer',
  '        # Subtest: inner',
  '            not ok 1 - one is two',
  '              ---',
  '              found: 1',
  '              wanted: 2',
  '              ...',
  '            ok 2 - fine',
  '            1..2',
  '        not ok 1 - inner',
  '    not ok 1 - outer',
  '    # Subtest: slow',
  '    not ok 2 - slow',
  '      ---',
  '      message: timeout!',
  '      ...',
  'not ok 1 - test/a.test.ts',
  '# Subtest: test/b.test.ts',
  '    ok 1 - fine',
  'ok 2 - test/b.test.ts',
  '',
].join('\n');

t.test('leaf failures with their subtests and diagnostics; a subtest failing on its own is kept', async (t) => {
  const digest = new FailureDigest();
  // split mid-line, as a pipe delivers it
  digest.feed(stream.slice(0, 100));
  digest.feed(stream.slice(100));
  const text = digest.render();
  t.match(text, 'test/a.test.ts > outer > inner > not ok 1 - one is two\n      found: 1\n      wanted: 2');
  t.match(text, 'test/a.test.ts > not ok 2 - slow\n      message: timeout!');
  t.notMatch(text, /> not ok 1 - outer|> not ok 1 - inner|^not ok 1 - test\/a/m, 'the parents that only repeat a child are left out');
  t.notMatch(text, 'b.test.ts');
});

t.test('nothing failed: nothing to say', async (t) => {
  const digest = new FailureDigest();
  digest.feed('# Subtest: x\n    ok 1 - y\nok 1 - x\n');
  t.equal(digest.render(), '');
});
