import t from 'tap';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const guard = fileURLToPath(new URL('../../bin/guard.ts', import.meta.url));

/** Runs a small program under the guard; `stop` prints and exits with the code it is given. */
function run(body: string) {
  const program = `
    import { guardProcess } from ${JSON.stringify(guard)};
    guardProcess({ logLine: (l) => console.error(l), stop: (code) => { console.error('stopping ' + code); process.exit(code); } });
    ${body}
  `;
  return spawnSync(process.execPath, ['--import=tsx', '--input-type=module', '-e', program], { encoding: 'utf8', timeout: 30_000 });
}

t.test('an exception nobody caught is logged with its stack, then Hearth stops with code 70', async (t) => {
  const r = run(`setTimeout(() => { throw new Error('boom in a timer', { cause: new Error('the cause') }); }, 10);`);
  t.equal(r.status, 70);
  t.match(r.stderr, /unexpected error \(uncaughtException\), a bug; stopping with code 70/);
  t.match(r.stderr, /Error: boom in a timer\n\s+at /, 'the stack is printed');
  t.match(r.stderr, /caused by: Error: the cause/);
  t.match(r.stderr, /stopping 70/);
});

t.test('a rejected promise nobody awaited is logged and the process runs on', async (t) => {
  const r = run(`Promise.reject(new Error('lost rejection')); setTimeout(() => { console.log('still running'); }, 100);`);
  t.equal(r.status, 0);
  t.match(r.stderr, /a failed promise nobody awaited, a bug; running on:\nError: lost rejection/);
  t.match(r.stdout, /still running/);
});

t.test('a thrown non-error is described, not lost', async (t) => {
  const r = run(`setTimeout(() => { throw { weird: true }; }, 10);`);
  t.equal(r.status, 70);
  t.match(r.stderr, /thrown value: \{"weird":true\}/);
});
