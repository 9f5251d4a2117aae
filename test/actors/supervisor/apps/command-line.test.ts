// backup_pre/backup_post commands split into argv as the original's engine client splits them
// (Python's shlex.split): words, quotes, backslashes; no shell, so $, ; and | stay text.
import t from 'tap';
import { splitCommandLine } from '../../../../actors/supervisor/apps/command-line.ts';

t.test('words, quotes and backslashes', async (t) => {
  t.same(splitCommandLine('touch /data/x'), ['touch', '/data/x']);
  t.same(splitCommandLine('  a \t b\n c  '), ['a', 'b', 'c'], 'any run of whitespace separates');
  t.same(splitCommandLine(`sh -c 'echo "$HOME" > /data/y; exit 3'`), ['sh', '-c', 'echo "$HOME" > /data/y; exit 3'], 'single quotes keep everything');
  t.same(splitCommandLine('echo "a \\"b\\" \\\\ \\x"'), ['echo', 'a "b" \\ \\x'], 'in double quotes a backslash escapes only \\ " $ `');
  t.same(splitCommandLine('a\\ b c'), ['a b', 'c'], 'an escaped space joins');
  t.same(splitCommandLine("x''y \"\" ''"), ['xy', '', ''], 'empty quotes are empty words');
  t.same(splitCommandLine('ls | wc; rm -rf $X'), ['ls', '|', 'wc;', 'rm', '-rf', '$X'], 'no shell: operators are text');
  t.same(splitCommandLine(''), []);
});

t.test('an unclosed quote or a trailing backslash is refused', async (t) => {
  t.throws(() => splitCommandLine("sh -c 'echo"), { message: 'No closing quotation' });
  t.throws(() => splitCommandLine('echo "a'), { message: 'No closing quotation' });
  t.throws(() => splitCommandLine('echo a\\'), { message: 'No escaped character' });
});
