import { pyRepr } from '../../machines/python/repr.ts';
import type { Path, Problem } from './problems.ts';

/** voluptuous' path as its messages write it: ` @ data['ipv4']['address'][0]`, nothing at the top. */
export function pathText(path: Path): string {
  return path.length ? ` @ data[${path.map((p) => (typeof p === 'number' ? String(p) : pyRepr(p))).join('][')}]` : '';
}

/**
 * One problem as voluptuous' humanize_error writes it: `<reason>[ for dictionary value] @ <path>.
 * Got <repr>`, the value's own failure inside a dict saying "for dictionary value", the repr cut
 * at `limit` characters where given (the original's 500 where its caller kept the default).
 */
export function humanizeProblem(p: Problem, limit?: number): string {
  const inDict = p.own && typeof p.path[p.path.length - 1] === 'string';
  let got = pyRepr(p.value);
  if (limit !== undefined && got.length > limit) got = `${got.slice(0, limit - 3)}...`;
  return `${p.reason}${inDict ? ' for dictionary value' : ''}${pathText(p.path)}. Got ${got}`;
}

/** Every problem, one a line, sorted as humanize_error sorts them. */
export function humanize(problems: Problem[]): string {
  return problems
    .map((p) => humanizeProblem(p))
    .sort()
    .join('\n');
}
