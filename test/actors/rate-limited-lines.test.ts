// Lines a client can cause at will: the first few of each kind per window, then a count.
import t from 'tap';
import { RateLimitedLines } from '../../actors/logging/rate-limited.ts';

const wait = (ms: number) => new Promise((r) => setTimeout(r, ms));

t.test('each kind has its own window; what goes past it is counted when the window ends', async (t) => {
  const said: string[] = [];
  const lines = new RateLimitedLines((l) => said.push(l), { lines: 2, windowMs: 100 });
  let made = 0;
  const line = (text: string) => () => {
    made++;
    return text;
  };
  for (let i = 0; i < 5; i++) lines.write('pings', line(`ping ${i}`));
  lines.write('pongs', line('pong 0'));
  t.same(said, ['ping 0', 'ping 1', 'pong 0']);
  t.equal(made, 3, 'a suppressed line is never made');
  await wait(150);
  t.same(said.slice(3), ['3 more pings suppressed (at most 2 lines of them every 100 ms)'], 'one count per window that left lines out');
  lines.write('pings', line('ping 5'));
  t.equal(said.at(-1), 'ping 5', 'a new window lets lines through again');
});

t.test('closing says what the open windows left out', async (t) => {
  const said: string[] = [];
  const lines = new RateLimitedLines((l) => said.push(l), { lines: 1, windowMs: 60_000 });
  lines.write('refusals', () => 'first');
  lines.write('refusals', () => 'second');
  lines.write('other', () => 'alone');
  lines.close();
  t.same(said, ['first', 'alone', '1 more refusals suppressed (at most 1 line of them every 60 s)']);
  lines.close();
  t.equal(said.length, 3, 'said once');
});
