// Unknown words for a list slot, the original's second try for an error message (hassil's open
// unmatched entity): where none of a list's values is said, the slot takes the words up to where
// the template's next words are said, or to the end of the sentence; a number out of a range is
// one unmatched number.
import { digitsValue, inRange, numberFromWords } from './lists.ts';
import { firstEnd, pushCapture, tick, type Capture, type Continuation, type Run } from './match-run.ts';
import type { RangeSpec } from './types.ts';

/**
 * Opens unknown words for a list slot (as the original: only where no value of the list is said).
 * They run to wherever the template's next words are found, or to the end of the sentence, so
 * they never stop inside a name to leave its last words to another slot.
 */
export function openUnmatched(run: Run, start: number, list: string, slot: string, next: Continuation): boolean {
  const capture: Capture = { slot, list, value: null, from: start, to: -1, unmatched: 'words' };
  run.captures.push(capture);
  run.open = capture;
  // the position stays: what follows finds where the unknown words end
  const ok = next(start);
  run.open = null;
  run.captures.pop();
  return ok;
}

/**
 * Ends open unknown words before a later word where what follows them fits (`fits`), and goes on
 * from the space before it (`then`); each such word in turn until one leads to a match.
 */
export function endUnknownWords(run: Run, open: Capture, fits: (at: number) => boolean, then: (position: number) => boolean): boolean {
  const ends = run.input.ends;
  // what follows is matched as usual: the unknown words are closed
  run.open = null;
  try {
    for (let word = 0; word < ends.length - 1; word++) {
      // the unknown words are at least one word
      if (ends[word] <= open.from || !fits(ends[word] + 1)) continue;
      tick(run);
      open.to = ends[word];
      const ok = then(ends[word]);
      open.to = -1;
      if (ok) return true;
    }
    return false;
  } finally {
    run.open = open;
  }
}

/** A number said at `start`, in or out of any range: digits, else up to three number words. */
function numberSaid(run: Run, start: number, range: RangeSpec): { value: number; to: number } | null {
  const ends = run.input.ends;
  const first = firstEnd(run, start);
  const digits = digitsValue(run.text.slice(start, ends[first]), range);
  if (digits !== null) return { value: digits, to: ends[first] };
  for (let last = Math.min(ends.length - 1, first + 2); last >= first; last--) {
    const words = numberFromWords(run.text.slice(start, ends[last]).split(' '));
    if (words !== null) return { value: words, to: ends[last] };
  }
  return null;
}

/**
 * A range slot that took no value: a number out of range is one unmatched number (handed to
 * `atEnd`, which wants a word end); anything else, unknown words.
 */
export function unmatchedNumber(run: Run, start: number, range: RangeSpec, list: string, slot: string, atEnd: Continuation, next: Continuation): boolean {
  const said = numberSaid(run, start, range);
  if (!said) return openUnmatched(run, start, list, slot, next);
  // a number of the range was tried as a value already
  if (inRange(said.value, range)) return false;
  return pushCapture(run, { slot, list, value: said.value, from: start, to: said.to, unmatched: 'range' }, atEnd);
}
