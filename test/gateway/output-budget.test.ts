import t from 'tap';
import { OutputBudget, type Backlogged } from '../../gateway/output-budget.ts';

function client(name: string, dropped: string[]): Backlogged {
  return { who: name, drop: () => void dropped.push(name) };
}

t.test('past the budget the client furthest behind is dropped, until the rest fits', async (t) => {
  const lines: string[] = [];
  const dropped: string[] = [];
  const budget = new OutputBudget(100, (l) => lines.push(l));
  const [a, b, c] = ['a', 'b', 'c'].map((n) => client(n, dropped));
  budget.set(a, 40);
  budget.set(b, 50);
  t.equal(budget.used, 90);
  t.same(dropped, [], 'within the budget nobody is dropped');
  budget.set(c, 30);
  t.same(dropped, ['b'], 'b was furthest behind');
  t.equal(budget.used, 70);
  t.match(lines[0], /more than 100 bytes for clients that do not read; dropping b, the furthest behind \(50 bytes\)/);
  budget.set(a, 0);
  t.equal(budget.used, 30, 'a drained');
  budget.set(c, 0);
  t.equal(budget.used, 0);
});

t.test('one client over the whole budget is dropped alone', async (t) => {
  const dropped: string[] = [];
  const budget = new OutputBudget(100, () => {});
  const [a, b] = ['a', 'b'].map((n) => client(n, dropped));
  budget.set(a, 10);
  budget.set(b, 500);
  t.same(dropped, ['b']);
  t.equal(budget.used, 10);
  budget.set(b, 0);
  t.equal(budget.used, 10, 'a client already dropped counts nothing more');
});
