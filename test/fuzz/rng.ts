// A small seeded PRNG so that every fuzz run can be replayed from its seed.

/** mulberry32: 32 bits of state, good enough to pick test inputs. */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** FNV-1a, to derive one case's seed from the run's seed and the case's name. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

export class Rng {
  private readonly next: () => number;
  constructor(readonly seed: number) {
    this.next = mulberry32(seed);
  }
  float(): number {
    return this.next();
  }
  /** 0 <= n < max */
  int(max: number): number {
    return Math.floor(this.next() * max);
  }
  range(min: number, max: number): number {
    return min + this.int(max - min + 1);
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
  /** picks by weight: [[weight, value], ...] */
  weighted<T>(items: ReadonlyArray<readonly [number, T]>): T {
    const total = items.reduce((s, [w]) => s + w, 0);
    let r = this.next() * total;
    for (const [w, v] of items) {
      if ((r -= w) < 0) return v;
    }
    return items[items.length - 1][1];
  }
}

/** The run's seed: HEARTH_FUZZ_SEED, or a fresh one (printed by the suites). */
export function fuzzSeed(): number {
  const env = process.env.HEARTH_FUZZ_SEED;
  if (env !== undefined && env !== '') {
    const n = Number(env);
    if (!Number.isInteger(n)) throw new Error(`HEARTH_FUZZ_SEED must be an integer, got ${JSON.stringify(env)}`);
    return n >>> 0;
  }
  return (Math.random() * 2 ** 32) >>> 0;
}

/** Each case gets its own generator, so one case can be replayed alone (HEARTH_FUZZ_CASE). */
export function caseRng(seed: number, caseId: string): Rng {
  return new Rng(hash32(`${seed}/${caseId}`));
}
