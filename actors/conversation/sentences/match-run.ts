// The state of one sentence being matched against one template, and the small steps every
// matcher takes on it. A template is a chain of matcher closures in continuation-passing style:
// each matcher consumes some of the sentence from a position and calls the rest of the chain
// (its continuation) with where it stopped; backtracking is returning false.
import type { ContextCheck } from './context-check.ts';
import type { PreparedList } from './lists.ts';
import type { NormalizedInput } from './normalize.ts';
import type { DynamicListValue } from './types.ts';

/** Lists given at match time: entity names/aliases, areas, floors (and any other list name). */
export type MatchLists = Record<string, PreparedList | readonly DynamicListValue[] | undefined>;

/** A slot's value found in the sentence. */
export interface Capture {
  slot: string;
  list: string;
  value: unknown;
  /** [start, end) in the normalised input; `to` is -1 while unknown words are still open */
  from: number;
  to: number;
  context?: Record<string, unknown>;
  /** `words`: no value of the list was said there; `range`: a number outside the list's range */
  unmatched?: 'words' | 'range';
}

/** One complete match of a template. */
export interface Found {
  captures: Capture[];
  context: Record<string, unknown>;
  checked: ContextCheck;
  /** template characters matched (spaces not counted) */
  literal: number;
}

/** One sentence being matched. */
export interface Run {
  /** the normalised sentence */
  text: string;
  len: number;
  input: NormalizedInput;
  lists: MatchLists;
  context: Record<string, unknown>;
  captures: Capture[];
  allowUnmatched: boolean;
  steps: number;
  /** template characters matched on the way so far */
  literal: number;
  /** unknown words for a list slot that end where the template's next words are found */
  open: Capture | null;
  /** strict: the first match; with `collect`, every match is handed over and the search goes on */
  found: Found | null;
  collect: ((found: Found) => void) | null;
}

/** The rest of a template after a matcher: called with the position it reached. */
export type Continuation = (position: number) => boolean;
/** Matches part of a template at `position` and hands on to `next`. */
export type Matcher = (run: Run, position: number, next: Continuation) => boolean;

export const SPACE = 32;
const MAX_STEPS = 20_000;
/** Thrown when a template took too many steps on a sentence: it does not match. */
export const BUDGET = { budget: true };

/** Counts one step of matching; past the budget the template is given up. */
export function tick(run: Run): void {
  if (++run.steps > MAX_STEPS) throw BUDGET;
}

/** Where a value may start at `position` (after one space, at a word start), or -1. */
export function valueStart(run: Run, position: number): number {
  if (run.text.charCodeAt(position) === SPACE) position++;
  if (position >= run.len) return -1;
  if (position > 0 && run.text.charCodeAt(position - 1) !== SPACE) return -1;
  return position;
}

/** The index in `ends` of the first word end after `start`. */
export function firstEnd(run: Run, start: number): number {
  const ends = run.input.ends;
  let first = 0;
  while (ends[first] <= start) first++;
  return first;
}

/** Tries the rest of the template with `capture` taken. */
export function pushCapture(run: Run, capture: Capture, next: Continuation): boolean {
  run.captures.push(capture);
  const ok = next(capture.to);
  run.captures.pop();
  return ok;
}

// (closures made per call are returned anonymous: tsx names every named one, a cost in this loop)
/** `next`, only where a word ends. */
export function atWordEnd(run: Run, next: Continuation): Continuation {
  return (end) => (end === run.len || run.text.charCodeAt(end) === SPACE) && next(end);
}
