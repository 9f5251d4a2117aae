import { RenderLimitError, type TemplateError } from './errors.ts';

/**
 * The bounds of one render: its time, its steps of work, and the size of any one value it
 * builds. Every function that builds a value passes `ensureRoom` before it builds, so a value
 * past the limit is refused before it exists and building it counts as work; the steps then
 * bound both the time and the memory a render can take.
 *
 * Comparing, printing and encoding nested values happen deep in values.ts, where no render is
 * at hand; the render running now is reachable through `budget()` for them. Renders are
 * synchronous, so at most one runs at any moment.
 */

/** Bounds of one render. */
export interface RenderLimits {
  /** wall-clock time of one render */
  timeMs: number;
  /** evaluation steps (a node, or a unit of work such as an item sorted) */
  steps: number;
  /** characters of output (the original's 256 KiB) */
  outputChars: number;
  /** characters (or items) of any one value a template builds */
  valueChars: number;
  /** nested macro calls */
  depth: number;
}

export const DEFAULT_LIMITS: RenderLimits = {
  timeMs: 1000,
  steps: 10_000_000,
  outputChars: 256 * 1024,
  valueChars: 1024 * 1024,
  depth: 100,
};

/**
 * Characters of text one step stands for. Copying text is cheaper than evaluating a node, but
 * what a render builds is also what it can hold in memory: at eight characters a step, the
 * step budget keeps a render's text under about 80 million characters.
 */
const CHARS_PER_STEP = 8;

/**
 * Steps a new list, tuple or dict stands for: with its header and the room it keeps to grow,
 * a small one takes about as much memory as two dozen items, and as long to make.
 */
const STEPS_PER_CONTAINER = 24;

/** What a size counts: items of a list or dict, characters of text, or new lists (or tuples) in a list. */
export type Room = 'items' | 'text' | 'containers';

/** Work units of building `size` of `room`. */
const workOf = (size: number, room: Room) => (room === 'text' ? size / CHARS_PER_STEP : room === 'containers' ? size * STEPS_PER_CONTAINER : size);

/**
 * The clock is read once per this many steps: performance.now() costs more than a step. Work
 * done natively on a whole value (a copy, a comparison) is not counted step by step, so the
 * clock is read often enough that a stretch of such steps stays short.
 */
const CLOCK_EVERY = 128;

export class RenderBudget {
  private steps = 0;
  private nextClock = CLOCK_EVERY;
  private readonly deadline: number;

  constructor(
    private readonly limits: RenderLimits,
    /**
     * set when the caller gave a timeout: running out of time or of steps (the work the time
     * limit stands for) is then the caller's error, as a render that would run past it
     */
    private readonly timeoutError?: () => TemplateError,
  ) {
    this.deadline = performance.now() + limits.timeMs;
  }

  /** One step. */
  tick(): void {
    if (++this.steps >= this.nextClock) this.charge(0);
  }

  /** `units` steps of work done outside the evaluator; throws past the steps or the time. */
  charge(units: number): void {
    this.steps += units;
    if (this.steps > this.limits.steps) throw this.timeoutError?.() ?? new RenderLimitError('', `Template rendering exceeded ${this.limits.steps} steps`);
    if (this.steps < this.nextClock) return;
    this.nextClock = this.steps + CLOCK_EVERY;
    if (performance.now() > this.deadline) throw this.timeoutError?.() ?? new RenderLimitError('', `Template rendering took longer than ${this.limits.timeMs} ms`);
  }

  /** The work of reading or copying `chars` characters of text. */
  chargeText(chars: number): void {
    this.charge(chars / CHARS_PER_STEP);
  }

  /** Refuses a value of `size` characters or items (NaN too: a size that is no number is no room). */
  checkSize(size: number): void {
    if (!(size <= this.limits.valueChars)) throw new RenderLimitError('', `Template value exceeded maximum size of ${this.limits.valueChars} characters`);
  }

  /** The guard before building a value of `size` items or characters: refused past the limit, its building counted. */
  ensureRoom(size: number, room: Room = 'items'): void {
    this.checkSize(size);
    this.charge(workOf(size, room));
  }

  /** Runs `work` as the render running now. */
  run<T>(work: () => T): T {
    const outer = running;
    running = this;
    try {
      return work();
    } finally {
      running = outer;
    }
  }
}

/** Outside a render nothing is bounded (values printed for a log line, a result parsed). */
const UNBOUNDED = new RenderBudget({ timeMs: Infinity, steps: Infinity, outputChars: Infinity, valueChars: Infinity, depth: Infinity });

let running: RenderBudget | undefined;

/** The budget of the render running now. */
export function budget(): RenderBudget {
  return running ?? UNBOUNDED;
}

/**
 * Text built from many pieces (a repr, JSON, a formatted string), refused as soon as it passes
 * the value limit rather than once it is whole.
 */
export class TextBuilder {
  private readonly parts: string[] = [];
  length = 0;
  private readonly budget = budget();

  add(piece: string): void {
    this.length += piece.length;
    this.budget.checkSize(this.length);
    this.budget.charge(1 + piece.length / CHARS_PER_STEP);
    this.parts.push(piece);
  }

  text(): string {
    return this.parts.join('');
  }
}
