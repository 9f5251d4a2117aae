import { budget } from './budget.ts';
import { Float, pyEq } from './values.ts';

/**
 * Values seen so far, found again by Python's ==, for set(), unique and the set operations.
 * Strings and numbers (1, 1.0 and True are one value, as in Python) are found by hashing, so
 * deduplicating 100,000 of them is linear; only lists, dicts and objects are compared one by
 * one, each comparison counted against the render.
 */
export class DistinctValues {
  private readonly strings = new Set<string>();
  private readonly numbers = new Set<number>();
  private sawNone = false;
  private readonly others: unknown[] = [];

  has(x: unknown): boolean {
    if (typeof x === 'string') return this.strings.has(x);
    const n = numberKey(x);
    if (n !== undefined) return this.numbers.has(n);
    if (x === null || x === undefined) return this.sawNone;
    const work = budget();
    for (const y of this.others) {
      work.tick();
      if (pyEq(x, y)) return true;
    }
    return false;
  }

  /** Adds `x`; true when it was not there yet. */
  add(x: unknown): boolean {
    budget().tick();
    if (this.has(x)) return false;
    const n = numberKey(x);
    if (typeof x === 'string') this.strings.add(x);
    else if (n !== undefined) this.numbers.add(n);
    else if (x === null || x === undefined) this.sawNone = true;
    else this.others.push(x);
    return true;
  }
}

function numberKey(x: unknown): number | undefined {
  if (typeof x === 'number') return x;
  if (typeof x === 'boolean') return Number(x);
  if (x instanceof Float) return x.value;
  return undefined;
}
